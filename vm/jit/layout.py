"""The contract between compiled programs and the runtime that calls them.

A compiled program is one native function

    i64 run(i64* control, i64* stack, i64* jump, i64* ram, i64* counts, i64* public,
            i64* secret, i64* digests, i64* output, i64* u32_log, i64* permutation_log,
            i64* sponge, i64* helpers)

`control` is an array of machine registers (`Control`); then come the buffers
of `BUFFERS`, in that order, and the addresses of the shared helper functions
(vm.jit.helpers).  It runs from `control[IP]` and returns
a `Status`: it halted, an instruction failed (its error kind in
`control[DETAIL]`, the state still as before that instruction), a block needs
more buffer space (the runtime grows it and calls again), or a block's guard
failed and the interpreter is to finish the run.  Both sides read the codes
from here.
"""

from __future__ import annotations

from enum import IntEnum

from vm import effects
from vm.isa import Failure


class Control(IntEnum):
    """Indices into the `control` array. The first group changes while a program runs."""

    IP = 0
    SP = 1  # op-stack length
    JUMP_LENGTH = 2  # pairs on the jump stack
    RAM_COUNT = 3  # addresses in the RAM table
    PUBLIC_POSITION = 4
    SECRET_POSITION = 5
    DIGEST_POSITION = 6
    OUTPUT_LENGTH = 7
    U32_LENGTH = 8  # entries in the u32 log (2 words each)
    PERMUTATION_LENGTH = 9  # states in the permutation log (16 words each)
    SPONGE_READY = 10  # 1 after sponge_init
    BUDGET = 11  # steps left before StepLimitExceeded
    DETAIL = 12  # the error kind of a FAILED exit
    # read-only while a program runs
    STACK_CAPACITY = 13
    JUMP_CAPACITY = 14
    RAM_MASK = 15  # RAM table capacity - 1
    RAM_SHIFT = 16  # 64 - log2(capacity)
    RAM_LIMIT = 17  # most addresses the RAM table may hold
    PUBLIC_LENGTH = 18
    SECRET_LENGTH = 19
    DIGEST_COUNT = 20
    OUTPUT_CAPACITY = 21
    U32_CAPACITY = 22
    PERMUTATION_CAPACITY = 23


MUTABLE = tuple(register for register in Control if register <= Control.DETAIL)
READ_ONLY = tuple(register for register in Control if register > Control.DETAIL)

BUFFERS = (
    "stack",
    "jump",
    "ram",
    "counts",
    "public",
    "secret",
    "digests",
    "output",
    "u32_log",
    "permutation_log",
    "sponge",
)


class Status(IntEnum):
    HALTED = 0  # `halt` ran; control[IP] is its address
    FAILED = 1  # the instruction at control[IP] fails with ERROR_KINDS[control[DETAIL]]
    SERVICE = 2  # the block at control[IP] needs more buffer space; nothing of it ran
    HANDOFF = 3  # the block at control[IP] would run out of steps or op stack; nothing ran


# Error kinds a compiled program detects itself, by code (tasm.md §7): the instructions' kinds
# (vm.isa) but TooShallow, since a block that would be too shallow is handed to the
# interpreter, and our own kind for a return address no call of the program pushed (a JIT bug).
ERROR_KINDS = (
    *(kind for kind in Failure if kind is not Failure.TOO_SHALLOW),
    "InternalReturnAddress",
)

# u32 entry kinds by code, as the interpreter names them (tasm.md §9.7).
U32_KINDS = effects.U32_KINDS

U32_LOG_WORDS = 2  # an entry is logged as (lhs, code << 32 | rhs)
STATE_WORDS = 16  # a logged permutation input
DIGEST_WORDS = 5
