"""What `-O2` does to the stdlib and the corpus: its funnel, and its cost against `-O1`.

Every stdlib module (built alone) and every corpus program is built at `-O1` (the
control) and at `-O2` in the same run.  Printed:

* the funnel (optimizer.md §10), summed over all blocks: blocks, searched (two or
  more instructions), proven optimal, changed by the superoptimizer's rules,
  candidates, verified, cheaper, applied, and the checker's `unknown` and `different`
  verdicts;
* the share of blocks of four or more instructions made cheaper (target: 25%);
* static size: instructions and program words of both builds, files smaller;
* on the corpus programs' run cases that run to the end: the median change in cycles
  per program and how many runs' padded height halves (target: at least one);
* per stdlib function of benches/ (compiler.bench: the same fixed-seed arguments at
  both levels; at `-O2` the loops unrolled on a profile of the cases of the next seed):
  the median change in cycles over the functions that reach more than their own block
  (inclusive count above static; target: 5% lower), and over all;
* the corpus again with each program's own cases as its profile (in-sample: the runs
  that choose the loops to unroll are the ones measured);
* process time of the `-O2` builds (target: the stdlib under 60 s).

`--cycles-first` is an experiment, not what `tri` does: builds are compared with cycles
ranked before the tallest table (in short runs the tallest is often the cascade table,
which counts the limbs of hashing the program's own words).

    python benchmarks/search.py [--markdown] [--cycles-first]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from report import print_table  # benchmarks/report.py

from compiler.bench import bench
from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.driver import compile_program
from compiler.search.lowerer import Funnel
from compiler.tir.printer import print_program
from vm import interp
from vm.tables import heights

ROOT = Path(__file__).resolve().parent.parent
STDLIB = sorted((ROOT / "stdlib").rglob("*.tri"))
PROGRAMS = sorted((ROOT / "tests/programs/valid").glob("*.tri"))
MAX_STEPS = 2_000_000


def run_cases(program, path: Path) -> list:
    """The runs of `program` on the inline `// run:` cases of `path` (tests/corpus.py)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from corpus import expectations

    return [
        interp.execute(program, case.public, case.secret, case.digests, case.ram, MAX_STEPS)
        for case in expectations(path).cases
    ]


def finishing(path: Path):
    """A profile: a program's runs of `path`'s cases that run to the end."""
    return lambda program: [run for run in run_cases(program, path) if run.error is None]


def _rank_cycles_first() -> None:
    """Builds compared by (padded height, cycles, tallest table, words) in this process."""
    import compiler.blocks.objective as module

    specified = module.objective

    def cycles_first(program, runs=None) -> tuple:
        cost = specified(program, runs)
        return (cost.padded_height, cost.cycles, cost.tallest, cost.words)

    module.objective = cycles_first


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--markdown", action="store_true", help="markdown tables for docs/")
    parser.add_argument(
        "--cycles-first",
        action="store_true",
        help="an experiment: rank cycles before the tallest table when builds are compared "
        "(optimizer.md section 3 ranks the tallest table first)",
    )
    arguments = parser.parse_args(argv)
    if arguments.cycles_first:
        _rank_cycles_first()
    funnel = Funnel()
    sizes = {"instructions": [0, 0], "words": [0, 0]}
    smaller = files = 0
    seconds = {"stdlib": 0.0, "corpus": 0.0}
    cycle_changes, halvings, runs_compared = [], 0, 0
    profiled_changes, profiled_halvings, unrolled = [], 0, 0
    for part, paths in (("stdlib", STDLIB), ("corpus", PROGRAMS)):
        for path in paths:
            checked = check(load_project(path))
            control = compile_program(checked, 1)
            start = time.process_time()
            searched = compile_program(checked, 2)
            seconds[part] += time.process_time() - start
            funnel.add(searched.search)
            files += 1
            smaller += searched.program.length < control.program.length
            sizes["instructions"][0] += len(control.program.ops)
            sizes["instructions"][1] += len(searched.program.ops)
            sizes["words"][0] += control.program.length
            sizes["words"][1] += searched.program.length
            if part != "corpus":
                continue
            before, after = run_cases(control.program, path), run_cases(searched.program, path)
            profiled = compile_program(checked, 2, profile=finishing(path))
            unrolled += profiled.tir is not None and "unrolled" in print_program(profiled.tir)
            chosen = run_cases(profiled.program, path)
            done = [(b, a) for b, a in zip(before, chosen) if b.error is None]
            if done:
                total = sum(b.cycles for b, _ in done)
                profiled_changes.append(sum(a.cycles for _, a in done) / total - 1)
            profiled_halvings += sum(
                heights(a).padded_height < heights(b).padded_height for b, a in done
            )
            finished = [(b, a) for b, a in zip(before, after) if b.error is None]
            if finished:
                total_before = sum(b.cycles for b, _ in finished)
                total_after = sum(a.cycles for _, a in finished)
                cycle_changes.append(total_after / total_before - 1)
            for b, a in finished:
                runs_compared += 1
                halvings += heights(a).padded_height < heights(b).padded_height
    per_function = {}
    for level in (1, 2):
        for row in bench(ROOT / "benches", level):
            if row.compiled.cycles:
                per_function.setdefault((row.module, row.function), []).append(row)
    function_changes, branching_changes = [], []
    for control, searched in (pair for pair in per_function.values() if len(pair) == 2):
        change = searched.compiled.cycles / control.compiled.cycles - 1
        function_changes.append(change)
        if control.compiled.inclusive > control.compiled.static:
            branching_changes.append(change)
    large = sum(c[0] for size, c in funnel.by_size.items() if size >= 4)
    large_cheaper = sum(c[1] for size, c in funnel.by_size.items() if size >= 4)
    rows = [
        ("blocks", str(funnel.blocks)),
        ("searched (2+ instructions)", str(funnel.searched)),
        ("proven optimal (whole block searched)", str(funnel.optimal)),
        ("changed by the superoptimizer's rules", str(funnel.superopt)),
        ("candidates (a cheaper schedule found)", str(funnel.candidates)),
        ("verified equivalent", str(funnel.verified)),
        ("cheaper in every figure", str(funnel.cheaper)),
        ("applied", str(funnel.applied)),
        ("checker: unknown / different", f"{funnel.unknown} / {funnel.different}"),
        ("blocks of 4+ instructions made cheaper", f"{large_cheaper}/{large} = "
         f"{100 * large_cheaper / max(1, large):.1f}% (target 25%)"),
    ]  # fmt: skip
    print_table("-O2 funnel", ("stage", "count"), rows, arguments.markdown, frozenset({"stage"}))
    print()
    median = statistics.median(cycle_changes) if cycle_changes else 0.0
    rows = [
        ("instructions", *map(str, sizes["instructions"]),
         f"{100 * (sizes['instructions'][1] / sizes['instructions'][0] - 1):+.2f}%"),
        ("program words", *map(str, sizes["words"]),
         f"{100 * (sizes['words'][1] / sizes['words'][0] - 1):+.2f}%"),
        ("files smaller", f"{files}", f"{smaller}", ""),
        ("median cycles per corpus program", "", "", f"{100 * median:+.2f}%"),
        ("the same, each program profiled on its own cases (in-sample)", "",
         f"{unrolled} unrolled",
         f"{100 * statistics.median(profiled_changes or [0]):+.2f}%"),
        ("runs whose padded height halves, profiled (in-sample)", "", f"{profiled_halvings}",
         ""),
        ("median cycles per stdlib function, more than one block",
         f"{len(branching_changes)}", "",
         f"{100 * statistics.median(branching_changes or [0]):+.2f}% (target -5%)"),
        ("median cycles per stdlib function, all", f"{len(function_changes)}", "",
         f"{100 * statistics.median(function_changes or [0]):+.2f}%"),
        ("stdlib functions fewer cycles / more cycles", "", "",
         f"{sum(c < 0 for c in function_changes)} / {sum(c > 0 for c in function_changes)}"),
        ("runs whose padded height halves", f"{runs_compared}", f"{halvings}", ""),
        ("-O2 build, stdlib (process s)", "", f"{seconds['stdlib']:.1f}", "target < 60"),
        ("-O2 build, corpus (process s)", "", f"{seconds['corpus']:.1f}", ""),
    ]  # fmt: skip
    header = ("figure", "-O1", "-O2", "change")
    print_table("-O2 against -O1", header, rows, arguments.markdown, frozenset({"figure"}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
