"""What a name under the cursor refers to, and where that is declared.

Input: an `Analysis` (tri.lsp.analysis) and an offset into its text.  Output: a `Target`
-- a module, a function, struct, constant or event of some loaded module, or a local
variable -- with the file, text and span where its name is declared.

Names resolve as the checker resolves them, through its symbol tables: `m.f` looks `f`
up in module `m` with `compiler.check.symbols.lookup_qualified` (an import by full path
or by its last segment, a legacy alias, a module loaded but not imported); a plain name is
a local variable in scope at the cursor (a parameter, a `let`, a loop variable) unless it
is called, then a function, struct, constant or event of the file's own module; the path
of a `use` line is the module it imports.  A local's type comes from the checker's table
of expression types for the function instance around it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from compiler.check.resolve import canonical_module_name
from compiler.check.symbols import ModuleScope, lookup_qualified
from compiler.check.types import U32, TupleType
from compiler.syntax import ast
from compiler.syntax.ast import NO_SPAN, Span
from compiler.syntax.formatter import type_text
from tri.lsp.analysis import Analysis, Tables
from tri.lsp.positions import DottedWord, SourceText, dotted_word_at

# (the symbol table's kind, what a target of it is called, the keyword that declares it)
KINDS = (
    ("functions", "function", "fn"),
    ("constants", "constant", "const"),
    ("structs", "struct", "struct"),
    ("events", "event", "event"),
)
KEYWORD = {label: keyword for _, label, keyword in KINDS}
_CALLED = re.compile(r"[ \t]*(<[^<>\n]*>[ \t]*)?\(")


@dataclass(frozen=True)
class Target:
    kind: str  # "module", "function", "constant", "struct", "event" or "variable"
    name: str
    path: Path  # the file that declares it
    text: str  # that file's text
    span: Span  # where its name is declared (NO_SPAN: the file as a whole, a module)
    node: object = None  # the item, or the parameter, `let` or `for` that binds a local
    module: str | None = None  # the module that declares it
    type: str | None = None  # a local variable's type, as the checker has it


def target_at(analysis: Analysis, offset: int) -> tuple[Target, DottedWord] | None:
    """What the name at `offset` refers to, and the name itself."""
    word = dotted_word_at(analysis.text, offset)
    tables = analysis.tables
    if word is None or tables is None:
        return None
    scope = tables.scopes.get(analysis.entry_name)
    if scope is None:
        return None
    for use in scope.source.uses:
        start, end = analysis.source.span_offsets(use.span)
        if start <= offset < end:
            target = module_target(analysis, canonical_module_name(use.path))
            return (target, word) if target is not None else None
    target = _qualified(analysis, tables, scope, word)
    if target is None:
        target = _plain(analysis, tables, scope, word)
    return (target, word) if target is not None else None


def module_target(analysis: Analysis, name: str) -> Target | None:
    found = analysis.module_text(name)
    if found is None:
        return None
    path, text = found
    return Target("module", name, path, text, NO_SPAN, module=name)


def imported_module(tables: Tables, scope: ModuleScope, written: str) -> str | None:
    """The module a path written in `scope` names: an import by its full (or legacy)
    name, or by its last segment."""
    full = canonical_module_name(written)
    if full in scope.imports and full in tables.scopes:
        return full
    if "." not in written:
        aliases = [m for m in scope.imports if m.rsplit(".", 1)[-1] == written]
        aliases = [m for m in aliases if m in tables.scopes]
        if aliases:
            return aliases[0]
    return None


def _qualified(analysis, tables, scope, word: DottedWord) -> Target | None:
    if word.index + 1 < len(word.parts):
        module = imported_module(tables, scope, word.path)
        if module is not None:
            return module_target(analysis, module)
    if word.index == 0:
        return None
    prefix = ".".join(word.parts[: word.index])
    for kind, label, _ in KINDS:
        found = lookup_qualified(tables.scopes, scope, prefix, word.name, kind)
        owner = found.module
        item = found.item or (owner.item(kind, word.name) if owner is not None else None)
        if item is not None:  # a private item too: the checker says it is private
            return item_target(analysis, owner, item, label)
    return None


def _plain(analysis, tables, scope, word: DottedWord) -> Target | None:
    called = len(word.parts) == 1 and _CALLED.match(analysis.text, word.end) is not None
    if not called:
        local = local_target(analysis, tables, scope, word)
        if local is not None:
            return local
    if word.index > 0:  # a field of something that is not a local
        return None
    for kind, label, _ in KINDS:
        item = scope.item(kind, word.name)
        if item is not None:
            return item_target(analysis, scope, item, label)
    return None


def item_target(analysis: Analysis, owner: ModuleScope, item, label: str) -> Target:
    found = analysis.module_text(owner.name)
    path, text = found if found is not None else (Path(owner.path), "")
    span = declared_name_span(text, item, KEYWORD[label])
    return Target(label, item.name, path, text, span, item, owner.name)


def declared_name_span(text: str, item, keyword: str) -> Span:
    """Where `keyword NAME` names the item (the start of the item if it cannot be found)."""
    source = SourceText(text)
    line_start = source.compiler_offset(item.span.line, 1)
    pattern = re.compile(rf"\b{keyword}\s+({re.escape(item.name)})\b")
    match = pattern.search(text, line_start)
    if match is None:
        return Span(item.span.line, item.span.column, item.span.line, item.span.column)
    line, column = source.compiler_place(match.start(1))
    return Span(line, column, line, column + len(item.name) - 1)


# --- local variables -------------------------------------------------------------------------


def enclosing_function(source: ast.SourceFile, line: int) -> ast.Function | None:
    for item in source.items:
        if isinstance(item, ast.Function) and item.span.line <= line <= item.span.end_line:
            return item
    return None


def instance_of(tables: Tables, function: ast.Function):
    """The first checked instance of `function` (a generic function may have several)."""
    return next((i for i in tables.instances.values() if i.function is function), None)


def local_target(analysis: Analysis, tables: Tables, scope, word: DottedWord) -> Target | None:
    """The local variable the first part of `word` names, where the cursor is."""
    place = analysis.source.compiler_place(word.start)
    function = enclosing_function(scope.source, place[0])
    if function is None:
        return None
    binding = binding_of(function, word.parts[0], place, analysis.source)
    if binding is None:
        return None
    node, span = binding
    instance = instance_of(tables, function)
    name, type_ = word.parts[0], _binding_type(node, word.parts[0], function, instance)
    use = _variable_at(function, place) if instance is not None else None
    if use is not None and word.index == len(word.parts) - 1:  # `x`, or the field in `p.x`
        found = instance.types.get(use)
        if found is not None:
            name, type_ = use.path, str(found)
    return Target("variable", name, analysis.path, analysis.text, span, node, type=type_)


def _variable_at(function: ast.Function, place: tuple[int, int]) -> ast.Var | None:
    """The `Var` expression whose name the cursor is on."""
    for node in _nodes(function.body):
        span = getattr(node, "span", None)
        if isinstance(node, ast.Var) and span.line == place[0]:
            if span.column <= place[1] <= span.end_column:
                return node
    return None


def _nodes(value):
    """Every syntax node in a tree, parents first."""
    if isinstance(value, list | tuple):
        for item in value:
            yield from _nodes(item)
    elif hasattr(value, "__dataclass_fields__") and not isinstance(value, Span):
        yield value
        for item in vars(value).values():
            yield from _nodes(item)


def binding_of(function: ast.Function, name: str, place, source: SourceText):
    """(the parameter, `let` or `for` that binds `name` where `place` is, the span of the
    name there), or None."""
    found = None
    for param in function.params:
        if param.name == name:
            line, column = param.span.line, param.span.column
            found = (param, Span(line, column, line, column + len(name) - 1))
    if function.body is not None:
        found = _visible(function.body, name, place, source, found)
    return found


def _visible(block: ast.Block, name: str, place, source: SourceText, found):
    for statement in block.statements:
        if (statement.span.line, statement.span.column) > place:
            break
        if isinstance(statement, ast.Let) and _before(statement.span, place):
            span = _pattern_name_span(statement.pattern, name, source)
            if span is not None:
                found = (statement, span)
        for inner in _blocks(statement):
            if inner.span.line <= place[0] <= inner.span.end_line:
                if isinstance(statement, ast.For) and statement.variable == name:
                    span = _word_after(source, statement.span, "for", name)
                    found = (statement, span)
                found = _visible(inner, name, place, source, found)
    return found


def _before(span: Span, place) -> bool:
    """Whether the statement at `span` ends before `place`."""
    if span.end_line != place[0]:
        return span.end_line < place[0]
    return span.line == span.end_line and span.end_column < place[1]


def _blocks(statement) -> list[ast.Block]:
    match statement:
        case ast.If():
            return [b for b in (statement.then_block, statement.else_block) if b is not None]
        case ast.For():
            return [statement.body]
        case ast.Match():
            return [arm.body for arm in statement.arms]
    return []


def _pattern_name_span(pattern, name: str, source: SourceText) -> Span | None:
    match pattern:
        case ast.PatternName(name=bound) if bound == name:
            return pattern.span
        case ast.PatternTuple(names=names) if name in names:
            return _word_after(source, pattern.span, "", name)
    return None


def _word_after(source: SourceText, span: Span, keyword: str, name: str) -> Span:
    """The span of `name` (after `keyword`) at or after the start of `span`."""
    start = source.compiler_offset(span.line, span.column)
    lead = rf"\b{keyword}\s+" if keyword else r"\b"
    match = re.compile(rf"{lead}({re.escape(name)})\b").search(source.text, start)
    if match is None:
        return Span(span.line, span.column, span.line, span.column)
    line, column = source.compiler_place(match.start(1))
    return Span(line, column, line, column + len(name) - 1)


def _binding_type(node, name: str, function: ast.Function, instance) -> str | None:
    """The type of the local `name` that `node` binds."""
    match node:
        case ast.Param():
            if instance is not None:
                for param_name, type_ in instance.params:
                    if param_name == name and type_ is not None:
                        return str(type_)
            return type_text(node.type)
        case ast.For():
            return str(U32)  # the checker binds every loop variable as a U32
        case ast.Let():
            if node.type is not None and isinstance(node.pattern, ast.PatternName):
                return type_text(node.type)
            found = None if instance is None else instance.types.get(node.value)
            if isinstance(node.pattern, ast.PatternTuple) and isinstance(found, TupleType):
                index = node.pattern.names.index(name)
                if index < len(found.elements):
                    return str(found.elements[index])
                return None
            return None if found is None else str(found)
    return None
