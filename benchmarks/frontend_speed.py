"""Front-end speed: parse and check every .tri file of stdlib/ and tests/programs/.

Prints lines per second for parsing alone (every file once, parser tables from
lark's cache, no AST cache) and for parsing plus checking (each file checked as
an entry point, with the modules it imports; a module imported by many files is
parsed once per process).  Lines are counted once per distinct file.

    python benchmarks/frontend_speed.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.diagnostics import CompileError
from compiler.syntax import parser

ROOT = Path(__file__).resolve().parents[1]


def sources() -> list[Path]:
    return sorted((ROOT / "stdlib").rglob("*.tri")) + sorted(
        (ROOT / "tests" / "programs").rglob("*.tri")
    )


def parse_all(files: list[Path], texts: dict[Path, str]) -> float:
    parser.parse.cache_clear()
    start = time.perf_counter()
    for path in files:
        try:
            parser.parse(texts[path], str(path))
        except CompileError:
            pass
    return time.perf_counter() - start


def check_all(files: list[Path]) -> float:
    parser.parse.cache_clear()
    start = time.perf_counter()
    for path in files:
        try:
            check(load_project(path))
        except CompileError:
            pass
    return time.perf_counter() - start


def main() -> None:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("--repeat", type=int, default=7, help="best of this many runs")
    options = arguments.parse_args()
    files = sources()
    texts = {path: path.read_text() for path in files}
    lines = sum(text.count("\n") + 1 for text in texts.values())
    parser._parser()  # load the tables before timing
    parse_seconds = min(parse_all(files, texts) for _ in range(options.repeat))
    check_seconds = min(check_all(files) for _ in range(options.repeat))
    table = Table(title=f"Front end: {len(files)} files, {lines:,} lines")
    for column in ("stage", "seconds", "lines/s"):
        table.add_column(column, justify="left" if column == "stage" else "right")
    table.add_row("parse", f"{parse_seconds:.3f}", f"{lines / parse_seconds:,.0f}")
    table.add_row("parse + check", f"{check_seconds:.3f}", f"{lines / check_seconds:,.0f}")
    Console().print(table)


if __name__ == "__main__":
    main()
