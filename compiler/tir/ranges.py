"""Value ranges: an upper bound on the words an expression makes, and whether evaluating it
can fail or change state -- what the builder needs to drop a check that cannot fail and to
evaluate a branch's value before knowing whether the branch is taken.

`bounds(expr, instance, known)` gives, per word of the value, an integer b with value <= b
(as a number in 0 .. p - 1); `P - 1` means nothing is known.  Bounds come from what the
operations guarantee, never from declared types alone (a U32 parameter of a public function
may be handed anything, and the evaluator only fails where an operation checks): literals,
`==` and `<` (0 or 1), `&` (at most either operand), `^`, `split` and `/%` (u32 results, or
the operation fails; a quotient by a constant d at most the dividend's bound // d), `log2`
(at most 31), `popcount` (at most 32), `as_u32` (at most 2^32 - 1 or it fails), and `+`,
`*` of bounded operands that cannot wrap; a builtin's bound is a column of its row
(compiler.builtins).  `known(var)` gives the bounds the builder
recorded for a name (an immutable `let` of a bounded value, or a mutable name's at that
point: compiler.tir.flow_ranges).

`can_fail(expr, ...)` is whether evaluating `expr` may stop the run: a u32 operation on an
operand not known to be below 2^32, `as_u32` of one, `inv`, `log2`, `/%`, assertions, calls
(a builtin can fail where its TASM can, unless its checked arguments are known u32s).
`speculable(expr, ...)` is whether it may be evaluated whether or not the program would have:
no state touched (I/O, RAM, sponge), no hashing, no call, nothing that can fail.
"""

from __future__ import annotations

from collections.abc import Callable

from compiler.builtins import U32_MAX, UNKNOWN, Builtin, bounded_product, bounded_sum
from compiler.check.bodies import ConstRef
from compiler.check.types import XFIELD
from compiler.syntax import ast
from vm.field import P

Known = Callable[[ast.Var], "list[int] | None"]


def bound(expr, instance, known: Known) -> int:
    """An upper bound of a one-word expression."""
    found = bounds(expr, instance, known)
    return found[0] if found is not None and len(found) == 1 else UNKNOWN


def bounds(expr, instance, known: Known) -> list[int] | None:
    """Upper bounds of the words of `expr`'s value, or None when nothing is known."""
    match expr:
        case ast.IntLiteral():
            return [expr.value % P]
        case ast.BoolLiteral():
            return [int(expr.value)]
        case ast.Var():
            reference = instance.variables.get(expr)
            if isinstance(reference, ConstRef):
                return [reference.value % P]
            return known(expr)
        case ast.Binary():
            if instance.types.get(expr.left) == XFIELD:
                return None
            left, right = bound(expr.left, instance, known), bound(expr.right, instance, known)
            match expr.operator:
                case "+":
                    return [bounded_sum(left, right)]
                case "*":
                    return [bounded_product(left, right)]
                case "==" | "<":
                    return [1]
                case "&":
                    return [min(left, right, U32_MAX)]
                case "^":
                    return [min((1 << max(left, right).bit_length()) - 1, U32_MAX)]
                case "/%":
                    divisor = exact(expr.right, instance)
                    quotient = left // divisor if divisor else left
                    return [min(quotient, U32_MAX), min(left, max(right - 1, 0), U32_MAX)]
        case ast.Call():
            target = instance.calls.get(expr)
            if not isinstance(target, Builtin):
                return None
            if target.bound is None:
                return None
            return target.bound([bound(argument, instance, known) for argument in expr.arguments])
    return None


def exact(expr, instance) -> int | None:
    """The value of a literal, a `const`, or `as_u32`/`as_field` of one (as_u32 of a u32)."""
    match expr:
        case ast.IntLiteral():
            return expr.value % P
        case ast.Var():
            reference = instance.variables.get(expr)
            return reference.value % P if isinstance(reference, ConstRef) else None
        case ast.Call():
            target = instance.calls.get(expr)
            if isinstance(target, Builtin) and target.name in ("as_u32", "as_field"):
                value = exact(expr.arguments[0], instance)
                if value is not None and (target.name == "as_field" or value <= U32_MAX):
                    return value
    return None


def can_fail(expr, instance, known: Known) -> bool:
    """Whether evaluating `expr` may stop the run."""
    match expr:
        case ast.IntLiteral() | ast.BoolLiteral() | ast.Var():
            return False
        case ast.Binary():
            if can_fail(expr.left, instance, known) or can_fail(expr.right, instance, known):
                return True
            if expr.operator in ("<", "&", "^"):
                return (
                    max(bound(expr.left, instance, known), bound(expr.right, instance, known))
                    > U32_MAX
                )
            return expr.operator == "/%"
        case ast.Call():
            target = instance.calls.get(expr)
            if not isinstance(target, Builtin):
                return True
            if any(can_fail(argument, instance, known) for argument in expr.arguments):
                return True
            if not target.can_fail:
                return False
            if target.checked is not None:
                arguments = (expr.arguments[i] for i in target.checked)
                return any(bound(argument, instance, known) > U32_MAX for argument in arguments)
    return True


def speculable(expr, instance, known: Known) -> bool:
    """No state touched, no call, cannot fail: safe to evaluate on a path that did not."""
    match expr:
        case ast.IntLiteral() | ast.BoolLiteral() | ast.Var():
            return True
        case ast.Binary():
            parts = [expr.left, expr.right]
        case ast.Call():
            target = instance.calls.get(expr)
            if not isinstance(target, Builtin) or target.touches_state or target.hashes:
                return False
            parts = list(expr.arguments)
        case _:
            return False
    return all(speculable(part, instance, known) for part in parts) and not can_fail(
        expr, instance, known
    )
