"""`tri cost --save` and `--compare` (tri/commands/cost_baseline.py), through the command
line at every level: the same run compares equal, a costlier one fails on the figure
`--fail-on` names and only on it, and a file that is not a baseline is a usage error."""

from __future__ import annotations

import json

import pytest
from cli_helpers import tri

from compiler.levels import LEVELS

FIB = "tests/programs/valid/fib.tri"
FIBONACCI = "stdlib/math/fibonacci.tri"


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_a_saved_run_compares_equal_and_a_costlier_one_fails(capsys, tmp_path, level):
    base = tmp_path / "base.json"
    code, _, err = tri(capsys, "cost", FIB, f"-O{level}", "--input", "30", "--save", base)
    assert code == 0, err
    saved = json.loads(base.read_text())
    assert saved["cycles"] > 0 and "fib__main" in saved["functions"]
    code, out, _ = tri(capsys, "cost", FIB, f"-O{level}", "--input", "30", "--compare", base)
    assert code == 0 and "worse: nothing" in out
    # one more iteration: more cycles, the same padded height (the cascade table is tallest)
    code, out, _ = tri(capsys, "cost", FIB, f"-O{level}", "--input", "31", "--compare", base)
    assert code == 0 and "worse: cycles" in out
    code, out, _ = tri(
        capsys, "cost", FIB, f"-O{level}", "--input", "31", "--compare", base, "--fail-on", "cycles"
    )
    assert code == 1
    # 90 iterations: past the cliff, the proof doubles
    code, out, _ = tri(
        capsys, "cost", FIB, f"-O{level}", "--input", "90", "--compare", base, "--json"
    )
    report = json.loads(out)
    assert code == 1 and report["compare"]["worse"] == ["padded", "tallest", "cycles"]
    padded = report["compare"]["figures"]["padded"]
    assert padded["new"] == 2 * padded["old"] == report["padded_height"]
    functions = report["compare"]["functions"].values()
    assert all(
        f["cycles"]["difference"] == f["cycles"]["new"] - f["cycles"]["old"] for f in functions
    )
    assert max(f["cycles"]["difference"] for f in functions) > 0  # the loop's function


def test_what_is_not_a_baseline_is_a_usage_error(capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"something": 1}')
    code, _, err = tri(capsys, "cost", FIB, "--input", "30", "--compare", bad)
    assert code == 2 and "is not a baseline" in err
    code, _, err = tri(capsys, "cost", FIB, "--input", "30", "--compare", tmp_path / "none.json")
    assert code == 2 and "cannot read" in err
    code, _, err = tri(capsys, "cost", FIBONACCI, "--save", tmp_path / "m.json")
    assert code == 2 and "--save is for a program run" in err


def test_a_failing_run_saves_nothing(capsys, tmp_path):
    base = tmp_path / "base.json"
    code, _, err = tri(capsys, "cost", FIB, "--input", "100001", "--save", base)
    assert code == 1 and "skipped: the run failed" in err and not base.exists()
