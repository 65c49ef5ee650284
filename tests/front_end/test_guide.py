"""docs/guide.md: every program in it checks, and produces the outputs it shows; the
user's documents and --help cite nothing outside the repository (issue 14, problem 11).

Each ```trident block that starts with `program` is written to a file and run through
the corpus conventions (`// run:` lines, tests/corpus.py): on the reference evaluator
the output and the error kind must be exactly the ones shown; compiled and run on the
VM, the output must be the same and the run must fail where the evaluator fails (the
VM names some failures differently: a `bounded` overrun is a failed `assert`).
"""

import argparse
import re
from pathlib import Path

import pytest
from corpus import expectations
from doc_blocks import fenced

from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.driver import compile_program
from compiler.evaluate import evaluate
from tri.cli import build_parser, main
from vm import interp, tables

GUIDE = Path(__file__).parents[2] / "docs" / "guide.md"
PROGRAMS = [text for text in fenced(GUIDE.read_text(), "trident") if text.startswith("program ")]


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
    quoted = "processor and jump-stack tables (one row per cycle, 2,829 here)"
    assert quoted in " ".join(GUIDE.read_text().split()), "the guide's wording changed"
    assert (run.cycles, heights.padded_height) == (2829, 4096), "update docs/guide.md"
    assert heights.dominant == ["processor", "jump_stack"]


def _guide_program(name: str, tmp_path) -> Path:
    text = next(text for text in PROGRAMS if text.startswith(f"program {name}\n"))
    path = tmp_path / f"{name}.tri"
    path.write_text(text)
    return path


def test_the_cascade_figures_the_guide_quotes(tmp_path):
    """'What a run costs' explains the cascade table with the `secrets` run."""
    path = _guide_program("secrets", tmp_path)
    program = compile_program(check(load_project(path))).program
    run = interp.execute(program, [3314534808230067863], [42])
    heights = tables.heights(run)
    quoted = "its cascade table has 332 rows, against 20 cycles, so the padded height is 512"
    assert quoted in " ".join(GUIDE.read_text().split()), "the guide's wording changed"
    assert (heights.cascade, run.cycles, heights.padded_height) == (332, 20, 512)
    assert heights.dominant == ["cascade"]


def test_the_release_profile_the_guide_describes(tmp_path, capsys):
    """`extras` prints 2 where it printed 1 with --profile release."""
    path = _guide_program("extras", tmp_path)
    for profile, shown in (("debug", "1"), ("release", "2")):
        code = main(["run", str(path), "--input", "5,1,2,3", "--profile", profile])
        assert (code, capsys.readouterr().out.split()) == (0, ["15", shown, "4", "9"])


# Spec documents the repository does not ship, and the reference compiler's nickname
NOT_HERE = re.compile(r"\b(?:tir|language|tasm|optimizer)\.md\b|\bRC\b")
USER_DOCS = ["README.md", "docs/guide.md", "docs/cli.md", "docs/errors.md", "docs/editor.md"]


def test_user_facing_text_cites_nothing_outside_the_repository(capsys):
    """The user's documents and every command's --help name no spec document that is not
    in the repository, and do not say 'RC'."""
    root = Path(__file__).parents[2]
    found = [
        f"{name}: {match.group()}"
        for name in USER_DOCS
        for match in NOT_HERE.finditer((root / name).read_text())
    ]
    parser = build_parser()
    texts = {"tri": parser.format_help()}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            texts.update({name: sub.format_help() for name, sub in action.choices.items()})
    found += [
        f"tri {name} --help: {m.group()}"
        for name, text in texts.items()
        for m in NOT_HERE.finditer(text)
    ]
    assert not found, found
