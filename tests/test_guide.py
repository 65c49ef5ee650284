"""docs/guide.md: every program in it checks, and produces the outputs it shows.

Each ```trident block that starts with `program` is written to a file and run through
the corpus conventions (`// run:` lines, tests/corpus.py): on the reference evaluator
the output and the error kind must be exactly the ones shown; compiled and run on the
VM, the output must be the same and the run must fail where the evaluator fails (the
VM names some failures differently: a `bounded` overrun is a failed `assert`).
"""

import re
from pathlib import Path

import pytest
from corpus import expectations

from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.evaluate import evaluate
from compiler.pipeline import compile_program
from vm import interp, tables

GUIDE = Path(__file__).parents[1] / "docs" / "guide.md"
BLOCK = re.compile(r"```trident\n(.*?)```", re.S)
PROGRAMS = [text for text in BLOCK.findall(GUIDE.read_text()) if text.startswith("program ")]


def test_the_guide_has_programs_with_runs():
    assert len(PROGRAMS) >= 5
    assert all("// run:" in text for text in PROGRAMS)


@pytest.mark.parametrize("text", PROGRAMS, ids=lambda text: text.split()[1])
def test_guide_program(text, tmp_path):
    path = tmp_path / f"{text.split()[1]}.tri"
    path.write_text(text)
    checked = check(load_project(path))
    assert not checked.diagnostics, [d.headline for d in checked.diagnostics]
    program = compile_program(checked).program
    for case in expectations(path).cases:
        where = f"run: at line {case.line}"
        result = evaluate(checked, case.public, case.secret, case.digests, case.ram)
        kind = None if result.error is None else result.error.kind
        assert (result.output, kind) == (case.output, case.error), where
        run = interp.execute(program, case.public, case.secret, case.digests, case.ram)
        assert run.output == case.output, where
        assert (run.error is None) == (case.error is None), f"{where}: {run.error}"


def test_the_cost_the_guide_quotes(tmp_path):
    """'What a run costs' quotes the Collatz run from 27: keep the prose true."""
    text = next(text for text in PROGRAMS if text.startswith("program control"))
    path = tmp_path / "control.tri"
    path.write_text(text)
    program = compile_program(check(load_project(path))).program
    run = interp.execute(program, [27])
    heights = tables.heights(run)
    quoted = "processor and jump-stack tables (one row per cycle, 2,830 here)"
    assert quoted in " ".join(GUIDE.read_text().split()), "the guide's wording changed"
    assert (run.cycles, heights.padded_height) == (2830, 4096), "update docs/guide.md"
    assert heights.dominant == ["processor", "jump_stack"]
