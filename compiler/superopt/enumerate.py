"""Every short TASM sequence over a small alphabet, fingerprinted on fixed entry stacks.

Input: the alphabet (`ALPHABET`: straight-line instructions with small fixed
arguments, facts from vm.isa) and a length.  Output: `fingerprints(sequences)`,
one key per sequence that equal sequences share: the net stack change, on which
entry stacks the sequence fails (any error kind: two failing runs are the same,
as in compiler/verify), and the exit stack of every lane that does not fail.

The lanes (`entry_lanes`) are fixed by a seed: random field words, random u32
words, small numbers and the edge values 0, 1, 2^32 - 1, 2^32 and p - 1, with
entry stack lengths 16, 17 and 18 on some lanes so that running below the
16-word floor (TooShallow) shows in the fingerprint.  Sequences run on all lanes
at once through the verifier's numpy handlers (compiler.verify.vectorized); a
sequence's run continues from its prefix's, which is remembered, so each
instruction of the enumeration tree runs once.  Equal fingerprints are only a
hint: compiler.superopt.generate proves every rule it keeps.
"""

from __future__ import annotations

import hashlib

import numpy as np

from compiler.failure_kinds import Kind
from compiler.verify.concrete import Lanes
from compiler.verify.vectorized import Run
from compiler.verify.vectorized_handlers import HANDLERS, U32_LIMIT
from vm.cost import static_cost
from vm.field import P
from vm.isa import OP_STACK_MINIMUM, instruction_set

# The alphabet: no control flow, I/O, RAM, sponge or hashing; arguments small and fixed.
ALPHABET: tuple[tuple[str, int | None], ...] = (
    *(("push", value % P) for value in (0, 1, -1, 2)),
    *(("pop", count) for count in (1, 2, 3)),
    *(("dup", index) for index in (0, 1, 2, 3)),
    *(("swap", index) for index in (1, 2, 3)),
    *(("pick", index) for index in (2, 3)),
    *(("place", index) for index in (2, 3)),
    *(("addi", value % P) for value in (1, -1)),
    *((name, None) for name in ("add", "mul", "invert", "eq", "lt", "and", "xor", "split")),
    *((name, None) for name in ("pop_count", "log_2_floor", "div_mod", "pow", "assert", "nop")),
)
LANES = 64  # entry stacks per fingerprint
DEPTH = 28  # entry stack words held by every lane (deeper than any sequence reaches)
SEED = 20261124
EDGES = (0, 1, 2, U32_LIMIT - 1, U32_LIMIT, P - 1)


def entry_lanes(count: int = LANES, seed: int = SEED) -> Lanes:
    """The fixed entry stacks (see the module docstring)."""
    generator = np.random.default_rng(seed)
    field_words = generator.integers(0, P, size=(DEPTH, count), dtype=np.uint64)
    u32_words = generator.integers(0, U32_LIMIT, size=(DEPTH, count), dtype=np.uint64)
    small = generator.integers(0, 5, size=(DEPTH, count)).astype(np.uint64)
    edges = np.array(EDGES, dtype=np.uint64)[generator.integers(0, len(EDGES), (DEPTH, count))]
    kind = np.arange(count) % 4  # lanes of field words, u32 words, small numbers, a mix
    mix = generator.integers(0, 4, size=(DEPTH, count))
    chosen = np.where(kind == 3, mix, kind)
    stack = np.choose(chosen, [field_words, u32_words, small, edges]).astype(np.uint64)
    lane = np.arange(count)
    length = np.where(lane % 8 < 3, OP_STACK_MINIMUM + lane % 8, DEPTH).astype(np.int64)
    empty = np.zeros((0, count), dtype=np.uint64)
    zeros = np.zeros(count, dtype=np.int64)
    return Lanes(
        count=count,
        stack=stack,
        length=length,
        streams={"public": empty, "secret": empty, "digest": np.zeros((0, 5, count), np.uint64)},
        available={"public": zeros, "secret": zeros, "digest": zeros},
        sponge=np.zeros((16, count), dtype=np.uint64),
        sponge_initialized=np.zeros(count, dtype=bool),
        memory_mode=np.zeros(count, dtype=np.int64),
        memory_multiplier=np.zeros(count, dtype=np.uint64),
        memory_offset=np.zeros(count, dtype=np.uint64),
    )


def cost(sequence) -> tuple[int, int, int]:
    """(instructions, op-stack rows, program words) of one execution: smaller is cheaper."""
    figures = static_cost(sequence)
    return figures.processor, figures.op_stack, figures.program_words


def u32_uses(sequence) -> int:
    """Instructions that add u32-table entries: a replacement may not have more."""
    rows = instruction_set()
    return sum(rows[name].u32 for name, _ in sequence)


def text(sequence) -> str:
    """`push 1; add`: the engine's pattern syntax, field arguments as p - 1 -> -1."""
    parts = []
    for name, argument in sequence:
        if argument is None:
            parts.append(name)
        else:
            shown = argument - P if argument > P // 2 else argument
            parts.append(f"{name} {shown}")
    return "; ".join(parts)


class _State:
    """One sequence's run on all lanes: the lane machine and its height bookkeeping."""

    def __init__(self, run: Run, height: int, lowest: int):
        self.run, self.height, self.lowest = run, height, lowest

    def extended(self, lanes: Lanes, name: str, argument) -> _State:
        run = object.__new__(Run)
        run.__dict__.update(self.run.__dict__)
        run.stack = list(self.run.stack)
        run.failed = self.run.failed.copy()
        run.kinds = self.run.kinds.copy()
        delta = instruction_set()[name].stack_delta(argument)
        lowest = self.lowest
        if self.height + delta < lowest:
            lowest = self.height + delta
            run.fail(lanes.length + lowest < OP_STACK_MINIMUM, Kind.TOO_SHALLOW)
        HANDLERS[name](run, argument)
        return _State(run, self.height + delta, lowest)

    def fingerprint(self) -> bytes:
        words = np.vstack(self.run.stack)
        words[:, self.run.failed] = 0
        digest = hashlib.blake2b(digest_size=16)
        digest.update(self.height.to_bytes(4, "little", signed=True))
        digest.update(np.packbits(self.run.failed).tobytes())
        digest.update(words.tobytes())
        return digest.digest()


class Fingerprinter:
    """Fingerprints of sequences over the alphabet, each prefix's run remembered."""

    def __init__(self, lanes: Lanes | None = None):
        self.lanes = entry_lanes() if lanes is None else lanes
        self.states: dict[tuple, _State] = {(): _State(Run(self.lanes), 0, 0)}
        self.runs = 0  # instructions executed on the lanes

    def state(self, sequence: tuple) -> _State:
        known = self.states.get(sequence)
        if known is None:
            before = self.state(sequence[:-1])
            known = before.extended(self.lanes, *sequence[-1])
            self.runs += 1
            if len(sequence) < 3:  # only prefixes are looked up again
                self.states[sequence] = known
        return known

    def fingerprint(self, sequence: tuple) -> bytes:
        return self.state(tuple(sequence)).fingerprint()

    def always_fails(self, sequence: tuple) -> bool:
        """The sequence fails on every lane."""
        return bool(self.state(tuple(sequence)).run.failed.all())
