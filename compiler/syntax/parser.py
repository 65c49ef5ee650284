"""Parser: source text -> `SourceFile` AST, or a `CompileError` with one diagnostic.

The grammar is `grammar.lark` (LALR, contextual lexer).  The parser tables are
built once per process.  Comments are collected (with their line numbers) for
the formatter.  Syntax errors point at the offending token and say what was
expected, in source terms rather than lark's terminal names.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from pathlib import Path

from lark import Lark, Token
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from compiler.diagnostics import CompileError, error
from compiler.syntax import ast
from compiler.syntax.ast import Span
from compiler.syntax.habits import habit_at
from compiler.syntax.lalr import REJECTED, FastParser

GRAMMAR = Path(__file__).with_name("grammar.lark")
_COMMENT = re.compile(r"//[^\n]*")
P = 2**64 - 2**32 + 1

KEYWORDS = frozenset(
    "program module use fn pub sec let mut const struct if else for in bounded return "
    "true false event reveal seal match asm".split()
)
TYPE_KEYWORDS = frozenset({"Field", "XField", "Bool", "U32", "Digest"})

# Terminal names as a user would write them, for "expected ..." messages.
_READABLE = {
    "LBRACE": "'{'",
    "RBRACE": "'}'",
    "LPAR": "'('",
    "RPAR": "')'",
    "LSQB": "'['",
    "RSQB": "']'",
    "COMMA": "','",
    "COLON": "':'",
    "SEMICOLON": "';'",
    "DOT": "'.'",
    "EQUAL": "'='",
    "MORETHAN": "'>'",
    "LESSTHAN": "'<'",
    "PLUS": "'+'",
    "STAR": "'*'",
    "NAME": "a name",
    "INT": "an integer",
    "CALLEE": "a function call",
    "STRUCT_PATH": "a struct literal",
    "WILD": "'_'",
    "TRUE": "'true'",
    "FALSE": "'false'",
    "MUT": "'mut'",
    "PUB": "'pub'",
    "ASM": "an asm block",
    "IO_KW": "'input' or 'output'",
    "ATTR_ARGS": "attribute arguments",
    "__ANON_0": "'->'",
    "__ANON_1": "'..'",
    "$END": "end of file",
}


@cache
def _lark() -> Lark:
    """The lark parser, its tables built once and cached on disk by lark.

    Only its tables and lexers are used on source that parses (by
    `FastParser`, which builds the AST as it goes); lark itself parses only
    text the fast driver rejected, to raise the error diagnostics describe.
    """
    return Lark(
        GRAMMAR.read_text(),
        parser="lalr",
        lexer="contextual",
        propagate_positions=False,
        maybe_placeholders=True,
        cache=True,
    )


def _reducer(builder: _Builder):
    """`reducer(rule)` for `FastParser`: what to do when lark's `rule` is reduced.

    It does what lark's own tree builder would (drop anonymous tokens, insert
    None for an absent `[optional]`, splice inlined `_rules` into their parent,
    pass a `?rule`'s single child through) and calls the builder method named
    by the rule or its alias, with the span from its first symbol to its last.
    """

    def for_rule(rule):
        expansion = rule.expansion
        nones = [0] * (len(expansion) + 1)
        if rule.options.empty_indices:  # absent [optional] symbols, as lark records them
            runs = "".join("1" if empty else "0" for empty in rule.options.empty_indices)
            nones = [len(run) for run in runs.split("0")]
        plan = []  # (symbol index, splice?, Nones to insert before it)
        pending = 0
        for index, symbol in enumerate(expansion):
            pending += nones[index]
            if not (symbol.is_term and symbol.filter_out):
                plan.append((index, not symbol.is_term and symbol.name.startswith("_"), pending))
                pending = 0
        trailing = pending + nones[-1]

        if rule.options.expand1 and not rule.alias:  # `?rule`: one kept symbol, passed on
            if len(plan) != 1 or plan[0][1] or plan[0][2] or trailing:
                raise ValueError(f"unsupported ?rule shape: {rule}")
            kept = plan[0][0]
            return None if len(expansion) == 1 else lambda values, first, last: values[kept]

        children = _children(plan, trailing, len(expansion))
        name = rule.alias or rule.origin.name
        if name.startswith("_"):  # inlined: its children join its parent's
            return lambda values, first, last: children(values)
        method = getattr(builder, name)

        def reduce(values, first, last):
            span = Span(first[0], first[1], last[2], max(last[3] - 1, first[1]))
            return method(span, children(values))

        return reduce

    return for_rule


def _children(plan, trailing: int, size: int):
    """The function from a rule's symbol values to the children its builder method takes."""
    if not trailing and not any(splice or before for _, splice, before in plan):
        indices = [index for index, _, _ in plan]
        if indices == list(range(size)):
            return lambda values: values  # a fresh slice of the value stack
        return lambda values: [values[index] for index in indices]
    # A left-recursive `_rule` (x* and x+ expand to them) extends its own list in
    # place: each value is consumed once, and copying would make a list of n cost n².
    reuse = bool(plan) and plan[0][1] and not plan[0][2]
    rest = plan[1:] if reuse else plan

    def children(values):
        result = values[plan[0][0]] if reuse else []
        for index, splice, before in rest:
            if before:
                result += [None] * before
            if splice:
                result += values[index]
            else:
                result.append(values[index])
        if trailing:
            result += [None] * trailing
        return result

    return children


@cache
def _parser() -> tuple[Lark, FastParser, _Builder]:
    """lark's parser (for error messages) and the fast driver that builds the AST."""
    instance = _lark()
    builder = _Builder()
    kept = frozenset(
        symbol.name
        for rule in instance.rules
        for symbol in rule.expansion
        if symbol.is_term and not symbol.filter_out
    )
    return instance, FastParser(instance, _reducer(builder), kept), builder


PRECEDENCE = {"==": 1, "<": 2, "+": 3, "*": 4, "*.": 4, "&": 5, "^": 5, "/%": 6}


def _climb(operands: list, operators: list[str]):
    """Precedence climbing over a flat operand/operator list."""
    position = 0

    def parse_level(minimum: int):
        nonlocal position
        left = operands[position]
        while position < len(operators) and PRECEDENCE[operators[position]] >= minimum:
            operator = operators[position]
            position += 1
            right = parse_level(PRECEDENCE[operator] + 1)
            span = Span(
                left.span.line, left.span.column, right.span.end_line, right.span.end_column
            )
            left = ast.Binary(operator, left, right, span)
        return left

    return parse_level(1)


def _token_span(token: Token) -> Span:
    return Span(token.line, token.column, token.end_line, max(token.end_column - 1, token.column))


class _Builder:
    """Builds AST dataclasses, one method per grammar rule (or alias).

    Each method takes the rule's span and its kept children: tokens, the
    values of child rules, and None for an absent optional part.
    """

    def __init__(self):
        self.too_large: list[ast.IntLiteral] = []  # literals >= p seen in this parse

    # --- file structure
    def start(self, span, children):
        header, *rest = children
        kind, name, name_span = header
        uses = [c for c in rest if isinstance(c, ast.Use)]
        io = [c for c in rest if isinstance(c, ast.IoDeclaration)]
        items = [c for c in rest if not isinstance(c, ast.Use | ast.IoDeclaration)]
        return ast.SourceFile(kind, name, uses, io, items, span=span, name_span=name_span)

    def program_header(self, span, children):
        return ("program", str(children[0]), _token_span(children[0]))

    def module_header(self, span, children):
        return ("module", children[0][0], children[0][1])

    def use_decl(self, span, children):
        return ast.Use(children[0][0], span)

    def dotted(self, span, children):
        return (".".join(str(c) for c in children), span)

    def pub_io(self, span, children):
        return ast.IoDeclaration(f"pub {children[1]}", span)

    def sec_input(self, span, children):
        return ast.IoDeclaration("sec input", span)

    def sec_ram(self, span, children):
        return ast.IoDeclaration("sec ram", span)

    def item(self, span, children):
        attributes = [c for c in children if isinstance(c, ast.Attribute)]
        public = any(isinstance(c, Token) and c.type == "PUB" for c in children)
        definition = children[-1]
        definition.attributes = attributes
        if hasattr(definition, "public"):
            definition.public = public
        return definition

    def attribute(self, span, children):
        argument = str(children[1])[1:-1].strip() if children[1] is not None else None
        return ast.Attribute(str(children[0]), argument, span)

    def fn_def(self, span, children):
        name, size_parameters, *params, return_type, body = children
        params = [p for p in params if p is not None]
        return ast.Function(
            str(name), False, [], size_parameters or [], params, return_type, body, span
        )

    def size_params(self, span, children):
        return [str(c) for c in children]

    def param(self, span, children):
        return ast.Param(str(children[0]), children[1], span)

    def const_def(self, span, children):
        return ast.Const(str(children[0]), False, [], children[1], children[2], span)

    def struct_def(self, span, children):
        fields = [c for c in children[1:] if c is not None]
        return ast.Struct(str(children[0]), False, [], fields, span)

    def sfield(self, span, children):
        public, name, type_ = children
        return ast.StructField(str(name), type_, public is not None, span)

    def event_def(self, span, children):
        fields = [c for c in children[1:] if c is not None]
        return ast.Event(str(children[0]), [], fields, span)

    def efield(self, span, children):
        return ast.StructField(str(children[0]), children[1], False, span)

    # --- types
    def _named(name):
        def build(self, span, children):
            return ast.NamedType(name, span)

        return build

    t_field = _named("Field")
    t_xfield = _named("XField")
    t_bool = _named("Bool")
    t_u32 = _named("U32")
    t_digest = _named("Digest")

    def t_named(self, span, children):
        return ast.NamedType(".".join(children), span)

    def t_array(self, span, children):
        return ast.ArrayType(children[0], children[1], span)

    def t_tuple(self, span, children):
        if len(children) == 1:
            return children[0]
        return ast.TupleType(list(children), span)

    def size_sum(self, span, children):
        return self._fold("+", children, span)

    def size_product(self, span, children):
        return self._fold("*", children, span)

    def _fold(self, operator, children, span):
        result = children[0]
        for child in children[1:]:
            result = ast.SizeBinary(operator, result, child, span)
        return result

    def size_literal(self, span, children):
        return ast.SizeLiteral(int(children[0]), span)

    def size_name(self, span, children):
        return ast.SizeName(str(children[0]), span)

    # --- statements
    def block(self, span, children):
        return ast.Block(list(children), span)

    def let_stmt(self, span, children):
        mutable, pattern, type_, value = children
        return ast.Let(mutable is not None, pattern, type_, value, span)

    def pat_name(self, span, children):
        return ast.PatternName(str(children[0]), span)

    def pat_wild(self, span, children):
        return ast.PatternWild(span)

    def pat_tuple(self, span, children):
        names = [None if str(c) == "_" else str(c) for c in children]
        return ast.PatternTuple(names, span)

    def assign_stmt(self, span, children):
        return ast.Assign(children[0], children[1], span)

    def if_stmt(self, span, children):
        condition, then_block, otherwise = children
        if isinstance(otherwise, ast.If):
            otherwise = ast.Block([otherwise], otherwise.span)
        return ast.If(condition, then_block, otherwise, span)

    def for_stmt(self, span, children):
        variable, start, end, bound, body = children
        name = None if str(variable) == "_" else str(variable)
        return ast.For(name, start, end, int(bound) if bound is not None else None, body, span)

    def match_stmt(self, span, children):
        return ast.Match(children[0], list(children[1:]), span)

    def arm(self, span, children):
        return ast.MatchArm(children[0], children[1], span)

    def mpat_int(self, span, children):
        return int(children[0])

    def mpat_true(self, span, children):
        return True

    def mpat_false(self, span, children):
        return False

    def mpat_wild(self, span, children):
        return None

    def mpat_struct(self, span, children):
        return (str(children[0]), [c for c in children[1:] if c is not None])

    def fpat(self, span, children):
        return (str(children[0]), str(children[1]) if children[1] is not None else None)

    def return_stmt(self, span, children):
        return ast.Return(children[0], span)

    def reveal_stmt(self, span, children):
        return ast.Emit("reveal", str(children[0]), [c for c in children[1:] if c], span)

    def seal_stmt(self, span, children):
        return ast.Emit("seal", str(children[0]), [c for c in children[1:] if c], span)

    def asm_stmt(self, span, children):
        return ast.Asm(str(children[0]), span)

    def expr_stmt(self, span, children):
        return ast.ExprStatement(children[0], span)

    # --- expressions
    def binary(self, span, children):
        """Group a flat `operand (operator operand)*` list by precedence, left-associative."""
        operands, operators = children[0::2], [str(token) for token in children[1::2]]
        return _climb(operands, operators)

    def index(self, span, children):
        return ast.Index(children[0], children[1], span)

    def int_lit(self, span, children):
        literal = ast.IntLiteral(int(children[0]), span)
        if literal.value >= P:
            self.too_large.append(literal)
        return literal

    def true_lit(self, span, children):
        return ast.BoolLiteral(True, span)

    def false_lit(self, span, children):
        return ast.BoolLiteral(False, span)

    def call(self, span, children):
        callee, size_arguments, *arguments = children
        arguments = [a for a in arguments if a is not None]
        return ast.Call(str(callee), size_arguments or [], arguments, span)

    def gargs(self, span, children):
        return list(children)

    def struct_lit(self, span, children):
        fields = [c for c in children[1:] if c is not None]
        return ast.StructLiteral(str(children[0]), fields, span)

    def finit(self, span, children):
        name, value = children
        if value is None:
            value = ast.Var(str(name), _token_span(name))
        return (str(name), value)

    def var(self, span, children):
        return ast.Var(".".join(children), span)

    def tuple(self, span, children):
        return ast.TupleExpr([c for c in children if c is not None], span)

    def array(self, span, children):
        return ast.ArrayExpr([c for c in children if c is not None], span)


@lru_cache(maxsize=1024)
def parse(text: str, path: str = "<input>") -> ast.SourceFile:
    """Parse one source file; raise `CompileError` on a syntax error.

    Results are cached by (text, path): a library module imported by many
    programs is parsed once per process.  Callers must not mutate the AST.
    """
    instance, fast, builder = _parser()
    builder.too_large = []
    try:
        source = fast.parse(text)
        if source is REJECTED:  # let lark find the error and say what it expected
            instance.parse(text)
            raise AssertionError("lark accepts a text the fast parser rejected")
    except UnexpectedInput as problem:
        raise CompileError([_syntax_diagnostic(problem, text, path)]) from None
    except RecursionError:
        message = "the source is nested too deeply to compile"
        raise CompileError([error("E0006", message, path, Span(1, 1, 1, 1))]) from None
    if builder.too_large:
        raise CompileError(
            [
                error(
                    "E0005", f"integer literal {literal.value} is not below p", path, literal.span
                )
                for literal in builder.too_large
            ]
        )
    crowded = _crowded_line(source, text, path)
    if crowded is not None:
        raise CompileError([crowded])
    source.path = path
    source.comments = [
        (text.count("\n", 0, match.start()) + 1, match.group()) for match in _COMMENT.finditer(text)
    ]
    return source


def _syntax_diagnostic(problem: UnexpectedInput, text: str, path: str):
    line, column = getattr(problem, "line", 1) or 1, getattr(problem, "column", 1) or 1
    lines = text.splitlines()
    habit = habit_at(lines[line - 1], column) if 1 <= line <= len(lines) else None
    if isinstance(problem, UnexpectedCharacters):
        character = text[problem.pos_in_stream] if problem.pos_in_stream < len(text) else ""
        span = Span(line, column, line, column)
        if habit is not None:
            return error("E0002", habit.message, path, span, habit.hint)
        if character == "-":
            return error(
                "E0003", "there is no '-' operator", path, span, "write sub(a, b) or neg(a)"
            )
        if character == "/":
            return error(
                "E0004", "there is no '/' operator", path, span, "use a /% b for u32 division"
            )
        return error("E0002", f"unexpected character {character!r}", path, span)
    if isinstance(problem, UnexpectedToken):
        token = problem.token
        expected = sorted({_READABLE.get(name, f"'{name.lower()}'") for name in problem.expected})
        found = "end of file" if token.type == "$END" else repr(str(token))
        if token.type == "$END":
            unclosed = _unclosed_brace(text, path)
            if unclosed is not None:
                return unclosed
            line, column = _end_position(text)
        span = Span(line, column, line, column + max(len(str(token)), 1) - 1)
        if habit is not None and token.type != "$END":
            return error("E0001", habit.message, path, span, habit.hint)
        if column == 1 and str(token) in _ITEM_WORDS:  # an item inside a block: a `}` is missing
            before = text[: getattr(problem, "pos_in_stream", 0) or 0]
            unclosed = _unclosed_brace(before, path, f"line {line} starts the next item")
            if unclosed is not None:
                return unclosed
        message = f"unexpected {found}"
        before = text[: getattr(problem, "pos_in_stream", 0) or 0]
        misread = _MISREAD_CONDITION.search(before) if token.type != "$END" else None
        if misread is not None:  # docs/reference.md, Struct literals and conditions
            keyword, head = misread.group("keyword"), " ".join(misread.group("head").split())
            literal = " ".join((misread.group("name") + misread.group("body")).split())
            message += f": `{literal}` after `{keyword}` was read as a struct literal"
            hint = f"put the condition in parentheses: {keyword} ({head}) {{ ... }}"
            if keyword == "for":  # the range's end
                name = misread.group("name")
                hint = f"put the range's end in parentheses: for {head[: -len(name)]}({name}) {{"
            return error("E0001", message, path, span, hint)
        if expected and len(expected) <= 8:
            message += f"; expected {', '.join(expected)}"
        return error("E0001", message, path, span)
    if isinstance(problem, UnexpectedEOF):
        unclosed = _unclosed_brace(text, path)
        if unclosed is not None:
            return unclosed
        line, column = _end_position(text)
        return error("E0001", "unexpected end of file", path, Span(line, column, line, column))
    return error("E0001", str(problem).splitlines()[0], path, Span(line, column, line, column))


def _crowded_line(source, text: str, path: str):
    """A value that stands beside the statement before it, on the line where that one
    ends: the grammar needs no separator, so `let a: Field = 0x10` parses as `let a = 0`
    and a statement `x10`, and `let b: Field = 1 2` as `let b = 1` and `2`.  Such an
    expression statement (one that is not a call) is a syntax error, with the habit it
    looks like (a hex literal, a digit separator, a suffix, `as`) when there is one.
    Statements of other kinds may share a line (`a = 1 b = 2`), as whitespace is
    otherwise free, and so may the value of a block written on one line
    (`{ let x = 1 x }`).  The first such value, or None."""
    lines = text.splitlines()
    first = None
    for node in _walk(source):
        if not isinstance(node, ast.Block):
            continue
        for before, after in zip(node.statements, node.statements[1:]):
            beside = after.span.line == before.span.end_line
            value = isinstance(after, ast.ExprStatement) and not isinstance(after.expr, ast.Call)
            one_line_tail = after is node.statements[-1] and node.span.end_line == after.span.line
            if (
                beside
                and value
                and not one_line_tail
                and (first is None or after.span[:2] < first.span[:2])
            ):
                first = after
    if first is None:
        return None
    line, column = first.span.line, first.span.column
    text_line = lines[line - 1] if line <= len(lines) else ""
    word = re.match(r"\w*", text_line[column - 1 :]).group() or text_line[column - 1 : column]
    span = Span(line, column, line, column + max(len(word), 1) - 1)
    habit = habit_at(text_line, column)
    if habit is not None:
        return error("E0001", habit.message, path, span, habit.hint)
    return error(
        "E0001",
        "a value beside the statement before it",
        path,
        span,
        "join the values with an operator, or put a statement of its own on its own line",
    )


_CLOSING = {"{": "}", "(": ")", "[": "]"}
# a condition ending in a capitalized name, then a block the grammar read as that name's
# struct literal (`if x == LIMIT { x }`), just before the token the parser stopped at
_MISREAD_CONDITION = re.compile(
    r"\b(?P<keyword>if|match|for)\b(?P<head>[^{};]*?(?<!\w)(?<!\w\.)(?P<name>(?:[a-z_]\w*\.)*[A-Z]\w*))"
    r"(?P<body>\s*\{[^{}]*\})\s*$"
)
_ITEM_WORDS = ("fn", "pub", "struct", "const", "event", "use", "sec", "hash", "#")


def _unclosed_brace(text: str, path: str, ends: str = ""):
    """The file ended inside a bracket: E0001 at the bracket whose closer is missing, or
    None when every bracket is closed.  Brackets pair up innermost first, so a missing
    `}` of an inner block takes its outer block's `}`; when a pair's closer is indented
    differently from its opener's line, the first such opener is the one left open, as
    the indentation says (else the innermost bracket never closed)."""
    open_at: list[tuple[str, int, int, int]] = []  # (bracket, line, column, its indentation)
    misindented = None
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        code = _COMMENT.sub("", line)
        indentation = len(line) - len(line.lstrip())
        for column, character in enumerate(code, start=1):
            if character in _CLOSING:
                open_at.append((character, number, column, indentation))
            elif character in _CLOSING.values():
                if not open_at or _CLOSING[open_at[-1][0]] != character:
                    return None  # a stray closer: the parser's own message says more
                opened = open_at.pop()
                first_on_line = code[: column - 1].strip() == ""
                if first_on_line and opened[1] != number and opened[3] != indentation:
                    misindented = misindented or opened
    if not open_at:
        return None
    bracket, line, column, _ = misindented or open_at[-1]
    closing = _CLOSING[bracket]
    message = (
        f"this '{bracket}' is never closed: "
        f"{ends or f'the file ends at line {len(lines)}'} before its '{closing}'"
    )
    hint = f"add the '{closing}' that closes it"
    return error("E0001", message, path, Span(line, column, line, column), hint)


def _end_position(text: str) -> tuple[int, int]:
    lines = text.splitlines() or [""]
    return len(lines), len(lines[-1]) + 1


def _walk(value):
    """Every AST node below `value`, depth first."""
    stack = [value]
    while stack:
        current = stack.pop()
        if isinstance(current, list | tuple):
            stack.extend(current)
        elif hasattr(current, "__dataclass_fields__") and not isinstance(current, Span):
            yield current
            stack.extend(getattr(current, name) for name in current.__dataclass_fields__)


walk = _walk
