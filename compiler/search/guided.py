"""Policy-guided search and greedy decoding: the schedulers of `-O3` (optimizer.md §5).

Input: a `Dag` (compiler.blocks.dag), a `Policy` (compiler.search.moves), a node budget
counted in expanded states and optionally a `bound` (the cost of a schedule already
known).  Output: a `Result` (compiler.blocks.schedule): the instructions found (or None),
whether they are proven optimal, the states expanded.

* `guided_schedule(dag, policy, budget, bound, weight)`: best-first search over the
  same states and legal moves as the unguided A* (compiler.search.moves.legal_moves).
  At every expanded state the policy scores the legal moves; a move's *rank* is its
  place when they are sorted by score (best first, ties in the search's own order).
  A path's *penalty* is the sum of its moves' ranks, each capped at `RANK_CAP`.
  The frontier is ordered by `(f + weight * penalty, -g, penalty, insertion)` where
  `f = g + h` is the A* estimate (instructions first, the penalty added to the
  instruction count in units of 1/`SCALE`) and `g` the instructions so far.

  - `weight = 0` (the default): the order is A*'s (`search_schedule`: least estimate,
    then deepest); the policy breaks the ties that are left, where the unguided
    search takes the first inserted.  The first goal taken is optimal (the estimate
    is admissible), so a schedule found is proven optimal, as in `search_schedule`.
  - `weight > 0`: the policy pulls the search away from the estimate
    along the moves it prefers.  Not admissible, so the search is *anytime*: a goal
    found becomes the new bound (only strictly cheaper schedules are looked for after
    it) and the search goes on until the budget is spent or the frontier is empty.
    `optimal` is True only when the frontier ran empty: every state that could still
    lead to something cheaper was expanded.

  `bound` keeps `search_schedule`'s meaning: only schedules strictly cheaper than it are
  returned; a search that empties its frontier without one has proven none exists
  (`Result(None, True, ...)`).  Deterministic: no sets, no Python `hash()`, ties broken
  by insertion order.
* `led_schedule(dag, policy, budget, bound)`: best-first search led by the policy, what
  `-O3` runs.  At every expanded state the legal moves that can still lead to a
  schedule under the bound (estimate below it, state not reached as cheaply before)
  are scored by the policy; a move's *doubt* is its score's gap to the best of them, in
  units of `GAP_UNIT` (a quarter of a fixed-point unit: for the model, a quarter of a
  logit), capped at `GAP_CAP`.  The frontier is ordered by `(doubt of the path, f, -g,
  insertion)`: the path the policy is surest of goes first, A*'s order among paths it
  doubts equally.  A policy always right reaches an optimal schedule in one state per
  instruction, where A* may need thousands.  Anytime, as the weighted order above:
  every goal found becomes the bound, `optimal` only when the frontier ran empty.
* `decode_greedy(policy, dag, step_limit)`: from the start state, take the best-scored
  legal move (the first of equal scores) after which the plain schedule
  (compiler.blocks.schedule.plain_completion) still finishes the block within the
  limit -- `step_limit`, or the plain schedule's own length where that is longer --
  until a goal state.  Every state on the way has a completion that fits, so the
  decoding cannot wander or run out of steps: it always ends in a schedule.  Where no
  move of the policy keeps one (the plain schedule from a successor is not always its
  own schedule's tail), the current state's plain completion finishes the block.  None
  only for a block the plain schedule cannot do (a word deeper than 16).  No search;
  `Result.expanded` counts the states scored.
"""

from __future__ import annotations

import heapq
from functools import partial

from compiler.blocks.dag import Dag
from compiler.blocks.schedule import SIZES, Problem, Result, plain_completion
from compiler.search.moves import Move, Policy, State, legal_moves, start

SCALE = 8  # the penalty is added to the instruction count in eighths of an instruction
RANK_CAP = 8  # a move ranked lower than this costs no more than this
WEIGHT = 0  # the default: the policy breaks ties only (measured best; docs/search.md)
GAP_UNIT = 1 << 14  # led search: a move's doubt is its score's gap to the best in these units
GAP_CAP = 8  # ... and at most this many


def ranks(scores) -> list[int]:
    """Per move, its place when sorted by score, best first (ties: the earlier first)."""
    order = sorted(range(len(scores)), key=lambda index: (-scores[index], index))
    placed = [0] * len(scores)
    for place, index in enumerate(order):
        placed[index] = place
    return placed


def guided_schedule(
    dag: Dag,
    policy: Policy,
    budget: int = 20_000,
    bound: tuple[int, int] | None = None,
    weight: int = WEIGHT,
) -> Result:
    """The cheapest schedule of `dag` found within `budget` expanded states, the search
    steered by `policy`; see the module docstring."""

    def penalties(score, moves, kept):  # ranks among every legal move
        placed = ranks(score(moves))
        return [min(placed[index], RANK_CAP) for index in kept]

    def order(penalty: int, f: tuple[int, int], g: tuple[int, int]) -> tuple:
        return (f[0] * SCALE + weight * penalty, f[1]), -g[0], penalty

    return _best_first(dag, policy, budget, bound, penalties, order, anytime=weight != 0)


def led_schedule(
    dag: Dag, policy: Policy, budget: int = 20_000, bound: tuple[int, int] | None = None
) -> Result:
    """The cheapest schedule of `dag` found within `budget` expanded states, the policy
    choosing which state to expand next; see the module docstring."""

    def doubts(score, moves, kept):  # gaps among the moves kept
        scores = score([moves[index] for index in kept])
        top = max(scores)
        return [min((top - score) // GAP_UNIT, GAP_CAP) for score in scores]

    def order(doubt: int, f: tuple[int, int], g: tuple[int, int]) -> tuple:
        return doubt, f, -g[0]

    return _best_first(dag, policy, budget, bound, doubts, order, anytime=True)


def _best_first(dag: Dag, policy: Policy, budget: int, bound, penalties, order, anytime: bool):
    """The best-first search both orders share.  At each expanded state the legal moves
    whose state is new or reached more cheaply, with an estimate under the bound, are
    kept; `penalties(score, legal moves, indices of the kept ones)` gives each kept move
    its penalty (`score(moves)`: the policy's scores of those moves in this state), added
    along the path, and `order(path penalty, f, g)` its place in the frontier (insertion
    order last).  Not `anytime`: the first goal is returned as proven
    optimal (an admissible order); else every goal becomes the bound."""
    problem = Problem(dag)
    guide = policy.block(dag)
    first = start(problem)
    root = (first.stack, first.done)
    estimate = problem.estimate(first.stack, 0)
    if bound is not None and estimate >= bound:
        return Result(None, True, 0)
    counter = 0
    # entries: (order, insertion, path penalty, f, g, state key)
    frontier = [(order(0, estimate, (0, 0)), counter, 0, estimate, (0, 0), root)]
    best_cost: dict[tuple, tuple[int, int]] = {root: (0, 0)}
    parent: dict[tuple, tuple[tuple, Move]] = {}
    found: list | None = None
    expanded = 0
    while frontier:
        _, _, penalty, f, cost_here, key = heapq.heappop(frontier)
        if best_cost[key] < cost_here:
            continue  # a stale entry: the state was reached more cheaply since
        if bound is not None and f >= bound:
            continue  # a goal found since makes this state useless
        stack, done = key
        if problem.goal(stack, done):
            found = _path(parent, key)
            if not anytime:
                return Result(found, True, expanded)
            bound = cost_here  # look only for strictly cheaper schedules from now on
            continue
        expanded += 1
        if expanded > budget:
            return Result(found, False, expanded)
        state = State(stack, done)
        moves = legal_moves(problem, state)
        kept = []  # the moves that may still lead to a schedule under the bound
        for index, move in enumerate(moves):
            step = (cost_here[0] + 1, cost_here[1] + SIZES[move.instruction[0]])
            new_key = (move.stack, move.done)
            if new_key in best_cost and best_cost[new_key] <= step:
                continue  # reached as cheaply before (the first path to it is kept)
            h = problem.estimate(move.stack, move.done)
            f_new = (step[0] + h[0], step[1] + h[1])
            if bound is not None and f_new >= bound:
                continue
            kept.append((index, move, step, new_key, f_new))
        if not kept:
            continue
        previous = parent[key][1] if key in parent else None
        score = partial(guide.scores, state, previous)
        added = penalties(score, moves, [item[0] for item in kept])
        for (_, move, step, new_key, f_new), more in zip(kept, added):
            if new_key in best_cost and best_cost[new_key] <= step:
                continue  # two moves of this state reach the same state
            best_cost[new_key] = step
            parent[new_key] = (key, move)
            counter += 1
            total = penalty + more
            entry = (order(total, f_new, step), counter, total, f_new, step, new_key)
            heapq.heappush(frontier, entry)
    return Result(found, True, expanded)  # every state that could do better was expanded


def _path(parent: dict, key: tuple) -> list[tuple[str, int | None]]:
    path = []
    while key in parent:
        key, move = parent[key]
        path.append(move.instruction)
    return path[::-1]


def decode_greedy(policy: Policy, dag: Dag, step_limit: int = 64) -> Result:
    """The policy's best move that keeps a schedule within the step limit, at every step;
    see the module docstring."""
    problem = Problem(dag)
    guide = policy.block(dag)
    state = start(problem)
    completion = plain_completion(problem, state.stack, state.done)
    if completion is None:
        return Result(None, False, 0)
    limit = max(step_limit, len(completion))
    previous: Move | None = None
    instructions: list[tuple[str, int | None]] = []
    scored = 0
    while not problem.goal(state.stack, state.done):
        left = limit - len(instructions) - 1  # moves left after this one
        moves = legal_moves(problem, state)
        chosen = None
        if moves:
            scores = guide.scores(state, previous, moves)
            scored += 1
            for _, index in sorted((-score, index) for index, score in enumerate(scores)):
                after = plain_completion(problem, moves[index].stack, moves[index].done)
                if after is not None and len(after) <= left:
                    chosen = moves[index]
                    break
        if chosen is None:  # the plain schedule from here fits: it finishes the block
            return Result(instructions + completion, False, scored)
        previous = chosen
        instructions.append(chosen.instruction)
        state = State(chosen.stack, chosen.done)
        completion = plain_completion(problem, state.stack, state.done)
    return Result(instructions, False, scored)
