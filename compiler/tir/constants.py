"""Constant folding: an expression of a checked function -> its one-word value, when the
compiler knows it and computing it cannot fail.

`fold(expr, instance, known)` evaluates literals, `const`s and sizes, the names `known(var)`
gives a value for (the builder's immutable names bound to constants), field `+` and `*`, `==`,
the u32 operators, and the pure builtins of `FOLDED` with the reference evaluator's own
semantics (compiler.evaluate.BUILTIN_SEMANTICS).  Anything that would fail at run time (a
u32 operand out of range, the inverse of 0, the logarithm of 0) is left to run time: it is
not a constant.  XField operations and values wider than one word are never folded.

The builder uses it for operands (`x + c` is `addi c`), for names that take no stack slot,
for loop bounds, and for `if` conditions known at compile time (only the arm taken is
built): after inlining (compiler.optimize.inline_source) the constants of a call site flow
through the callee's body this way.
"""

from __future__ import annotations

from collections.abc import Callable

from compiler.builtins import Builtin
from compiler.check.bodies import ConstRef
from compiler.check.types import XFIELD
from compiler.syntax import ast
from vm.field import P

U32_LIMIT = 2**32

# Builtins without state whose one-word result folds (the others touch state or give more
# than one word).
FOLDED = frozenset(
    {"field_add", "field_mul", "sub", "neg", "inv", "as_u32", "as_field", "log2", "pow", "popcount"}
)


def fold(expr, instance, known: Callable[[ast.Var], int | None] = lambda var: None) -> int | None:
    """The value of `expr` when it is known at compile time and cannot fail, else None."""
    match expr:
        case ast.IntLiteral():
            return expr.value % P
        case ast.BoolLiteral():
            return int(expr.value)
        case ast.Var():
            reference = instance.variables.get(expr)
            if isinstance(reference, ConstRef):
                return reference.value % P
            return known(expr)
        case ast.Binary():
            if instance.types.get(expr.left) == XFIELD:
                return None
            left = fold(expr.left, instance, known)
            right = None if left is None else fold(expr.right, instance, known)
            return None if right is None else binary(expr.operator, left, right)
        case ast.Call():
            target = instance.calls.get(expr)
            if not isinstance(target, Builtin) or target.name not in FOLDED:
                return None
            from compiler.evaluate import BUILTIN_SEMANTICS, Failure  # only when needed

            arguments = []
            for argument in expr.arguments:
                value = fold(argument, instance, known)
                if value is None:
                    return None
                arguments.append((value,))
            try:
                result = BUILTIN_SEMANTICS[target.name](None, *arguments)
            except Failure:
                return None
            return result[0] if len(result) == 1 else None
    return None


def binary(operator: str, left: int, right: int) -> int | None:
    """`left operator right` for one-word operands, or None (fails at run time, or more
    than one word)."""
    match operator:
        case "+":
            return (left + right) % P
        case "*":
            return left * right % P
        case "==":
            return int(left == right)
    if left >= U32_LIMIT or right >= U32_LIMIT:
        return None  # the u32 operators fail on it
    match operator:
        case "<":
            return int(left < right)
        case "&":
            return left & right
        case "^":
            return left ^ right
    return None  # `/%` gives two words
