"""docs/optimizer-experiments.md runs end to end (issue 15, item 6).

Every ```console command of the page runs, in order, in a fresh directory that sees the
repository's docs/, tests/ and benchmarks/ (the page is written for a checkout's root):
`tri` is this repository's command line, `python` this interpreter.  Each must exit 0,
and the output lines the page shows must appear in its output, in order -- the only
liberty taken is with process seconds (`1.24 s` in a report line, the last column of a
results-table row), which vary from run to run.  The program the page shows is the
example file, byte for byte, and the one figure the page quotes that no command prints
(the shipped model's saving on the same training blocks) is measured here.
"""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from doc_blocks import fenced, session

from compiler.neural.dataset import load_dataset
from compiler.neural.fitness import GreedyFitness, training_blocks
from compiler.neural.model import load_policy

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "optimizer-experiments.md"
SECONDS = re.compile(r"\b\d+\.\d+ s\b")


def normalized(line: str) -> str:
    """A line with its process seconds left out."""
    line = SECONDS.sub("_ s", line.rstrip())
    if line.startswith("| ") and line.endswith(" |"):
        line = line[: line.rstrip(" |").rfind("|")] + "| _ |"
    return line


def command_line(text: str) -> list[str]:
    words = shlex.split(text)
    programs = {"tri": [sys.executable, "-m", "tri.cli"], "python": [sys.executable]}
    assert words[0] in programs, f"the page runs {words[0]!r}, which this test does not know"
    return programs[words[0]] + words[1:]


def test_the_page_shows_the_example_program():
    programs = fenced(PAGE.read_text(), "trident")
    assert programs == [(ROOT / "docs/examples/tiny_model.tri").read_text()]


def test_every_command_of_the_page_runs_and_prints_what_it_shows(tmp_path):
    steps = [step for block in fenced(PAGE.read_text(), "console") for step in session(block)]
    assert [command.split()[:2] for command, _ in steps] == [
        ["tri", "check"],
        ["tri", "train"],
        ["tri", "train"],
        ["tri", "train"],
        ["tri", "build"],
        ["tri", "run"],
        ["python", "benchmarks/neural.py"],
    ]
    for name in ("docs", "tests", "benchmarks"):
        (tmp_path / name).symlink_to(ROOT / name)
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "TRI_CACHE": str(tmp_path / "cache")}
    for command, shown in steps:
        done = subprocess.run(
            command_line(command),
            cwd=tmp_path,
            env=environment,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert done.returncode == 0, f"$ {command}\n{done.stderr}"
        printed = iter(normalized(line) for line in done.stdout.splitlines())
        for line in shown:
            wanted = normalized(line)
            assert any(wanted == line for line in printed), (
                f"$ {command}\ndoes not print {line!r} (after the lines before it); "
                f"it printed:\n{done.stdout}"
            )


def test_the_shipped_model_on_the_pages_training_blocks():
    """'the shipped model saves 9 on the same blocks' (step 3)."""
    text = " ".join(PAGE.read_text().split())
    assert "the shipped model saves 9 on the same blocks" in text, "the wording changed"
    shipped = load_policy()
    blocks = training_blocks(load_dataset())[:30]
    saved, _, completed = GreedyFitness(blocks, lambda weights: shipped)(None)
    assert (saved, completed) == (9, 30)
