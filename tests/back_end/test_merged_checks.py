"""Merged checks (compiler/optimize/checks.py): an `as_u32` check is dropped only where the
equivalence checker proves that the instruction using the value fails on the same inputs,
with no output in between.  The corpus program merged_checks.tri shows which checks go
and which stay; random programs (a check, then a use of the value, an output or not in
between) agree with the reference evaluator on values that are and are not u32; a compiler
that drops every check is caught by the same tests."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_backend_differential import compare_program, inputs_for

from compiler.check.checker import check
from compiler.check.resolve import DEFAULT_LIBRARY, load_project
from compiler.driver import compile_program
from compiler.optimize import checks
from compiler.optimize.checks import merge_checks
from vm.field import P

CORPUS = Path(__file__).parents[1] / "programs" / "valid" / "merged_checks.tri"
CHECK = [("dup", 0), ("pop_count", None), ("pop", 1)]
U32 = 2**32


def _dropped_lines(compiled) -> set[int]:
    return {int(line) for line in re.findall(r"as_u32 at line (\d+)", compiled.report())}


def test_the_corpus_program_drops_exactly_the_checks_a_use_makes_again():
    compiled = compile_program(check(load_project(CORPUS)), 1)
    # lowest_bit's x - 1 (&), mixed's two (/%), another_checked's y (&), main's read
    # passed to lowest_bit
    assert _dropped_lines(compiled) == {15, 20, 21, 46, 55}
    # written out first (32), only added (39), checked by nothing after it (45), stored (51)
    assert compiled.text.count("pop_count") == 4


def test_trailing_zeros_is_checked_by_its_and_as_the_hand_code_by_its_xor():
    compiled = compile_program(check(load_project(DEFAULT_LIBRARY / "math" / "bits.tri")), 1)
    lines = compiled.text.split("__trailing_zeros:\n")[1].split("return")[0].split()
    assert "pop_count" not in lines and "and" in lines


@pytest.mark.parametrize(
    ("run", "kept"),
    [
        ([*CHECK, ("push", 5), ("and", None)], False),
        ([*CHECK, ("dup", 0), ("push", 3), ("lt", None), ("pop", 2)], False),  # a copy checks it
        ([*CHECK, ("dup", 0), ("write_io", 1), ("push", 5), ("and", None)], True),  # output first
        ([*CHECK, ("push", 5), ("add", None)], True),  # nothing checks it
        ([*CHECK, ("swap", 1), ("push", 5), ("and", None)], True),  # `and` checks another word
        ([*CHECK, ("pop", 1)], True),
        ([*CHECK], True),
    ],
)
def test_a_check_goes_only_where_a_later_instruction_fails_on_the_same_inputs(run, kept):
    notes: list = []
    merged = merge_checks(run, notes)
    assert (merged == run) == kept
    assert len(notes) == (0 if kept else 1)
    if not kept:
        assert merged == run[len(CHECK) :]


USES = {  # statements that leave the result in r
    "and": ["let r: U32 = x & convert.as_u32(12)"],
    "xor": ["let r: U32 = x ^ y"],
    "lt": ["let mut r: U32 = y", "if x < y {", "    r = x", "}"],
    "div": ["let (r, _) = x /% y"],
    "log2": ["let r: U32 = u32.log2(x)"],
    "popcount": ["let r: U32 = u32.popcount(x)"],
    "add": ["let r: U32 = convert.as_u32(convert.as_field(x) + 1)"],
}


def _program(use: str, output_first: bool) -> str:
    lines = [
        "program t",
        "",
        "use vm.io.io",
        "use vm.core.convert",
        "use vm.core.u32",
        "",
        "fn main() {",
        "    let x: U32 = convert.as_u32(io.read())",
        "    let y: U32 = convert.as_u32(io.read())",
    ]
    if output_first:
        lines.append("    io.write(7)")
    lines += [f"    {line}" for line in USES[use]]
    lines += ["    io.write(convert.as_field(r))", "}", ""]
    return "\n".join(lines)


@settings(max_examples=20, deadline=None, derandomize=True)
@given(use=st.sampled_from(sorted(USES)), output_first=st.booleans())
def test_random_uses_agree_with_the_evaluator(tmp_path_factory, use, output_first):
    path = tmp_path_factory.mktemp("checks") / "t.tri"
    path.write_text(_program(use, output_first))
    checked = check(load_project(path))
    compiled = compile_program(checked, 1)
    rng = random.Random(7)
    cases = inputs_for(checked, rng, 6)
    edges = (0, 1, U32 - 1, U32, P - 1, 2**63)
    cases += [([a, b], [], [], {}) for a in edges for b in edges]
    for case in cases:
        assert compare_program(checked, compiled.program, case) is None, use


def test_a_compiler_that_drops_checks_unproven_or_across_an_output_is_caught(monkeypatch):
    checked = check(load_project(CORPUS))
    another = ([1, 1, 1, 1, 1, 1, U32, 3], [], [], {})  # as_u32 of 2^32; `&` checks 3
    output_first = ([1, 1, 1, U32, 1, 1, 1, 1], [], [], {})  # written out, then `&`
    for case in (another, output_first):
        assert compare_program(checked, compile_program(checked, 1).program, case) is None
    checks.forget()
    monkeypatch.setattr(checks, "redundant", lambda window: True)  # no proof
    compiled = compile_program(checked, 1)
    assert compare_program(checked, compiled.program, another) is not None
    checks.forget()
    monkeypatch.setattr(checks, "_window", lambda items, start: items[start:])  # past outputs
    compiled = compile_program(checked, 1)
    assert compare_program(checked, compiled.program, output_first) is not None
    checks.forget()


def test_the_checking_instructions_come_from_the_instruction_table():
    from compiler.optimize.checks import CHECKING

    assert CHECKING == {"and", "xor", "lt", "div_mod", "pop_count", "log_2_floor", "pow"}
