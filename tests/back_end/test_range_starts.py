"""Loops from a constant start to a run-time end (compiler/tir/loops.py `for_`): with a
bound B and START + B below 2^32 - 1, the end is checked against START + B before the trip
count is taken, so the count needs one `lt` instead of a 64-bit comparison.  The corpus
program range_starts.tri states the outputs and failures; here: which loops take the short
prologue, random and edge ends agree with the reference evaluator at -O0 and -O1 (failing
exactly when END > START + B), and a check one past the bound is caught by the corpus."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from corpus import expectations
from hypothesis import given, settings
from hypothesis import strategies as st
from test_backend_differential import compare_program

from compiler.check.checker import check
from compiler.check.resolve import DEFAULT_LIBRARY, load_project
from compiler.driver import compile_program
from compiler.tir.loops import LoopBuilder
from vm.field import P

CORPUS = Path(__file__).parents[1] / "programs" / "valid" / "range_starts.tri"
U32 = 2**32


def _prologues(text: str, label: str) -> list[list[str]]:
    """The instructions of a function's own block before each of its loops (a call of a
    loop's subroutine ends one)."""
    own = text.split(f"{label}:\n")[1].split("\n__")[0].split("\nrange_starts__")[0]
    parts = own.split(f"call {label}__loop__")[:-1]
    return [[line.split()[0] for line in part.splitlines() if line.strip()] for part in parts]


@cache
def _built(level: int):
    checked = check(load_project(CORPUS))
    return checked, compile_program(checked, level)


def test_a_small_start_checks_the_end_first_and_counts_with_one_lt():
    text = _built(1)[1].text  # from_one, rounds and near_top inlined into main, in order
    from_one, rounds, near_top = _prologues(text, "range_starts__main")
    for prologue in (from_one, rounds):
        assert "split" not in prologue and prologue.count("lt") == 2
    assert "split" in near_top  # START + B = 2^32 - 1: the count in 64 bits
    poly = compile_program(check(load_project(DEFAULT_LIBRARY / "math" / "poly.tri")), 1)
    (derivative,) = _prologues(poly.text, "__derivative")
    assert "split" not in derivative and derivative.count("lt") == 2


EDGES = [0, 1, 2, 3, 4, 6, 7, 8, U32 - 7, U32 - 6, U32 - 2, U32 - 1, U32, U32 + 1, P - 1]
END = st.sampled_from(EDGES) | st.integers(0, 12) | st.integers(0, P - 1)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(level=st.sampled_from([0, 1]), ends=st.lists(END, min_size=3, max_size=3))
def test_random_and_edge_ends_agree_with_the_evaluator(level, ends):
    checked, compiled = _built(level)
    assert compare_program(checked, compiled.program, (ends, [], [], {})) is None


def test_a_check_one_past_the_bound_is_caught(monkeypatch):
    checked = check(load_project(CORPUS))
    cases = [(c.public, c.secret, c.digests, c.ram) for c in expectations(CORPUS).cases]
    original = LoopBuilder.check_bound

    def lenient(self, count, bound):
        original(self, count, bound + 1)

    monkeypatch.setattr(LoopBuilder, "check_bound", lenient)
    program = compile_program(checked, 1).program
    assert any(compare_program(checked, program, case) is not None for case in cases)
