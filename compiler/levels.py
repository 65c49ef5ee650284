"""The optimization levels (optimizer.md §1), as one table read by the driver and the CLI.

A level is a row: what the CLI says it does, and the settings the driver (compiler.driver)
builds it with.  The pipeline (compiler.pipeline) runs a step at its level and above, so
each level runs everything the levels below it run.  Adding a level is a row here and the
rows of the steps it adds.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Level:
    meaning: str  # what `tri build --help` says it does
    search: bool = False  # blocks lowered by the search (compiler.search.lowerer)
    model: bool = False  # the search guided by the neural model (compiler.neural)
    unroll: bool = False  # loops unrolled where a profile says it pays (compiler.optimize.unroll)
    never_costlier: bool = False  # the result is the -O1 build unless strictly cheaper

    def __str__(self) -> str:
        return self.meaning


LEVELS = {
    0: Level("classical lowering, no peephole"),
    1: Level("classical lowering + the proven peephole rules"),
    2: Level(
        "-O1 + search-based block scheduling, each block proven equal, and loops unrolled "
        "where --profile-input's runs say it pays (never costlier than -O1)",
        search=True,
        unroll=True,
        never_costlier=True,
    ),
    3: Level(
        "-O2 + the neural model's schedules and model-guided search, each block proven equal "
        "(never costlier than -O1)",
        search=True,
        model=True,
        unroll=True,
        never_costlier=True,
    ),
}
DEFAULT_LEVEL = 1
# the levels that lower every block classically (-O2 searches from what -O1 makes; its TIR
# and contracts are -O1's)
CLASSICAL_LEVELS = tuple(level for level, row in LEVELS.items() if not row.search)
