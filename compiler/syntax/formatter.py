"""The canonical formatter (`tri fmt`): source text -> the same program in the one house style.

Input: the text of one `.tri` file (parsed with `compiler.syntax.parser.parse`; a syntax error
raises `CompileError`).  Output: the formatted text, which parses to the same AST (spans and
comments aside) and formats to itself again.

The style:
* 4-space indentation, one statement per line, blocks always multi-line except empty ones (`{}`);
  `} else if c {` chains on one line (an `else { if ... }` with nothing else in it and no comment
  beside the inner `if` is written that way too).
* The header, then the `use` lines, then the I/O declarations, then the items, with one blank line
  between these groups and between items (consecutive `const` items may stay together: between
  them a blank line is kept only where the source had one); attributes on their own lines above
  their item.
* Spaces around binary operators, `=`, `->` and `=>`; `a: T` everywhere; `for i in a..b bounded N`.
* Parentheses where the precedence table (`PRECEDENCE` in `compiler.syntax.parser`: every
  binary operator is left-associative) needs them, and around a comparison that is an operand
  of a comparison: `(x < y) == false`, `(a == b) == c`, `a == (b < c)`.  The parser reads
  `x < y == false` as the same tree, but without them the text reads like a chained comparison
  (`x < y and y == false`, or `x < (y == false)`), which the language does not have, so the
  text keeps comparisons apart.  Two more exceptions: in a line that holds a generic call
  `f<N>(...)`, the left operand of `<` is parenthesized when it ends in a name, so the lexer
  cannot read `a < f<N>(` as a generic call of `a`; and an expression statement or an
  assignment target that starts with `[` (an array literal, a block's value, an index into
  one) stays in parentheses, since after another statement `[` would index that statement's
  value.
* Struct literals and `reveal`/`seal` as `P { x: 1, y }` (`x: x` is written as the shorthand `x`);
  one-line lists have no trailing comma.  Struct and event definitions put one field per line,
  each followed by a comma.  Match arms are not followed by a comma, except an arm followed by
  a struct-pattern arm (the parser needs the comma there).
* Lines longer than 100 columns are broken where the syntax allows, outermost construct first:
  a call's arguments, an array's or tuple's elements and a struct literal's (or `reveal`/`seal`'s)
  fields go one per line, each followed by a comma, with the closing bracket on its own line; a
  chain of binary operators goes one operand per line, each continuation line starting with its
  operator.  Each part is broken again if it is still too long (a parenthesized operand inside
  its parentheses, its own continuation lines one level deeper).  A function's parameter list is
  broken the same way when the signature is too long or a comment sits inside it.  Headers of
  `if`, `for` and `match`, and names too long by themselves, are never broken.
* `asm` blocks, attribute arguments and I/O declarations are copied verbatim (the AST keeps only
  the kind of an I/O declaration, so its source text is reused).

Comments: every comment is kept, in order.  A comment on its own line stays on its own line
before the next statement, item, field or arm (or before the closing `}`), at that indentation.
A comment after code stays after the code that ends its line.  A comment inside a construct that
is printed on one line (an expression, a signature) moves to its own line before the construct.
Blank lines: at most one, kept where the source had at least one between two statements, fields,
arms, comments or `use` lines; never at the start or end of a block.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

from compiler.diagnostics import CompileError, error
from compiler.syntax import ast
from compiler.syntax.parser import PRECEDENCE, parse, walk

INDENT = "    "
MAX_WIDTH = 100
POSTFIX = 7  # indexing `e[i]`
ATOM = 8  # literals, names, calls, tuples, arrays, struct literals
SIZE_PRECEDENCE = {"+": 1, "*": 2}
_ENDS_IN_NAME = re.compile(r"[A-Za-z0-9_]$")
_NEVER = 10**9  # a line number after every line


def format_source(text: str, path: str = "<input>") -> str:
    """The canonical form of `text`; raises `CompileError` if it does not parse."""
    source = parse(text, path)
    try:
        return _Printer(text, source).source_file()
    except RecursionError:
        message = "the source is nested too deeply to format"
        raise CompileError([error("E0006", message, path, ast.Span(1, 1, 1, 1))]) from None


# --- expressions and types -------------------------------------------------------------------


def type_text(type_: ast.TypeExpr) -> str:
    match type_:
        case ast.NamedType(name=name):
            return name
        case ast.ArrayType(element=element, size=size):
            return f"[{type_text(element)}; {size_text(size)}]"
        case ast.TupleType(elements=elements):
            return "(" + ", ".join(type_text(element) for element in elements) + ")"
    raise TypeError(f"not a type: {type_!r}")


def size_text(size: ast.SizeExpr, minimum: int = 0) -> str:
    match size:
        case ast.SizeLiteral(value=value):
            return str(value)
        case ast.SizeName(name=name):
            return name
        case ast.SizeBinary(operator=operator, left=left, right=right):
            level = SIZE_PRECEDENCE[operator]
            text = f"{size_text(left, level)} {operator} {size_text(right, level + 1)}"
            return f"({text})" if level < minimum else text
    raise TypeError(f"not a size: {size!r}")


def expression_text(expr: ast.Expr, guard_less_than: bool = False) -> str:
    """`expr` with the fewest parentheses; `guard_less_than`: see the module docstring."""
    return _operand(expr, 0, guard_less_than)


def _precedence(expr: ast.Expr) -> int:
    match expr:
        case ast.Binary(operator=operator):
            return PRECEDENCE[operator]
        case ast.Index():
            return POSTFIX
    return ATOM


def _operand(expr: ast.Expr, minimum: int, guard: bool) -> str:
    text = _expression(expr, guard)
    return f"({text})" if _precedence(expr) < minimum else text


COMPARISONS = frozenset({"==", "<"})


def _parenthesized(operand: ast.Expr, operator: str, right: bool) -> bool:
    """Whether `operand`, the left or right operand of a binary `operator`, is written in
    parentheses: when the precedence table needs them (all operators are left-associative,
    so a right operand at the same level needs them too), and when both are comparisons."""
    level = PRECEDENCE[operator] + (1 if right else 0)
    if _precedence(operand) < level:
        return True
    return (
        operator in COMPARISONS
        and isinstance(operand, ast.Binary)
        and operand.operator in COMPARISONS
    )


def _binary_operand(operand: ast.Expr, operator: str, right: bool, guard: bool) -> str:
    text = _expression(operand, guard)
    return f"({text})" if _parenthesized(operand, operator, right) else text


def _expression(expr: ast.Expr, guard: bool) -> str:
    match expr:
        case ast.IntLiteral(value=value):
            return str(value)
        case ast.BoolLiteral(value=value):
            return "true" if value else "false"
        case ast.Var(path=path):
            return path
        case ast.Call(callee=callee, size_arguments=sizes, arguments=arguments):
            generic = "<" + ", ".join(size_text(size) for size in sizes) + ">" if sizes else ""
            return f"{callee}{generic}({_list(arguments, guard)})"
        case ast.StructLiteral(path=path, fields=fields):
            return f"{path} {field_list_text(fields, guard)}"
        case ast.TupleExpr(elements=elements):
            return f"({_list(elements, guard)})"
        case ast.ArrayExpr(elements=elements):
            return f"[{_list(elements, guard)}]"
        case ast.Index(base=base, index=index):
            return f"{_operand(base, POSTFIX, guard)}[{_expression(index, guard)}]"
        case ast.Binary(operator=operator, left=left, right=right):
            left_text = _binary_operand(left, operator, False, guard)
            if operator == "<" and guard and _ENDS_IN_NAME.search(left_text):
                left_text = f"({left_text})"
            return f"{left_text} {operator} {_binary_operand(right, operator, True, guard)}"
        case ast.Inlined(callee=callee, body=body):
            text = ""
            for _, line in _block_lines(body.statements, 0):
                joint = " " if not text or text.endswith("{") or line.startswith("}") else "; "
                text += joint + line
            return f"inline {callee} {{{text} }}"
    raise TypeError(f"not an expression: {expr!r}")


def _list(elements: list[ast.Expr], guard: bool) -> str:
    return ", ".join(_expression(element, guard) for element in elements)


def field_list_text(fields: list[tuple[str, ast.Expr]], guard: bool = False) -> str:
    """`{ a: 1, b }` for struct literals and `reveal`/`seal`; `{}` when empty."""
    if not fields:
        return "{}"
    parts = []
    for name, value in fields:
        if isinstance(value, ast.Var) and value.path == name:
            parts.append(name)
        else:
            parts.append(f"{name}: {_expression(value, guard)}")
    return "{ " + ", ".join(parts) + " }"


_ENDS_IN_TYPE_NAME = re.compile(r"(?<![\w.])(?:[a-z_]\w*\.)*[A-Z]\w*$")


def _before_brace(text: str, block: ast.Block) -> str:
    """Parenthesize a head that ends in a capitalized name when its block would make the two
    read as a struct literal (the grammar's `STRUCT_PATH` rule): `if a == N {}` or
    `if a == N { x }`."""
    statements = block.statements
    looks_like_fields = not statements or (
        len(statements) == 1
        and isinstance(statements[0], ast.ExprStatement)
        and isinstance(statements[0].expr, ast.Var)
        and "." not in statements[0].expr.path
    )
    return f"({text})" if looks_like_fields and _ENDS_IN_TYPE_NAME.search(text) else text


def _needs_guard(*exprs: ast.Expr | None) -> bool:
    """Whether a line holding `exprs` contains a generic call `f<N>(...)`."""
    return any(
        isinstance(found, ast.Call) and found.size_arguments
        for expr in exprs
        if expr is not None
        for found in walk(expr)
    )


def _match_pattern_text(pattern) -> str:
    match pattern:
        case None:
            return "_"
        case bool():
            return "true" if pattern else "false"
        case int():
            return str(pattern)
        case (name, []):
            return f"{name} {{}}"
        case (name, fields):
            parts = [field if value is None else f"{field}: {value}" for field, value in fields]
            return f"{name} {{ " + ", ".join(parts) + " }"
    raise TypeError(f"not a match pattern: {pattern!r}")


def _pattern_text(pattern: ast.Pattern) -> str:
    match pattern:
        case ast.PatternName(name=name):
            return name
        case ast.PatternWild():
            return "_"
        case ast.PatternTuple(names=names):
            return "(" + ", ".join("_" if name is None else name for name in names) + ")"
    raise TypeError(f"not a pattern: {pattern!r}")


def _attribute_text(attribute: ast.Attribute) -> str:
    if attribute.argument is None:
        return f"#[{attribute.name}]"
    return f"#[{attribute.name}({attribute.argument})]"


Line = tuple[int, str]  # (indentation level, text)


def _lines(prefix: str, expr: ast.Expr, suffix: str, indent: int, guard: bool) -> list[Line]:
    """`prefix + expr + suffix` at `indent`, broken over several lines if it is too wide."""
    flat = prefix + _expression(expr, guard) + suffix
    if len(INDENT * indent + flat) <= MAX_WIDTH:
        return [(indent, flat)]
    match expr:
        case ast.Call(callee=callee, size_arguments=sizes, arguments=arguments) if arguments:
            generic = "<" + ", ".join(size_text(size) for size in sizes) + ">" if sizes else ""
            entries = [("", argument) for argument in arguments]
            return _bracketed(f"{prefix}{callee}{generic}(", entries, ")" + suffix, indent, guard)
        case ast.TupleExpr(elements=elements):
            entries = [("", element) for element in elements]
            return _bracketed(prefix + "(", entries, ")" + suffix, indent, guard)
        case ast.ArrayExpr(elements=elements) if elements:
            entries = [("", element) for element in elements]
            return _bracketed(prefix + "[", entries, "]" + suffix, indent, guard)
        case ast.StructLiteral(path=path, fields=fields) if fields:
            return _bracketed(
                f"{prefix}{path} {{", _field_entries(fields), "}" + suffix, indent, guard
            )
        case ast.Binary():
            return _chain(prefix, expr, suffix, indent, guard)
        case ast.Inlined(callee=callee, body=body):
            inner = _block_lines(body.statements, indent + 1)
            return [(indent, f"{prefix}inline {callee} {{"), *inner, (indent, "}" + suffix)]
    return [(indent, flat)]


def _block_lines(statements: list, indent: int) -> list[Line]:
    """Statements without comments or source layout: the body of an inlined call, which
    the optimizer made and no source text has (`tri build --dump inline`)."""
    lines: list[Line] = []
    for statement in statements:
        match statement:
            case ast.If(condition=condition, then_block=then, else_block=otherwise):
                lines.append((indent, f"if {expression_text(condition)} {{"))
                lines += _block_lines(then.statements, indent + 1)
                if otherwise is not None:
                    lines.append((indent, "} else {"))
                    lines += _block_lines(otherwise.statements, indent + 1)
                lines.append((indent, "}"))
            case ast.For(variable=variable, start=start, end=end, bound=bound, body=body):
                bounded = f" bounded {bound}" if bound is not None else ""
                lines.append(
                    (
                        indent,
                        f"for {variable or '_'} in {expression_text(start)}.."
                        f"{expression_text(end)}{bounded} {{",
                    )
                )
                lines += _block_lines(body.statements, indent + 1)
                lines.append((indent, "}"))
            case _:
                lines += _simple_statement_lines(statement, indent)
    return lines


def _bracketed(opening: str, entries, closing: str, indent: int, guard: bool) -> list[Line]:
    """`opening`, then one `label value,` per line one level deeper, then `closing`."""
    lines = [(indent, opening)]
    for label, value in entries:
        if value is None:  # a struct field written as its name alone
            lines.append((indent + 1, label + ","))
        else:
            lines += _lines(label, value, ",", indent + 1, guard)
    lines.append((indent, closing))
    return lines


def _field_entries(fields: list[tuple[str, ast.Expr]]) -> list[tuple[str, ast.Expr | None]]:
    return [
        (name, None) if isinstance(value, ast.Var) and value.path == name else (name + ": ", value)
        for name, value in fields
    ]


def _chain(prefix: str, expr: ast.Binary, suffix: str, indent: int, guard: bool) -> list[Line]:
    """A left-associative chain `a + b + c` at one precedence level, one operand per line."""
    level = PRECEDENCE[expr.operator]
    operands, operators = [expr.right], [expr.operator]
    left = expr.left
    while (
        isinstance(left, ast.Binary)
        and PRECEDENCE[left.operator] == level
        and not _parenthesized(left, operators[-1], right=False)
    ):
        operands.append(left.right)
        operators.append(left.operator)
        left = left.left
    operands.reverse()
    operators.reverse()
    # Each operator starts a line, so `a < f<N>(` never shares one: no guard needed here.
    # A parenthesized operand (always a binary expression) is broken inside its parentheses
    # if it is too long, its continuation lines one level deeper than the chain's own.
    if _parenthesized(left, operators[0], right=False):
        first, *rest = _lines(prefix + "(", left, ")", indent, guard)
        lines = [first, *((depth + 1, text) for depth, text in rest)]
    else:
        lines = _lines(prefix, left, "", indent, guard)
    for index, (operator, operand) in enumerate(zip(operators, operands, strict=True)):
        ending = suffix if index == len(operands) - 1 else ""
        if _parenthesized(operand, operator, right=True):
            lines += _lines(f"{operator} (", operand, ")" + ending, indent + 1, guard)
        else:
            lines += _lines(operator + " ", operand, ending, indent + 1, guard)
    return lines


def _simple_statement_lines(statement: ast.Statement, indent: int) -> list[Line]:
    match statement:
        case ast.Let(mutable=mutable, pattern=pattern, type=type_, value=value):
            annotation = f": {type_text(type_)}" if type_ is not None else ""
            binding = "let mut " if mutable else "let "
            prefix = f"{binding}{_pattern_text(pattern)}{annotation} = "
            return _lines(prefix, value, "", indent, _needs_guard(value))
        case ast.Assign(target=target, value=value):
            guard = _needs_guard(target, value)
            target_text = expression_text(target, guard)
            if target_text.startswith("["):  # as for an expression statement, below
                target_text = f"({target_text})"
            return _lines(f"{target_text} = ", value, "", indent, guard)
        case ast.Return(value=None):
            return [(indent, "return")]
        case ast.Return(value=value):
            return _lines("return ", value, "", indent, _needs_guard(value))
        case ast.Emit(kind=kind, event=event, fields=fields):
            guard = _needs_guard(*(value for _, value in fields))
            flat = f"{kind} {event} {field_list_text(fields, guard)}"
            if not fields or len(INDENT * indent + flat) <= MAX_WIDTH:
                return [(indent, flat)]
            return _bracketed(f"{kind} {event} {{", _field_entries(fields), "}", indent, guard)
        case ast.Asm(text=text):
            return [(indent, text)]
        case ast.ExprStatement(expr=expr):
            guard = _needs_guard(expr)
            if _expression(expr, guard).startswith("["):
                # kept in parentheses: after another statement, `[` would index its value
                return _lines("(", expr, ")", indent, guard)
            return _lines("", expr, "", indent, guard)
    raise TypeError(f"not a simple statement: {statement!r}")


# --- layout and comments ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Comment:
    line: int
    text: str


def _item_start(item: ast.Item) -> int:
    return min([attribute.span.line for attribute in item.attributes] + [item.span.line])


def _next_line(elements: list, index: int, default: int) -> int:
    """The first source line of the element after `elements[index]`, else `default`."""
    return elements[index + 1].span.line if index + 1 < len(elements) else default


class _Printer:
    """Writes one `SourceFile`; consumes its comments front to back while it goes."""

    def __init__(self, text: str, source: ast.SourceFile):
        self.source = source
        self.source_lines = text.split("\n")
        verbatim = [
            found.span
            for found in walk(source)
            if isinstance(found, ast.Asm | ast.Attribute | ast.IoDeclaration)
        ]
        comments = []
        for line, comment in source.comments:
            column = self.source_lines[line - 1].find("//") + 1
            if not any(_inside(span, line, column) for span in verbatim):
                comments.append(_Comment(line, comment.rstrip()))
        self.pending = deque(comments)
        self.out: list[str] = []
        self.last_line = 0  # the last source line whose content has been written

    # --- primitives
    def write(self, indent: int, text: str, source_line: int) -> None:
        self.out.append(INDENT * indent + text)
        self.last_line = max(self.last_line, source_line)

    def blank(self) -> None:
        if self.out and self.out[-1] != "":
            self.out.append("")

    def _blank_in_source_before(self, line: int) -> bool:
        return any(
            not self.source_lines[number - 1].strip()
            for number in range(self.last_line + 1, min(line, len(self.source_lines) + 1))
        )

    def _comment_before(self, line: int) -> bool:
        return bool(self.pending) and self.pending[0].line < line

    def leading(self, line: int, indent: int, allow_blank: bool, element: bool = True) -> None:
        """Comments before source `line` on their own lines, then (if `element`) the blank
        line the element at `line` should have above it."""
        while self._comment_before(line):
            comment = self.pending.popleft()
            if allow_blank and self._blank_in_source_before(comment.line):
                self.blank()
            self.write(indent, comment.text, comment.line)
            allow_blank = True
        if element and allow_blank and self._blank_in_source_before(line):
            self.blank()

    def moved(self, line: int, indent: int) -> None:
        """Comments inside a construct printed on one line, put on their own lines before it."""
        while self._comment_before(line):
            comment = self.pending.popleft()
            self.write(indent, comment.text, comment.line)

    def trailing(self, line: int) -> None:
        if self.pending and self.pending[0].line == line:
            self.out[-1] += " " + self.pending.popleft().text
            self.last_line = max(self.last_line, line)

    def open_brace(self, open_line: int, elements: list, close_line: int) -> None:
        """The comment after an opening `{` on its line, unless code follows on that line."""
        first_line = elements[0].span.line if elements else close_line
        if min(first_line, close_line) > open_line and not self._comment_before(open_line):
            self.trailing(open_line)

    def has_content(self, elements: list, close_line: int) -> bool:
        return bool(elements) or self._comment_before(close_line)

    # --- the file
    def source_file(self) -> str:
        source = self.source
        header_line = source.name_span.line
        groups = [use.span.line for use in source.uses]
        groups += [declaration.span.line for declaration in source.io_declarations]
        groups += [_item_start(item) for item in source.items]
        self.leading(header_line, 0, allow_blank=False)
        self.write(0, f"{source.kind} {source.name}", header_line)
        if not groups or groups[0] > header_line:
            self.trailing(header_line)
        self.top_level_group(source.uses, lambda use: f"use {use.path}")
        self.top_level_group(source.io_declarations, self.verbatim)
        previous = None
        for index, item in enumerate(source.items):
            following = source.items[index + 1 : index + 2]
            next_line = _item_start(following[0]) if following else _NEVER
            if not (isinstance(item, ast.Const) and isinstance(previous, ast.Const)):
                self.blank()
            self.leading(_item_start(item), 0, allow_blank=True)
            previous = item
            self.item(item, next_line)
        self.leading(_NEVER, 0, allow_blank=True, element=False)
        return "\n".join(self.out) + "\n"

    def top_level_group(self, entries: list, text) -> None:
        """`use` lines or I/O declarations: one per line, a blank line before the group."""
        if entries:
            self.blank()
        for index, entry in enumerate(entries):
            next_line = _next_line(entries, index, _NEVER)
            self.leading(entry.span.line, 0, allow_blank=True)
            self.write(0, text(entry), entry.span.end_line)
            if next_line > entry.span.end_line:
                self.trailing(entry.span.end_line)

    def verbatim(self, declaration: ast.IoDeclaration) -> str:
        span = declaration.span
        lines = self.source_lines[span.line - 1 : span.end_line]
        lines[-1] = lines[-1][: span.end_column]
        lines[0] = lines[0][span.column - 1 :]
        return "\n".join(lines)

    # --- items
    def item(self, item: ast.Item, next_line: int) -> None:
        """Comments among the attributes (and inside a one-line signature or constant) go
        before the attributes; then the attributes, each on its own line; then the item."""
        match item:
            case ast.Function():
                broken = self.breaks_parameters(item)
                self.moved(item.span.line if broken else _signature_end(item), 0)
            case ast.Const():
                self.moved(item.span.end_line, 0)
            case _:
                self.moved(item.span.line, 0)
        for attribute in item.attributes:
            self.write(0, _attribute_text(attribute), attribute.span.end_line)
        match item:
            case ast.Function():
                self.function(item, broken)
            case ast.Const(public=public, name=name, type=type_, value=value):
                prefix = f"{'pub ' if public else ''}const {name}: {type_text(type_)} = "
                for level, text in _lines(prefix, value, "", 0, _needs_guard(value)):
                    self.write(level, text, item.span.end_line)
            case ast.Struct(public=public, name=name, fields=fields):
                self.fields(("pub struct " if public else "struct ") + name, item, fields)
            case ast.Event(name=name, fields=fields):
                self.fields(f"event {name}", item, fields)
        if next_line > item.span.end_line:
            self.trailing(item.span.end_line)

    def fields(self, header: str, item: ast.Struct | ast.Event, fields: list) -> None:
        open_line, close_line = item.span.line, item.span.end_line
        if not self.has_content(fields, close_line):
            self.write(0, header + " {}", close_line)
            return
        self.write(0, header + " {", open_line)
        self.open_brace(open_line, fields, close_line)
        for index, field in enumerate(fields):
            next_line = _next_line(fields, index, close_line)
            self.leading(field.span.line, 1, allow_blank=index > 0)
            self.moved(field.span.end_line, 1)
            prefix = "pub " if field.public else ""
            self.write(1, f"{prefix}{field.name}: {type_text(field.type)},", field.span.end_line)
            if next_line > field.span.end_line:
                self.trailing(field.span.end_line)
        self.leading(close_line, 1, allow_blank=bool(fields), element=False)
        self.write(0, "}", close_line)

    def breaks_parameters(self, function: ast.Function) -> bool:
        """One parameter per line: when the signature is too long or holds a comment."""
        if not function.params:
            return False
        end = _signature_end(function)
        inside = any(function.span.line <= comment.line < end for comment in self.pending)
        opening = " {" if function.body is not None else ""
        return inside or len(_signature(function) + opening) > MAX_WIDTH

    def function(self, function: ast.Function, broken: bool) -> None:
        body = function.body
        signature_end = _signature_end(function)
        if broken:
            self.write(0, _signature_prefix(function) + "(", function.span.line)
            for index, param in enumerate(function.params):
                param_next = _next_line(function.params, index, signature_end)
                self.leading(param.span.line, 1, allow_blank=False)
                self.moved(param.span.end_line, 1)
                self.write(1, f"{param.name}: {type_text(param.type)},", param.span.end_line)
                if param_next > param.span.end_line:
                    self.trailing(param.span.end_line)
            self.leading(signature_end, 1, allow_blank=False, element=False)
            header = ")" + _result_text(function)
        else:
            header = _signature(function)
        if body is None:
            self.write(0, header, function.span.end_line)
        else:
            self.block(0, header, body)

    # --- blocks and statements
    def block(self, indent: int, header: str, block: ast.Block, continues: bool = False) -> None:
        """`header {` + the statements + `}`; `continues`: append the header to the last line."""
        open_line, close_line = block.span.line, block.span.end_line
        statements = block.statements
        if not self.has_content(statements, close_line):
            self.open(indent, header + " {}", close_line, continues)
            return
        self.open(indent, header + " {", open_line, continues)
        self.open_brace(open_line, statements, close_line)
        for index, statement in enumerate(statements):
            next_line = _next_line(statements, index, close_line)
            self.leading(statement.span.line, indent + 1, allow_blank=index > 0)
            self.statement(statement, indent + 1, next_line)
        self.leading(close_line, indent + 1, allow_blank=bool(statements), element=False)
        self.write(indent, "}", close_line)

    def open(self, indent: int, text: str, source_line: int, continues: bool) -> None:
        if continues:
            self.out[-1] += " " + text
            self.last_line = max(self.last_line, source_line)
        else:
            self.write(indent, text, source_line)

    def statement(self, statement: ast.Statement, indent: int, next_line: int) -> None:
        match statement:
            case ast.If():
                self.moved(statement.then_block.span.line, indent)
                self.if_chain(statement, indent, continues=False)
            case ast.For(variable=variable, start=start, end=end, bound=bound, body=body):
                self.moved(body.span.line, indent)
                guard = _needs_guard(start, end)
                end_text = expression_text(end, guard)
                header = f"for {variable or '_'} in {expression_text(start, guard)}.."
                header += end_text if bound is not None else _before_brace(end_text, body)
                if bound is not None:
                    header += f" bounded {bound}"
                self.block(indent, header, body)
            case ast.Match():
                self.match(statement, indent)
            case _:
                self.moved(statement.span.end_line, indent)
                for level, text in _simple_statement_lines(statement, indent):
                    self.write(level, text, statement.span.end_line)
        if next_line > statement.span.end_line:
            self.trailing(statement.span.end_line)

    def if_chain(self, node: ast.If, indent: int, continues: bool) -> None:
        condition = expression_text(node.condition, _needs_guard(node.condition))
        condition = _before_brace(condition, node.then_block)
        keyword = "else if " if continues else "if "
        self.block(indent, keyword + condition, node.then_block, continues)
        otherwise = node.else_block
        if otherwise is None:
            return
        inner = otherwise.statements[0] if len(otherwise.statements) == 1 else None
        if isinstance(inner, ast.If) and not self.comments_around(inner, otherwise):
            self.if_chain(inner, indent, continues=True)
        else:
            self.block(indent, "else", otherwise, continues=True)

    def comments_around(self, inner: ast.If, otherwise: ast.Block) -> bool:
        """Whether `else { if ... }` has comments before the `if` or after it, which would
        leave the block if it were written as `else if`."""
        before, after = inner.then_block.span.line, inner.span.end_line
        return any(
            comment.line < before or after <= comment.line < otherwise.span.end_line
            for comment in self.pending
        )

    def match(self, node: ast.Match, indent: int) -> None:
        open_line, close_line = node.scrutinee.span.end_line, node.span.end_line
        self.moved(open_line, indent)
        scrutinee = expression_text(node.scrutinee, _needs_guard(node.scrutinee))
        header = "match " + (
            f"({scrutinee})" if _ENDS_IN_TYPE_NAME.search(scrutinee) else scrutinee
        )
        arms = node.arms
        if not self.has_content(arms, close_line):
            self.write(indent, header + " {}", close_line)
            return
        self.write(indent, header + " {", open_line)
        self.open_brace(open_line, arms, close_line)
        for index, arm in enumerate(arms):
            next_line = _next_line(arms, index, close_line)
            self.leading(arm.span.line, indent + 1, allow_blank=index > 0)
            self.moved(arm.body.span.line, indent + 1)
            self.block(indent + 1, _match_pattern_text(arm.pattern) + " =>", arm.body)
            if index + 1 < len(arms) and isinstance(arms[index + 1].pattern, tuple):
                self.out[-1] += ","
            if next_line > arm.span.end_line:
                self.trailing(arm.span.end_line)
        self.leading(close_line, indent + 1, allow_blank=bool(arms), element=False)
        self.write(indent, "}", close_line)


def _signature_end(function: ast.Function) -> int:
    """The source line of the body's `{`, or the last line of a body-less declaration."""
    return function.body.span.line if function.body is not None else function.span.end_line


def _signature_prefix(function: ast.Function) -> str:
    prefix = ("pub " if function.public else "") + "fn " + function.name
    if function.size_parameters:
        prefix += "<" + ", ".join(function.size_parameters) + ">"
    return prefix


def _result_text(function: ast.Function) -> str:
    return f" -> {type_text(function.return_type)}" if function.return_type else ""


def _signature(function: ast.Function) -> str:
    """The one-line signature, without the body's ` {`."""
    params = ", ".join(f"{param.name}: {type_text(param.type)}" for param in function.params)
    return f"{_signature_prefix(function)}({params}){_result_text(function)}"


def _inside(span: ast.Span, line: int, column: int) -> bool:
    return (span.line, span.column) <= (line, column) <= (span.end_line, span.end_column)


def function_text(header: str, block: ast.Block) -> str:
    """`header {`, the block's statements in the house style, `}`: from the AST alone, for
    bodies that later stages rewrote and that have no source text (`tri build --dump
    checked`).  No comments; no blank lines."""
    printer = _Printer("", ast.SourceFile("module", "", [], [], []))
    printer.block(0, header, block)
    return "\n".join(printer.out)
