"""`tri cost --save FILE` and `--compare FILE`: a run's figures kept as a baseline, and a
later run of the same program and inputs measured against it (for CI: exit 1 when the
chosen figure got worse).

A baseline is JSON: the nine heights, the padded height, the cycles, and per function the
cycles and the rows its instructions added (`tri cost --json`'s `functions`).  A
comparison lists, per table and per function figure, the old value, the new one and the
difference, and which of the figures `--fail-on` can name got worse:

* `padded`: the padded height (what the proof costs; the default);
* `tallest`: the tallest table's height, even below the next power of two;
* `cycles`: the processor's cycles.
"""

from __future__ import annotations

import json
from pathlib import Path

from tri.commands.common import UsageError

FORMAT = 1
FIGURES = ("padded", "tallest", "cycles")


def baseline(report: dict) -> dict:
    """What `--save` writes, from a program's `tri cost --json` report."""
    return {
        "format": FORMAT,
        "heights": report["heights"],
        "padded_height": report["padded_height"],
        "cycles": report["cycles"],
        "functions": {
            row["function"]: {"cycles": row["cycles"], **row["rows"]}
            for row in report.get("functions", [])
        },
    }


def save(path: str, report: dict) -> None:
    try:
        Path(path).write_text(json.dumps(baseline(report), indent=2) + "\n", encoding="utf-8")
    except OSError as error:
        raise UsageError(f"error: cannot write {path}: {error.strerror}") from None


def load(path: str) -> dict:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise UsageError(f"error: cannot read {path}: {error.strerror}") from None
    except ValueError:
        raise UsageError(f"error: {path} is not JSON (a file `tri cost --save` wrote)") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or "heights" not in data:
        raise UsageError(f"error: {path} is not a baseline `tri cost --save` wrote")
    return data


def _figures(data: dict) -> dict[str, int]:
    return {
        "padded": data["padded_height"],
        "tallest": max(data["heights"].values()),
        "cycles": data["cycles"],
    }


def compare(old: dict, new: dict) -> dict:
    """Old, new and difference per table, per figure and per function figure (a function
    only one side has is compared with zeros), and the figures that got worse."""

    def change(before: int, after: int) -> dict:
        return {"old": before, "new": after, "difference": after - before}

    tables = {name: change(old["heights"].get(name, 0), h) for name, h in new["heights"].items()}
    figures = {name: change(_figures(old)[name], value) for name, value in _figures(new).items()}
    functions = {}
    for name in sorted(set(old["functions"]) | set(new["functions"])):
        before, after = old["functions"].get(name, {}), new["functions"].get(name, {})
        keys = sorted(set(before) | set(after))
        functions[name] = {key: change(before.get(key, 0), after.get(key, 0)) for key in keys}
    worse = [name for name in FIGURES if figures[name]["difference"] > 0]
    return {"figures": figures, "tables": tables, "functions": functions, "worse": worse}


def print_comparison(comparison: dict, path: str) -> None:
    print(f"\nagainst {path}:")
    for name, entry in {**comparison["figures"], **comparison["tables"]}.items():
        print(f"  {name:>12}  {entry['old']:>10}  {entry['new']:>10}  {entry['difference']:+d}")
    changed = {
        name: {key: entry for key, entry in figures.items() if entry["difference"]}
        for name, figures in comparison["functions"].items()
    }
    for name, figures in changed.items():
        for key, entry in figures.items():
            print(f"  {name}: {key} {entry['old']} -> {entry['new']} ({entry['difference']:+d})")
    worse = comparison["worse"]
    print("  worse: " + (", ".join(worse) if worse else "nothing"))
