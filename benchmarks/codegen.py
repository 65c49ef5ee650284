"""Code quality of the compiled stdlib against the hand baselines, with and without optimization.

Runs `compiler.bench` on benches/ twice (peephole passes on and off) and writes the
"Code quality" section of docs/performance.md (between the `codegen:start` and
`codegen:end` markers, so a rerun replaces it; appended when the markers are missing):
per module the inclusive static count and the cycles, compiled / hand, and the median
ratios over functions and over modules.  It also times the build of every stdlib module
(parse, check, compile), best of `--repeat` runs.  Prints the section too.

    python benchmarks/codegen.py [--cases 8] [--repeat 3] [--no-write]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from compiler import bench
from compiler.check.checker import check
from compiler.check.resolve import DEFAULT_LIBRARY, Resolver, load_project
from compiler.driver import compile_program
from compiler.optimize import checks, conjunctions, shuffles
from compiler.syntax import parser

ROOT = Path(__file__).resolve().parents[1]
BENCHES = ROOT / "benches"
DOCUMENT = ROOT / "docs" / "performance.md"
START, END = "<!-- codegen:start -->", "<!-- codegen:end -->"


def build_times(repeat: int) -> tuple[float, list[tuple[str, float]]]:
    """Best-of-`repeat` seconds to parse, check and compile each stdlib module alone
    (with the modules it imports, parsed once per run)."""
    sources = sorted(DEFAULT_LIBRARY.rglob("*.tri"))
    best: dict[str, float] = {}
    for _ in range(repeat):
        parser.parse.cache_clear()  # parse every file again (lark's tables stay loaded)
        shuffles.forget()  # and search every run of moves again
        checks.forget()  # and prove every merged check again
        conjunctions.forget()  # and every counted conjunction
        for path in sources:
            start = time.perf_counter()
            checked = check(load_project(path, Resolver()))
            compile_program(checked)
            elapsed = time.perf_counter() - start
            name = path.relative_to(DEFAULT_LIBRARY).with_suffix("").as_posix()
            best[name] = min(best.get(name, elapsed), elapsed)
    return sum(best.values()), sorted(best.items(), key=lambda item: -item[1])


def _pair(compiled, hand) -> str:
    if compiled is None or hand is None:
        return "-"
    return f"{compiled:,.0f} / {hand:,.0f}"


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def section(optimized: list[bench.Row], plain: list[bench.Row], build, repeat: int) -> str:
    total, slowest = build
    by_module = {row.module: row for row in bench.module_rows(plain)}
    lines = [
        "## Code quality",
        "",
        "`python benchmarks/codegen.py` (also `tri bench --json`): every public function of the",
        "stdlib modules in `benches/` compiled alone, against our hand-written baselines",
        "(`benches/*.baseline.tasm`, tested against the reference evaluator). *Inclusive* counts",
        "every instruction reachable from the function (its branch and loop blocks and the",
        "functions it calls); *cycles* are the mean cycles of one call on the same fixed-seed",
        "in-range arguments for both sides (compiler/bench.py). Per module: sums over its",
        "functions, compiled / hand.",
        "",
        "| module | inclusive, opt | ratio | cycles, opt | ratio "
        "| inclusive, no opt | ratio | cycles, no opt | ratio |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in bench.module_rows(optimized):
        other = by_module[row.module]
        cells = [row.module]
        for side in (row, other):
            for metric in ("inclusive", "cycles"):
                cells.append(_pair(getattr(side.compiled, metric), getattr(side.hand, metric)))
                cells.append(_ratio(side.ratio(metric)))
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "Median compiled/hand ratios (static = RC's rule: the function's own block only):",
        "",
        "| over | optimization | static | inclusive | cycles |",
        "|---|---|---|---|---|",
    ]
    for scope in ("functions", "modules"):
        for name, rows in (("on", optimized), ("off", plain)):
            group = rows if scope == "functions" else bench.module_rows(rows)
            median = bench.medians(group)
            values = " | ".join(_ratio(median[m]) for m in bench.METRICS)
            lines.append(f"| {scope} | {name} | {values} |")
    mismatches = sum(row.mismatches for row in optimized + plain)
    worst = sorted(
        (row for row in optimized if row.ratio("cycles") is not None),
        key=lambda row: -row.ratio("cycles"),
    )[:5]
    lines += [
        "",
        "Targets (optimization on): median at most 1.5 on inclusive count, at most 1.3 on "
        f"cycles. Compiled and hand code disagreed on {mismatches} of the measured inputs.",
        "Furthest from the hand code in cycles: "
        + ", ".join(f"`{row.module}.{row.function}` {_ratio(row.ratio('cycles'))}" for row in worst)
        + ".",
        "",
        f"Build time of all {len(slowest)} stdlib modules (parse, check, compile alone, best of "
        f"{repeat} runs): {total:.2f} s in total (target: under 2 s); slowest: "
        + ", ".join(f"{name} {seconds * 1000:.0f} ms" for name, seconds in slowest[:3])
        + ".",
    ]
    return "\n".join(lines) + "\n"


def write(text: str, document: Path = DOCUMENT) -> None:
    """Replace the text between the markers, or append a marked section."""
    current = document.read_text(encoding="utf-8") if document.exists() else ""
    block = f"{START}\n{text}{END}\n"
    if START in current and END in current:
        before, rest = current.split(START, 1)
        after = rest.split(END, 1)[1].lstrip("\n")
        updated = before + block + (("\n" + after) if after else "")
    else:
        updated = current.rstrip("\n") + ("\n\n" if current else "") + block
    document.write_text(updated, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=8, help="argument tuples per function")
    parser.add_argument("--repeat", type=int, default=3, help="build-time runs (best is kept)")
    parser.add_argument("--no-write", action="store_true", help="print only")
    arguments = parser.parse_args()
    optimized = bench.bench(BENCHES, level=1, count=arguments.cases)
    plain = bench.bench(BENCHES, level=0, count=arguments.cases)
    text = section(optimized, plain, build_times(arguments.repeat), arguments.repeat)
    print(text)
    if not arguments.no_write:
        write(text)
        print(f"written to {DOCUMENT}")


if __name__ == "__main__":
    main()
