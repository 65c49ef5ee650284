"""Merged checks: an `as_u32` check dropped where a later instruction checks the same value.

`convert.as_u32(x)` is lowered to the check `dup 0 pop_count pop 1` (pop_count fails exactly
when its operand is not a u32; compiler.optimize.rules).  When the value then goes straight
into an instruction that checks its operands itself (`and`, `xor`, `lt`, `div_mod`,
`pop_count`, `log_2_floor`, the exponent of `pow`), the check is redundant: on every input
where it would fail, that instruction fails instead, a few cycles later.  Hand-written TASM
counts on this (`trailing_zeros` is `dup 0 addi -1 xor pop_count addi -1`: the `xor` is
the only check of x - 1).

`merge_checks(items)` takes one straight-line TASM run (`(name, arg)` pairs with origins,
compiler.blocks.rule_engine) and drops each check that the equivalence checker
(compiler.verify) proves redundant: the run from the check to its end, or to the first
`write_io` after it, is compared with the same run without the check -- they must fail on
the same entry states and otherwise leave the same state.  The window stops before a
`write_io` so that a run that fails also writes the same output before failing (the
differential tests compare output on failure too).  A shorter window is sound as well: the
code after it is the same in both programs.

A failure moves to the instruction that checks the value, so `tri run` reports it at that
instruction's construct (`&`, `^`, `u32.log2`, ...) instead of the `as_u32`.  Each dropped
check is noted for `tri build --report` under `checks dropped`.  Answers are remembered per
window (the same windows recur across functions).
"""

from __future__ import annotations

from compiler.verify import check_equivalent
from vm.isa import BY_NAME, Failure, instruction_set
from vm.tasm import Op

CHECK = (("dup", 0), ("pop_count", None), ("pop", 1))
# the instructions that check their operands are u32 values (vm.isa: they can fail with
# FailedU32Conversion) and touch nothing but the op stack: and, xor, lt, div_mod, pop_count,
# log_2_floor, pow (merkle_step also checks its index, but reads the secret digests)
CHECKING = frozenset(
    name
    for name, instruction in instruction_set("rel").items()
    if Failure.FAILED_U32_CONVERSION in instruction.failures
    and not instruction.secret_digests.at(1)
    and not instruction.ram_accesses(1)
)
LONGEST = 24  # instructions after the check that the proof looks at
NOTE = "checks dropped"  # the section of `tri build --report` (compiler.report)

_answers: dict[tuple, bool] = {}  # window -> whether its check is redundant


def merge_checks(items: list, notes: list | None = None) -> list:
    """`items` (one straight-line run of TASM pairs) without the `as_u32` checks that a later
    instruction of the run makes anyway; each dropped check is added to `notes` (when given)
    as (NOTE, text)."""
    items = list(items)
    position = 0
    while position <= len(items) - len(CHECK):
        if tuple(items[position : position + len(CHECK)]) != CHECK:
            position += 1
            continue
        window = _window(items, position)
        if window and redundant(tuple((name, arg) for name, arg in window)):
            if notes is not None:
                notes.append((NOTE, _text(items[position])))
            del items[position : position + len(CHECK)]
        else:
            position += 1
    return items


def _window(items: list, start: int) -> list:
    """The check at `start` and what follows it in the run, up to a `write_io` (excluded) and
    at most LONGEST instructions after the check, cut after the last instruction that checks
    u32 operands (what follows it cannot fail in place of the check); empty without one."""
    end = last = start + len(CHECK)
    while end < len(items) and end < start + len(CHECK) + LONGEST and items[end][0] != "write_io":
        end += 1
        if items[end - 1][0] in CHECKING:
            last = end
    return items[start:last] if last > start + len(CHECK) else []


def redundant(window: tuple) -> bool:
    """Whether the window (a check, then the code after it) is proven equivalent to the same
    code without the check."""
    if window not in _answers:
        with_check = [Op(BY_NAME[name], argument) for name, argument in window]
        verdict = check_equivalent(with_check, with_check[len(CHECK) :])
        _answers[window] = verdict.equivalent
    return _answers[window]


def _text(item) -> str:
    origin = getattr(item, "origin", None)  # an engine Item has one, a plain pair not
    where = "" if origin is None else f" at line {origin.span.line}"
    return f"as_u32{where}: the use of its value checks it"


def forget() -> None:
    """Drop the remembered answers (to time a build from scratch)."""
    _answers.clear()


__all__ = ["merge_checks", "redundant", "forget"]
