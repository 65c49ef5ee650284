"""The abstract syntax tree: plain dataclasses that carry source spans.

Nodes compare by identity (`eq=False`), so later stages can key tables by node
(the checker's types and resolutions).  A dotted name `a.b.c` in an expression
is kept as one `Var` path and resolved by the checker (docs/reference.md, Structs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple


class Span(NamedTuple):
    """A source range: 1-based line and column of the first and last character.

    A named tuple rather than a frozen dataclass: the parser makes one per
    syntax node, and a tuple is four times cheaper to build.
    """

    line: int
    column: int
    end_line: int
    end_column: int


NO_SPAN = Span(0, 0, 0, 0)


def node(cls):
    return dataclass(eq=False)(cls)


# --- types as written ------------------------------------------------------------------------


@node
class SizeLiteral:
    value: int
    span: Span = NO_SPAN


@node
class SizeName:
    name: str
    span: Span = NO_SPAN


@node
class SizeBinary:
    operator: str  # "+" or "*"
    left: SizeExpr
    right: SizeExpr
    span: Span = NO_SPAN


SizeExpr = SizeLiteral | SizeName | SizeBinary


@node
class NamedType:
    """`Field`, `XField`, `Bool`, `U32`, `Digest`, or a struct path such as `bigint.U256`."""

    name: str
    span: Span = NO_SPAN


@node
class ArrayType:
    element: TypeExpr
    size: SizeExpr
    span: Span = NO_SPAN


@node
class TupleType:
    elements: list[TypeExpr]
    span: Span = NO_SPAN


TypeExpr = NamedType | ArrayType | TupleType


# --- expressions ------------------------------------------------------------------------------


@node
class IntLiteral:
    value: int
    span: Span = NO_SPAN


@node
class BoolLiteral:
    value: bool
    span: Span = NO_SPAN


@node
class Var:
    """A name or dotted path: a local, `local.field.field`, or `module.CONST`."""

    path: str
    span: Span = NO_SPAN


@node
class Call:
    callee: str  # possibly dotted: `f`, `io.write`, `std.crypto.merkle.verify`
    size_arguments: list[SizeExpr]
    arguments: list[Expr]
    span: Span = NO_SPAN


@node
class StructLiteral:
    path: str
    fields: list[tuple[str, Expr]]  # shorthand `{ x }` is stored as ("x", Var("x"))
    span: Span = NO_SPAN


@node
class TupleExpr:
    elements: list[Expr]
    span: Span = NO_SPAN


@node
class ArrayExpr:
    elements: list[Expr]
    span: Span = NO_SPAN


@node
class Index:
    base: Expr
    index: Expr
    span: Span = NO_SPAN


@node
class Binary:
    operator: str  # "==", "<", "+", "*", "*.", "&", "^", "/%"
    left: Expr
    right: Expr
    span: Span = NO_SPAN


Expr = (
    IntLiteral | BoolLiteral | Var | Call | StructLiteral | TupleExpr | ArrayExpr | Index | Binary
)


# --- statements -------------------------------------------------------------------------------


@node
class PatternName:
    name: str
    span: Span = NO_SPAN


@node
class PatternWild:
    span: Span = NO_SPAN


@node
class PatternTuple:
    names: list[str | None]  # None for `_`
    span: Span = NO_SPAN


Pattern = PatternName | PatternWild | PatternTuple


@node
class Let:
    mutable: bool
    pattern: Pattern
    type: TypeExpr | None
    value: Expr
    span: Span = NO_SPAN


@node
class Assign:
    target: Expr  # a Var, or a TupleExpr of Vars
    value: Expr
    span: Span = NO_SPAN


@node
class If:
    condition: Expr
    then_block: Block
    else_block: Block | None  # `else if` is an else block holding one If
    span: Span = NO_SPAN


@node
class For:
    variable: str | None  # None for `_`
    start: Expr
    end: Expr
    bound: int | None
    body: Block
    span: Span = NO_SPAN


@node
class MatchArm:
    pattern: object  # int | bool | None (wildcard) | (struct name, [(field, pattern)])
    body: Block
    span: Span = NO_SPAN


@node
class Match:
    scrutinee: Expr
    arms: list[MatchArm]
    span: Span = NO_SPAN


@node
class Return:
    value: Expr | None
    span: Span = NO_SPAN


@node
class Emit:
    """`reveal E { ... }` or `seal E { ... }`."""

    kind: str  # "reveal" or "seal"
    event: str
    fields: list[tuple[str, Expr]]
    span: Span = NO_SPAN


@node
class Asm:
    text: str
    span: Span = NO_SPAN


@node
class ExprStatement:
    expr: Expr
    span: Span = NO_SPAN


Statement = Let | Assign | If | For | Match | Return | Emit | Asm | ExprStatement


@node
class Block:
    statements: list[Statement]
    span: Span = NO_SPAN

    @property
    def tail(self) -> Expr | None:
        """The block's value: its last statement, when that is a bare expression."""
        if self.statements and isinstance(self.statements[-1], ExprStatement):
            return self.statements[-1].expr
        return None


@node
class Inlined:
    """A call replaced by a copy of the callee's body (compiler.optimize.inline_source; never
    parsed).  The block runs in a scope of its own: it binds the callee's parameters, and
    its last statement gives the value, as a function body's does."""

    callee: str  # the instance key of the function it came from
    body: Block
    span: Span = NO_SPAN


# --- items ------------------------------------------------------------------------------------


@node
class Attribute:
    name: str
    argument: str | None  # the raw text between the parentheses
    span: Span = NO_SPAN


@node
class Param:
    name: str
    type: TypeExpr
    span: Span = NO_SPAN


@node
class Function:
    name: str
    public: bool
    attributes: list[Attribute]
    size_parameters: list[str]
    params: list[Param]
    return_type: TypeExpr | None
    body: Block | None
    span: Span = NO_SPAN

    def attribute(self, name: str) -> Attribute | None:
        for attribute in self.attributes:
            if attribute.name == name:
                return attribute
        return None


@node
class StructField:
    name: str
    type: TypeExpr
    public: bool
    span: Span = NO_SPAN


@node
class Struct:
    name: str
    public: bool
    attributes: list[Attribute]
    fields: list[StructField]
    span: Span = NO_SPAN


@node
class Const:
    name: str
    public: bool
    attributes: list[Attribute]
    type: TypeExpr
    value: Expr
    span: Span = NO_SPAN


@node
class Event:
    name: str
    attributes: list[Attribute]
    fields: list[StructField]
    span: Span = NO_SPAN


@node
class IoDeclaration:
    """`pub input: T`, `pub output: T`, `sec input: T`, `sec ram: {...}`: metadata only."""

    kind: str
    span: Span = NO_SPAN


Item = Function | Struct | Const | Event


@node
class Use:
    path: str
    span: Span = NO_SPAN


@node
class SourceFile:
    kind: str  # "program" or "module"
    name: str
    uses: list[Use]
    io_declarations: list[IoDeclaration]
    items: list[Item]
    path: str = "<input>"
    span: Span = NO_SPAN
    name_span: Span = NO_SPAN
    comments: list[tuple[int, str]] = field(default_factory=list)  # (line, text)


def copy_tree(value, memo: dict):
    """A deep copy of a syntax tree (what `copy.deepcopy` gives, several times faster):
    every node copied once, `memo` mapping each original node's id to its copy; lists,
    dicts, sets and plain tuples rebuilt; spans, names, numbers and other immutable leaves
    shared (sets copied)."""
    kind = type(value)
    if kind is list:
        return [copy_tree(item, memo) for item in value]
    if kind is tuple:
        return tuple(copy_tree(item, memo) for item in value)
    if kind is dict:
        return {key: copy_tree(item, memo) for key, item in value.items()}
    if kind is set:
        return {copy_tree(item, memo) for item in value}
    if kind in _NODE_TYPES:
        copied = memo.get(id(value))
        if copied is None:
            copied = object.__new__(kind)
            memo[id(value)] = copied
            copied.__dict__.update(
                {name: copy_tree(item, memo) for name, item in value.__dict__.items()}
            )
        return copied
    return value


_NODE_TYPES = frozenset(
    value
    for value in list(globals().values())
    if isinstance(value, type) and hasattr(value, "__dataclass_fields__")
)
