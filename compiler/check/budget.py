"""The stack-width budget (`tri check --stack`): how many elements a function keeps live.

`stack_budget(instance)` is the largest number of elements a straightforward
lowering has on the stack at once: parameters and every `let` in scope, the
loop counters of enclosing loops, and the temporaries of the expression being
evaluated.  Above 16 (the reachable window) the back end must spill to RAM;
`tri check --stack` reports the figure per function.  It is an upper bound:
a lowering that drops dead values early needs fewer.
"""

from __future__ import annotations

from compiler.check.types import UNIT, width
from compiler.syntax import ast

WINDOW = 16
LOOP_OVERHEAD = 2  # the remaining count and the loop variable


def stack_budget(instance) -> int:
    """The peak number of live stack elements of one checked function instance."""
    parameters = sum(width(type_) for _, type_ in instance.params)
    return max(parameters, _block(instance, instance.body, parameters))


def _block(instance, block: ast.Block, live: int) -> int:
    peak = live
    for statement in block.statements:
        peak = max(peak, _statement(instance, statement, live))
        if isinstance(statement, ast.Let):
            live += _width(instance, statement.value)
    return peak


def _statement(instance, statement, live: int) -> int:
    match statement:
        case ast.Let() | ast.Assign():
            return live + _need(instance, statement.value)
        case ast.ExprStatement():
            return live + _need(instance, statement.expr)
        case ast.Return():
            return live + (_need(instance, statement.value) if statement.value else 0)
        case ast.If():
            condition = live + _need(instance, statement.condition)
            branches = [_block(instance, statement.then_block, live)]
            if statement.else_block is not None:
                branches.append(_block(instance, statement.else_block, live))
            return max(condition, *branches)
        case ast.For():
            start, end = _need(instance, statement.start), _need(instance, statement.end)
            bounds = live + max(start, 1 + end)
            return max(bounds, _block(instance, statement.body, live + LOOP_OVERHEAD))
    return live


def _width(instance, expr) -> int:
    type_ = instance.types.get(expr)
    return 0 if type_ is None or type_ == UNIT else width(type_)


def _need(instance, expr) -> int:
    """Peak temporaries while evaluating `expr`, which leaves its own width on top."""
    match expr:
        case ast.Binary():
            left = _width(instance, expr.left)
            return max(_need(instance, expr.left), left + _need(instance, expr.right))
        case ast.Call() | ast.TupleExpr() | ast.ArrayExpr() | ast.StructLiteral():
            parts = (
                expr.arguments
                if isinstance(expr, ast.Call)
                else [value for _, value in expr.fields]
                if isinstance(expr, ast.StructLiteral)
                else expr.elements
            )
            peak = below = 0
            for part in parts:
                peak = max(peak, below + _need(instance, part))
                below += _width(instance, part)
            return max(peak, below, _width(instance, expr))
        case ast.Index():
            base = _width(instance, expr.base)
            return max(_need(instance, expr.base), base + _need(instance, expr.index))
    return _width(instance, expr)
