"""The optimization levels (optimizer.md §1), as one table read by the pipeline and the CLI.

Each level runs everything the levels below it run (compiler.pipeline: a step runs at its
level and above).  Adding a level is a row here and the rows of the steps it adds.
"""

from __future__ import annotations

LEVELS = {
    0: "classical lowering, no peephole",
    1: "classical lowering + the proven peephole rules",
    2: "-O1 + search-based block scheduling, each block proven equal, and loops unrolled where "
    "--profile-input's runs say it pays (never costlier than -O1)",
    3: "-O2 + the neural model's schedules and model-guided search, each block proven equal "
    "(never costlier than -O1)",
}
DEFAULT_LEVEL = 1
# the levels that lower every block classically (-O2 searches from what -O1 makes; its TIR
# and contracts are -O1's)
CLASSICAL_LEVELS = (0, 1)
