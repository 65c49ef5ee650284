"""Large blocks, scheduled window by window and put together by dynamic programming.

Input: a block's instructions (the classical lowering, `(mnemonic, argument)` pairs),
the exit slots nobody reads again, a window length and a node budget per window.
Output: `windowed_schedule(...) -> Windowed`: a schedule no costlier than the block
itself, and how many windows the search solved to optimality.

A window is a stretch `instructions[i:j]` of at most `length` instructions, cut at
points of the original schedule: its entry and exit are the original stack layouts
there, so any schedule of each window put end to end is a schedule of the block
(optimizer.md §4: "blocks above a size limit are split into windows, solved by
dynamic programming over split points").  Each window is searched alone
(compiler.blocks.schedule); where the search gives up, the window keeps its original
instructions.  `best[j] = min over i of best[i] + cost(window i..j)` over every cut
point then picks the cheapest cover.  Only the last window sees the block's
don't-care exit slots.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from compiler.blocks.dag import DagError, build_dag
from compiler.blocks.schedule import ScheduleError, cost, search_schedule


@dataclass(frozen=True)
class Windowed:
    instructions: list[tuple[str, int | None]]
    windows: int  # windows in the chosen cover
    optimal_windows: int  # of them, solved to optimality by the search
    searched: int  # windows searched in all
    expanded: int  # search states expanded in all


def windowed_schedule(
    instructions,
    dont_care=frozenset(),
    length: int = 8,
    budget: int = 400,
    complete: bool = True,
    tail: tuple[int, int] | None = None,
) -> Windowed:
    """The cheapest cover of the block by windows of at most `length` instructions, each
    searched with the complete move set unless `complete` is False
    (compiler.blocks.schedule.Problem).  `tail` = (length, budget): where the block has
    don't-care exit slots, the last window may be that long, searched with that budget
    (the freedom those slots give is seen only by the window that ends the block)."""
    instructions = list(instructions)
    count = len(instructions)
    # best[j] = (cost, schedule, windows, optimal windows) of the first j instructions
    best: list[tuple | None] = [None] * (count + 1)
    best[0] = ((0, 0), [], 0, 0)
    searched = expanded = 0
    for end in range(1, count + 1):
        longest = length
        if end == count and dont_care and tail is not None:
            longest = max(length, tail[0])
        for start in range(max(0, end - longest), end):
            if best[start] is None:
                continue
            piece = instructions[start:end]
            window_care = frozenset(dont_care) if end == count else frozenset()
            allowed = budget if end - start <= length else tail[1]
            solution, optimal, states = _solve(tuple(piece), window_care, allowed, complete)
            solution = list(solution)
            searched += 1
            expanded += states
            previous_cost, previous, windows, optimal_windows = best[start]
            piece_cost = cost(solution)
            total = (previous_cost[0] + piece_cost[0], previous_cost[1] + piece_cost[1])
            if best[end] is None or total < best[end][0]:
                best[end] = (total, previous + solution, windows + 1, optimal_windows + optimal)
    _, schedule, windows, optimal_windows = best[count]
    return Windowed(schedule, windows, optimal_windows, searched, expanded)


@lru_cache(maxsize=65536)
def _solve(
    piece: tuple, dont_care: frozenset, budget: int, complete: bool = False
) -> tuple[tuple, bool, int]:
    """(schedule, optimal, states expanded) for one window; its own code if nothing better.
    Remembered: the same stretch of code recurs across windows and blocks."""
    try:
        dag = build_dag(piece, dont_care)
    except DagError:
        return piece, False, 0
    try:
        result = search_schedule(dag, budget, bound=cost(piece), complete=complete)
    except ScheduleError:
        return piece, False, 0
    if result.instructions is None:  # nothing cheaper; proven so if the search completed
        return piece, result.optimal, result.expanded
    return tuple(result.instructions), result.optimal, result.expanded
