"""A run's profile per TASM function: entries, cycles, rows per table, the tier it ran in.

Input: a `Run` and, for a tiered run, its `vm.jit.tiers.Tiers`.  Output: `Profile`, one
row per function that ran (a subroutine: a function, a loop body or a branch, from a `call`
target to the next; vm.jit.tiers), its own cycles and rows only (what the code it calls
adds is that code's row), the most cycles first.  Entries are arrivals at the function's
start: its calls and, for a loop, its iterations.  Rows come from the block attribution
(vm.attribution) for the tables a visit adds rows to; the u32, cascade and lookup heights
are whole-run figures and are not split.  `speedscope` writes the profile in the format of
the speedscope viewer (a sampled profile, one sample per function weighted by its cycles).
"""

from __future__ import annotations

from dataclasses import dataclass

from vm.attribution import EXECUTED, attribute


@dataclass(frozen=True)
class Row:
    name: str
    start: int
    entries: int
    cycles: int
    rows: dict[str, int]  # EXECUTED table -> rows this function's instructions added
    tier: str  # "interpreted", "native", "blacklisted"; or the engine that ran it all

    def as_json(self) -> dict:
        return {
            "function": self.name,
            "address": self.start,
            "entries": self.entries,
            "cycles": self.cycles,
            "rows": self.rows,
            "tier": self.tier,
        }


@dataclass(frozen=True)
class Profile:
    rows: tuple[Row, ...]
    cycles: int

    def as_json(self) -> list[dict]:
        return [row.as_json() for row in self.rows]

    def text(self) -> str:
        header = ("function", "entries", "cycles", "share", *EXECUTED, "tier")
        lines = [header]
        for row in self.rows:
            share = f"{100 * row.cycles / self.cycles:.1f}%" if self.cycles else "-"
            numbers = [f"{row.entries:,}", f"{row.cycles:,}", share]
            lines.append((row.name, *numbers, *(f"{row.rows[t]:,}" for t in EXECUTED), row.tier))
        widths = [max(len(line[column]) for line in lines) for column in range(len(header))]
        rendered = []
        for line in lines:
            cells = [
                cell.ljust(width) if column in (0, len(header) - 1) else cell.rjust(width)
                for column, (cell, width) in enumerate(zip(line, widths))
            ]
            rendered.append("  ".join(cells).rstrip())
        return "\n".join(rendered)

    def speedscope(self, name: str) -> dict:
        frames = [{"name": row.name} for row in self.rows]
        return {
            "$schema": "https://www.speedscope.app/file-format-schema.json",
            "shared": {"frames": frames},
            "profiles": [
                {
                    "type": "sampled",
                    "name": name,
                    "unit": "none",
                    "startValue": 0,
                    "endValue": self.cycles,
                    "samples": [[index] for index in range(len(self.rows))],
                    "weights": [row.cycles for row in self.rows],
                }
            ],
            "name": name,
            "exporter": "tri run --function-profile",
        }


def profile(run, tiers=None, engine: str = "interp") -> Profile:
    """The profile of `run`; `tiers` (vm.jit.tiers.Tiers) for the tier of each function."""
    from vm.jit.tiers import Tiers

    functions = (tiers or Tiers(run.program)).functions
    starts = sorted(functions)
    totals = {start: {table: 0 for table in EXECUTED} for start in starts}
    cycles = dict.fromkeys(starts, 0)
    position = 0
    for entry in attribute(run).blocks:  # in address order
        while position + 1 < len(starts) and starts[position + 1] <= entry.block.start:
            position += 1
        start = starts[position]
        for table in EXECUTED:
            totals[start][table] += getattr(entry.contribution, table)
        cycles[start] += entry.contribution.processor
    rows = []
    for start in starts:
        if not cycles[start]:
            continue
        function = functions[start]
        tier = function.tier if tiers is not None else engine
        entries = run.visits[start]
        rows.append(Row(function.name, start, entries, cycles[start], totals[start], tier))
    rows.sort(key=lambda row: (-row.cycles, row.start))
    return Profile(tuple(rows), run.cycles)
