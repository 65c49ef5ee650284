"""Loop unrolling (compiler/optimize/unroll.py, lowered by compiler/lower/control.py).

* With every qualifying loop unrolled, every corpus program gives the outputs and failures
  its cases expect and agrees with the reference evaluator on random inputs, and every
  public stdlib function agrees with the evaluator on edge and random arguments: at `-O1`'s
  classical blocks and with `-O2`'s search.
* unrolled_loops.tri has each kind of loop that qualifies, with the counts around the
  parity edges, and one a `return` may end, which never qualifies.
* Lowering without the peel (the pairs alone) is caught by those same runs.
* A profile decides: loops stay unrolled only where its runs make the program strictly
  cheaper; a profile whose loops barely run unrolls nothing; without a profile nothing is
  unrolled.  The builds are byte-identical run to run.
"""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import pytest
from corpus import expectations
from test_backend_differential import (
    PROGRAM_PATHS,
    compare_program,
    function_problems,
    inputs_for,
    public_functions,
    run_vm,
)

from compiler.blocks.objective import objective
from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.driver import compile_program
from compiler.lower import control
from compiler.lower.classical import CLASSICAL
from compiler.optimize.unroll import unrollable
from compiler.pipeline import BACK_END, Options, run_steps, steps
from compiler.search.lowerer import SearchLowerer
from vm import tasm

ROOT = Path(__file__).resolve().parents[2]
UNROLLED = ROOT / "tests/programs/valid/unrolled_loops.tri"
RANDOM_CASES = 20


@cache
def tir_of(path: Path):
    checked = check(load_project(path))
    return checked, run_steps(steps(last="tir-moves"), checked, Options(1))["tir-moves"]


def unrolled_text(path: Path, search: bool = False) -> str:
    """The TASM of `path` with every qualifying loop unrolled (no profile's choice)."""
    _, tir = tir_of(path)
    lowerer = SearchLowerer() if search else CLASSICAL
    options = Options(2, lowerer, unroll=frozenset(unrollable(tir)))
    return run_steps(steps(first="unroll"), tir, options)["tasm"]


def case_problems(path: Path, program) -> list[str]:
    problems = []
    for case in expectations(path).cases:
        run = run_vm(program, case.public, case.secret, case.digests, case.ram)
        if run.output != case.output or (run.error is None) != (case.error is None):
            problems.append(f"line {case.line}: {run.output} {run.error}")
    return problems


UNROLLING = [path for path in PROGRAM_PATHS if unrollable(tir_of(path)[1])]


def test_the_corpus_has_loops_to_unroll():
    assert UNROLLED in UNROLLING and len(UNROLLING) >= 20


@pytest.mark.parametrize("search", [False, True], ids=["classical", "search"])
@pytest.mark.parametrize("path", UNROLLING, ids=lambda path: path.stem)
def test_unrolled_program_matches_its_cases_and_the_evaluator(path, search):
    checked, _ = tir_of(path)
    program = tasm.parse(unrolled_text(path, search))
    assert not case_problems(path, program)
    rng = random.Random(path.name)
    problems = [
        problem
        for case in inputs_for(checked, rng, RANDOM_CASES)
        if (problem := compare_program(checked, program, case)) is not None
    ]
    assert not problems, "\n".join(problems[:5])


FUNCTIONS = [(path, key) for path, key in public_functions() if unrollable(tir_of(path)[1])]


@pytest.mark.parametrize("path,key", FUNCTIONS, ids=lambda x: x if isinstance(x, str) else x.stem)
def test_unrolled_stdlib_function_matches_the_evaluator(path, key):
    checked, _ = tir_of(path)
    problems = function_problems(checked, unrolled_text(path), key, RANDOM_CASES)
    assert not problems, "\n".join(problems[:5])


def test_each_kind_is_unrolled_and_a_loop_a_return_may_end_is_not():
    _, tir = tir_of(UNROLLED)
    labels = unrollable(tir)
    assert "unrolled_loops__first_square__loop__1" not in labels
    assert len(labels) == 11
    text = unrolled_text(UNROLLED)
    assert text.count("__peel:") == 11
    # a run-time count: its parity, then the pairs unless none are left
    assert (
        "push 1\n    and\n    skiz\n    call unrolled_loops__main__loop__1__peel\n    dup 0\n"
        in text
    )
    # the pairs of a down loop take one test: two off the count at once
    assert text.count("addi -2\n") >= 7


def test_a_missing_peel_is_caught(monkeypatch):
    original = control._FunctionLowering.loop

    def pairs_only(self, op, guarded=False):
        code = original(self, op, guarded)
        return [item for item in code if not str(getattr(item, "arg", "")).endswith("__peel")]

    monkeypatch.setattr(control._FunctionLowering, "loop", pairs_only)
    _, tir = tir_of(UNROLLED)
    options = Options(2, CLASSICAL, unroll=frozenset(unrollable(tir)))
    program = tasm.parse(run_steps(steps(first="unroll"), tir, options)["tasm"])
    assert case_problems(UNROLLED, program)


def cases_profile(path: Path):
    return lambda program: [
        run
        for case in expectations(path).cases
        if (run := run_vm(program, case.public, case.secret, case.digests, case.ram)).error is None
    ]


def test_a_profile_keeps_only_the_loops_that_pay():
    path = ROOT / "tests/programs/valid/std_fibonacci.tri"
    checked = check(load_project(path))
    profile = cases_profile(path)
    result = compile_program(checked, 2, profile=profile)
    baseline = compile_program(checked, 1)
    assert "__peel:" in result.text
    assert "    loops unrolled: loop__1 x2" in result.report()
    assert objective(result.program, profile(result.program)) < objective(
        baseline.program, profile(baseline.program)
    )
    assert compile_program(checked, 2, profile=profile).text == result.text
    # runs whose loops run at most once: unrolling only adds code
    short = [case for case in expectations(path).cases if case.public[0] <= 1]
    assert short

    def rarely(program):
        return [run_vm(program, c.public, c.secret, c.digests, c.ram) for c in short]

    assert "__peel" not in compile_program(checked, 2, profile=rarely).text


def test_without_a_profile_nothing_is_unrolled():
    checked, _ = tir_of(UNROLLED)
    assert "__peel" not in compile_program(checked, 2).text


def test_the_cheapest_of_the_unrolled_programs_is_kept():
    # std.crypto.merkle on the bench's cases: unrolling `climb` is strictly cheaper.  The
    # search's blocks (each strictly cheaper alone) change the program's words, so the
    # cascade table, the tallest in these short runs, may rise: the classical unrolled
    # program is a candidate too, and the cheapest of the three is kept.  (Before the u32
    # test of the block lowerer the searched one lost, 871 -> 876 cascade rows; the block
    # that did it is refused now, and the searched one wins on cycles.)
    from compiler.bench import DEBUG, bench_profile
    from compiler.driver import choose_unrolled

    checked = check(load_project(ROOT / "stdlib/crypto/merkle.tri"), DEBUG)
    profile = bench_profile(checked, "std.crypto.merkle", 1)
    labels = choose_unrolled(checked, profile)
    assert labels == {"std_crypto_merkle__climb__loop__1"}

    def cost(text: str):
        program = tasm.parse(text)
        return objective(program, profile(program))

    searched = run_steps(BACK_END, checked, Options(2, SearchLowerer(cache=None), unroll=labels))
    classical = run_steps(BACK_END, checked, Options(2, CLASSICAL, unroll=labels))
    baseline = compile_program(checked, 1)
    assert cost(classical["tasm"]) < cost(baseline.text)
    result = compile_program(checked, 2, profile=profile)
    cheapest = min((searched["tasm"], classical["tasm"]), key=cost)
    assert result.text == cheapest
    assert cost(result.text) == min(cost(searched["tasm"]), cost(classical["tasm"]))
    assert result.search is not None
    assert (result.search.applied == 0) == (result.text == classical["tasm"])
