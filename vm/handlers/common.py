"""What every instruction handler shares: the error and halt signals, the `Site`
a handler is built for, and the messages of the generic checks."""

from __future__ import annotations

from dataclasses import dataclass

from vm.isa import Failure
from vm.tasm import Op

U32_LIMIT = 1 << 32
ONES = (1,) * 6


class Fault(Exception):
    """An instruction failed; `kind` is Triton VM's error name (docs/vm.md, Errors): a
    `vm.isa.Failure`, or the run loop's own StepLimitExceeded."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind
        self.message = message


class Halt(Exception):
    """Raised by `halt` so that the run loop needs no per-step halted test."""


@dataclass(frozen=True)
class Site:
    """Where a handler sits: its op, address, fall-through address, depth need."""

    op: Op
    address: int
    next_address: int
    min_depth: int  # the stack must hold this many words before the step
    skip_address: int | None  # for skiz: the address after the next instruction


def plural(number: int, what: str) -> str:
    """`1 public word`, `2 public words`."""
    return f"{number} {what}{'s' * (number != 1)}"


def too_shallow(site: Site, depth: int) -> Fault:
    return Fault(
        Failure.TOO_SHALLOW,
        f"'{site.op.text}' needs {plural(site.min_depth, 'op-stack word')}, the stack has {depth}",
    )


def not_u32(value: int, what: str) -> Fault:
    return Fault(Failure.FAILED_U32_CONVERSION, f"{what} {value} is not a u32 value")
