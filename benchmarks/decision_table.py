"""A frozen decision table against a fresh `-O3` build of the corpus.

Every corpus program is built at `-O3` (the shipped model, decision cache off) recording its
decisions in one table (compiler.search.decisions); the table is frozen at the default
stability; the corpus is built again from it.  Printed for both builds: process seconds,
blocks searched, the times the model was asked, and whether every program's TASM is
byte-identical.

    python benchmarks/decision_table.py
"""

from __future__ import annotations

import os
import time
from pathlib import Path

os.environ["TRI_CACHE"] = "off"  # the table, not the cache, is what is measured

from compiler.check.checker import check  # noqa: E402
from compiler.check.resolve import load_project  # noqa: E402
from compiler.driver import compile_program, search_lowerer  # noqa: E402
from compiler.search.decisions import DecisionTable, freeze  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = sorted((ROOT / "tests/programs/valid").glob("*.tri"))


def build_all(programs, table) -> dict:
    texts, searches, model_runs, seconds = [], 0, 0, 0.0
    for checked in programs:
        lowerer = search_lowerer(3, table=table)
        start = time.process_time()
        texts.append(compile_program(checked, 3, lowerer=lowerer).text)
        seconds += time.process_time() - start
        searches += lowerer.searches
        model_runs += lowerer.model_runs
    return {"texts": texts, "searches": searches, "model": model_runs, "seconds": seconds}


def main() -> int:
    programs = [check(load_project(path)) for path in PROGRAMS]
    table = DecisionTable()
    fresh = build_all(programs, table)
    report = freeze(table, search_lowerer(3, cache=None))
    frozen = build_all(programs, table)
    print(f"corpus at -O3, {len(programs)} programs, decision cache off:")
    for name, result in (("fresh, recording", fresh), ("from the frozen table", frozen)):
        print(
            f"  {name:22} {result['seconds']:7.1f} s  {result['searches']:5} blocks searched  "
            f"model asked {result['model']:4} times"
        )
    print(f"  entries: {len(table.entries)}, frozen: {report.frozen}")
    same = fresh["texts"] == frozen["texts"]
    print(f"  TASM byte-identical: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
