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

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from compiler.diagnostics import CompileError, error
from compiler.syntax import ast
from compiler.syntax.ast import Span

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
    """The parser; its tables are built once and cached on disk by lark."""
    return Lark(
        GRAMMAR.read_text(),
        parser="lalr",
        lexer="contextual",
        propagate_positions=True,
        maybe_placeholders=True,
        cache=True,
    )


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


def _span(meta) -> Span:
    if getattr(meta, "empty", True):
        return ast.NO_SPAN
    return Span(meta.line, meta.column, meta.end_line, max(meta.end_column - 1, meta.column))


def _token_span(token: Token) -> Span:
    return Span(token.line, token.column, token.end_line, max(token.end_column - 1, token.column))


class _Builder:
    """Builds AST dataclasses from lark's parse tree, one method per rule.

    `build` walks the tree itself (children first) instead of using lark's
    Transformer, whose per-call wrappers cost more than the building does.
    """

    def __init__(self):
        self.too_large: list[ast.IntLiteral] = []  # literals >= p seen in this parse

    def build(self, tree):
        """The AST of a lark tree: children first, then the rule's method."""
        build = self.build
        children = [build(child) if type(child) is Tree else child for child in tree.children]
        return getattr(self, tree.data)(tree.meta, children)

    # --- file structure
    def start(self, meta, children):
        header, *rest = children
        kind, name, name_span = header
        uses = [c for c in rest if isinstance(c, ast.Use)]
        io = [c for c in rest if isinstance(c, ast.IoDeclaration)]
        items = [c for c in rest if not isinstance(c, ast.Use | ast.IoDeclaration)]
        return ast.SourceFile(kind, name, uses, io, items, span=_span(meta), name_span=name_span)

    def program_header(self, meta, children):
        return ("program", str(children[0]), _token_span(children[0]))

    def module_header(self, meta, children):
        return ("module", children[0][0], children[0][1])

    def use_decl(self, meta, children):
        return ast.Use(children[0][0], _span(meta))

    def dotted(self, meta, children):
        return (".".join(str(c) for c in children), _span(meta))

    def pub_io(self, meta, children):
        return ast.IoDeclaration(f"pub {children[1]}", _span(meta))

    def sec_input(self, meta, children):
        return ast.IoDeclaration("sec input", _span(meta))

    def sec_ram(self, meta, children):
        return ast.IoDeclaration("sec ram", _span(meta))

    def item(self, meta, children):
        attributes = [c for c in children if isinstance(c, ast.Attribute)]
        public = any(isinstance(c, Token) and c.type == "PUB" for c in children)
        definition = children[-1]
        definition.attributes = attributes
        if hasattr(definition, "public"):
            definition.public = public
        return definition

    def attribute(self, meta, children):
        argument = str(children[1])[1:-1].strip() if children[1] is not None else None
        return ast.Attribute(str(children[0]), argument, _span(meta))

    def fn_def(self, meta, children):
        name, size_parameters, *params, return_type, body = children
        params = [p for p in params if p is not None]
        return ast.Function(
            str(name), False, [], size_parameters or [], params, return_type, body, _span(meta)
        )

    def size_params(self, meta, children):
        return [str(c) for c in children]

    def param(self, meta, children):
        return ast.Param(str(children[0]), children[1], _span(meta))

    def const_def(self, meta, children):
        return ast.Const(str(children[0]), False, [], children[1], children[2], _span(meta))

    def struct_def(self, meta, children):
        fields = [c for c in children[1:] if c is not None]
        return ast.Struct(str(children[0]), False, [], fields, _span(meta))

    def sfield(self, meta, children):
        public, name, type_ = children
        return ast.StructField(str(name), type_, public is not None, _span(meta))

    def event_def(self, meta, children):
        fields = [c for c in children[1:] if c is not None]
        return ast.Event(str(children[0]), [], fields, _span(meta))

    def efield(self, meta, children):
        return ast.StructField(str(children[0]), children[1], False, _span(meta))

    # --- types
    def _named(name):
        def build(self, meta, children):
            return ast.NamedType(name, _span(meta))

        return build

    t_field = _named("Field")
    t_xfield = _named("XField")
    t_bool = _named("Bool")
    t_u32 = _named("U32")
    t_digest = _named("Digest")

    def t_named(self, meta, children):
        return ast.NamedType(".".join(children), _span(meta))

    def t_array(self, meta, children):
        return ast.ArrayType(children[0], children[1], _span(meta))

    def t_tuple(self, meta, children):
        if len(children) == 1:
            return children[0]
        return ast.TupleType(list(children), _span(meta))

    def size_sum(self, meta, children):
        return self._fold("+", children, meta)

    def size_product(self, meta, children):
        return self._fold("*", children, meta)

    def _fold(self, operator, children, meta):
        result = children[0]
        for child in children[1:]:
            result = ast.SizeBinary(operator, result, child, _span(meta))
        return result

    def size_literal(self, meta, children):
        return ast.SizeLiteral(int(children[0]), _span(meta))

    def size_name(self, meta, children):
        return ast.SizeName(str(children[0]), _span(meta))

    # --- statements
    def block(self, meta, children):
        return ast.Block(list(children), _span(meta))

    def let_stmt(self, meta, children):
        mutable, pattern, type_, value = children
        return ast.Let(mutable is not None, pattern, type_, value, _span(meta))

    def pat_name(self, meta, children):
        return ast.PatternName(str(children[0]), _span(meta))

    def pat_wild(self, meta, children):
        return ast.PatternWild(_span(meta))

    def pat_tuple(self, meta, children):
        names = [None if str(c) == "_" else str(c) for c in children]
        return ast.PatternTuple(names, _span(meta))

    def assign_stmt(self, meta, children):
        return ast.Assign(children[0], children[1], _span(meta))

    def if_stmt(self, meta, children):
        condition, then_block, otherwise = children
        if isinstance(otherwise, ast.If):
            otherwise = ast.Block([otherwise], otherwise.span)
        return ast.If(condition, then_block, otherwise, _span(meta))

    def for_stmt(self, meta, children):
        variable, start, end, bound, body = children
        name = None if str(variable) == "_" else str(variable)
        return ast.For(
            name, start, end, int(bound) if bound is not None else None, body, _span(meta)
        )

    def match_stmt(self, meta, children):
        return ast.Match(children[0], list(children[1:]), _span(meta))

    def arm(self, meta, children):
        return ast.MatchArm(children[0], children[1], _span(meta))

    def mpat_int(self, meta, children):
        return int(children[0])

    def mpat_true(self, meta, children):
        return True

    def mpat_false(self, meta, children):
        return False

    def mpat_wild(self, meta, children):
        return None

    def mpat_struct(self, meta, children):
        return (str(children[0]), [c for c in children[1:] if c is not None])

    def fpat(self, meta, children):
        return (str(children[0]), str(children[1]) if children[1] is not None else None)

    def return_stmt(self, meta, children):
        return ast.Return(children[0], _span(meta))

    def reveal_stmt(self, meta, children):
        return ast.Emit("reveal", str(children[0]), [c for c in children[1:] if c], _span(meta))

    def seal_stmt(self, meta, children):
        return ast.Emit("seal", str(children[0]), [c for c in children[1:] if c], _span(meta))

    def asm_stmt(self, meta, children):
        return ast.Asm(str(children[0]), _span(meta))

    def expr_stmt(self, meta, children):
        return ast.ExprStatement(children[0], _span(meta))

    # --- expressions
    def binary(self, meta, children):
        """Group a flat `operand (operator operand)*` list by precedence, left-associative."""
        operands, operators = children[0::2], [str(token) for token in children[1::2]]
        return _climb(operands, operators)

    def index(self, meta, children):
        return ast.Index(children[0], children[1], _span(meta))

    def int_lit(self, meta, children):
        literal = ast.IntLiteral(int(children[0]), _span(meta))
        if literal.value >= P:
            self.too_large.append(literal)
        return literal

    def true_lit(self, meta, children):
        return ast.BoolLiteral(True, _span(meta))

    def false_lit(self, meta, children):
        return ast.BoolLiteral(False, _span(meta))

    def call(self, meta, children):
        callee, size_arguments, *arguments = children
        arguments = [a for a in arguments if a is not None]
        return ast.Call(str(callee), size_arguments or [], arguments, _span(meta))

    def gargs(self, meta, children):
        return list(children)

    def struct_lit(self, meta, children):
        fields = [c for c in children[1:] if c is not None]
        return ast.StructLiteral(str(children[0]), fields, _span(meta))

    def finit(self, meta, children):
        name, value = children
        if value is None:
            value = ast.Var(str(name), _token_span(name))
        return (str(name), value)

    def var(self, meta, children):
        return ast.Var(".".join(children), _span(meta))

    def tuple(self, meta, children):
        return ast.TupleExpr([c for c in children if c is not None], _span(meta))

    def array(self, meta, children):
        return ast.ArrayExpr([c for c in children if c is not None], _span(meta))


@lru_cache(maxsize=1024)
def parse(text: str, path: str = "<input>") -> ast.SourceFile:
    """Parse one source file; raise `CompileError` on a syntax error.

    Results are cached by (text, path): a library module imported by many
    programs is parsed once per process.  Callers must not mutate the AST.
    """
    builder = _Builder()
    try:
        source = builder.build(_lark().parse(text))
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
    source.path = path
    source.comments = [
        (text.count("\n", 0, match.start()) + 1, match.group()) for match in _COMMENT.finditer(text)
    ]
    return source


def _syntax_diagnostic(problem: UnexpectedInput, text: str, path: str):
    line, column = getattr(problem, "line", 1) or 1, getattr(problem, "column", 1) or 1
    if isinstance(problem, UnexpectedCharacters):
        character = text[problem.pos_in_stream] if problem.pos_in_stream < len(text) else ""
        span = Span(line, column, line, column)
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
            line, column = _end_position(text)
        span = Span(line, column, line, column + max(len(str(token)), 1) - 1)
        message = f"unexpected {found}"
        if expected and len(expected) <= 8:
            message += f"; expected {', '.join(expected)}"
        return error("E0001", message, path, span)
    if isinstance(problem, UnexpectedEOF):
        line, column = _end_position(text)
        return error("E0001", "unexpected end of file", path, Span(line, column, line, column))
    return error("E0001", str(problem).splitlines()[0], path, Span(line, column, line, column))


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
