"""Where the search budget goes, and which decisions are stable enough to freeze.

1. **Profile-led against even.**  Every corpus program with run cases is built at `-O2`
   (decision cache off) with its cases as the profile, at each total budget (`--scales`: the
   factor every block's budgets are multiplied by, 1 = the default), once with the budget
   spread evenly over the blocks and once spent on the blocks the runs execute most first
   (compiler.search.budget.hot_first), the same total.  Printed per scale and spread: the
   total cycles of the corpus on its cases (the runs that finish), the programs with fewer
   and with more cycles than the even spread, the search states expanded and the process
   seconds of the builds.  The profile is in-sample: the runs that lead the budget are the
   ones measured.

2. **Stability.**  Every build of part 1 records its decisions in one decision table
   (compiler.search.decisions): each block decided at several budgets and spreads, so its
   samples differ where the budget changes what the search finds.  The table is frozen at
   each threshold (`--thresholds`; `tri decisions freeze` uses 0.8), and the corpus built
   again as a user would (`-O2` with the profile, the default budget) from each frozen table:
   printed are the entries frozen, the blocks taken from the table, the blocks still
   searched, and the total cycles against the same build without a table.

    python benchmarks/search_budget.py [--scales 0.05,0.2,1] [--thresholds 0.5,0.6,0.8,1]
                                       [--markdown]
"""

from __future__ import annotations

import argparse
import copy
import os
import time
from pathlib import Path

from report import print_table  # benchmarks/report.py
from search import finishing  # benchmarks/search.py

os.environ["TRI_CACHE"] = "off"  # every build searches: the budget is what is measured

from compiler.check.checker import check  # noqa: E402
from compiler.check.resolve import load_project  # noqa: E402
from compiler.driver import compile_program, search_lowerer  # noqa: E402
from compiler.search.budget import BudgetPlan  # noqa: E402
from compiler.search.decisions import DecisionTable, freeze  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = sorted((ROOT / "tests/programs/valid").glob("*.tri"))


def corpus() -> list:
    """(name, checked program, profile) of each corpus program with a case that finishes."""
    chosen = []
    for path in PROGRAMS:
        checked = check(load_project(path))
        profile = finishing(path)
        if profile(compile_program(checked, 1).program):
            chosen.append((path.stem, checked, profile))
    return chosen


def build_all(programs, plan: BudgetPlan | None, table=None) -> dict:
    """Each program built at -O2 with `plan` (None: the default) and `table`: cycles per
    program, and the totals."""
    cycles, expanded, searches, seconds = {}, 0, 0, 0.0
    for name, checked, profile in programs:
        lowerer = search_lowerer(2, plan=plan, table=table)
        start = time.process_time()
        built = compile_program(checked, 2, lowerer=lowerer, profile=profile)
        seconds += time.process_time() - start
        cycles[name] = sum(run.cycles for run in profile(built.program))
        expanded += built.search.expanded
        searches += lowerer.searches
    return {"cycles": cycles, "expanded": expanded, "searches": searches, "seconds": seconds}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scales", default="0.05,0.2,1")
    parser.add_argument("--thresholds", default="0.5,0.6,0.8,1")
    parser.add_argument("--markdown", action="store_true", help="markdown tables for docs/")
    arguments = parser.parse_args(argv)
    scales = [float(text) for text in arguments.scales.split(",")]
    thresholds = [float(text) for text in arguments.thresholds.split(",")]
    programs = corpus()
    table = DecisionTable()
    rows = []
    for scale in scales:
        even = build_all(programs, BudgetPlan(scale, spread="even"), table)
        led = build_all(programs, BudgetPlan(scale, spread="profile"), table)
        for spread, result in (("even", even), ("hot first", led)):
            fewer = sum(result["cycles"][n] < even["cycles"][n] for n in even["cycles"])
            more = sum(result["cycles"][n] > even["cycles"][n] for n in even["cycles"])
            rows.append(
                [
                    f"{scale:g}",
                    spread,
                    f"{sum(result['cycles'].values()):,}",
                    f"{fewer} / {more}",
                    f"{result['expanded']:,}",
                    f"{result['seconds']:.1f}",
                ]
            )
    print_table(
        f"corpus at -O2, {len(programs)} programs, each profiled and measured on its cases",
        ["scale", "spread", "total cycles", "programs fewer / more than even", "states", "seconds"],
        rows,
        arguments.markdown,
    )
    fresh = build_all(programs, None)
    rows = [["no table", "", "", f"{fresh['searches']:,}", f"{sum(fresh['cycles'].values()):,}"]]
    for threshold in thresholds:
        frozen = copy.deepcopy(table)
        report = freeze(frozen, search_lowerer(2, cache=None), threshold)
        frozen.hits = 0
        result = build_all(programs, None, frozen)
        rows.append(
            [
                f"{threshold:g}",
                f"{report.frozen} of {len(frozen.entries)}",
                f"{frozen.hits:,}",
                f"{result['searches']:,}",
                f"{sum(result['cycles'].values()):,}",
            ]
        )
    print()
    print_table(
        f"decision table: samples of {2 * len(scales)} builds of the corpus, frozen at each "
        "threshold, then the corpus built from it with the profile and the default budget",
        ["stability", "entries frozen", "blocks from the table", "searched", "total cycles"],
        rows,
        arguments.markdown,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
