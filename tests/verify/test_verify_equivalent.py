"""Equivalent pairs are accepted, and the acceptance holds on concrete inputs.

Each pair is (original, rewritten) and means the same on every entry state,
failures included.  Besides the verdict, both blocks are run on 2,000
edge-biased entry states with the lane executor (and 50 on the interpreter):
an accepted pair that differs anywhere would be a soundness bug.
"""

import numpy as np
import pytest

from compiler.verify import check_equivalent, concrete, vectorized
from vm.tasm import Program, parse

PAIRS = {
    # commutativity and associativity
    "add commutes": ("add", "swap 1 add"),
    "mul commutes": ("mul", "swap 1 mul"),
    "add associates": ("add add", "swap 2 add add"),
    "mul associates": ("mul mul", "pick 2 mul mul"),
    "distributes": ("add mul", "dup 2 mul swap 2 mul add"),
    # stack shuffles with the same result
    "pick is two swaps": ("pick 2", "swap 1 swap 2"),
    "place is two swaps": ("place 2", "swap 2 swap 1"),
    "dup then swap and pop": ("dup 0 swap 1 pop 1", ""),
    "pick and place undo": ("pick 5 place 5", ""),
    "swap twice": ("swap 3 swap 3", "nop"),
    "copy a pair": ("dup 1 dup 1", "pick 1 dup 0 place 2 dup 1"),
    "deep pop": ("swap 4 pop 1", "pick 4 pop 1 place 3"),
    # constant folding
    "fold mul": ("push 3 push 4 mul", "push 12"),
    "fold chain": ("push 3 push 4 add addi 5 push 2 mul", "push 24"),
    "fold pow": ("push 10 push 2 pow", "push 1024"),
    "fold lt": ("push 7 push 3 lt", "push 1"),
    "fold invert": ("push 3 invert push 3 mul", "push 1"),
    "fold split": ("push 4294967301 split", "push 1 push 5"),
    "fold div_mod": ("push 7 push 45 div_mod", "push 6 push 3"),
    "fold eq": ("push 5 push 5 eq", "push 1"),
    "fold hash": (
        "push 0 push 0 push 0 push 0 push 0 push 0 push 0 push 0 push 0 push 0 hash",
        "push 0 push 0 push 0 push 0 push 0 push 0 push 0 push 0 push 0 push 0 hash",
    ),
    # removal of neutral code
    "push 0 add": ("push 0 add", ""),
    "push 1 mul": ("push 1 mul", ""),
    "addi 0": ("addi 0", ""),
    "double negation": ("push -1 mul push -1 mul", ""),
    "true assert": ("push 1 assert", ""),
    # strength-reduced forms
    "double": ("push 2 mul", "dup 0 add"),
    "times four": ("push 4 mul", "dup 0 add dup 0 add"),
    "cube by pow": ("push 3 swap 1 pow", "dup 0 dup 0 mul mul"),
    "subtract": ("push -1 mul add", "swap 1 push -1 mul add push -1 mul"),
    "equality as difference": ("eq", "push -1 mul add push 0 eq"),
    "x minus x": ("dup 0 push -1 mul add", "push 0 mul"),
    "power of a sum": (
        "add dup 0 mul dup 0 mul dup 0 mul dup 0 mul dup 0 dup 0 mul mul",
        "add push 48 swap 1 pow",
    ),
    # failure conditions written differently
    "u32 check by split or lt": (
        "dup 0 split swap 1 push 0 eq assert pop 1",
        "dup 0 dup 0 lt pop 1",
    ),
    "u32 check by split or and": ("dup 0 split pop 1 push 0 eq assert", "dup 0 dup 0 and pop 1"),
    "assert equal": ("eq assert", "push -1 mul add push 0 eq assert"),
    "inverse twice": ("invert invert", "dup 0 invert pop 1"),
    "a word and 1 is 0 or 1": ("push 1 and push 1 eq", "push 1 and"),
    "asserted value": ("dup 0 push 1 eq assert push 1 swap 1 pop 1", "dup 0 push 1 eq assert"),
    "split after a u32 check": (
        "dup 0 dup 0 lt pop 1 split swap 1 pop 1",
        "dup 0 dup 0 lt pop 1",
    ),
    "guard rewritten by an earlier range check": (
        "dup 0 split pop 1 push 0 eq assert dup 0 split swap 1 pop 1 addi 1 log_2_floor",
        "dup 0 split pop 1 push 0 eq assert dup 0 split add addi 1 log_2_floor",
    ),
    "contradicting asserts": ("dup 0 push 1 eq assert dup 0 push 2 eq assert", "push 0 invert"),
    "both always fail": ("push 0 invert", "push 2 assert push 3"),
    # memory and effects
    "store and load": (
        "dup 0 push 10 write_mem 1 pop 1 push 10 read_mem 1 pop 1",
        "dup 0 push 10 write_mem 1 pop 1 dup 0",
    ),
    "independent stores commute": (
        "push 10 write_mem 1 pop 1 push 20 write_mem 1 pop 1",
        "swap 1 push 20 write_mem 1 pop 1 push 10 write_mem 1 pop 1",
    ),
    "overwritten store": (
        "push 10 write_mem 1 pop 1 push 10 write_mem 1 pop 1",
        "pop 1 push 10 write_mem 1 pop 1",
    ),
    "two writes as one": (
        "push 10 write_mem 1 write_mem 1 pop 1",
        "push 10 write_mem 2 pop 1",
    ),
    "output order": ("write_io 1 write_io 1", "write_io 2"),
    "read then shuffle": ("read_io 2 swap 1", "read_io 1 read_io 1 swap 1"),
}


@pytest.mark.parametrize("name", list(PAIRS))
def test_accepted(name):
    original, rewritten = (Program(parse(text).ops) for text in PAIRS[name])
    verdict = check_equivalent(original, rewritten)
    assert verdict.status == "equivalent", verdict.reason
    assert verdict.counterexample is None
    assert 0 <= verdict.error_bound < 2**-90
    assert check_equivalent(rewritten, original).equivalent
    shape = concrete.generous_shape([original, rewritten])
    lanes = concrete.sample_lanes(np.random.default_rng(1), 2000, shape)
    differ = vectorized.differing_lanes(
        vectorized.run_lanes(original, lanes), vectorized.run_lanes(rewritten, lanes), lanes
    )
    assert not differ.any()
    for lane in range(50):
        entry = lanes.entry(lane)
        outcomes = (concrete.run_block(original, entry), concrete.run_block(rewritten, entry))
        assert concrete.difference(*outcomes, entry) is None


def test_random_evaluation_reports_its_error_bound():
    original, rewritten = PAIRS["power of a sum"]
    verdict = check_equivalent(parse(original), parse(rewritten))
    assert verdict.method == "schwartz-zippel"
    assert 0 < verdict.error_bound < 2**-90


def test_canonical_forms_need_no_error_bound():
    verdict = check_equivalent(parse("add"), parse("swap 1 add"))
    assert verdict.method == "canonical" and verdict.error_bound == 0


def test_entry_depth_can_be_raised():
    verdict = check_equivalent(parse("add"), parse("swap 1 add"), inputs=5)
    assert verdict.equivalent and verdict.entry_depth == 5


def test_a_word_and_a_larger_mask_is_not_boolean():
    # x and 1 is 0 or 1, so comparing it with 1 changes nothing; x and 3 may be 2 or 3
    verdict = check_equivalent(parse("push 3 and push 1 eq"), parse("push 3 and"))
    assert verdict.status == "different"


def test_a_block_run_does_not_hash_the_program():
    """The checker sets a block's whole stack itself, so the program digest the VM starts
    with is never read: building the runner does not hash the program (a Tip5 hash in
    pure Python is most of a cold build's proofs, compiler.optimize.shuffles)."""
    program = parse("swap 1 pop 1")
    runner = concrete.BlockRunner(program)
    assert "digest" not in vars(program)
    assert runner.machine.stack[:5] == [0] * 5
