"""Two `tri bench --json` results side by side: the code-quality targets of whole-function
optimization, before and after a change.

Input: two JSON files written by `tri bench --json` (the first "before", the second
"after"), e.g. one from a checkout of main and one from the working tree, both at -O1.
Output (stdout, markdown): per-function cycle ratios compiled/hand for the functions whose
ratio changed or is above 1.5, then the targets -- median ratio over functions of ten or
more hand cycles (at most 1.00), median over all functions (at most 1.05), median over
modules, the functions above 1.5x, and the modules whose padded height exceeds the hand
code's.

    tri bench --json > after.json
    (cd ../main-checkout && tri bench --json) > before.json
    python benchmarks/bench_compare.py before.json after.json
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

LARGE = 10  # hand cycles from which a function counts as "of real size"
LIMIT = 1.5  # no function above this ratio


def load(path: Path) -> dict[tuple[str, str], dict]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return {(row["module"], row["function"]): row for row in data["functions"]}


def ratio(row: dict) -> float | None:
    hand, compiled = row["hand"]["cycles"], row["compiled"]["cycles"]
    return None if not hand or compiled is None else compiled / hand


def targets(rows: dict) -> dict:
    measured = [row for row in rows.values() if ratio(row) is not None]
    large = [ratio(row) for row in measured if row["hand"]["cycles"] >= LARGE]
    sums: dict[str, list[float]] = {}
    for row in measured:
        pair = sums.setdefault(row["module"], [0.0, 0.0])
        pair[0] += row["compiled"]["cycles"]
        pair[1] += row["hand"]["cycles"]
    heights: dict[str, list[int]] = {}
    for row in rows.values():
        pair = heights.setdefault(row["module"], [0, 0])
        pair[0] = max(pair[0], row["compiled"]["padded_height"] or 0)
        pair[1] = max(pair[1], row["hand"]["padded_height"] or 0)
    return {
        "large": statistics.median(large),
        "large_count": len(large),
        "all": statistics.median(ratio(row) for row in measured),
        "modules": statistics.median(compiled / hand for compiled, hand in sums.values()),
        "worst": max(measured, key=ratio),
        "over": sorted((r for r in measured if ratio(r) > LIMIT), key=ratio, reverse=True),
        "taller": {m: pair for m, pair in heights.items() if pair[0] > pair[1]},
    }


def name(row: dict) -> str:
    return f"{row['module']}.{row['function']}"


def report(before: dict, after: dict) -> str:
    lines = ["| function | hand cycles | before | after |", "|---|---|---|---|"]
    for key, row in after.items():
        old = before.get(key)
        new_ratio, old_ratio = ratio(row), ratio(old) if old else None
        if new_ratio is None:
            continue
        if old_ratio is not None and round(old_ratio, 2) == round(new_ratio, 2):
            if new_ratio <= LIMIT:
                continue
        shown = "-" if old_ratio is None else f"{old_ratio:.2f}"
        lines.append(f"| {name(row)} | {row['hand']['cycles']:.1f} | {shown} | {new_ratio:.2f} |")
    first, second = targets(before), targets(after)
    lines += [
        "",
        "| target | before | after |",
        "|---|---|---|",
        f"| median cycles ratio, functions of {LARGE}+ hand cycles ({second['large_count']}),"
        f" at most 1.00 | {first['large']:.2f} | {second['large']:.2f} |",
        f"| median cycles ratio, all functions, at most 1.05 | {first['all']:.2f} |"
        f" {second['all']:.2f} |",
        f"| median cycles ratio over modules (sums of their functions) | {first['modules']:.2f} |"
        f" {second['modules']:.2f} |",
        f"| functions above {LIMIT}x (none allowed) | {len(first['over'])} |"
        f" {len(second['over'])} |",
        f"| largest ratio | {ratio(first['worst']):.2f} ({name(first['worst'])}) |"
        f" {ratio(second['worst']):.2f} ({name(second['worst'])}) |",
        f"| modules taller than the hand code (none allowed) | {_taller(first)} |"
        f" {_taller(second)} |",
    ]
    return "\n".join(lines) + "\n"


def _taller(found: dict) -> str:
    if not found["taller"]:
        return "none"
    return ", ".join(f"{m} {c} / {h}" for m, (c, h) in sorted(found["taller"].items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    arguments = parser.parse_args()
    print(report(load(arguments.before), load(arguments.after)), end="")


if __name__ == "__main__":
    main()
