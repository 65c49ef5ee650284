"""Red team: candidates that are not equivalent are rejected with a counterexample.

Each pair is (original, wrong candidate).  The checker must answer `different`
with an entry state on which the interpreter shows the difference; the test
re-runs both blocks on that entry state to make sure.
"""

import pytest

from compiler.verify import check_equivalent, concrete
from vm.tasm import Program, parse

PAIRS = {
    # an empty candidate
    "empty candidate": ("dup 1 dup 1 mul add", ""),
    "empty candidate for a write": ("write_io 1", ""),
    # push 0 in place of eq
    "push 0 for eq": ("dup 1 dup 1 eq", "push 0"),
    "push 0 for eq, same depth": ("eq", "pop 2 push 0"),
    # a dropped assert, write_io or halt
    "dropped assert": ("eq assert", "eq pop 1"),
    "dropped assert of a constant": ("dup 0 push 7 eq assert", ""),
    "dropped write_io": ("dup 0 write_io 1", ""),
    "dropped halt": ("push 1 halt", "push 1"),
    "dropped halt before more code": ("halt push 5 write_io 1", "push 5 write_io 1"),
    # dummy values in place of hashing, read_mem, read_io, divine
    "dummy hash": ("hash", "pop 5 pop 5 push 0 push 0 push 0 push 0 push 0"),
    "hash replaced by pop": ("hash", "pop 5"),
    "dummy read_mem": ("read_mem 1", "addi -1 push 0 swap 1"),
    "dummy read_io": ("read_io 1", "push 0"),
    "dummy divine": ("divine 2", "push 0 push 0"),
    "dummy sponge_squeeze": ("sponge_squeeze pop 5 pop 4", "push 0"),
    # invert replaced by negation
    "invert as negation": ("invert", "push -1 mul"),
    # reversed operands
    "reversed lt": ("lt", "swap 1 lt"),
    "reversed pow": ("pow", "swap 1 pow"),
    "reversed div_mod": ("div_mod", "swap 1 div_mod"),
    "reversed lt of u32 values": ("split swap 1 split lt", "split swap 1 split swap 1 lt"),
    # dropped u32 range checks
    "dropped split range check": ("dup 0 split pop 1 push 0 eq assert", ""),
    "dropped lt range check": ("dup 0 dup 0 lt pop 1", ""),
    "dropped range check before arithmetic": (
        "dup 0 split pop 1 push 0 eq assert push 1 add",
        "push 1 add",
    ),
    "range check of the wrong word": (
        "dup 0 split pop 1 push 0 eq assert",
        "dup 1 dup 0 and pop 1",
    ),
    # swapped output order
    "swapped outputs": ("write_io 1 write_io 1", "swap 1 write_io 1 write_io 1"),
    "swapped output words": ("write_io 2", "swap 1 write_io 2"),
    # an added assert
    "added assert": ("push 1 add", "push 1 add dup 0 push 1 eq assert"),
    "added u32 check": ("add", "add dup 0 split pop 1 push 0 eq assert"),
    # more effects and failure conditions
    "dropped write_mem": ("push 7 write_mem 1 pop 1", "pop 1"),
    "write to the wrong address": ("push 7 write_mem 1 pop 1", "push 8 write_mem 1 pop 1"),
    "dropped read_io": ("read_io 1 pop 1", ""),
    "division guard dropped": ("dup 1 dup 1 div_mod pop 2", ""),
    "inverse guard dropped": ("dup 0 invert pop 1", ""),
    "off by one constant": ("addi 5", "addi 6"),
    "different stack depth": ("dup 0", "dup 0 dup 0"),
    "deeper pop": ("pop 1", "pop 2 push 0"),
    "log of zero": ("log_2_floor", "pop_count"),
    "xor for and": ("and", "xor"),
    "sponge_init dropped": ("sponge_init", ""),
    "x_invert as identity": ("x_invert", ""),
}


@pytest.mark.parametrize("name", list(PAIRS))
def test_rejected_with_a_counterexample(name):
    original, candidate = (Program(parse(text).ops) for text in PAIRS[name])
    verdict = check_equivalent(original, candidate)
    assert verdict.status == "different", verdict.reason
    example = verdict.counterexample
    assert example is not None
    entry = example.entry
    replayed = concrete.difference(
        concrete.run_block(original, entry), concrete.run_block(candidate, entry), entry
    )
    assert replayed == example.difference
    assert example.describe() and example.as_json()["difference"] == replayed


@pytest.mark.parametrize("name", ["reversed lt", "dropped assert", "dummy read_io"])
def test_rejected_in_both_directions(name):
    original, candidate = PAIRS[name]
    assert check_equivalent(parse(candidate), parse(original)).status == "different"


def test_failure_on_one_side_is_reported():
    verdict = check_equivalent(parse("dup 0 invert pop 1"), parse(""))
    outcomes = (verdict.counterexample.outcome_a, verdict.counterexample.outcome_b)
    assert outcomes[0].failure == "InverseOfZero" and outcomes[1].failure is None
    assert verdict.failure_kinds == (("InverseOfZero",), ())
