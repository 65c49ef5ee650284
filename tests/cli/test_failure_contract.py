"""The failure contract of every -O level (docs/cli.md), through the command line.

A compiled program accepts exactly the inputs its source accepts: same output when a run
succeeds, a failure at every level when it fails.  Which check a failing run stops at may
depend on the level when the input breaks more than one; then `tri run` and `tri cost` say
where the source order fails first (the reference evaluator's failure), in text and in
JSON (`error.location.first_in_source`), and say nothing extra when both agree.
"""

from __future__ import annotations

import json

import pytest
from cli_helpers import tri

from compiler.levels import LEVELS
from vm.field import P

# The value read at line 10 is range-checked where it is used (after line 11's assert)
# from -O1 on; -O0 checks it at line 10, as the source does.
SOURCE = """program check_order

use vm.io.io
use vm.core.assert
use vm.core.convert

fn main() {
    let x: Field = io.read()
    let y: Field = io.read()
    let u: U32 = convert.as_u32(y)
    assert.eq(x, 5)
    let w: U32 = convert.as_u32(7)
    if u < w {
        io.write(1)
    }
    io.write(x)
}
"""
BOTH_BROKEN = "3,4294967296"  # x != 5 and y is not a u32
INPUTS = ["5,3", "5,9", "5,4294967296", "3,3", BOTH_BROKEN, f"5,{P - 1}", "0,0", "5,4294967295"]


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    path = tmp_path_factory.mktemp("contract") / "check_order.tri"
    path.write_text(SOURCE, encoding="utf-8")
    return path


def run_json(capsys, program, words: str, *options) -> tuple[int, dict]:
    code, out, err = tri(capsys, "run", program, "--input", words, "--json", *options)
    assert err == "" or "warning" in err, err
    return code, json.loads(out)


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_every_level_accepts_exactly_the_inputs_the_source_accepts(capsys, program, level):
    for words in INPUTS:
        _, reference = run_json(capsys, program, words, "--reference")
        code, compiled = run_json(capsys, program, words, f"-O{level}")
        assert compiled["output"] == reference["output"], words
        assert (compiled["error"] is None) == (reference["error"] is None), words
        assert code == (0 if reference["error"] is None else 1)


def test_the_reference_reports_the_first_failure_in_source_order(capsys, program):
    _, reference = run_json(capsys, program, BOTH_BROKEN, "--reference")
    assert reference["error"]["kind"] == "FailedU32Conversion"
    assert reference["error"]["location"]["line"] == 10


def test_a_level_that_checks_in_another_order_says_where_the_source_fails_first(capsys, program):
    _, compiled = run_json(capsys, program, BOTH_BROKEN, "-O1")
    location = compiled["error"]["location"]
    assert (location["line"], compiled["error"]["kind"]) == (11, "AssertionFailed")
    first = location["first_in_source"]
    assert (first["line"], first["column"], first["kind"]) == (10, 18, "FailedU32Conversion")
    assert first["message"] == "convert.as_u32: 4294967296 is not a u32"
    code, _, err = tri(capsys, "run", program, "--input", BOTH_BROKEN, "-O1")
    assert code == 1
    assert "error[AssertionFailed]: assert.eq failed: 3 != 5" in err
    assert f"in source order this input fails first at {program}:10:18" in err
    assert "every -O level rejects the same inputs" in err
    code, _, err = tri(capsys, "cost", program, "--input", BOTH_BROKEN, "-O1")
    assert code == 1 and "in source order this input fails first" in err


@pytest.mark.parametrize("engine", ["interp", "jit"])
def test_no_note_where_the_compiled_run_stops_where_the_source_does(capsys, program, engine):
    _, compiled = run_json(capsys, program, BOTH_BROKEN, "-O0", "--engine", engine)
    assert compiled["error"]["location"]["line"] == 10
    assert "first_in_source" not in compiled["error"]["location"]
    _, compiled = run_json(capsys, program, "3,3", "-O1", "--engine", engine)
    assert compiled["error"]["location"]["line"] == 11
    assert "first_in_source" not in compiled["error"]["location"]
    code, _, err = tri(capsys, "run", program, "--input", "3,3", "-O1", "--engine", engine)
    assert code == 1 and "in source order" not in err


# Every check in one straight-line block, which -O2 and -O3 rewrite as a whole; each input
# below breaks exactly one check, so at every level the run must stop at that check and
# name its line (a rewritten block once named the first `assert` for every `assert`).
ONE_BLOCK = """program one_block

use vm.io.io
use vm.core.assert
use vm.core.convert

fn main() {
    let a: Field = io.read()
    let b: Field = io.read()
    let c: Field = io.read()
    assert.eq(a, 3)
    let s: Field = a * b + 1
    assert.eq(s + c, 7)
    let u: U32 = convert.as_u32(c)
    io.write(s + convert.as_field(u))
    let d: Field = io.read()
    io.write(d)
}
"""
ONE_BROKEN = {"4,1,2,9": 11, "3,1,4,9": 13, f"3,3,{P - 3},9": 14, "3,1,3": 16}


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_a_run_that_breaks_one_check_names_that_check_at_every_level(capsys, tmp_path, level):
    program = tmp_path / "one_block.tri"
    program.write_text(ONE_BLOCK, encoding="utf-8")
    code, passing = run_json(capsys, program, "3,1,3,9", f"-O{level}")
    assert code == 0 and passing["output"] == [7, 9]
    for words, line in ONE_BROKEN.items():
        _, reference = run_json(capsys, program, words, "--reference")
        assert reference["error"]["location"]["line"] == line, words
        _, compiled = run_json(capsys, program, words, f"-O{level}")
        location, expected = compiled["error"]["location"], reference["error"]["location"]
        assert (location["line"], location["column"]) == (expected["line"], expected["column"])
        if reference["error"]["kind"] != "EmptyPublicInput":  # worded by the instruction
            assert location["message"] == expected["message"], words  # the same operands
        assert "first_in_source" not in location, words
