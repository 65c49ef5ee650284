"""Concrete runs: entry states biased to edge values, the interpreter as the oracle,
and counterexamples.

Input: blocks (as `vm.tasm.Program`s) and the `Shape` of their entry state (how
many stack words, stream tokens, ... they can touch).  Output:

* `sample_lanes(generator, count, shape)`: many entry states at once as numpy
  arrays (`Lanes`).  Words are drawn from edge values (0, 1, p-1, 2^32-1, 2^32,
  the blocks' own constants and their neighbours), small integers, random u32
  and random field words; some words copy another word of the same lane (equal
  operands); about half the lanes hold u32 words only, so that u32 instructions
  succeed; stack lengths and stream lengths sit at or next to the lengths where
  the blocks fail.  `Lanes.entry(lane)` is one of them as an `Entry`.
* `run_block(program, entry)`: the interpreter's `Outcome` (vm.interp).  RAM
  is a function of the address (`Entry.memory`), so every cell has a value.
* `difference(outcome_a, outcome_b)`: the first observable difference, or None.
  Two runs that both fail are the same whatever the error kinds.
* `Counterexample`: an entry state and both outcomes, printable and as JSON.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from compiler.verify.assumptions import MINIMUM_STACK
from compiler.verify.functions import TWO_TO_32 as U32_LIMIT
from compiler.verify.functions import EntryValues
from vm.field import P
from vm.interp import initial_machine, run_machine, step_functions
from vm.isa import Arg, Failure
from vm.tasm import Program

# fmt: off
EDGE_VALUES = (
    0, 1, 2, 3, 7, 8, 16, 255, 256, 65535, 65536, 2**31 - 1, 2**31, 2**32 - 2, 2**32 - 1,
    2**32, 2**32 + 1, 2**63, P // 2, P - 2, P - 1,
)
# fmt: on
STREAMS = ("public", "secret", "digest")


@dataclass(frozen=True)
class Shape:
    """What an entry state must provide for two blocks."""

    depth: int  # entry stack words to sample (>= 16 and >= touched)
    touched: int  # entry stack words a block reads or removes (the ones to report)
    thresholds: tuple[int, ...]  # per block: the entry stack length that avoids TooShallow
    reads: tuple[tuple[int, int, int], ...]  # per block: public, secret, digest tokens read
    sponge: bool  # a block touches the sponge
    constants: tuple[int, ...]  # the blocks' push/addi arguments
    minimum_length: int = MINIMUM_STACK  # the entry stack length the blocks may assume
    u32_entry: frozenset[int] = frozenset()  # entry slots assumed below 2^32


def generous_shape(programs) -> Shape:
    """A shape for blocks known only by their instructions (bounds from vm.isa).

    Stream reads are bounded by the count arguments of the instructions that
    grow the stack plus one token per instruction (a Merkle step takes one digest).
    """
    thresholds, total, bound = [], 0, 1
    for program in programs:
        height = lowest = reads = 0
        for op in program.ops:
            delta = op.instruction.stack_delta(op.argument)
            lowest = min(lowest, height + delta)
            height += delta
            total += abs(delta)
            reads += 1 + (op.argument if op.instruction.arg is Arg.COUNT and delta > 0 else 0)
        thresholds.append(MINIMUM_STACK - lowest)
        bound = max(bound, reads)
    constants = {
        op.argument for program in programs for op in program.ops if op.instruction.arg is Arg.FIELD
    }
    digests = max(len(program.ops) for program in programs)
    return Shape(
        depth=2 * MINIMUM_STACK + total,
        touched=2 * MINIMUM_STACK + total,
        thresholds=tuple(thresholds),
        reads=((bound, bound, digests),),
        sponge=True,
        constants=tuple(sorted(constants)),
    )


# --- entry states ------------------------------------------------------------------------------


def _memory_word(mode: int, multiplier: int, offset: int, address: int) -> int:
    """Initial RAM: 0 everywhere (mode 0), a cubic in the address (1), its high half (2)."""
    if mode == 0:
        return 0
    base = (address * multiplier + offset) % P
    value = (base * base % P * base + multiplier) % P
    return value >> 32 if mode == 2 else value


@dataclass(frozen=True)
class Entry:
    """One concrete entry state."""

    stack: tuple[int, ...]  # st0 first; the whole stack, at least 16 words
    public: tuple[int, ...]
    secret: tuple[int, ...]
    digests: tuple[tuple[int, ...], ...]
    sponge: tuple[int, ...] | None  # None: not initialized
    memory_mode: int
    memory_multiplier: int
    memory_offset: int
    cells: tuple[tuple[int, int], ...] = ()  # (address, word): explicit RAM, before the model

    def memory(self, address: int) -> int:
        for cell, word in self.cells:
            if cell == address:
                return word
        return _memory_word(self.memory_mode, self.memory_multiplier, self.memory_offset, address)

    def values(self) -> EntryValues:
        """The entry as the leaves of a symbolic result see it."""
        return EntryValues(
            stack=self.stack,
            public=self.public,
            secret=self.secret,
            digests=self.digests,
            sponge=self.sponge,
            memory=self.memory,
        )


@dataclass
class Lanes:
    """Many entry states: column `lane` of every array is one entry state."""

    count: int
    stack: np.ndarray  # (depth, count); row i is entry st_i
    length: np.ndarray  # (count,) entry stack length
    streams: dict[str, np.ndarray]  # public, secret: (rows, count); digest: (rows, 5, count)
    available: dict[str, np.ndarray]  # (count,) tokens in each stream
    sponge: np.ndarray  # (16, count)
    sponge_initialized: np.ndarray  # (count,) bool
    memory_mode: np.ndarray  # (count,) 0, 1 or 2
    memory_multiplier: np.ndarray  # (count,) uint64
    memory_offset: np.ndarray  # (count,) uint64

    def entry(self, lane: int) -> Entry:
        return self.entries(lane, lane + 1)[0]

    def entries(self, start: int = 0, stop: int | None = None) -> list[Entry]:
        """The entry states of lanes start..stop-1 (all by default)."""
        lanes = range(start, self.count if stop is None else stop)
        window = slice(lanes.start, lanes.stop)
        columns = self.stack[:, window].T.tolist()
        public = self.streams["public"][:, window].T.tolist()
        secret = self.streams["secret"][:, window].T.tolist()
        digests = self.streams["digest"][:, :, window].transpose(2, 0, 1).tolist()
        sponge = self.sponge[:, window].T.tolist()
        scalars = [
            array[window].tolist()
            for array in (
                self.length,
                self.available["public"],
                self.available["secret"],
                self.available["digest"],
                self.sponge_initialized,
                self.memory_mode,
                self.memory_multiplier,
                self.memory_offset,
            )
        ]
        result = []
        for offset, values in enumerate(zip(*scalars)):
            length, publics, secrets, digest_count, initialized, mode, multiplier, shift = values
            words = columns[offset]
            result.append(
                Entry(
                    stack=tuple(words[:length] + [0] * max(0, length - len(words))),
                    public=tuple(public[offset][:publics]),
                    secret=tuple(secret[offset][:secrets]),
                    digests=tuple(tuple(digest) for digest in digests[offset][:digest_count]),
                    sponge=tuple(sponge[offset]) if initialized else None,
                    memory_mode=mode,
                    memory_multiplier=multiplier,
                    memory_offset=shift,
                )
            )
        return result


def _value_pool(constants) -> np.ndarray:
    values = set(EDGE_VALUES)
    for constant in constants:
        values.update({constant % P, (constant + 1) % P, (constant - 1) % P, (P - constant) % P})
    return np.array(sorted(values), dtype=np.uint64)


# A word is an edge value (6 in 20), a small integer (3), a random u32 (5), any word (3) or a
# copy of another word of its lane (3).
CATEGORIES = np.array([0] * 6 + [1] * 3 + [2] * 5 + [3] * 3 + [4] * 3, dtype=np.uint8)


def _words(generator, shape_of_array, pool, u32_lanes) -> np.ndarray:
    """Edge-biased words; lanes flagged in `u32_lanes` (last axis) get u32 words only."""
    category = CATEGORIES[generator.integers(0, len(CATEGORIES), size=shape_of_array)]
    words = generator.integers(0, P, size=shape_of_array, dtype=np.uint64)
    for kind, make in (
        (0, lambda size: pool[generator.integers(0, len(pool), size=size)]),
        (1, lambda size: generator.integers(0, 17, size=size).astype(np.uint64)),
        (2, lambda size: generator.integers(0, U32_LIMIT, size=size, dtype=np.uint64)),
    ):
        chosen = category == kind
        words[chosen] = make(int(chosen.sum()))
    lanes_u32 = np.broadcast_to(u32_lanes, shape_of_array)
    too_big = lanes_u32 & (words >= U32_LIMIT)
    words[too_big] &= np.uint64(0xFF)
    copies = np.nonzero(category == 4)
    if len(shape_of_array) > 1 and shape_of_array[0] > 1 and copies[0].size:
        sources = generator.integers(0, shape_of_array[0], size=copies[0].size)
        words[copies] = words[(sources, *copies[1:])]  # equal operands: copy another row
    return words


def _edge_counts(generator, count, typical: int, edges, share: float) -> np.ndarray:
    """`typical` plus a little, except a `share` of lanes that get one of `edges`."""
    result = typical + generator.integers(0, 3, size=count)
    edges = sorted({value for value in edges if value >= 0})
    if edges:
        chosen = np.array(edges)[generator.integers(0, len(edges), size=count)]
        result = np.where(generator.random(count) < share, chosen, result)
    return result.astype(np.int64)


def sample_lanes(generator: np.random.Generator, count: int, shape: Shape) -> Lanes:
    """`count` edge-biased entry states for blocks of this shape."""
    pool = _value_pool(shape.constants)
    u32_lanes = generator.random(count) < 0.5
    rows = {
        name: max(reads[position] for reads in shape.reads) + 2
        for position, name in enumerate(STREAMS)
    }
    sizes = (shape.depth, rows["public"], rows["secret"], 5 * rows["digest"], 16)
    words = _words(generator, (sum(sizes), count), pool, u32_lanes)
    stack, public, secret, digest, sponge = np.split(words, np.cumsum(sizes)[:-1])
    streams = {"public": public, "secret": secret, "digest": digest.reshape(-1, 5, count)}
    length_edges = [shape.minimum_length] + [
        threshold + offset for threshold in shape.thresholds for offset in (-1, 0)
    ]
    typical_length = max(*shape.thresholds, shape.minimum_length)
    length = _edge_counts(generator, count, typical_length, length_edges, 0.15)
    available = {}
    for position, name in enumerate(STREAMS):
        counts = [reads[position] for reads in shape.reads]
        edges = [value + offset for value in counts if value for offset in (-1, 0)]
        typical = _edge_counts(generator, count, max(counts), edges, 0.15)
        available[name] = np.minimum(typical, rows[name])
    for slot in shape.u32_entry:
        if slot < shape.depth:
            stack[slot] &= np.uint64(U32_LIMIT - 1)
    sponge = np.where(generator.random(count) < 0.2, np.uint64(0), sponge)
    initialized = generator.random(count) < (0.85 if shape.sponge else 0.5)
    return Lanes(
        count=count,
        stack=stack,
        length=np.maximum(length, shape.minimum_length),
        streams=streams,
        available=available,
        sponge=sponge,
        sponge_initialized=initialized,
        memory_mode=generator.choice(3, size=count, p=[0.3, 0.5, 0.2]),
        memory_multiplier=generator.integers(0, P, size=count, dtype=np.uint64),
        memory_offset=generator.integers(0, P, size=count, dtype=np.uint64),
    )


# --- interpreter runs --------------------------------------------------------------------------


class _Memory(dict):
    """RAM for the interpreter: written cells in the dict, the rest from the entry's model."""

    def __init__(self, entry: Entry | None):
        super().__init__()
        self.reset(entry)

    def reset(self, entry: Entry | None) -> None:
        self.clear()
        self.entry = entry
        self.initial_reads: dict[int, int] = {}

    def get(self, address, default=None):
        if address in self:
            return self[address]
        value = self.entry.memory(address)
        self.initial_reads[address] = value
        return value


@dataclass(frozen=True)
class Outcome:
    """What one block did from one entry state, as the interpreter reports it."""

    failure: str | None  # the error kind; None when the block ran to its end or halted
    message: str
    halted: bool
    stack: tuple[int, ...]  # st0 first
    output: tuple[int, ...]
    written: dict  # final values of the RAM cells the block wrote
    initial_reads: dict  # initial RAM cells the block read
    consumed: tuple[int, int, int]  # public, secret, digest tokens
    sponge: tuple[int, ...] | None
    permutation_count: int
    permutation_inputs: frozenset  # (Tip5 input state, how many times), a multiset

    def as_json(self) -> dict:
        if self.failure is not None:
            return {"failure": self.failure, "message": self.message}
        return {
            "failure": None,
            "halted": self.halted,
            "stack": list(self.stack),
            "output": list(self.output),
            "ram_written": {str(address): value for address, value in sorted(self.written.items())},
            "consumed": dict(zip(STREAMS, self.consumed)),
            "sponge": None if self.sponge is None else list(self.sponge),
            "permutations": self.permutation_count,
        }


class _Multiset(Counter):
    """The interpreter records permutation inputs with `add` (a set is enough for the
    cascade table); a block's permutations are compared as a multiset."""

    def add(self, state) -> None:
        self[state] += 1


class BlockRunner:
    """Runs one block on the interpreter from many entry states.

    One machine and its step functions (vm.interp.step_functions) are built
    once; before each run its containers are refilled in place.
    """

    def __init__(self, program: Program):
        self.program = program
        self.memory = _Memory(None)
        self.machine = initial_machine(program, digest=(0,) * 5)  # `run` sets the stack
        self.machine.ram = self.memory
        self.machine.permutation_inputs = _Multiset()
        self.steps = step_functions(self.machine)
        self.hashes = [
            (address, op.instruction.permutations)
            for op, address in zip(program.ops, program.addresses)
            if op.instruction.permutations
        ]

    def run(self, entry: Entry) -> Outcome:
        machine, program = self.machine, self.program
        machine.stack[:] = reversed(entry.stack)
        for queue, words in (
            (machine.public_input, entry.public),
            (machine.secret_input, entry.secret),
            (machine.secret_digests, entry.digests),
        ):
            queue.clear()
            queue.extend(words)
        for container in (
            machine.output,
            machine.jump_stack,
            machine.u32_entries,
            machine.permutation_inputs,
        ):
            container.clear()
        machine.sponge = entry.sponge
        self.memory.reset(entry)
        run = run_machine(machine, len(program.ops) + 1, self.steps)
        error = run.error
        completed = error is not None and (
            error.kind == Failure.INSTRUCTION_POINTER_OVERFLOW and error.ip == program.length
        )
        failure = None if error is None or completed else error.kind
        consumed = (
            len(entry.public) - len(machine.public_input),
            len(entry.secret) - len(machine.secret_input),
            len(entry.digests) - len(machine.secret_digests),
        )
        return Outcome(
            failure=failure,
            message="" if failure is None else str(error),
            halted=error is None,
            stack=tuple(reversed(machine.stack)),
            output=tuple(run.output),
            written=dict(self.memory),
            initial_reads=dict(self.memory.initial_reads),
            consumed=consumed,
            sponge=machine.sponge,
            permutation_count=sum(run.visits[address] * count for address, count in self.hashes),
            permutation_inputs=frozenset(run.permutation_inputs.items()),
        )


def run_block(program: Program, entry: Entry) -> Outcome:
    """Run a straight-line block on the interpreter from `entry`."""
    return BlockRunner(program).run(entry)


def difference(
    first: Outcome, second: Outcome, entry: Entry, ignore: frozenset[int] = frozenset()
) -> str | None:
    """The first observable difference between two outcomes from `entry`, or None.

    `ignore` holds exit stack slots (0 = exit st0) whose values do not matter.
    """
    if (first.failure is None) != (second.failure is None):
        failing, other = ("A", "B") if first.failure is not None else ("B", "A")
        kind = first.failure or second.failure
        return f"block {failing} fails with {kind}, block {other} does not"
    if first.failure is not None:
        return None
    if first.halted != second.halted:
        return f"block {'A' if first.halted else 'B'} halts, the other does not"
    if len(first.stack) != len(second.stack):
        return f"exit stack lengths differ: A {len(first.stack)}, B {len(second.stack)}"
    for index, (left, right) in enumerate(zip(first.stack, second.stack)):
        if left != right and index not in ignore:
            return f"exit st{index} differs: A {left}, B {right}"
    if first.output != second.output:
        return f"output differs: A {list(first.output)}, B {list(second.output)}"
    for address in sorted(set(first.written) | set(second.written)):
        left = first.written.get(address, entry.memory(address))
        right = second.written.get(address, entry.memory(address))
        if left != right:
            return f"RAM[{address}] differs after the block: A {left}, B {right}"
    for name, left, right in zip(STREAMS, first.consumed, second.consumed):
        if left != right:
            return f"{name} input tokens consumed differ: A {left}, B {right}"
    if first.sponge != second.sponge:
        return "the sponge state differs after the block"
    if first.permutation_count != second.permutation_count:
        return (
            f"Tip5 permutations differ: A {first.permutation_count}, B {second.permutation_count}"
        )
    if first.permutation_inputs != second.permutation_inputs:
        return "the inputs of the Tip5 permutations differ"
    return None


@dataclass(frozen=True)
class Counterexample:
    """An entry state on which two blocks differ, with both interpreter outcomes."""

    entry: Entry
    shape: Shape  # which parts of the entry state the blocks use
    outcome_a: Outcome
    outcome_b: Outcome
    difference: str

    def entry_json(self) -> dict:
        entry, shape = self.entry, self.shape
        used = [any(reads[position] for reads in shape.reads) for position in range(3)]
        cells = {**self.outcome_a.initial_reads, **self.outcome_b.initial_reads}
        for address in [*self.outcome_a.written, *self.outcome_b.written]:
            cells.setdefault(address, entry.memory(address))
        report = {
            "stack": list(entry.stack[: shape.touched]),
            "stack_length": len(entry.stack),
            "public_input": list(entry.public) if used[0] else [],
            "secret_input": list(entry.secret) if used[1] else [],
            "secret_digests": [list(digest) for digest in entry.digests] if used[2] else [],
            "ram": {str(address): value for address, value in sorted(cells.items())},
        }
        if shape.sponge:
            report["sponge"] = None if entry.sponge is None else list(entry.sponge)
        return report

    def _compared(self, outcome: Outcome) -> list[int]:
        """The exit stack words above the entry words neither block touched."""
        untouched = max(0, len(self.entry.stack) - self.shape.touched)
        return list(outcome.stack[: max(0, len(outcome.stack) - untouched)])

    def as_json(self) -> dict:
        outcomes = {}
        for name, outcome in (("a", self.outcome_a), ("b", self.outcome_b)):
            outcomes[name] = outcome.as_json()
            if outcome.failure is None:
                outcomes[name]["stack"] = self._compared(outcome)
        return {"difference": self.difference, "entry": self.entry_json(), **outcomes}

    def describe(self) -> list[str]:
        """Readable lines: the entry state, then what each block did."""
        entry = self.entry_json()
        lines = [f"entry stack (st0 first): {entry['stack']}, stack length {entry['stack_length']}"]
        for key, label in (
            ("public_input", "public input"),
            ("secret_input", "secret input"),
            ("secret_digests", "secret digests"),
            ("ram", "initial RAM"),
        ):
            if entry[key]:
                lines.append(f"{label}: {entry[key]}")
        if "sponge" in entry:
            lines.append(f"sponge: {entry['sponge'] or 'not initialized'}")
        for name, outcome in (("A", self.outcome_a), ("B", self.outcome_b)):
            if outcome.failure is not None:
                lines.append(f"{name}: fails: {outcome.message}")
                continue
            text = f"{name}: stack (st0 first) {self._compared(outcome)}"
            if outcome.output:
                text += f", output {list(outcome.output)}"
            if outcome.written:
                cells = {address: value for address, value in sorted(outcome.written.items())}
                text += f", RAM written {cells}"
            if outcome.halted:
                text += ", halts"
            lines.append(text)
        return lines
