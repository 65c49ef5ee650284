"""Cliffs: how many runs `-O2` and `-O3` bring below `-O1`'s padded height, and how far each
run's tallest table is from the next cliff down.

A run's cost is its padded height, the tallest table rounded up to a power of two: a run
gets half as costly only when its tallest table drops to half that power or below.  Every
corpus program with run cases is built at `-O1`, `-O2` and `-O3` (as `tri build` builds
them: no profile, the decision cache as the environment says) and run on its cases; the
runs that finish at every level are counted, for all programs and for the held-out ones
(compiler.neural.dataset.held_out: never trained on):

* the runs whose padded height is lower than `-O1`'s, and higher (never, by the
  never-costlier rule);
* the slack to the next cliff down: the rows the tallest table must lose for the padded
  height to halve (tallest - padded / 2), as a median, and the runs within 16 rows and
  within 5% of their cliff, which a little more saving would cross.

    python benchmarks/cliffs.py [--markdown]
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from report import print_table  # benchmarks/report.py
from search import run_cases  # benchmarks/search.py

from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.driver import compile_program
from compiler.neural.dataset import held_out
from vm.tables import heights

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = sorted((ROOT / "tests/programs/valid").glob("*.tri"))
LEVELS = (1, 2, 3)


def measure() -> list[dict]:
    """One row per run that finishes at every level: the program, held out or not, and
    per level (padded height, tallest table)."""
    rows = []
    for path in PROGRAMS:
        checked = check(load_project(path))
        runs = {level: run_cases(compile_program(checked, level).program, path) for level in LEVELS}
        name = path.relative_to(ROOT).as_posix()
        for index in range(len(runs[1])):
            if any(runs[level][index].error is not None for level in LEVELS):
                continue
            figures = {}
            for level in LEVELS:
                height = heights(runs[level][index])
                figures[level] = (height.padded_height, height.maximum)
            rows.append({"program": path.stem, "held_out": held_out(name), **figures})
    return rows


def summary(rows: list[dict], level: int) -> list[str]:
    lower = sum(row[level][0] < row[1][0] for row in rows)
    higher = sum(row[level][0] > row[1][0] for row in rows)
    slack = [row[level][1] - row[level][0] // 2 for row in rows]
    near = sum(rows_left <= 16 for rows_left in slack)
    close = sum(rows_left <= 0.05 * row[level][0] for rows_left, row in zip(slack, rows))
    return [
        f"-O{level}",
        str(len(rows)),
        str(lower),
        str(higher),
        f"{statistics.median(slack):.0f}" if slack else "-",
        str(near),
        str(close),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true")
    arguments = parser.parse_args(argv)
    rows = measure()
    header = (
        "level",
        "runs",
        "padded height below -O1",
        "above -O1",
        "median rows to the next cliff",
        "within 16 rows",
        "within 5%",
    )
    for title, chosen in (
        ("corpus", rows),
        ("held-out programs", [r for r in rows if r["held_out"]]),
    ):
        programs = len({row["program"] for row in chosen})
        table = [summary(chosen, level) for level in LEVELS]
        caption = f"{title}: {programs} programs, their cases"
        if arguments.markdown:
            print(f"{caption}:\n")
        print_table(caption, header, table, arguments.markdown)
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
