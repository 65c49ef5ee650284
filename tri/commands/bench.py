"""`tri bench [DIR] [--json] [-O LEVEL]`: compiled code against the hand baselines.

For every `DIR/<path>.baseline.tasm` (default: the project's `benches/` in a project,
else `./benches/`, else the bundled one), compiles the module
`<path>` alone and prints, per public function and per module, the static instruction
count under RC's rule, the inclusive static count, the mean cycles and padded height on
the same fixed-seed arguments, and the compiled/hand ratios, then the median ratios
(definitions in compiler/bench.py).  `--json` prints one JSON object instead.

Exit codes: 0; 1 when the compiled code and the hand baseline disagree on some input
(a result, the RAM, or one failing where the other does not); 2 on bad usage, a missing
directory or module, or a baseline that does not assemble.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from rich.table import Table

from tri import ROOT
from tri.commands.common import EXIT_FAILED, EXIT_OK, UsageError, positive
from tri.commands.common import console as table_console
from tri.commands.source import add_level_options, add_source_options, flags_for, resolver_for

if TYPE_CHECKING:
    from compiler import bench

BUNDLED = Path(ROOT) / "benches"  # the repository's, or the installed package's


def register(commands) -> None:
    parser = commands.add_parser("bench")
    parser.add_argument(
        "directory",
        nargs="?",
        metavar="DIR",
        help="baselines laid out like the modules (default: ./benches, else the bundled one)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--cases", type=positive, default=8, metavar="N", help="argument tuples per function"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the argument tuples")
    add_level_options(parser)
    add_source_options(parser)
    parser.set_defaults(handler=command_bench)


def directory_of(arguments) -> Path:
    from compiler import bench  # imported on use: it loads the whole compiler

    project = getattr(arguments, "project", None)
    if arguments.directory is not None:
        directory = Path(arguments.directory)
    elif project is not None:  # a project benches its own modules, never the bundled ones
        directory = project.directory / "benches"
    else:
        directory = Path("benches") if Path("benches").is_dir() else BUNDLED
    layout = (
        f"tri bench compares each public function of a module with a hand-written baseline, "
        f"benches/<module path>{bench.SUFFIX} (benches/math/fast.baseline.tasm for module "
        "math.fast); tri bench DIR reads another directory"
    )
    if not directory.is_dir():
        raise UsageError(f"error: {directory}: no such directory; {layout}")
    if not bench.baseline_files(directory):
        raise UsageError(f"error: {directory}: no *{bench.SUFFIX} files; {layout}")
    return directory


def command_bench(arguments) -> int:
    from compiler import bench  # imported on use: it loads the whole compiler

    directory = directory_of(arguments)
    project = getattr(arguments, "project", None)
    if project is not None and arguments.directory is None:  # the project's own modules
        arguments.include = [str(project.directory), *arguments.include]
    level = arguments.level
    try:
        rows = bench.bench(
            directory,
            level,
            arguments.cases,
            arguments.seed,
            resolver_for(arguments),
            flags_for(arguments),
        )
    except bench.BenchError as error:
        raise UsageError(str(error)) from None
    if arguments.json:
        print(json.dumps(bench.report(rows, level, directory)))
    else:
        print_report(rows, level)
    return EXIT_FAILED if any(row.mismatches for row in rows) else EXIT_OK


def _pair(compiled, hand) -> str:
    def text(value):
        if value is None:
            return "-"
        if isinstance(value, float) and not value.is_integer():
            return f"{value:.1f}"
        return f"{value:g}"

    return f"{text(compiled)} / {text(hand)}"


def _ratio(value: float | None) -> str:
    if value is None:
        return "-"
    colour = "green" if value <= 1.3 else "yellow" if value <= 1.5 else "red"
    return f"[{colour}]{value:.2f}[/{colour}]"


def _table(title: str, rows: list[bench.Row], first: str) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column(first, no_wrap=True)
    for name in ("static", "inclusive", "cycles"):
        table.add_column(f"{name} c / h", justify="right", no_wrap=True)
        table.add_column("ratio", justify="right")
    table.add_column("padded c / h", justify="right", no_wrap=True)
    table.add_column("cases", justify="right")
    table.add_column("note")
    for row in rows:
        cells = [row.module if first == "module" else f"{row.module}.{row.function}"]
        for metric in ("static", "inclusive", "cycles"):
            cells.append(_pair(getattr(row.compiled, metric), getattr(row.hand, metric)))
            cells.append(_ratio(row.ratio(metric)))
        cells.append(_pair(row.compiled.padded_height, row.hand.padded_height))
        cells.append(str(row.cases))
        note = row.note
        if row.mismatches:
            note = f"[red]{row.mismatches} mismatches[/red] {note}".strip()
        cells.append(note)
        table.add_row(*cells)
    return table


def print_report(rows: list[bench.Row], level: int) -> None:
    from compiler import bench  # imported on use: it loads the whole compiler

    console = table_console(150)
    mode = f"-O{level}" + ("" if level else ", not optimized")
    console.print(_table(f"per function, compiled ({mode}) / hand", rows, "function"))
    modules = bench.module_rows(rows)
    console.print(_table("per module (sums over its functions)", modules, "module"))
    for scope, group in (("functions", rows), ("modules", modules)):
        median = bench.medians(group)
        console.print(
            f"median compiled/hand over {scope}: "
            + ", ".join(f"{metric} {_ratio(value)}" for metric, value in median.items())
        )
