"""Small structural helpers shared by the builder modules: AST shapes and TIR sizes."""

from __future__ import annotations

from compiler.check.types import TupleType, tuple_offsets, width
from compiler.lower import control
from compiler.syntax import ast


def part_offsets(value_type, count: int) -> tuple[list[int], list[int]]:
    if isinstance(value_type, TupleType):
        return tuple_offsets(value_type), [width(t) for t in value_type.elements]
    return list(range(count)), [1] * count  # a Digest


def block_live_in(analysis, block, live_after) -> frozenset:
    if block is None or not block.statements:
        return frozenset(live_after)
    return analysis.live_before[block.statements[0]]


def inside(node, block: ast.Block) -> bool:
    """Whether `node` (an expression) lies within `block`, by source span."""
    span, outer = node.span, block.span
    return (outer.line, outer.column) <= (span.line, span.column) and (
        span.end_line,
        span.end_column,
    ) <= (outer.end_line, outer.end_column)


def simple_block(block: ast.Block, depth: int = 1) -> bool:
    """At most `depth` levels of nested if or loop (a branch cheap enough to build twice)."""
    for statement in block.statements:
        match statement:
            case ast.If():
                blocks = [statement.then_block, statement.else_block]
            case ast.For():
                blocks = [statement.body]
            case _:
                continue
        if depth == 0 or not all(b is None or simple_block(b, depth - 1) for b in blocks):
            return False
    return True


def expected_cycles(ops) -> float:
    """Cycles of one run of `ops`, each branch arm taken half the time (compiler.lower.control)."""
    return control.expected_cycles(ops)


def lowered_size(ops) -> int:
    """Instructions `ops` lower to, deferred blocks included, before peephole: counted on
    what compiler.lower.control really emits for them, so it cannot drift from it."""
    return control.lowered_size(ops)


def ends_in_only_return(block: ast.Block) -> bool:
    """The block's last statement is a `return`, and it has no other."""
    statements = block.statements
    return (
        bool(statements)
        and isinstance(statements[-1], ast.Return)
        and not any(contains_return(s) for s in statements[:-1])
    )


def early_returns(statements: list) -> bool:
    """A `return` anywhere but at the end of the function (its last statement, or the end
    of an arm of a last `if`, recursively)."""
    if not statements:
        return False
    *before, last = statements
    if any(contains_return(s) for s in before):
        return True
    if isinstance(last, ast.If):
        arms = [a for a in (last.then_block, last.else_block) if a is not None]
        return any(early_returns(arm.statements) for arm in arms)
    return isinstance(last, ast.For) and contains_return(last)


def contains_return(statement) -> bool:
    match statement:
        case ast.Return():
            return True
        case ast.If():
            blocks = [statement.then_block] + (
                [statement.else_block] if statement.else_block is not None else []
            )
            return any(contains_return(s) for b in blocks for s in b.statements)
        case ast.For():
            return any(contains_return(s) for s in statement.body.statements)
    return False


def has_loop(block: ast.Block) -> bool:
    """Whether `block` holds a `for`, at any depth (inlined calls included)."""
    return any(isinstance(statement, ast.For) for statement in statements(block))


def statements(block: ast.Block):
    """Every statement of `block`, and of the blocks of its `if`s and `for`s and of the
    inlined calls in its expressions (compiler.optimize.inline_source), in order.  Walked with a
    stack of its own, not nested generators: a statement n blocks deep (a chain of `else
    if`s) costs one step, not n."""
    pending = [iter(block.statements)]
    while pending:
        statement = next(pending[-1], None)
        if statement is None:
            pending.pop()
            continue
        yield statement
        inner = [
            inlined.body
            for expr in statement_expressions(statement)
            for inlined in inlined_calls(expr)
        ]
        match statement:
            case ast.If():
                inner.append(statement.then_block)
                if statement.else_block is not None:
                    inner.append(statement.else_block)
            case ast.For():
                inner.append(statement.body)
        if inner:
            pending.append(iter([s for b in inner for s in b.statements]))


def statement_expressions(statement) -> list:
    """The expressions a statement evaluates itself (not those of its nested blocks)."""
    match statement:
        case ast.Let() | ast.Assign():
            return [statement.value]
        case ast.If():
            return [statement.condition]
        case ast.For():
            return [statement.start, statement.end]
        case ast.Return():
            return [] if statement.value is None else [statement.value]
        case ast.ExprStatement():
            return [statement.expr]
    return []


def subexpressions(expr) -> list:
    """The direct operands of an expression, in source order."""
    match expr:
        case ast.Binary():
            return [expr.left, expr.right]
        case ast.Call():
            return list(expr.arguments)
        case ast.TupleExpr() | ast.ArrayExpr():
            return list(expr.elements)
        case ast.Index():
            return [expr.base, expr.index]
        case ast.StructLiteral():
            return [value for _, value in expr.fields]
    return []


def inlined_calls(expr):
    """The outermost inlined calls within `expr` (their own bodies are not searched)."""
    if isinstance(expr, ast.Inlined):
        yield expr
        return
    for part in subexpressions(expr):
        yield from inlined_calls(part)
