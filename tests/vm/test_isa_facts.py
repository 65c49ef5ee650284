"""Every fact of `vm/isa.py` against what the interpreter's handlers do, and every copy of
a fact that another module keeps against the table.

Each instruction, with every argument it takes, executes one step from many drawn
machine states (stacks of u32 words, field words, zeros and equal words; short and
long stacks; empty and full input streams; sponge set or not; jump stack empty or
not).  What the step does is compared with the row, independently of the row:

* the stack-length change against `delta`; every entry word below `changes` is found
  unchanged, `delta` places lower; changing one entry word at or below `reads` changes
  nothing else, and the word just above `reads` (and `changes`) does matter;
* RAM reads and writes counted by the memory, public and secret words taken, output
  words written, Tip5 permutations made, hash rows, u32 entry kinds recorded;
* the error kinds raised: only those of `failures`, and each of them on some state;
  TooShallow exactly below `minimum_depth`;
* where control goes (`flow`) and whether the sponge is touched (`sponge`);
* what it computes as far as rewrites rely on it: only entry words among the words it
  leaves (`rearranges`), nothing changed by swapping st0 and st1 first (`commutative`),
  st0 always 0 or 1 (`boolean_result`).

The same row facts are then checked where other modules keep their own copy or
derive from them: TIR op rows against their TASM templates, the error kinds and stream
reads of the verifier's symbolic and vectorized executors, the constants of the verifier
and the JIT.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, replace
from functools import cache

import numpy as np
import pytest

from compiler.tir import ops as tir
from compiler.verify import concrete, symbolic, vectorized
from compiler.verify.terms import TermTable
from vm.field import P
from vm.handlers import Fault, Halt
from vm.interp import Machine, step_functions
from vm.isa import (
    HASH_ROWS_PER_PERMUTATION,
    INSTRUCTIONS,
    OP_STACK_MINIMUM,
    U32_KINDS,
    Arg,
    Failure,
    Flow,
    Instruction,
    instruction_set,
)
from vm.jit import layout
from vm.tasm import Program, parse

STATES = 48  # drawn machine states per instruction and argument
EDGES = (0, 1, 2, 3, 2**31, 2**32 - 1, 2**32, 2**63, P - 2, P - 1)
FIELD_ARGUMENTS = (0, 1, 2**32, P - 1)


def arguments(row: Instruction) -> list[int | None]:
    if row.arg is Arg.COUNT:
        return list(range(1, 6))
    if row.arg is Arg.INDEX:
        return list(range(16))
    if row.arg is Arg.FIELD:
        return list(FIELD_ARGUMENTS)
    return [None]


def rows_and_arguments():
    for row in INSTRUCTIONS:
        isa = "head" if row.isa == "head" else "rel"
        for argument in arguments(row):
            yield pytest.param(isa, row.name, argument, id=f"{row.name}-{argument}")


# --- one step on a drawn machine state ---------------------------------------------------------


class Memory(dict):
    """RAM in which every cell has a value (a function of the address); counts accesses."""

    def __init__(self, salt: int):
        super().__init__()
        self.salt = salt
        self.reads = self.writes = 0

    def get(self, address, default=None):
        self.reads += 1
        if address in self:
            return self[address]
        return (address * 0x9E3779B97F4A7C15 + self.salt) % P

    def __setitem__(self, address, value):
        self.writes += 1
        super().__setitem__(address, value)


@dataclass(frozen=True)
class State:
    stack: tuple[int, ...]  # st0 first
    public: tuple[int, ...]
    secret: tuple[int, ...]
    digests: tuple[tuple[int, ...], ...]
    sponge: tuple[int, ...] | None
    jump: tuple[tuple[int, int], ...]
    salt: int
    tail: int  # instructions after the one under test


@dataclass(frozen=True)
class Step:
    failure: str | None
    halted: bool
    next_ip: int | None
    stack: tuple[int, ...]  # st0 first
    output: tuple[int, ...]
    written: tuple
    ram_reads: int
    ram_writes: int
    consumed: tuple[int, int, int]  # public, secret, digests
    u32_kinds: tuple[str, ...]
    permutations: frozenset
    sponge: tuple[int, ...] | None
    jump: tuple[tuple[int, int], ...]

    def visible(self, row: Instruction, argument) -> tuple:
        """Everything but the entry words the instruction leaves alone."""
        top = row.stack_changed(argument) + row.stack_delta(argument)
        stack = None if self.failure else self.stack[: max(0, top)]
        return (
            self.failure,
            self.halted,
            self.next_ip,
            stack,
            self.output,
            self.written,
            self.consumed,
            self.u32_kinds,
            self.permutations,
            self.sponge,
            self.jump,
        )


@cache
def program(isa: str, name: str, argument, tail: int) -> Program:
    row = instruction_set(isa)[name]
    if row.arg is Arg.LABEL:
        text = "call target" + " nop" * tail + " target:"
    else:
        text = name if argument is None else f"{name} {argument}"
        text += " nop" * tail
    return parse(text, isa)


def step(isa: str, row: Instruction, argument, state: State) -> Step:
    code = program(isa, row.name, argument, state.tail)
    memory = Memory(state.salt)
    machine = Machine(
        program=code,
        stack=list(reversed(state.stack)),
        ram=memory,
        public_input=deque(state.public),
        secret_input=deque(state.secret),
        secret_digests=deque(state.digests),
        jump_stack=list(state.jump),
        sponge=state.sponge,
    )
    failure, halted, next_ip = None, False, None
    try:
        next_ip = step_functions(machine)[0]()
    except Halt:
        halted = True
    except Fault as fault:
        failure = str(fault.kind)
    return Step(
        failure=failure,
        halted=halted,
        next_ip=next_ip,
        stack=tuple(reversed(machine.stack)),
        output=tuple(machine.output),
        written=tuple(sorted(dict.items(memory))),
        ram_reads=memory.reads,
        ram_writes=memory.writes,
        consumed=(
            len(state.public) - len(machine.public_input),
            len(state.secret) - len(machine.secret_input),
            len(state.digests) - len(machine.secret_digests),
        ),
        u32_kinds=tuple(sorted(kind for kind, _, _ in machine.u32_entries)),
        permutations=frozenset(machine.permutation_inputs),
        sponge=machine.sponge,
        jump=tuple(machine.jump_stack),
    )


def draw_word(rng: random.Random, style: str) -> int:
    if style == "zeros":
        return 0
    if style == "u32":
        return rng.choice((rng.choice(EDGES[:6]), rng.randrange(17), rng.randrange(1 << 32)))
    if style == "field":
        return rng.choice((rng.choice(EDGES), rng.randrange(P)))
    return rng.choice((0, 1, rng.randrange(1 << 32), rng.randrange(P), rng.choice(EDGES)))


# States drawn first, so that every error kind is reached: zeros (division by zero, inverse
# and logarithm of zero, skiz on 0 as the last instruction), words beyond u32, and no input,
# sponge or jump-stack entry; at the shortest stack and at a long one.
CORNERS = (
    State((0,) * 16, (), (), (), None, (), 7, 0),
    State((0,) * 40, (), (), (), None, (), 7, 0),
    State((2**32 + 5,) * 40, (), (), (), None, (), 7, 0),
    State((0,) * 5 + (1,) * 35, (), (), (), (0,) * 16, ((1000, 2000),), 7, 1),
)


def states(rng: random.Random):
    yield from CORNERS
    for _ in range(STATES - len(CORNERS)):
        yield draw_state(rng)


def draw_state(rng: random.Random) -> State:
    style = rng.choice(("zeros", "u32", "u32", "u32", "field", "mixed", "mixed"))
    length = OP_STACK_MINIMUM + rng.choice((0, 0, 1, 2, 4, 8, 16, 24))
    stack = [draw_word(rng, style) for _ in range(length)]
    for _ in range(rng.choice((0, 1, 3))):  # equal words: operands of eq, assert_vector, ...
        source, target = rng.randrange(length), rng.randrange(length)
        stack[target] = stack[source]
    if rng.random() < 0.2:  # the Merkle-step node index and recurse_or_return's pair
        stack[6] = stack[5]
    if rng.random() < 0.2:
        stack[5:10] = stack[0:5]
    streams = [tuple(draw_word(rng, style) for _ in range(rng.choice((0, 1, 5, 6)))) for _ in "ps"]
    digests = tuple(tuple(rng.randrange(P) for _ in range(5)) for _ in range(rng.choice((0, 1, 2))))
    sponge = None if rng.random() < 0.3 else tuple(rng.randrange(P) for _ in range(16))
    jump = tuple((1000 + k, 2000 + k) for k in range(rng.choice((0, 1, 2))))
    return State(tuple(stack), *streams, digests, sponge, jump, rng.randrange(P), rng.randrange(3))


def perturbed(rng: random.Random, state: State, depth: int) -> State:
    """`state` with entry word `depth` changed, often to equal a word near it."""
    stack = list(state.stack)
    candidates = [
        rng.randrange(P),
        rng.randrange(1 << 32),
        rng.choice(EDGES),
        *(stack[other] for other in (depth - 1, depth + 1, 0, 5) if 0 <= other < len(stack)),
    ]
    fresh = [value for value in candidates if value != stack[depth]] or [stack[depth] ^ 1]
    stack[depth] = rng.choice(fresh)
    return replace(state, stack=tuple(stack))


# --- the facts -----------------------------------------------------------------------------------


def flow_of(row: Instruction, argument, state: State, result: Step) -> str:
    """What control did: 'halt', 'next', 'skip', 'call', 'return' or 'recurse'."""
    code = program("head" if row.isa == "head" else "rel", row.name, argument, state.tail)
    following = code.addresses[1] if len(code.ops) > 1 else code.length
    if result.halted:
        return "halt"
    if len(result.jump) == len(state.jump) + 1:
        assert result.jump[-1] == (following, code.ops[0].argument)
        return "call"
    if len(result.jump) == len(state.jump) - 1:
        assert result.next_ip == state.jump[-1][0]
        return "return"
    assert result.jump == state.jump
    if state.jump and result.next_ip == state.jump[-1][1]:
        return "recurse"
    return "next" if result.next_ip == following else "skip"


FLOWS = {
    Flow.STRAIGHT: {"next"},
    Flow.SKIZ: {"next", "skip"},
    Flow.CALL: {"call"},
    Flow.RETURN: {"return"},
    Flow.RECURSE: {"recurse"},
    Flow.RECURSE_OR_RETURN: {"return", "recurse"},
    Flow.HALT: {"halt"},
}


def check_success(row: Instruction, argument, state: State, result: Step) -> None:
    delta, changed = row.stack_delta(argument), row.stack_changed(argument)
    assert len(result.stack) - len(state.stack) == delta
    assert result.stack[changed + delta :] == state.stack[changed:]
    assert result.consumed == (
        row.public_input.at(argument),
        row.secret_input.at(argument),
        row.secret_digests.at(argument),
    )
    assert len(result.output) == row.public_output.at(argument)
    assert (result.ram_reads, result.ram_writes) == (
        row.ram_reads.at(argument),
        row.ram_writes.at(argument),
    )
    assert len(result.permutations) == row.permutations
    sponge_init_rows = 1 if row.name == "sponge_init" else 0  # docs/vm.md
    assert row.hash_rows == HASH_ROWS_PER_PERMUTATION * len(result.permutations) + sponge_init_rows
    assert result.u32_kinds == tuple(sorted(row.u32_entries))
    if not row.sponge:
        assert result.sponge == state.sponge


def moved_only(state: State, result: Step, made: tuple, touched: int) -> bool:
    """Whether the step only moved, copied or dropped entry words: every word it made is
    one of the `touched` entry words, and it did nothing else."""
    effects = (result.output, result.written, result.u32_kinds, result.permutations)
    return (
        set(made) <= set(state.stack[:touched])
        and not any(effects)
        and result.consumed == (0, 0, 0)
        and result.sponge == state.sponge
    )


def swap_top(stack: tuple[int, ...]) -> tuple[int, ...]:
    return (stack[1], stack[0], *stack[2:])


@pytest.mark.parametrize(("isa", "name", "argument"), list(rows_and_arguments()))
def test_handler_does_what_its_row_says(isa, name, argument):
    row = instruction_set(isa)[name]
    rng = random.Random(f"{name} {argument}")
    reads, changed = row.stack_read(argument), row.stack_changed(argument)
    failures, flows = set(), set()
    read_matters = changed_matters = sponge_matters = False
    stack_kept = True  # on every state where it succeeded
    only_entry_words = only_bits = True  # every word it made was an entry word; st0 was 0 or 1
    swap_invisible = True  # swapping st0 and st1 first changed nothing
    for state in states(rng):
        result = step(isa, row, argument, state)
        shallow = len(state.stack) < row.minimum_depth(argument)
        assert (result.failure == Failure.TOO_SHALLOW) == shallow, result.failure
        if result.failure is not None:
            assert result.failure in row.failures, result.failure
            failures.add(result.failure)
            only_entry_words &= result.failure == Failure.TOO_SHALLOW
        else:
            check_success(row, argument, state, result)
            flows.add(flow_of(row, argument, state, result))
            stack_kept &= result.stack == state.stack
            top = changed - 1 + row.stack_delta(argument)
            if changed and (top < 0 or result.stack[top] != state.stack[changed - 1]):
                changed_matters = True
            sponge_matters |= result.sponge != state.sponge
            made = result.stack[: max(0, top + 1)]
            only_entry_words &= moved_only(state, result, made, max(reads, changed))
            only_bits &= bool(made) and made[0] in (0, 1)
        swapped = step(isa, row, argument, replace(state, stack=swap_top(state.stack)))
        swap_invisible &= swapped == result or (swapped.failure or 0) == result.failure
        other_sponge = replace(state, sponge=None if state.sponge else (0,) * 16)
        other = step(isa, row, argument, other_sponge)
        sponge_matters |= other.visible(row, argument)[:-2] != result.visible(row, argument)[:-2]
        for depth in range(min(len(state.stack), max(reads, changed) + 3)):
            other = step(isa, row, argument, perturbed(rng, state, depth))
            differs = other.visible(row, argument) != result.visible(row, argument)
            if depth >= reads:
                assert not differs, f"depth {depth} matters, but '{name}' reads {reads}"
            elif depth == reads - 1 and differs:
                read_matters = True
    assert failures == row.failures
    assert flows == FLOWS[row.flow]
    assert sponge_matters == row.sponge
    trivial = stack_kept and row.arg is not Arg.NONE  # pick 0, place 0, swap 0, addi 0
    assert read_matters or reads == 0 or trivial, f"'{name}' reads fewer than {reads} words"
    assert changed_matters or changed == 0 or trivial, f"'{name}' changes fewer than {changed}"
    straight = row.flow is Flow.STRAIGHT
    assert row.rearranges == (only_entry_words and straight) or (trivial and not row.rearranges)
    assert row.commutative == (swap_invisible and not row.rearranges)  # pop 2 is a move
    constant_bit = row.name == "push" and argument in (0, 1)  # a fact of the argument
    assert row.boolean_result == only_bits or (constant_bit and not row.boolean_result)


def test_u32_kinds_are_the_table_kinds():
    recorded = {kind for row in INSTRUCTIONS for kind in row.u32_entries}
    assert recorded == set(U32_KINDS)


# --- copies and derived facts elsewhere ----------------------------------------------------------


def template_instructions(name: str, argument) -> list[tuple[str, int | None]]:
    return tir.tasm_of(tir.Op(name, argument))


def tir_arguments(row: tir.OpInfo) -> list:
    if row.arg == "count":
        return [1, 5] if row.name == "Assert" else list(range(1, 6))
    if row.arg == "index":
        return list(range(16))
    if row.arg == "value":
        return [0, 1, P - 1]
    if row.arg == "width":
        widths = range(1, 6) if row.name in ("RamRead", "RamWrite") else range(0, 10)
        return [tag * 16 + width for tag in (0, 3) for width in widths]
    return [None]


TEMPLATED = [row for row in tir.OPS_LIST if row.tasm is not None and row.consumes is not None]


@pytest.mark.parametrize("row", TEMPLATED, ids=lambda row: row.name)
def test_tir_rows_agree_with_their_templates(row):
    """Consumed and produced elements and side effects of every TIR op are those of the TASM
    instructions it lowers to, composed from their `vm.isa` rows."""
    for argument in tir_arguments(row):
        instructions = template_instructions(row.name, argument)
        height = lowest = 0
        for mnemonic, operand in instructions:
            instruction = instruction_set("rel")[mnemonic]
            lowest = min(lowest, height - instruction.stack_touched(operand))
            height += instruction.stack_delta(operand)
        consumes, produces = tir.Op(row.name, argument).effect()
        assert (consumes - produces) == -height, (row.name, argument)
        assert consumes >= -lowest, (row.name, argument)
        if row.name not in ("Dup", "Swap", "Pick", "Place"):  # these name their reach
            assert consumes == -lowest, (row.name, argument)
        assert tir.template_effects(instructions) == row.effects, (row.name, argument)


STRAIGHT = [row for row in INSTRUCTIONS if row.flow in (Flow.STRAIGHT, Flow.HALT)]


@pytest.mark.parametrize("row", STRAIGHT, ids=lambda row: row.name)
def test_symbolic_executor_agrees_with_the_rows(row):
    """The verifier's symbolic handlers raise only the row's error kinds, read the row's
    stream words and touch the row's stack depth."""
    isa = "head" if row.isa == "head" else "rel"
    for argument in arguments(row)[:6]:
        text = row.name if argument is None else f"{row.name} {argument}"
        summary = symbolic.execute(parse(text, isa), TermTable())
        kinds = set(summary.guards.values())
        assert kinds <= row.failures, (row.name, kinds)
        reads = summary.reads
        assert (reads["public"], reads["secret"], reads["digest"]) == (
            row.public_input.at(argument),
            row.secret_input.at(argument),
            row.secret_digests.at(argument),
        )
        assert len(summary.output) == row.public_output.at(argument)
        assert summary.entry_depth <= row.stack_touched(argument)
        assert summary.depth_threshold == row.minimum_depth(argument)
        assert summary.sponge_required == (Failure.SPONGE_NOT_INITIALIZED in row.failures)


@pytest.mark.parametrize("row", STRAIGHT, ids=lambda row: row.name)
def test_vectorized_executor_agrees_with_the_rows(row):
    """The verifier's numpy handlers fail only with the row's error kinds and take the row's
    stream words."""
    isa = "head" if row.isa == "head" else "rel"
    for argument in arguments(row)[:6]:
        text = row.name if argument is None else f"{row.name} {argument}"
        code = parse(text, isa)
        shape = concrete.generous_shape([code])
        lanes = concrete.sample_lanes(np.random.default_rng(len(text)), 256, shape)
        outcome = vectorized.run_lanes(code, lanes)
        kinds = {kind for kind in outcome.kinds if kind is not None}
        assert kinds <= row.failures, (row.name, kinds)
        assert outcome.consumed == (
            row.public_input.at(argument),
            row.secret_input.at(argument),
            row.secret_digests.at(argument),
        )


def test_copies_of_table_constants_agree():
    assert symbolic.MINIMUM_STACK == concrete.MINIMUM_STACK == OP_STACK_MINIMUM
    assert vectorized.MINIMUM_STACK == OP_STACK_MINIMUM
    assert set(layout.ERROR_KINDS) - {"InternalReturnAddress"} == set(Failure) - {
        Failure.TOO_SHALLOW
    }
    assert layout.U32_KINDS == U32_KINDS


def test_sets_read_off_the_columns():
    """The instruction sets other modules use are derived from the columns; these are the
    sets a change of a column would change (on purpose, with this test)."""
    from vm.isa import BOOLEAN_RESULT, COMMUTATIVE, MOVES

    assert MOVES == {"dup", "swap", "pick", "place", "pop", "nop"}
    assert COMMUTATIVE == {"add", "mul", "eq", "and", "xor"}
    assert BOOLEAN_RESULT == {"eq", "lt"}
    assert symbolic.SELECTABLE == {"swap", "pick", "place", "nop", "addi"}
    assert not MOVES & COMMUTATIVE  # the checked-operand set: tests/back_end/test_merged_checks.py
