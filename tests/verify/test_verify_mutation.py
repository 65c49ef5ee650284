"""Mutation test: the checker accepts no mutant that differs on concrete inputs.

300 blocks that look like compiler output (compiler.verify.generate) are each
mutated at random twice (insert, delete or replace an instruction, or change an
argument) and compared with the original.  Every accepted mutant is run, with
the original, on 10,000 edge-biased entry states (lane executor; the first 100
also on the interpreter): none may differ.  Every rejected mutant's
counterexample is replayed on the interpreter.  The counts are printed.
"""

import random
from collections import Counter

import numpy as np

from compiler.verify import check_equivalent, concrete, vectorized
from compiler.verify.generate import compiled_block, mutate
from vm.tasm import Program, disassemble

BLOCKS = 300
MUTANTS_PER_BLOCK = 2
CONCRETE_INPUTS = 10_000
INTERPRETER_INPUTS = 100


def _differences(original: Program, mutant: Program, seed: int) -> int:
    """Entry states (of 10,000) on which the two blocks differ."""
    shape = concrete.generous_shape([original, mutant])
    lanes = concrete.sample_lanes(np.random.default_rng(seed), CONCRETE_INPUTS, shape)
    differ = vectorized.differing_lanes(
        vectorized.run_lanes(original, lanes), vectorized.run_lanes(mutant, lanes), lanes
    )
    count = int(differ.sum())
    for lane in range(INTERPRETER_INPUTS):
        entry = lanes.entry(lane)
        outcomes = (concrete.run_block(original, entry), concrete.run_block(mutant, entry))
        if concrete.difference(*outcomes, entry) is not None:
            count = max(count, 1)
    return count


def test_accepted_mutants_never_differ(capsys):
    generator = random.Random(20240611)
    counts: Counter = Counter()
    unknown_shown_different = 0
    for index in range(BLOCKS):
        original = Program(compiled_block(generator, generator.randint(6, 20)))
        for number in range(MUTANTS_PER_BLOCK):
            mutant = Program(mutate(generator, original.ops))
            if mutant.ops == original.ops:
                counts["identical"] += 1
                continue
            verdict = check_equivalent(original, mutant, seed=index)
            counts[verdict.status] += 1
            context = f"original:\n{disassemble(original)}mutant:\n{disassemble(mutant)}"
            if verdict.status == "equivalent":
                assert _differences(original, mutant, index * 10 + number) == 0, context
            elif verdict.status == "different":
                example = verdict.counterexample
                outcomes = (
                    concrete.run_block(original, example.entry),
                    concrete.run_block(mutant, example.entry),
                )
                assert concrete.difference(*outcomes, example.entry) is not None, context
            elif _differences(original, mutant, index * 10 + number):
                unknown_shown_different += 1
    report = (
        f"mutation test: {BLOCKS} blocks, {sum(counts.values())} mutants: "
        f"{counts['equivalent']} accepted (each checked on {CONCRETE_INPUTS} inputs), "
        f"{counts['different']} rejected with a counterexample, {counts['unknown']} unknown "
        f"({unknown_shown_different} of them differ on concrete inputs), "
        f"{counts['identical']} identical to the original"
    )
    with capsys.disabled():
        print(f"\n{report}")
    assert counts["equivalent"] >= 20, report  # the test exercises acceptance
    assert counts["different"] >= 300, report
