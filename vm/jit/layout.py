"""The contract between compiled programs, the shared helpers and the runtime.

A compiled program is one native function

    i64 run(i64* control, i64* stack, i64* jump, i64* ram_pages, i64* ram_index,
            i64* ram_cache, i64* counts, i64* public, i64* secret, i64* digests,
            i64* output, i64* u32_table, i64* permutation_log,
            i64* permutation_index, i64* cascade, i64* sponge, i64* helpers)

`control` is an array of machine registers (`Control`); then come the buffers
of `BUFFERS`, in that order, and the addresses of the shared helper functions
(vm.jit.helpers).  It runs from `control[IP]` and returns a `Status`: it
halted, an instruction failed (its error kind in `control[DETAIL]`, the state
still as before that instruction), a block needs more buffer space (the
runtime grows it and calls again), or a block's guard failed or its code is
not compiled and the interpreter is to run it.  All sides read the codes from here.

The records the tables are counted from live in native structures
(vm.jit.records): RAM in pages of `PAGE_WORDS` cells found through a hash
index and a small cache, the distinct u32 entries in a hash set that also
sums their table rows, the distinct permutation inputs in a log with a hash
index, and the cascade limbs in a bitmap.  The helpers update their counts in
`control` themselves.
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
    RAM_PAGES = 3  # pages in use in `ram_pages`, the zero page included
    PUBLIC_POSITION = 4
    SECRET_POSITION = 5
    DIGEST_POSITION = 6
    OUTPUT_LENGTH = 7
    U32_LENGTH = 8  # distinct u32 entries
    U32_ROWS = 9  # the u32 table's height: rows of the distinct entries
    PERMUTATION_LENGTH = 10  # distinct permutation inputs, rows of `permutation_log`
    SPONGE_READY = 11  # 1 after sponge_init
    BUDGET = 12  # steps left before StepLimitExceeded
    DETAIL = 13  # the error kind of a FAILED exit
    # read-only while a program runs
    STACK_CAPACITY = 14
    JUMP_CAPACITY = 15
    RAM_PAGE_CAPACITY = 16  # pages `ram_pages` holds
    RAM_INDEX_MASK = 17  # slots of `ram_index` - 1
    RAM_INDEX_SHIFT = 18  # 64 - log2(slots)
    PUBLIC_LENGTH = 19
    SECRET_LENGTH = 20
    DIGEST_COUNT = 21
    OUTPUT_CAPACITY = 22
    U32_CAPACITY = 23  # most distinct entries the u32 table may hold (half its slots)
    U32_MASK = 24
    U32_SHIFT = 25
    PERMUTATION_CAPACITY = 26  # rows of `permutation_log` (half the slots of its index)
    PERMUTATION_MASK = 27
    PERMUTATION_SHIFT = 28


MUTABLE = tuple(register for register in Control if register <= Control.DETAIL)
READ_ONLY = tuple(register for register in Control if register > Control.DETAIL)

BUFFERS = (
    "stack",
    "jump",
    "ram_pages",
    "ram_index",
    "ram_cache",
    "counts",
    "public",
    "secret",
    "digests",
    "output",
    "u32_table",
    "permutation_log",
    "permutation_index",
    "cascade",
    "sponge",
)


class Status(IntEnum):
    HALTED = 0  # `halt` ran; control[IP] is its address
    FAILED = 1  # the instruction at control[IP] fails with ERROR_KINDS[control[DETAIL]]
    SERVICE = 2  # the block at control[IP] needs more buffer space; nothing of it ran
    HANDOFF = 3  # the block at control[IP] would run out of steps or op stack, or is not
    # compiled (vm.jit.blocks: hot_checkpoints); nothing of it ran
    CONTINUE = 4  # a unit left for control[IP], in another unit (vm.jit.units); internal


# Error kinds a compiled program detects itself, by code: the instructions' kinds
# (vm.isa) but TooShallow, since a block that would be too shallow is handed to the
# interpreter, and our own kind for a return address no call of the program pushed (a JIT bug).
ERROR_KINDS = (
    *(kind for kind in Failure if kind is not Failure.TOO_SHALLOW),
    "InternalReturnAddress",
)

# u32 entry kinds by code, as the interpreter names them (vm.isa.U32_KINDS).
U32_KINDS = effects.U32_KINDS
POW_CODE = U32_KINDS.index("pow")

STATE_WORDS = 16  # a permutation input
DIGEST_WORDS = 5

# RAM: a page holds PAGE_WORDS consecutive cells, as [page number, written mask, cells...].
PAGE_BITS = 4
PAGE_WORDS = 1 << PAGE_BITS
PAGE_STRIDE = PAGE_WORDS + 2
PAGE_KEY, PAGE_MASK, PAGE_CELLS = 0, 1, 2  # word offsets within a page
CACHE_ENTRIES = 8  # (page number, page offset) pairs in `ram_cache`, by page number mod 8
NO_PAGE = (1 << 64) - 1  # a page number no address has (addresses are below 2^64)

# The u32 set: slots of two words (lhs + 1, kind << 32 | rhs); 0 marks an empty slot.
U32_SLOT_WORDS = 2
CASCADE_WORDS = (1 << 16) // 64  # one bit per 16-bit cascade limb
