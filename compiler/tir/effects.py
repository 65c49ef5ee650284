"""The stack-effect checker over produced TIR: `check_program(program)` -> problems.

Every function starts with exactly its parameters on its part of the stack and
must end (at `Return`) with exactly its result; no op may reach below the
function's part, none may address deeper than st15, and structured ops must
balance: both arms of an `IfElse` leave the same height, an `IfOnly` body and
a `Loop` body leave the height they found (a loop needs its frame).  Calls
must match the callee's widths.  Used by the tests on everything we compile.
"""

from __future__ import annotations

from compiler.tir.ops import Asm, Call, Comment, IfElse, IfOnly, Loop, Op, Program, ProofBlock

ADDRESSING = ("Dup", "Swap", "Pick", "Place")


class EffectError(Exception):
    pass


def check_program(program: Program) -> list[str]:
    """Problems found in `program` (empty when every function is balanced)."""
    widths = {f.label: (f.params, f.result) for f in program.functions}
    problems: list[str] = []
    for function in program.functions:
        try:
            body = function.body
            if not body or body[-1] != Op("Return"):
                raise EffectError("does not end with Return")
            height = body_effect(body[:-1], function.params, widths)
            if height != function.result:
                raise EffectError(f"returns {height} elements, result width {function.result}")
        except EffectError as problem:
            problems.append(f"{function.label}: {problem}")
    return problems


def body_effect(ops, height: int, widths: dict | None = None) -> int | None:
    """The height after `ops` run from `height` (None after `Return`)."""
    widths = widths or {}
    for op in ops:
        if height is None:
            raise EffectError(f"{op} after Return")
        match op:
            case Op(name="Return"):
                height = None
            case Op():
                if op.name in ADDRESSING and not 0 <= op.arg <= 15:
                    raise EffectError(f"{op} addresses beyond st15")
                consumes, produces = op.effect()
                height = _take(height, consumes, op) + produces
            case Call():
                if op.label in widths and widths[op.label] != (op.consumes, op.produces):
                    raise EffectError(f"{op} does not match the callee's widths")
                height = _take(height, op.consumes, op) + op.produces
            case IfElse():
                height = _take(height, 1, "IfElse")
                then = body_effect(op.then, height, widths)
                otherwise = body_effect(op.otherwise, height, widths)
                if then != otherwise:
                    raise EffectError(f"IfElse arms leave {then} and {otherwise} elements")
                height = then
            case IfOnly():
                height = _take(height, 1, "IfOnly")
                after = body_effect(op.then, height, widths)
                if after != height:
                    raise EffectError(f"IfOnly body changes the height by {after - height}")
            case Loop():
                _take(height, op.frame + op.depth, op.label)
                after = body_effect(op.body, height, widths)
                if after != height:
                    raise EffectError(f"Loop {op.label} body changes the height")
            case ProofBlock():
                height = body_effect(op.body, height, widths)
            case Asm():
                height = _take(height, op.consumes, "Asm") + op.produces
            case Comment():
                pass
            case _:
                raise EffectError(f"not a TIR op: {op!r}")
    return height


def _take(height: int, count: int, op) -> int:
    if count > height:
        raise EffectError(f"{op} needs {count} elements, the function has {height}")
    return height - count
