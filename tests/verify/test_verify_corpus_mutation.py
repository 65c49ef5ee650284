"""Mutation test over the compiled corpus: no accepted mutant differs on the interpreter.

Every straight-line block of the compiled corpus (tests/corpus_blocks.py) is
mutated, 2,400 mutants in all: random edits (compiler.verify.generate.mutate),
local edits (two neighbours swapped, one deleted, an argument moved by one) and
edits that are often right (a binary op's operands swapped, a constant split
in two, a neutral pair inserted).  Each
mutant is compared with its block.  Every accepted mutant is then run with its
block on the interpreter from 1,000 entry states, half of them steered to the
blocks' corners (zero guards that pass, RAM addresses that alias:
compiler.verify.corners), the rest edge-biased; none may differ.  Every
rejected mutant's counterexample is replayed on the interpreter.  The counts
are printed.
"""

import random
from collections import Counter

import numpy as np
import pytest
from corpus_blocks import corpus_blocks

from compiler.verify import check_equivalent, concrete
from compiler.verify.assumptions import NOTHING
from compiler.verify.corners import Steering
from compiler.verify.equivalence import shape_of
from compiler.verify.generate import make_op, mutate
from compiler.verify.symbolic import execute
from compiler.verify.terms import TermTable
from vm.field import P
from vm.isa import ARGUMENT_RANGE, Arg
from vm.tasm import Program, disassemble

CHUNKS = 4
MUTANTS = 2_400
INTERPRETER_RUNS = 1_000


def local_mutation(generator: random.Random, ops: tuple) -> tuple:
    """An edit an optimizer might make: swap two neighbours, drop one, nudge an argument."""
    ops = list(ops)
    choice = generator.choice(("swap", "delete", "nudge"))
    if choice == "swap" and len(ops) >= 2:
        index = generator.randrange(len(ops) - 1)
        ops[index], ops[index + 1] = ops[index + 1], ops[index]
    elif choice == "delete" and ops:
        del ops[generator.randrange(len(ops))]
    else:
        with_argument = [index for index, op in enumerate(ops) if op.argument is not None]
        if not with_argument:
            return tuple(ops)
        index = generator.choice(with_argument)
        op = ops[index]
        argument = op.argument + generator.choice((-1, 1))
        kind = op.instruction.arg
        if kind is Arg.FIELD:
            argument %= P
        elif argument not in ARGUMENT_RANGE[kind]:
            return tuple(ops)
        ops[index] = make_op(op.instruction.name, argument)
    return tuple(ops)


COMMUTING = ("add", "mul", "eq", "and", "xor", "lt", "pow", "div_mod")  # the last three do not


def rewriting_mutation(generator: random.Random, ops: tuple) -> tuple:
    """An edit that is often right: operands of a binary op swapped, a constant split in
    two, a neutral pair inserted."""
    ops = list(ops)
    choice = generator.choice(("operands", "constant", "neutral"))
    binary = [index for index, op in enumerate(ops) if op.instruction.name in COMMUTING]
    constants = [index for index, op in enumerate(ops) if op.instruction.name == "push"]
    if choice == "operands" and binary:
        ops.insert(generator.choice(binary), make_op("swap", 1))
    elif choice == "constant" and constants:
        index = generator.choice(constants)
        part = generator.choice((1, 2**32, P - 1, generator.randrange(P)))
        rest = (ops[index].argument - part) % P
        ops[index : index + 1] = [make_op("push", part), make_op("addi", rest)]
    else:
        depth = generator.randrange(16)
        pair = generator.choice(
            ((("swap", depth), ("swap", depth)), (("dup", depth), ("pop", 1)), (("nop", None),))
        )
        position = generator.randrange(len(ops) + 1)
        ops[position:position] = [make_op(name, argument) for name, argument in pair]
    return tuple(ops)


def mutants(chunk: int):
    """(index, block, mutant) for this chunk's share of the mutants, in a fixed order."""
    blocks = [ops for _, ops in corpus_blocks()]
    generator = random.Random(7)
    for index in range(MUTANTS):
        block = blocks[index % len(blocks)]
        mutation = (mutate, local_mutation, rewriting_mutation)[index % 3]
        mutant = mutation(generator, block)
        if index % CHUNKS == chunk:
            yield index, Program(block), Program(mutant)


def interpreter_differences(original: Program, mutant: Program, seed: int) -> int:
    """Entry states (of 1,000, half at the blocks' corners) where the interpreter differs."""
    table = TermTable()
    summaries = execute(original, table), execute(mutant, table)
    steering = Steering(table, summaries)
    depth = max(summary.entry_depth for summary in summaries)
    shape = shape_of(table, summaries, NOTHING, depth)
    generator = np.random.default_rng(seed)
    lanes = concrete.sample_lanes(generator, INTERPRETER_RUNS, shape)
    steering(lanes, generator, share=2)
    runners = concrete.BlockRunner(original), concrete.BlockRunner(mutant)
    differences = 0
    for entry in lanes.entries():
        outcomes = (runners[0].run(entry), runners[1].run(entry))
        differences += concrete.difference(*outcomes, entry) is not None
    return differences


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_accepted_corpus_mutants_never_differ(chunk, capsys):
    counts: Counter = Counter()
    unknown_shown_different = 0
    for index, original, mutant in mutants(chunk):
        if mutant.ops == original.ops:
            counts["identical"] += 1
            continue
        verdict = check_equivalent(original, mutant, seed=index)
        counts[verdict.status] += 1
        context = f"original:\n{disassemble(original)}mutant:\n{disassemble(mutant)}"
        if verdict.status == "equivalent":
            assert interpreter_differences(original, mutant, index) == 0, context
        elif verdict.status == "different":
            example = verdict.counterexample
            outcomes = (
                concrete.run_block(original, example.entry),
                concrete.run_block(mutant, example.entry),
            )
            assert concrete.difference(*outcomes, example.entry) is not None, context
        elif interpreter_differences(original, mutant, index):
            unknown_shown_different += 1
    report = (
        f"corpus mutation test, chunk {chunk + 1} of {CHUNKS}: {sum(counts.values())} mutants of "
        f"{len(corpus_blocks())} blocks: {counts['equivalent']} accepted (each run on "
        f"{INTERPRETER_RUNS} entry states on the interpreter, 0 differ), "
        f"{counts['different']} rejected with a replayed counterexample, {counts['unknown']} "
        f"unknown ({unknown_shown_different} of them differ on the interpreter), "
        f"{counts['identical']} identical to the original"
    )
    with capsys.disabled():
        print(f"\n{report}")
    assert counts["equivalent"] >= 20, report  # the test exercises acceptance
    assert counts["different"] >= 300, report
