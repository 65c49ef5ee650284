"""How the benchmarks print a table: a rich table in the terminal, or markdown for docs/."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table


def print_table(
    title: str, header: tuple, rows: list, markdown: bool, left: frozenset = frozenset()
) -> None:
    """`rows` under `header`; the columns named in `left` are left-aligned, the rest right."""
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for row in rows:
            print("| " + " | ".join(row) + " |")
        return
    table = Table(title=title)
    for column in header:
        table.add_column(column, justify="left" if column in left else "right")
    for row in rows:
        table.add_row(*row)
    Console().print(table)
