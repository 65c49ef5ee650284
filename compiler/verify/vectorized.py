"""Many entry states at once: a numpy executor for straight-line blocks.

Input: a block (`vm.tasm.Program`) and `Lanes` (compiler.verify.concrete): one
entry state per lane.  Output: `LaneOutcomes` (failure per lane, exit stack,
output, RAM writes, sponge, Tip5 permutations), and `differing_lanes(a, b,
lanes)`: the lanes on which two blocks are observably different, under the same
rules as `concrete.difference` (two failing runs are the same).

Every instruction runs on all lanes at once, mirroring vm/handlers; a lane that
fails keeps its first error kind and its later values are ignored.  Tip5, the
X-field inverse and the Merkle steps loop over lanes.  This is the concrete
layer's fast screen and the mutation test's 10,000-input check; a difference it
finds is re-run on the interpreter before anyone sees it, and
tests/verify/test_verify_vectorized.py checks it lane by lane against the interpreter.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from compiler.verify.concrete import MINIMUM_STACK, Lanes
from compiler.verify.terms import WorkLimit
from compiler.verify.vectorized_handlers import HANDLERS, U32_LIMIT, Words, kernels
from vm import tip5
from vm.field import P
from vm.isa import Failure

MAXIMUM_WRITES_WALKED = 2_000_000  # writes one block's reads may walk: a bound on the work


def memory_words(lanes: Lanes, addresses: np.ndarray) -> np.ndarray:
    """Initial RAM at `addresses`, lane by lane (concrete._memory_word, vectorized)."""
    ufuncs = kernels()
    base = ufuncs.add_ufunc(
        ufuncs.mul_ufunc(addresses, lanes.memory_multiplier), lanes.memory_offset
    )
    value = ufuncs.add_ufunc(
        ufuncs.mul_ufunc(ufuncs.mul_ufunc(base, base), base), lanes.memory_multiplier
    )
    value = np.where(lanes.memory_mode == 2, value >> np.uint64(32), value)
    return np.where(lanes.memory_mode == 0, np.uint64(0), value)


def _read(lanes: Lanes, writes, address: np.ndarray) -> np.ndarray:
    value = memory_words(lanes, address)
    for written_address, written_value in writes:
        value = np.where(written_address == address, written_value, value)
    return value


@dataclass
class LaneOutcomes:
    """What one block did on every lane."""

    failed: np.ndarray  # bool per lane
    kinds: np.ndarray  # error kind per lane (object array; None where the lane succeeded)
    halted: bool
    stack: list[np.ndarray]  # the exit stack, bottom first
    output: list[np.ndarray]
    writes: list[tuple[np.ndarray, np.ndarray]]
    consumed: tuple[int, int, int]
    sponge: list[np.ndarray]
    sponge_initialized: np.ndarray
    permutations: int
    fingerprint: np.ndarray  # sum of the first output word of every permutation


class Run:
    """The lane machine while one block runs: one numpy array per stack word."""

    def __init__(self, lanes: Lanes):
        self.lanes = lanes
        self.count = lanes.count
        self.stack = list(lanes.stack[::-1])  # bottom first
        self.failed = np.zeros(self.count, dtype=bool)
        self.kinds = np.full(self.count, None, dtype=object)
        self.consumed = {"public": 0, "secret": 0, "digest": 0}
        self.output: list[np.ndarray] = []
        self.writes: list[tuple[np.ndarray, np.ndarray]] = []
        self.walked = 0  # writes walked by reads so far
        self.sponge = list(lanes.sponge)
        self.sponge_initialized = lanes.sponge_initialized.copy()
        self.permutations = 0
        self.fingerprint = np.zeros(self.count, dtype=np.uint64)
        self.halted = False

    def fail(self, mask: np.ndarray, kind: str) -> None:
        new = mask & ~self.failed
        self.failed |= new
        self.kinds[new] = kind

    def constant(self, value: int) -> np.ndarray:
        return np.full(self.count, value, dtype=np.uint64)

    def peek(self, index: int) -> np.ndarray:
        return self.stack[-1 - index]

    def put(self, index: int, value: np.ndarray) -> None:
        self.stack[-1 - index] = value

    def pop(self) -> np.ndarray:
        return self.stack.pop()

    def push(self, value: np.ndarray) -> None:
        self.stack.append(value)

    def require_u32(self, index: int) -> np.ndarray:
        value = self.peek(index)
        self.fail(value >= U32_LIMIT, Failure.FAILED_U32_CONVERSION)
        return value

    def require_sponge(self) -> None:
        self.fail(~self.sponge_initialized, Failure.SPONGE_NOT_INITIALIZED)

    def read(self, address: np.ndarray) -> np.ndarray:
        self.walked += len(self.writes)
        if self.walked > MAXIMUM_WRITES_WALKED:
            raise WorkLimit(
                f"the block's RAM reads walk more than {MAXIMUM_WRITES_WALKED:,} earlier writes"
            )
        return _read(self.lanes, self.writes, address)

    def offset(self, value: np.ndarray, amount: int) -> np.ndarray:
        return kernels().add_ufunc(value, np.uint64(amount % P))

    def top_xfield(self, depth: int = 0) -> tuple:
        return tuple(Words(self.peek(depth + k)) for k in range(3))

    def put_xfield(self, depth: int, element) -> None:
        for k in range(3):
            self.put(depth + k, element[k].values)

    def read_xfield(self, address: np.ndarray) -> tuple:
        return tuple(Words(self.read(self.offset(address, k))) for k in range(3))

    def permute(self, states: np.ndarray) -> np.ndarray:
        """Tip5 on every live lane of a (16, count) state matrix."""
        result = np.zeros_like(states)
        for lane in np.flatnonzero(~self.failed):
            result[:, lane] = tip5.permutation(tuple(states[:, lane].tolist()))
        self.permutations += 1
        self.fingerprint = kernels().add_ufunc(self.fingerprint, result[0])
        return result


def run_lanes(program, lanes: Lanes) -> LaneOutcomes:
    """Run a straight-line block on every lane of `lanes`."""
    run = Run(lanes)
    height = lowest = 0
    condition = None  # popped by a `skiz`: the next op moves words only where it is non-zero
    for op in program.ops:
        delta = op.instruction.stack_delta(op.argument)
        if height + delta < lowest:  # a new depth: the lanes too shallow for it fail here
            lowest = height + delta
            run.fail(lanes.length + lowest < MINIMUM_STACK, Failure.TOO_SHALLOW)
        try:
            if op.instruction.name == "skiz":
                condition = run.pop()
            elif condition is not None:
                skipped = list(run.stack)
                HANDLERS[op.instruction.name](run, op.argument)
                taken = condition != 0
                pairs = zip(run.stack, skipped)
                run.stack = [np.where(taken, moved, kept) for moved, kept in pairs]
                condition = None
            else:
                HANDLERS[op.instruction.name](run, op.argument)
        except IndexError:
            raise ValueError(f"the lanes hold too few stack words for '{op.text}'") from None
        height += delta
        if op.instruction.name == "halt":
            break
    return LaneOutcomes(
        failed=run.failed,
        kinds=run.kinds,
        halted=run.halted,
        stack=run.stack,
        output=run.output,
        writes=run.writes,
        consumed=(run.consumed["public"], run.consumed["secret"], run.consumed["digest"]),
        sponge=run.sponge,
        sponge_initialized=run.sponge_initialized,
        permutations=run.permutations,
        fingerprint=run.fingerprint,
    )


def differing_lanes(
    first: LaneOutcomes, second: LaneOutcomes, lanes: Lanes, ignore: frozenset[int] = frozenset()
) -> np.ndarray:
    """Lanes on which the two blocks are observably different.

    `ignore` holds exit stack slots (0 = exit st0) whose values do not matter.
    """
    differ = first.failed != second.failed
    both = ~first.failed & ~second.failed
    static = (
        first.halted != second.halted
        or len(first.stack) != len(second.stack)
        or len(first.output) != len(second.output)
        or first.consumed != second.consumed
        or first.permutations != second.permutations
    )
    if static:
        return differ | both
    height = len(first.stack)
    kept = [index for index in range(height) if height - 1 - index not in ignore]
    compared = [(first.stack[index], second.stack[index]) for index in kept]
    for left, right in compared + list(zip(first.output, second.output)):
        if left is not right:
            differ |= both & (left != right)
    for address, _ in first.writes + second.writes:
        left, right = _read(lanes, first.writes, address), _read(lanes, second.writes, address)
        differ |= both & (left != right)
    initialized = first.sponge_initialized
    differ |= both & (initialized != second.sponge_initialized)
    for left, right in zip(first.sponge, second.sponge):
        if left is not right:
            differ |= both & initialized & (left != right)
    differ |= both & (first.fingerprint != second.fingerprint)
    return differ
