"""Held views (compiler/tir/aliases.py) and the loop frame sunk after spills
(compiler/tir/loops.py): immutable names for the words of a value an enclosing loop holds
in place read them where they are.  The corpus program held_views.tri shows which names
become views and which do not, and agrees with the reference evaluator at every level on
random inputs whose digests match often (words from a small alphabet with the edges);
std.crypto.auth.verify_threshold keeps its candidate digest on the stack and tests its
inner loop with `recurse_or_return`; a compiler that makes views of values the loop does
not hold is caught by the corpus cases."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from corpus import expectations
from hypothesis import given, settings
from hypothesis import strategies as st
from test_backend_differential import compare_program

from compiler.check.checker import check
from compiler.check.resolve import DEFAULT_LIBRARY, load_project
from compiler.diagnostics import CompileError
from compiler.driver import compile_program
from compiler.tir import aliases
from compiler.tir.stack import CompileLimit
from vm.field import P

CORPUS = Path(__file__).parents[1] / "programs" / "valid" / "held_views.tri"


def _named(compiled) -> list[str]:
    lines = [line for line in compiled.report().splitlines() if "named in place:" in line]
    return [text for line in lines for text in line.split(": ", 1)[1].split(", ") if text]


def _function(text: str, label: str) -> list[str]:
    """The instructions of a label's block, up to the next label."""
    lines = text.split(f"{label}:\n")[1].split("\n")
    body = []
    for line in lines:
        if line and not line.startswith(" "):
            break
        body.append(line.strip())
    return [line for line in body if line]


def test_the_corpus_program_names_in_place_exactly_the_held_values():
    compiled = compile_program(check(load_project(CORPUS)), 1)
    # the probe digest's words in `same` (inlined into matches), the pair in spread and
    # sides, and a view of that view in sides' inner loop; nothing in `fresh`
    assert _named(compiled) == ["a0", "a1", "a2", "a3", "a4 = probe", "q = p x2", "r = q"]


def test_verify_threshold_compares_the_candidate_in_place():
    compiled = compile_program(check(load_project(DEFAULT_LIBRARY / "crypto" / "auth.tri")), 1)
    assert "a0, a1, a2, a3, a4 = candidate" in compiled.report()
    text = compiled.text
    own = text[text.index("__verify_threshold:") : text.index("__verify_preimage")]
    assert "write_mem 5" not in own  # the candidate is not spilled
    inner = _function(text, "__verify_threshold__loop__1")
    assert inner[-1] == "recurse_or_return"  # the frame sunk under five words
    assert "read_mem 5" in inner and inner.count("dup 13") == 1  # the key read, c0 in place


@cache
def _built(level: int):
    checked = check(load_project(CORPUS))
    return checked, compile_program(checked, level).program


WORDS = st.sampled_from([0, 1, 2, P - 1, 2**32 - 1]) | st.integers(0, P - 1)
DIGEST = st.lists(st.sampled_from([0, 1, P - 1]), min_size=5, max_size=5)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    level=st.sampled_from([0, 1, 2]),
    probe=DIGEST,
    keys=st.lists(DIGEST, max_size=8),
    pair=st.lists(WORDS, min_size=2, max_size=2),
    n=st.integers(0, 4),
    reads=st.lists(WORDS, min_size=4, max_size=4),
)
def test_random_inputs_agree_with_the_evaluator(level, probe, keys, pair, n, reads):
    """Keys equal to the probe (from an alphabet of three words) about one time in
    three, so `same` takes both arms; `fresh` reads one word per round."""
    keys = [probe if index % 3 == 1 else key for index, key in enumerate(keys)]
    public = [len(keys), *[word for key in keys for word in key], *probe, *pair, n]
    public += reads[:n]
    checked, program = _built(level)
    assert compare_program(checked, program, (public, [], [], {})) is None


def test_views_of_values_the_loop_does_not_hold_are_caught(monkeypatch):
    checked = check(load_project(CORPUS))
    cases = expectations(CORPUS).cases
    program = compile_program(checked, 1).program

    def as_inputs(case):
        return (list(case.public), list(case.secret), list(case.digests), dict(case.ram))

    assert all(compare_program(checked, program, as_inputs(case)) is None for case in cases)

    def any_value(self, source):  # no check that the loop holds the value in place
        value = self.values.get(source)
        return None if value is None or value.kind != "var" else (value, 0)

    monkeypatch.setattr(aliases.AliasBuilder, "held", any_value)
    try:
        program = compile_program(checked, 1).program
    except (CompileError, CompileLimit, AssertionError, IndexError, KeyError):
        return  # the stack manager finds the view's value gone
    assert any(compare_program(checked, program, as_inputs(case)) is not None for case in cases)
