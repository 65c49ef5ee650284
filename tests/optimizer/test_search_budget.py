"""The search budget (compiler.search.budget): `--search-budget FACTOR`, and `--hot-first`:
with `--profile-input`, the budget spent on the blocks the runs execute most first.

What must hold: the plan is made for exactly the blocks the build lowers (each decided once,
none left over); the hottest block gets the most; a build with either spread prints the
evaluator's output on every case, edge words included, and is no costlier than `-O1` in any
of the nine tables; bad options are usage errors (exit 2)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from cli_helpers import HEIGHT_NAMES, tri
from corpus import expectations
from source_generator import generate

from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.driver import choose_unrolled, compile_program, search_lowerer
from compiler.pipeline import Options, run_steps, steps
from compiler.search import budget
from compiler.search.budget import BudgetPlan
from vm import interp

VALID = Path(__file__).parents[1] / "programs" / "valid"
# programs whose loops make some blocks far hotter than others
LOOPING = ["fib.tri", "std_tensor.tri", "deep_loops.tri"]


def profile_of(words_list):
    def profile(program):
        runs = [interp.execute(program, words, (), (), {}, 100_000) for words in words_list]
        return [run for run in runs if run.error is None]

    return profile


def case_inputs(path: Path) -> list:
    return [list(case.public) for case in expectations(path).cases if not case.secret]


@pytest.fixture
def no_cache(monkeypatch):
    monkeypatch.setenv("TRI_CACHE", "off")


@pytest.mark.parametrize("name", LOOPING)
def test_the_plan_covers_exactly_the_blocks_the_build_lowers(name, no_cache):
    path = VALID / name
    checked = check(load_project(path))
    profile = profile_of(case_inputs(path))
    lowerer = search_lowerer(2, plan=BudgetPlan(0.1, spread="profile"))
    compile_program(checked, 2, lowerer=lowerer, profile=profile)
    plan = lowerer.plan
    assert plan.spread == "profile" and plan.factors
    assert lowerer.decided == {}  # every block decided ahead was lowered
    assert lowerer.searches == len(plan.factors)  # and none was searched again
    # the most executed block was decided first, with the most of the pool
    labels = choose_unrolled(checked, profile)
    tir = run_steps(steps(last="unroll"), checked, Options(2, unroll=labels))["unroll"]
    blocks = budget.program_blocks(tir)
    baseline = compile_program(checked, 1).program
    visits = budget.origin_visits(baseline, profile(baseline))
    hottest = max(blocks, key=lambda block: budget.block_visits(block, visits))
    coldest = min(blocks, key=lambda block: budget.block_visits(block, visits))
    assert budget.block_visits(hottest, visits) > budget.block_visits(coldest, visits)
    assert plan.factor(hottest) == max(plan.factors.values()) > 0.1
    assert plan.factor(hottest) == pytest.approx(
        0.1 * min(budget.CAP, budget.FLOOR + (1 - budget.FLOOR) * len(plan.factors))
    )
    assert min(plan.factors.values()) >= budget.FLOOR * 0.1


def test_visits_come_from_the_runs_of_the_o1_program():
    path = VALID / "fib.tri"
    checked = check(load_project(path))
    program = compile_program(checked, 1).program
    runs = profile_of([[10], [30]])(program)
    visits = budget.origin_visits(program, runs)
    assert max(visits.values()) >= 10 + 30  # the loop body, once per iteration of both runs
    tir = run_steps(steps(last="unroll"), checked, Options(2))["unroll"]
    counts = sorted(budget.block_visits(block, visits) for block in budget.program_blocks(tir))
    assert counts[0] == 2 and counts[-1] >= 40  # entered once per run; the loop, per iteration


def _run(capsys, path, level, words, *options):
    code, out, err = tri(capsys, "run", path, f"-O{level}", "--json", *words, *options)
    assert code in (0, 1), err
    return json.loads(out)


@pytest.mark.parametrize("spread", [["--hot-first"], []], ids=["hot-first", "even"])
@pytest.mark.parametrize("seed", [3, 11, 29])
def test_budgeted_builds_of_generated_programs_agree_and_cost_no_more(
    capsys, tmp_path, seed, spread, no_cache
):
    generated = generate(seed, kind="program", cases=4)
    source = tmp_path / f"fuzz{seed}.tri"
    source.write_text(generated.text)
    inputs = [case.public for case in generated.cases if case.public][:2] or [(0,)]
    profiles = [
        option for words in inputs for option in ("--profile-input", ",".join(map(str, words)))
    ]
    for case in generated.cases:
        words = case.flags()
        expected = _run(capsys, source, 1, words, "--reference")
        baseline = _run(capsys, source, 1, words)
        for level in (2, 3):
            built = _run(capsys, source, level, words, "--search-budget", "0.1", *profiles, *spread)
            assert built["output"] == expected["output"], (seed, words, level)
            assert (built["error"] is None) == (expected["error"] is None)
            if built["error"] is None and baseline["error"] is None:
                assert built["padded_height"] <= baseline["padded_height"]
                for name, after, before in zip(HEIGHT_NAMES, built["heights"], baseline["heights"]):
                    assert after <= before, (seed, words, level, name)


@pytest.mark.parametrize("name", LOOPING)
def test_the_corpus_programs_run_right_with_the_budget_led_by_their_cases(capsys, name, no_cache):
    path = VALID / name
    cases = expectations(path).cases
    profiles = [
        option
        for words in case_inputs(path)
        for option in ("--profile-input", ",".join(map(str, words)))
    ]
    for case in cases:
        options = [*shlex.split(case.flags), "-O2", "--json", "--search-budget", "0.05"]
        options.append("--hot-first")
        code, out, err = tri(capsys, "run", path, *options, *profiles)
        assert code == (0 if case.error is None else 1), err
        assert json.loads(out)["output"] == case.output


@pytest.mark.parametrize(
    "options, message",
    [
        (["-O2", "--search-budget", "0"], "not a factor above 0"),
        (["-O2", "--search-budget", "many"], "not a factor above 0"),
        (["-O2", "--search-budget", "65"], "at most 64"),
        (["-O1", "--search-budget", "2"], "--search-budget is for the -O2 and -O3 search"),
        (["--hot-first", "--profile-input", "3"], "--hot-first is for the -O2 and -O3 search"),
        (["-O2", "--hot-first"], "add --profile-input"),
    ],
)
def test_bad_budget_options_are_usage_errors(capsys, options, message):
    try:
        code, _, err = tri(capsys, "build", VALID / "fib.tri", *options)
    except SystemExit as stopped:  # argparse's own errors leave this way
        code, err = stopped.code, capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err
