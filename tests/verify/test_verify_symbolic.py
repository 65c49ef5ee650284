"""The symbolic executor agrees with the interpreter, and terms are canonical.

For random blocks and edge-biased entry states, a block's symbolic summary is
evaluated at the entry state and compared with what vm/interp does: whether it
fails, and if not its exit stack, output, final RAM, stream positions, sponge,
halted flag and Tip5 permutations.
"""

import random
from collections import Counter

import numpy as np
import pytest

from compiler.verify import concrete, symbolic, vectorized
from compiler.verify.functions import apply, evaluate, leaf
from compiler.verify.generate import (
    compiled_block,
    make_op,
    random_argument,
    random_block,
    straight_line_names,
)
from compiler.verify.guards import NEVER
from compiler.verify.symbolic import BlockError, execute
from compiler.verify.terms import TermTable
from vm.field import P
from vm.isa import INSTRUCTIONS
from vm.tasm import Program, disassemble, parse


def _guard_holds(table, guard, entry_values) -> bool:
    values = evaluate(table, guard.polys, entry_values)
    return {
        "zero": lambda: values[0] == 0,
        "nonzero": lambda: values[0] != 0,
        "u32": lambda: values[0] < 1 << 32,
        "nonzero_x": lambda: any(values),
        "never": lambda: False,
    }[guard.kind]()


def _permutation_input(table, key, entry_values) -> tuple:
    values = evaluate(table, key[1:], entry_values)
    if key[0] == "tip5":
        return tuple(values)
    node_index, current, sibling = values[0], tuple(values[1:6]), tuple(values[6:11])
    pair = current + sibling if node_index % 2 == 0 else sibling + current
    return pair + (1,) * 6


def symbolic_prediction(table, summary, entry, depth, guards=None, rewrite=lambda poly: poly):
    """What the summary says happens from `entry`: None if the block fails.  `guards`
    (default: the summary's) and `rewrite` (applied to every value) let a test check a
    rewritten summary instead (tests/verify/test_verify_identities.py)."""
    values = entry.values()
    if len(entry.stack) < summary.depth_threshold:
        return None
    available = (len(entry.public), len(entry.secret), len(entry.digests))
    for stream, count in zip(("public", "secret", "digest"), available):
        if summary.reads[stream] > count:
            return None
    if summary.sponge_required and entry.sponge is None:
        return None
    guards = summary.guards if guards is None else guards
    if not all(_guard_holds(table, guard, values) for guard in guards):
        return None

    def value_of(polys) -> list[int]:
        return evaluate(table, [rewrite(poly) for poly in polys], values)

    memory = {}
    for address, value in summary.writes:
        address_value, word = value_of([address, value])
        memory[address_value] = word
    sponge = entry.sponge
    if summary.sponge is not None:
        sponge = tuple(value_of(summary.sponge))
    stack = value_of(summary.exit_stack(table, depth))[::-1]
    keys = [(key[0], *(rewrite(poly) for poly in key[1:])) for key in summary.permutations]
    return {
        "stack": tuple(stack) + entry.stack[depth:],
        "output": tuple(value_of(summary.output)),
        "written": memory,
        "consumed": (summary.reads["public"], summary.reads["secret"], summary.reads["digest"]),
        "sponge": sponge,
        "halted": summary.halted,
        "permutation_count": len(summary.permutations),
        "permutation_inputs": frozenset(
            Counter(_permutation_input(table, key, values) for key in keys).items()
        ),
    }


def assert_agrees(ops, seed: int, lanes_count: int = 24, predict=symbolic_prediction) -> int:
    """Compare summary and interpreter on sampled lanes; return how many lanes succeeded.
    `predict(table, summary, entry, depth)` says what the summary means."""
    program = Program(tuple(ops))
    table = TermTable()
    summary = execute(program, table)
    depth = max(summary.entry_depth, 16)
    shape = concrete.Shape(
        depth=depth,
        touched=summary.entry_depth,
        thresholds=(summary.depth_threshold,),
        reads=((summary.reads["public"], summary.reads["secret"], summary.reads["digest"]),),
        sponge=summary.sponge is not None,
        constants=tuple(summary.constants),
    )
    lanes = concrete.sample_lanes(np.random.default_rng(seed), lanes_count, shape)
    succeeded = 0
    for lane in range(lanes_count):
        entry = lanes.entry(lane)
        outcome = concrete.run_block(program, entry)
        predicted = predict(table, summary, entry, depth)
        context = f"block:\n{disassemble(program)}lane {lane}: {entry}"
        assert (predicted is None) == (outcome.failure is not None), (
            f"{context}\ninterpreter failure {outcome.failure}, symbolic fails {predicted is None}"
        )
        if predicted is None:
            continue
        succeeded += 1
        for name, value in predicted.items():
            assert value == getattr(outcome, name), f"{context}\n{name} differs"
    return succeeded


@pytest.mark.parametrize("seed", range(4))
def test_random_blocks_agree_with_the_interpreter(seed):
    generator = random.Random(seed)
    succeeded = 0
    for index in range(80):
        length = generator.randint(1, 24)
        block = compiled_block(generator, length) if index % 2 else random_block(generator, length)
        succeeded += assert_agrees(block, seed * 1000 + index)
    assert succeeded > 300  # the comparison is not only about failing runs


@pytest.mark.parametrize("isa", ["rel", "head"])
def test_every_instruction_agrees_with_the_interpreter(isa):
    generator = random.Random(7)
    for name in straight_line_names(isa):
        succeeded = 0
        for repeat in range(6):
            op = make_op(name, random_argument(generator, name, isa), isa)
            ops = [op]
            if repeat >= 3:
                ops = [*random_block(generator, 3, isa), op, *random_block(generator, 2, isa)]
            succeeded += assert_agrees(ops, repeat, 30)
        if name not in ("assert", "assert_vector"):
            assert succeeded > 20, name


@pytest.mark.parametrize(
    "text",
    [
        "push 1 assert",
        "dup 0 dup 0 eq assert",
        "dup 4 dup 4 dup 4 dup 4 dup 4 assert_vector",
        "sponge_init read_io 5 read_io 5 sponge_absorb sponge_squeeze",
        "push 3 push 9 write_mem 2 read_mem 2 push 0 read_mem 1 pop 1",
        "dup 0 write_mem 1 dup 1 read_mem 1 pop 1",  # aliasing through symbolic addresses
        "push 0 push 1 push 2 push 3 push 4 push 5 merkle_step merkle_step",
        "dup 0 split pop 1 push 0 eq assert dup 0 addi 1 dup 1 lt assert",
        "pop 5 pop 5 pop 5 pop 5 dup 15 halt push 7",
        "dup 1 dup 1 lt skiz swap 1 pop 1",  # a select: skiz guarding a stack move
        "dup 0 skiz pick 3 skiz place 2 push 0 skiz swap 4 dup 5 skiz nop",
        "push 0 eq skiz swap 15 dup 0 eq skiz pick 15",
    ],
)
def test_targeted_blocks_agree(text):
    succeeded = sum(assert_agrees(parse(text).ops, seed, 40) for seed in range(3))
    assert succeeded > 0


def test_every_instruction_has_a_symbolic_and_a_vectorized_handler():
    names = {row.name for row in INSTRUCTIONS}
    assert set(symbolic.HANDLERS) | symbolic.CONTROL_FLOW == names
    assert not set(symbolic.HANDLERS) & symbolic.CONTROL_FLOW
    assert set(vectorized.HANDLERS) == set(symbolic.HANDLERS)


@pytest.mark.parametrize(
    "text",
    ["skiz", "call f f: return", "recurse", "recurse_or_return", "skiz push 1", "skiz skiz nop"],
)
def test_control_flow_is_refused(text):
    with pytest.raises(BlockError, match="control flow"):
        execute(parse(text), TermTable())


# --- canonical forms -----------------------------------------------------------------------------


def test_polynomials_are_canonical_and_hash_consed():
    table = TermTable()
    x, y = leaf(table, "stack", 0), leaf(table, "stack", 1)
    assert table.add(x, y) is table.add(y, x)
    assert table.mul(table.add(x, y), table.add(x, y)) is table.add(
        table.add(table.mul(x, x), table.mul(y, y)), table.scale(table.mul(x, y), 2)
    )
    assert table.sub(x, x) is table.zero
    assert table.power(table.add(x, table.one), 3) is table.mul(
        table.add(x, table.one), table.mul(table.add(x, table.one), table.add(x, table.one))
    )
    assert table.constant(P + 5) is table.constant(5)


def test_function_rules_and_folding():
    table = TermTable()
    x, y = leaf(table, "stack", 0), leaf(table, "stack", 1)
    equal = apply(table, "is_zero", (), (table.sub(x, y),))
    assert equal is apply(table, "is_zero", (), (table.scale(table.sub(y, x), 7),))
    assert table.mul(equal, equal) is equal  # a 0/1 value squared is itself
    assert apply(table, "is_zero", (), (equal,)) is table.sub(table.one, equal)
    assert apply(table, "and", (), (x, y)) is apply(table, "and", (), (y, x))
    assert apply(table, "lt", (), (table.constant(3), table.constant(7))) is table.one
    assert apply(table, "power", (), (x, table.constant(3))) is table.power(x, 3)
    inverse = apply(table, "inverse", (), (x,))
    assert apply(table, "inverse", (), (inverse,)) is x
    assert apply(table, "split_high", (), (apply(table, "lt", (), (x, y)),)) is table.zero
    assert apply(table, "inverse", (), (table.constant(2),)).constant == pow(2, P - 2, P)


def test_u32_checks_written_differently_are_one_guard():
    table = TermTable()
    with_split = execute(parse("dup 0 split pop 1 push 0 eq assert pop 1"), table)
    with_lt = execute(parse("dup 0 dup 0 lt pop 2"), table)
    assert set(with_split.guards) == set(with_lt.guards)
    assert len(with_lt.guards) == 1


def test_a_guard_that_never_holds():
    table = TermTable()
    assert execute(parse("push 2 assert"), table).always_fails
    assert NEVER in execute(parse("dup 0 invert push 0 eq assert"), table).guards
    never_zero = execute(parse("dup 0 invert push 0 eq push 0 eq assert"), table)
    assert [guard.kind for guard in never_zero.guards] == ["nonzero"]  # only invert's own
    assert not execute(parse("push 1 assert"), table).guards


def test_opaque_products_keep_their_degree():
    table = TermTable()
    summary = execute(parse("add " + "dup 0 mul " * 10), table)
    (top,) = summary.stack
    assert top.opaque and top.degree == 1024
