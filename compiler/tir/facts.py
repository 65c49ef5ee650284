"""Which slots hold u32 values, from types: input a checked program, output the element
positions of each type that the block contracts may call u32 (optimizer.md §2).

`Bool` values are always 0 or 1: only `==`, `<` and the literals make them.  `U32` values are
below 2^32 by the language's invariant (docs/reference.md), which every op that makes one keeps
(`as_u32` and `split` check, `&` `^` `/%` `log2` `pop_count` `merkle_step` fail on anything
else) with two exceptions: `pow` (base^exp mod p) and a loop variable, which runs from START
to END - 1 whatever the bounds' types.  `u32_invariant_holds` says whether a build has
neither: no `pow`, and every named loop variable bounded by a u32 END (a U32 value or a
constant up to 2^32: the variable stays below END) or by a constant START and a `bounded N`
with START + N <= 2^32.  When it does not, only `Bool` elements are promised (a U32 made
by `pow` may flow anywhere: a parameter, a field, a copy).

Values that enter a build from outside -- the parameters of a module's public functions --
are trusted to respect their types, and so are values reloaded from the spill region at
2^30 (a program that writes there itself breaks more than these facts; backend.md).
"""

from __future__ import annotations

from functools import cache

from compiler.builtins import Builtin
from compiler.check.bodies import ConstRef
from compiler.check.types import BOOL, U32, Type, flatten
from compiler.syntax import ast
from compiler.tir.walk import statements
from vm.field import P

U32_LIMIT = 2**32


@cache
def u32_positions(value_type: Type, trust_u32: bool) -> frozenset[int]:
    """The elements of a value of `value_type` (0 = deepest) known to be below 2^32."""
    kinds = (BOOL, U32) if trust_u32 else (BOOL,)
    return frozenset(i for i, primitive in enumerate(flatten(value_type)) if primitive in kinds)


def u32_invariant_holds(checked, keys) -> bool:
    """Whether every U32 value the instances `keys` make is below 2^32."""
    for key in keys:
        instance = checked.instances[key]
        if any(isinstance(t, Builtin) and t.name == "pow" for t in instance.calls.values()):
            return False
        for statement in statements(instance.body):
            if isinstance(statement, ast.For) and not _loop_variable_is_u32(instance, statement):
                return False
    return True


def _loop_variable_is_u32(instance, loop: ast.For) -> bool:
    if loop.variable is None:
        return True
    end = _constant(instance, loop.end)
    if instance.types.get(loop.end) == U32 or (end is not None and end <= U32_LIMIT):
        return True
    start = _constant(instance, loop.start)
    return start is not None and loop.bound is not None and start + loop.bound <= U32_LIMIT


def _constant(instance, expr) -> int | None:
    if isinstance(expr, ast.IntLiteral):
        return expr.value % P
    reference = instance.variables.get(expr) if isinstance(expr, ast.Var) else None
    return reference.value % P if isinstance(reference, ConstRef) else None
