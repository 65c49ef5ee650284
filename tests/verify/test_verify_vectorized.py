"""The numpy lane executor agrees with the interpreter, lane by lane.

It screens candidates in `check_equivalent` and is the 10,000-input check of the
mutation test, so it must report the same failure (and error kind), exit stack,
output, RAM, streams, sponge and permutation count as vm/interp.
"""

import random

import numpy as np
import pytest

from compiler.verify import concrete, vectorized
from compiler.verify.generate import (
    compiled_block,
    make_op,
    random_argument,
    random_block,
    straight_line_names,
)
from vm.tasm import Program, disassemble, parse


def assert_lanes_agree(ops, seed: int, lanes_count: int = 32) -> int:
    """Compare every lane with the interpreter; return how many lanes succeeded."""
    program = Program(tuple(ops))
    shape = concrete.generous_shape([program])
    lanes = concrete.sample_lanes(np.random.default_rng(seed), lanes_count, shape)
    outcomes = vectorized.run_lanes(program, lanes)
    succeeded = 0
    for lane in range(lanes_count):
        entry = lanes.entry(lane)
        expected = concrete.run_block(program, entry)
        context = f"block:\n{disassemble(program)}lane {lane}"
        assert outcomes.kinds[lane] == expected.failure, context
        assert bool(outcomes.failed[lane]) == (expected.failure is not None), context
        if expected.failure is not None:
            continue
        succeeded += 1
        stack = tuple(int(row[lane]) for row in reversed(outcomes.stack))
        assert len(stack) - shape.depth == len(expected.stack) - len(entry.stack), context
        compared = len(stack) - max(0, shape.depth - len(entry.stack))  # words the lane has
        assert stack[:compared] == expected.stack[:compared], context
        assert tuple(int(word[lane]) for word in outcomes.output) == expected.output, context
        written = {int(address[lane]): int(value[lane]) for address, value in outcomes.writes}
        assert written == expected.written, context
        assert outcomes.consumed == expected.consumed, context
        sponge = None
        if outcomes.sponge_initialized[lane]:
            sponge = tuple(int(word[lane]) for word in outcomes.sponge)
        assert sponge == expected.sponge, context
        assert outcomes.halted == expected.halted, context
        assert outcomes.permutations == expected.permutation_count, context
    return succeeded


@pytest.mark.parametrize("seed", range(3))
def test_random_blocks(seed):
    generator = random.Random(100 + seed)
    succeeded = 0
    for index in range(60):
        length = generator.randint(1, 24)
        block = compiled_block(generator, length) if index % 2 else random_block(generator, length)
        succeeded += assert_lanes_agree(block, seed * 1000 + index)
    assert succeeded > 200


@pytest.mark.parametrize("isa", ["rel", "head"])
def test_every_instruction(isa):
    generator = random.Random(11)
    for name in straight_line_names(isa):
        for repeat in range(4):
            op = make_op(name, random_argument(generator, name, isa), isa)
            ops = [op] if repeat < 2 else [*random_block(generator, 3, isa), op]
            assert_lanes_agree(ops, repeat)


def test_targeted_blocks():
    for text in (
        "dup 4 dup 4 dup 4 dup 4 dup 4 assert_vector",
        "sponge_init read_io 5 read_io 5 sponge_absorb sponge_squeeze",
        "dup 0 write_mem 1 dup 1 read_mem 1 pop 1 push 0 add",
        "push 0 push 1 push 2 push 3 push 4 push 5 merkle_step merkle_step",
        "pop 5 pop 5 pop 5 dup 15 halt push 7",
        "dup 1 dup 1 lt skiz swap 1 pop 1",  # a select: skiz guarding a stack move
        "dup 0 skiz pick 3 skiz place 2 push 0 skiz swap 4 skiz nop",
    ):
        assert sum(assert_lanes_agree(parse(text).ops, seed) for seed in range(3)) > 0


def test_differing_lanes_follow_the_interpreter():
    first, second = Program(parse("lt").ops), Program(parse("swap 1 lt").ops)
    shape = concrete.generous_shape([first, second])
    lanes = concrete.sample_lanes(np.random.default_rng(5), 64, shape)
    differ = vectorized.differing_lanes(
        vectorized.run_lanes(first, lanes), vectorized.run_lanes(second, lanes), lanes
    )
    for lane in range(64):
        entry = lanes.entry(lane)
        expected = concrete.difference(
            concrete.run_block(first, entry), concrete.run_block(second, entry), entry
        )
        assert bool(differ[lane]) == (expected is not None)
    assert differ.any() and not differ.all()
