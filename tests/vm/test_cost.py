"""vm.cost (the static cost of code) and vm.attribution (a run's heights by block).

The static cost is checked on instructions given in all three shapes against
the per-instruction numbers of docs/vm.md written out here; the attribution on every corpus program
run on its own inputs and on generated programs (which end in every error kind):
the blocks' contributions plus the fixed parts must give the measured heights, and
in a run that halts every block's instructions run equally often.
"""

from __future__ import annotations

import pytest
from corpus import corpus, expectations
from program_generator import SMALL, generate

from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.driver import compile_program
from compiler.lower.asm import Instr
from vm import interp, jit, tasm
from vm.attribution import ATTRIBUTED, attribute, combine, program_blocks
from vm.cost import StaticCost, attestation_rows, program_height, static_cost
from vm.isa import instruction_set

# (text, processor, op_stack, ram, hash, words), from the instruction table's rules
EXAMPLES = [
    ("push 5", 1, 1, 0, 0, 2),
    ("pop 3", 1, 3, 0, 0, 2),
    ("dup 15 swap 4 pick 3 place 2", 4, 1, 0, 0, 8),
    ("read_mem 3 write_mem 5", 2, 8, 8, 0, 4),
    ("hash", 1, 5, 0, 6, 1),
    ("sponge_init sponge_absorb sponge_squeeze", 3, 20, 0, 13, 3),
    ("sponge_absorb_mem", 1, 0, 10, 6, 1),
    ("merkle_step merkle_step_mem", 2, 0, 5, 12, 2),
    ("div_mod split lt pow", 4, 3, 0, 0, 4),
    ("xx_add xx_mul x_invert xb_mul", 4, 7, 0, 0, 4),
    ("xx_dot_step xb_dot_step", 2, 0, 10, 0, 2),
    ("read_io 2 write_io 4 divine 1", 3, 7, 0, 0, 6),
    ("skiz nop assert assert_vector", 4, 7, 0, 0, 4),
]


@pytest.mark.parametrize(("text", "processor", "op_stack", "ram", "hashing", "words"), EXAMPLES)
def test_static_cost_of_examples(text, processor, op_stack, ram, hashing, words):
    expected = StaticCost(processor, op_stack, ram, hashing, processor, words)
    ops = tasm.parse(text).ops
    pairs = [(op.instruction.name, op.argument) for op in ops]
    instrs = [Instr(name, argument) for name, argument in pairs]
    assert static_cost(ops) == static_cost(pairs) == static_cost(instrs) == expected


def test_static_cost_of_head_instructions_and_calls():
    head = tasm.parse("b_horner_step x_horner_step", "head").ops
    assert static_cost(head, "head") == StaticCost(2, 0, 4, 0, 2, 2)
    calling = [Instr("call", "somewhere"), Instr("return")]
    assert static_cost(calling) == StaticCost(2, 0, 0, 0, 2, 3)


def test_static_cost_rejects_what_is_not_an_instruction():
    with pytest.raises(ValueError):
        static_cost([("b_horner_step", None)])  # not in REL
    with pytest.raises(TypeError):
        static_cost(["push 1"])


def test_fixed_parts():
    # `halt` alone: L = 1, one chunk; a 19-word program: 2 chunks (docs/vm.md)
    assert (program_height(1), attestation_rows(1)) == (10, 6)
    assert (program_height(19), attestation_rows(19)) == (20, 12)


def every_instruction_once(isa: str) -> str:
    """A text with one instruction of every row (with argument 1 where needed)."""
    parts = []
    for row in instruction_set(isa).values():
        if row.name == "call":
            parts.append("call end")
        else:
            parts.append(f"{row.name} 1" if row.size == 2 else row.name)
    return " ".join(parts) + " end:"


@pytest.mark.parametrize("isa", ["rel", "head"])
def test_instruction_costs_sum_to_a_programs_static_cost(isa):
    program = tasm.parse(every_instruction_once(isa), isa)
    total = sum((static_cost([op], isa) for op in program.ops), StaticCost())
    assert static_cost(program.ops, isa) == total
    assert total.program_words == program.length
    assert total.processor == total.jump_stack == len(program.ops)


# --- attribution -------------------------------------------------------------------------------


def corpus_runs():
    for path in corpus("valid"):
        cases = expectations(path).cases
        if cases:
            yield pytest.param(path, cases, id=path.name)


def assert_exact(run) -> None:
    attribution = attribute(run)
    assert attribution.mismatches() == {}
    assert set(attribution.attributed) == set(ATTRIBUTED)
    blocks = attribution.blocks
    assert sum(entry.block.cost.program_words for entry in blocks) == run.program.length
    if run.error is None:  # every instruction of a block runs as often as its first
        for entry in blocks:
            expected = entry.block.cost * entry.visits
            assert entry.contribution == StaticCost(*expected.vector[:-1], 0), entry.block.name
            for index in entry.block.op_indices:
                assert run.visits[run.program.addresses[index]] == entry.visits


@pytest.mark.parametrize(("path", "cases"), list(corpus_runs()))
def test_blocks_reproduce_the_heights_of_every_corpus_run(path, cases):
    compiled = compile_program(check(load_project(path)))
    for case in cases:
        run = interp.execute(compiled.program, case.public, case.secret, case.digests, case.ram)
        assert_exact(run)


@pytest.mark.parametrize("seed", range(0, 60))
def test_blocks_reproduce_the_heights_of_generated_runs(seed):
    case = generate(seed, size=SMALL)
    program = tasm.parse(case.text, case.isa)
    run = interp.execute(program, **case.inputs())
    assert_exact(run)


def test_the_jit_run_attributes_as_the_interpreter_run():
    case = generate(4, size=SMALL)
    program = tasm.parse(case.text, case.isa)
    native = jit.execute(program, **case.inputs())
    interpreted = interp.execute(program, **case.inputs())
    assert attribute(native).blocks == attribute(interpreted).blocks


def test_blocks_start_at_labels_after_control_and_after_a_guarded_instruction():
    program = tasm.parse("push 1 skiz call f push 2 f: pop 1 return halt")
    starts = [block.start for block in program_blocks(program)]
    # push 1 skiz | call f | push 2 | f: pop 1 return | halt
    assert starts == [0, 3, 5, 7, 10]
    names = [block.name for block in program_blocks(program)]
    assert names == ["@0", "@3", "@5", "f", "f+3"]


def test_runs_of_one_layout_combine():
    program = tasm.parse("call f halt f: dup 0 skiz return push 1 return")
    runs = [attribute(interp.execute(program)) for _ in range(2)]
    combined = {entry.block.start: entry for entry in combine(runs)}
    for entry in runs[0].blocks:
        assert combined[entry.block.start].visits == 2 * entry.visits
