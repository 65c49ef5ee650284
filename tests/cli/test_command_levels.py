"""Every command that compiles, at every -O level, on every program of the corpus, through the
command line as a user types it (`tri run PROG.tri -O3`, `tri cost PROG.tri -O3 --json`).

The corpus program's first `// run:` case gives the inputs and the expected output and
failure; the run must print exactly that at every level, and `tri cost` must report the
same output and a padded height.  A level the command mishandles (an option of the VM read
as the model's, a crash in one level's path) fails here for every program.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from cli_helpers import tri
from corpus import PROGRAMS, corpus, expectations

from compiler.levels import LEVELS

ROOT = Path(__file__).resolve().parents[2]
CASES = [path for path in corpus("valid") if expectations(path).cases]


@pytest.mark.parametrize("level", sorted(LEVELS))
@pytest.mark.parametrize("path", CASES, ids=lambda p: p.relative_to(PROGRAMS / "valid").as_posix())
def test_run_and_cost_at_every_level(capsys, path, level):
    case = expectations(path).cases[0]
    options = [*shlex.split(case.flags), f"-O{level}", "--json"]
    code, out, err = tri(capsys, "run", path, *options)
    assert code == (0 if case.error is None else 1), err
    run = json.loads(out)
    assert run["output"] == case.output, f"line {case.line}"
    assert (run["error"] is None) == (case.error is None), run["error"]
    code, out, err = tri(capsys, "cost", path, *options)
    assert code == (0 if case.error is None else 1), err
    cost = json.loads(out)
    assert cost["output"] == run["output"]
    assert cost["padded_height"] == run["padded_height"] and cost["heights"] == run["heights"]


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_tri_test_at_every_level(capsys, level):
    """`tri test` on the corpus's tested program and two library modules with tests."""
    paths = [PROGRAMS / "valid" / "attributes.tri", *(ROOT / "stdlib" / "math").glob("*.tri")]
    code, out, err = tri(capsys, "test", *paths, f"-O{level}", "--json")
    assert code == 0, err
    results = json.loads(out)
    assert results["tests"] and all(test["passed"] for test in results["tests"]), results
