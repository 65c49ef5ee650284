"""Ground truth for tests/verify/test_verify_adversarial.py, independent of compiler/verify.

Input: two blocks (`vm.tasm.Program`s), the entry facts a pair may assume
(`compiler.verify.assumptions.Assumptions`: only its three fields are read) and
the pair's *corners*: small functions that move a sampled entry state to the
place where the two blocks part (equal operands, aliasing addresses, an
`assert_vector` that passes, a constant near p, an exact stack length, ...).
Output:

* `sample_states(...)`: entry states -- edge-biased words, exact stack lengths
  at each block's TooShallow threshold, streams one token short or exact, RAM
  with explicit cells, an uninitialized or a given sponge -- with the corners
  applied to most of them, honouring the assumptions;
* `run(program, state)`: what the interpreter (vm.interp) does from a state,
  with the Tip5 permutation inputs recorded as a multiset;
* `difference(first, second, state, ignore)`: the first observable difference
  of two outcomes, or None (both fail, whatever the errors, or both leave the
  same stack except the `ignore` slots, output, RAM, stream positions, sponge,
  halted flag and multiset of permutation inputs);
* `first_difference(...)` and `count_successes(...)`: the searches the tests make.

Nothing here asks the checker anything: the thresholds and stream counts come
from vm.isa's stack deltas and the instructions' arguments.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from vm.field import P
from vm.interp import initial_machine, run_machine
from vm.isa import Arg
from vm.tasm import Program

U32_LIMIT = 1 << 32
MINIMUM_STACK = 16
# fmt: off
EDGES = (
    0, 1, 2, 3, 4, 5, 7, 8, 31, 32, 255, 256, 65535, 65536, 2**31 - 1, 2**31, 2**32 - 3,
    2**32 - 2, 2**32 - 1, 2**32, 2**32 + 1, 2**33, 2**63 - 1, 2**63, 2**64 - 2**32 - 1,
    P // 2, P - 3, P - 2, P - 1,
)
# fmt: on


@dataclass
class State:
    """One entry state; mutable while corners move it, then used as is."""

    stack: list[int]  # st0 first: the whole stack, at least 16 words
    public: list[int] = field(default_factory=list)
    secret: list[int] = field(default_factory=list)
    digests: list[tuple[int, ...]] = field(default_factory=list)
    sponge: tuple[int, ...] | None = None
    cells: dict[int, int] = field(default_factory=dict)  # explicit initial RAM cells
    memory_seed: int = 0  # the other cells: 0 (seed 0) or a pseudo-random word

    def memory(self, address: int) -> int:
        if address in self.cells:
            return self.cells[address]
        if self.memory_seed == 0:
            return 0
        mixed = (address * 0x9E3779B97F4A7C15 + self.memory_seed) % P
        return mixed * mixed % P

    def describe(self) -> str:
        return (
            f"stack {self.stack[:12]}... (length {len(self.stack)}), public {self.public}, "
            f"secret {self.secret}, digests {len(self.digests)}, sponge "
            f"{'none' if self.sponge is None else self.sponge[:3]}, cells {self.cells}"
        )


# --- corners: functions (random.Random, State) -> None --------------------------------------------


def same(source: int, target: int) -> Callable:
    """st_target := st_source (equal operands)."""

    def corner(generator, state):
        if max(source, target) < len(state.stack):
            state.stack[target] = state.stack[source]

    return corner


def value(slot: int, *choices: int) -> Callable:
    """st_slot := one of `choices` (taken mod p)."""

    def corner(generator, state):
        if slot < len(state.stack):
            state.stack[slot] = generator.choice(choices) % P

    return corner


def shifted(target: int, source: int, *offsets: int) -> Callable:
    """st_target := st_source + one of `offsets` (addresses a constant apart, or equal)."""

    def corner(generator, state):
        if max(source, target) < len(state.stack):
            state.stack[target] = (state.stack[source] + generator.choice(offsets)) % P

    return corner


def u32(*slots: int) -> Callable:
    """The slots hold u32 words (so that u32 instructions pass)."""

    def corner(generator, state):
        for slot in slots:
            state.stack[slot] = _word(generator, u32_only=True)

    return corner


def vector(first: int = 0) -> Callable:
    """st_(first+5+i) := st_(first+i) for i < 5: an `assert_vector` there passes."""

    def corner(generator, state):
        for index in range(first, first + 5):
            state.stack[index + 5] = state.stack[index]

    return corner


def cell(slot: int, offset: int = 0, *choices: int) -> Callable:
    """RAM[st_slot + offset] := one of `choices` (default: a random word)."""

    def corner(generator, state):
        address = (state.stack[slot] + offset) % P
        state.cells[address] = generator.choice(choices) % P if choices else _word(generator)

    return corner


def length(*lengths: int) -> Callable:
    """The stack has exactly one of these lengths (never below the assumed minimum)."""

    def corner(generator, state):
        wanted = generator.choice(lengths)
        while len(state.stack) < wanted:
            state.stack.append(_word(generator))
        del state.stack[max(wanted, MINIMUM_STACK) :]

    return corner


def initialized(generator, state) -> None:
    """The sponge is initialized (a random state)."""
    state.sponge = tuple(_word(generator) for _ in range(16))


def custom(function: Callable[[random.Random, State], None]) -> Callable:
    return function


# --- sampling -------------------------------------------------------------------------------------


def _word(generator: random.Random, u32_only: bool = False, pool: Sequence[int] = EDGES) -> int:
    roll = generator.random()
    if roll < 0.35:
        word = generator.choice(pool)
    elif roll < 0.5:
        word = generator.randrange(17)
    elif roll < 0.75:
        word = generator.randrange(U32_LIMIT)
    else:
        word = generator.randrange(P)
    return word % U32_LIMIT if u32_only else word


def threshold(program: Program) -> int:
    """The least entry stack length without TooShallow (vm.isa's net stack changes)."""
    height = lowest = 0
    for op in program.ops:
        if op.instruction.name == "halt":
            break
        delta = op.instruction.stack_delta(op.argument)
        lowest = min(lowest, height + delta)
        height += delta
    return MINIMUM_STACK - lowest


def tokens(program: Program) -> tuple[int, int, int]:
    """Public, secret and digest tokens a block can consume."""
    public = secret = digests = 0
    for op in program.ops:
        name = op.instruction.name
        public += op.argument if name == "read_io" else 0
        secret += op.argument if name == "divine" else 0
        digests += name == "merkle_step"
    return public, secret, digests


def _pool(programs) -> tuple[int, ...]:
    values = set(EDGES)
    for program in programs:
        for op in program.ops:
            if op.instruction.arg is Arg.FIELD:
                values.update({op.argument, op.argument + 1, op.argument - 1, -op.argument})
    return tuple(sorted(value % P for value in values))


def sample_states(
    programs: Sequence[Program],
    assumptions,
    corners: Sequence[Callable],
    count: int,
    seed: int,
) -> Iterator[State]:
    """`count` entry states for the blocks; corners move most of them (see the module)."""
    generator = random.Random(seed)
    pool = _pool(programs)
    minimum = assumptions.minimum_depth
    lengths = {minimum, minimum + 1}
    for program in programs:
        lengths.update({threshold(program) - 1, threshold(program)})
    lengths = sorted(value for value in lengths if value >= minimum)
    deepest = max(max(lengths), max(assumptions.u32_entry, default=0) + 1)
    reads = [tokens(program) for program in programs]
    for _ in range(count):
        u32_only = generator.random() < 0.4
        size = (
            generator.choice(lengths)
            if generator.random() < 0.5
            else deepest + generator.randrange(4)
        )
        stack = [_word(generator, u32_only, pool) for _ in range(max(size, deepest))]
        for slot in range(len(stack)):
            if slot and generator.random() < 0.12:  # equal operands
                stack[slot] = stack[generator.randrange(len(stack))]
        del stack[max(size, minimum) :]
        streams = []
        for position in range(3):
            wanted = max(read[position] for read in reads)
            choices = [
                wanted,
                wanted,
                wanted + 1,
                max(0, wanted - 1),
                generator.randrange(wanted + 3),
            ]
            streams.append(generator.choice(choices))
        state = State(
            stack=stack,
            public=[_word(generator, u32_only, pool) for _ in range(streams[0])],
            secret=[_word(generator, u32_only, pool) for _ in range(streams[1])],
            digests=[tuple(_word(generator) for _ in range(5)) for _ in range(streams[2])],
            sponge=_sponge(generator),
            memory_seed=generator.choice((0, generator.randrange(1, P))),
        )
        for corner in corners:
            if generator.random() < 0.7:
                corner(generator, state)
        _honour(state, assumptions, generator)
        yield state


def _sponge(generator: random.Random):
    roll = generator.random()
    if roll < 0.25:
        return None
    if roll < 0.4:
        return (0,) * 16
    return tuple(_word(generator) for _ in range(16))


def _honour(state: State, assumptions, generator: random.Random) -> None:
    while len(state.stack) < assumptions.minimum_depth:
        state.stack.append(_word(generator))
    for slot in assumptions.u32_entry:
        while len(state.stack) <= slot:
            state.stack.append(_word(generator))
        state.stack[slot] %= U32_LIMIT


def satisfies(stack: Sequence[int], assumptions) -> bool:
    """Whether an entry stack (st0 first) is one the assumptions allow."""
    return len(stack) >= assumptions.minimum_depth and all(
        slot < len(stack) and stack[slot] < U32_LIMIT for slot in assumptions.u32_entry
    )


# --- runs -----------------------------------------------------------------------------------------


class _Memory(dict):
    """Written cells in the dict; the interpreter reads the others through `get`."""

    def __init__(self, state: State):
        super().__init__()
        self.state = state

    def get(self, address, default=None):
        return self[address] if address in self else self.state.memory(address)


class _Recorder(set):
    """The interpreter's set of permutation inputs, also kept as a multiset."""

    def __init__(self):
        super().__init__()
        self.inputs: Counter = Counter()

    def add(self, state) -> None:
        self.inputs[tuple(state)] += 1
        super().add(state)


@dataclass(frozen=True)
class Outcome:
    failure: str | None
    halted: bool
    stack: tuple[int, ...]  # st0 first
    output: tuple[int, ...]
    written: dict
    consumed: tuple[int, int, int]
    sponge: tuple[int, ...] | None
    permutations: Counter


def run(program: Program, state: State) -> Outcome:
    """The interpreter's run of a straight-line block from `state`."""
    machine = initial_machine(program, state.public, state.secret, state.digests)
    machine.stack = list(reversed(state.stack))
    machine.ram = _Memory(state)
    machine.sponge = state.sponge
    recorder = machine.permutation_inputs = _Recorder()
    result = run_machine(machine, max_steps=len(program.ops) + 1)
    error = result.error
    ran_off_the_end = error is not None and (
        error.kind == "InstructionPointerOverflow" and error.ip == program.length
    )
    return Outcome(
        failure=None if error is None or ran_off_the_end else error.kind,
        halted=error is None,
        stack=tuple(reversed(machine.stack)),
        output=tuple(result.output),
        written=dict(machine.ram),
        consumed=(
            len(state.public) - len(machine.public_input),
            len(state.secret) - len(machine.secret_input),
            len(state.digests) - len(machine.secret_digests),
        ),
        sponge=machine.sponge,
        permutations=recorder.inputs,
    )


def difference(first: Outcome, second: Outcome, state: State, ignore=frozenset()) -> str | None:
    """The first observable difference, or None (see the module docstring)."""
    if (first.failure is None) != (second.failure is None):
        return f"only one block fails: A {first.failure}, B {second.failure}"
    if first.failure is not None:
        return None
    if first.halted != second.halted:
        return "only one block halts"
    if len(first.stack) != len(second.stack):
        return f"exit stack lengths {len(first.stack)} and {len(second.stack)}"
    for slot, (left, right) in enumerate(zip(first.stack, second.stack)):
        if left != right and slot not in ignore:
            return f"exit st{slot}: A {left}, B {right}"
    if first.output != second.output:
        return f"output: A {first.output}, B {second.output}"
    for address in set(first.written) | set(second.written):
        left = first.written.get(address, state.memory(address))
        right = second.written.get(address, state.memory(address))
        if left != right:
            return f"RAM[{address}]: A {left}, B {right}"
    if first.consumed != second.consumed:
        return f"tokens consumed: A {first.consumed}, B {second.consumed}"
    if first.sponge != second.sponge:
        return "sponge state"
    if first.permutations != second.permutations:
        return "multiset of Tip5 permutation inputs"
    return None


def first_difference(first: Program, second: Program, assumptions, corners, count, seed=0):
    """(state, difference) for the first sampled state where the blocks differ, or None."""
    for state in sample_states((first, second), assumptions, corners, count, seed):
        found = difference(run(first, state), run(second, state), state, assumptions.dont_care)
        if found is not None:
            return state, found
    return None


def count_successes(first: Program, second: Program, assumptions, corners, count, seed=0):
    """(states where both succeed, the first difference or None) over `count` states."""
    succeeded = 0
    for state in sample_states((first, second), assumptions, corners, count, seed):
        outcomes = run(first, state), run(second, state)
        found = difference(*outcomes, state, assumptions.dont_care)
        if found is not None:
            return succeeded, (state, found)
        succeeded += outcomes[0].failure is None
    return succeeded, None
