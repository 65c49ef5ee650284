"""The static cost function agrees with measured heights on every block of the corpus.

Every straight-line block (the instructions of a `vm.attribution` block before its
control instruction) of every corpus program and of every stdlib module built alone,
compiled at -O1 without peephole, is assembled alone followed by `halt`
(`compiler.lower.blocks.block_program`) and run on the interpreter from entry states
sampled by the verifier (`compiler.verify.concrete`: a deep stack, u32-friendly lanes,
input streams and digests, an initialized sponge): the first of a fixed number of lanes
that runs to the end is taken.  The run is measured one step at a time, independently of
`vm.isa`: cycles, the op-stack length change of each step, RAM words the memory was asked
for, Tip5 permutations made (6 hash rows each, 1 per `sponge_init`), program words.
These must equal `vm.cost.static_cost` of the block (+ the `halt`), and `vm.tables`'
heights must equal the static vector plus the program table and attestation rows.

Where no sampled state gets through (an `assert` that needs one value), the longest
executed prefix is compared instead.  `block_figures` gives the counts, which
`test_block_figures` prints (`pytest -s`).
"""

from __future__ import annotations

import zlib
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from corpus import corpus

from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.driver import compile_program
from compiler.lower.asm import Instr
from compiler.lower.blocks import block_program
from compiler.verify import concrete
from vm import tables, tip5
from vm.attribution import program_blocks
from vm.cost import StaticCost, attestation_rows, program_height, static_cost
from vm.handlers import Fault, Halt
from vm.interp import Run, initial_machine, step_functions

LANES = 48  # entry states tried per block
STDLIB = Path(__file__).parents[2] / "stdlib"
SOURCES = [*corpus("valid"), *sorted(STDLIB.rglob("*.tri"))]


def source_id(path: Path) -> str:
    return path.relative_to(path.parents[1]).as_posix()


@cache
def straight_blocks(path: Path) -> tuple[tuple[Instr, ...], ...]:
    """The distinct straight-line blocks of a source's -O1 build without peephole."""
    program = compile_program(check(load_project(path)), level=0).program
    found = {}
    for block in program_blocks(program):
        ops = [program.ops[index] for index in block.op_indices]
        if ops[-1].instruction.flow.ends_block:
            ops.pop()
        instructions = tuple(Instr(op.instruction.name, op.argument) for op in ops)
        if instructions:
            found.setdefault(tuple(op.text for op in ops), instructions)
    return tuple(found.values())


class Memory(dict):
    """The entry state's RAM (every cell has a value), counting words read and written."""

    def __init__(self, entry: concrete.Entry):
        super().__init__()
        self.entry = entry
        self.accesses = 0

    def get(self, address, default=None):
        self.accesses += 1
        return self[address] if address in self else self.entry.memory(address)

    def __setitem__(self, address, value):
        self.accesses += 1
        super().__setitem__(address, value)


@dataclass(frozen=True)
class Measured:
    completed: int  # instructions of the block that ran (the halt not counted)
    halted: bool
    cost: StaticCost  # measured step by step, without vm.isa
    heights: tables.Heights


def measure(program, entry: concrete.Entry) -> Measured:
    machine = initial_machine(program, entry.public, entry.secret, entry.digests)
    machine.stack = list(reversed(entry.stack))
    machine.ram = memory = Memory(entry)
    machine.sponge = entry.sponge
    steps = step_functions(machine)
    visits = [0] * (program.length + 1)
    permutations = []
    original = tip5.permutation

    def counted(state):
        permutations.append(state)
        return original(state)

    ip = cycles = op_stack = sponge_inits = 0
    halted = False
    with mock.patch.object(tip5, "permutation", counted):
        while True:
            depth = len(machine.stack)
            name = program.ops[program.op_index[ip]].instruction.name
            try:
                following = steps[ip]()
            except Halt:
                visits[ip] += 1
                cycles += 1
                halted = True
                break
            except Fault:
                break
            visits[ip] += 1
            cycles += 1
            op_stack += abs(len(machine.stack) - depth)
            sponge_inits += name == "sponge_init"  # 1 hash row each (docs/vm.md)
            ip = following
    run = Run(program, machine.output, cycles, machine.stack, machine.ram, visits,
              machine.u32_entries, machine.permutation_inputs, None)  # fmt: skip
    cost = StaticCost(
        processor=cycles,
        op_stack=op_stack,
        ram=memory.accesses,
        hash=6 * len(permutations) + sponge_inits,
        jump_stack=cycles,
        program_words=len(program.words),
    )
    return Measured(cycles - halted, halted, cost, tables.heights(run))


def lanes_for(program, count: int):
    shape = concrete.generous_shape([program])
    seed = zlib.crc32(" ".join(op.text for op in program.ops).encode())
    lanes = concrete.sample_lanes(np.random.default_rng(seed), count, shape)
    return [lanes.entry(lane) for lane in range(count)]


@dataclass(frozen=True)
class Outcome:
    ran_to_end: bool
    disagreements: tuple[str, ...]


def check_block(instructions: tuple[Instr, ...]) -> Outcome:
    program = block_program(list(instructions))
    best = None
    for entry in lanes_for(program, LANES):
        measured = measure(program, entry)
        if best is None or measured.completed > best.completed:
            best = measured
        if measured.halted:
            break
    ran = static_cost(instructions[: best.completed])
    words = static_cost(instructions).program_words + 1  # and the halt
    halt = int(best.halted)
    expected = StaticCost(
        ran.processor + halt, ran.op_stack, ran.ram, ran.hash, ran.jump_stack + halt, words
    )
    problems = []
    if best.cost != expected:
        problems.append(f"measured {best.cost}, static {expected}")
    rebuilt = {
        "processor": expected.processor,
        "op_stack": expected.op_stack,
        "ram": expected.ram,
        "jump_stack": expected.jump_stack,
        "hash": expected.hash + attestation_rows(words),
        "program": program_height(words),
    }
    heights = best.heights.as_dict()
    problems += [
        f"{name}: vm.tables {heights[name]}, static {value}"
        for name, value in rebuilt.items()
        if heights[name] != value
    ]
    return Outcome(best.halted, tuple(problems))


def block_figures(paths=SOURCES) -> Counter:
    """Blocks tested (distinct per source), run to the end, prefix only, disagreements."""
    figures = Counter()
    for path in paths:
        for instructions in straight_blocks(path):
            outcome = check_block(instructions)
            figures["blocks"] += 1
            figures["ran to end" if outcome.ran_to_end else "prefix only"] += 1
            figures["disagreements"] += bool(outcome.disagreements)
    return figures


@pytest.mark.parametrize("path", SOURCES, ids=source_id)
def test_static_cost_agrees_with_every_block_run_alone(path):
    for instructions in straight_blocks(path):
        outcome = check_block(instructions)
        text = " ".join(instruction.text for instruction in instructions)
        assert not outcome.disagreements, f"{text}: {outcome.disagreements}"


def test_block_figures(capsys):
    figures = block_figures(SOURCES[::8])  # a sample here; the test above runs them all
    with capsys.disabled():
        print(f"\nblock costs (every 8th source): {dict(figures)}")
    assert figures["disagreements"] == 0 and figures["ran to end"] > figures["prefix only"]
