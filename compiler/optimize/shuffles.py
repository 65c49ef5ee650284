"""Shuffles: runs of stack moves replaced by the cheapest sequence with the same effect.

The stack manager (compiler.tir.stack) emits its moves one request at a time -- copy
the guard, sink the frame, fetch an operand -- and the rules of compiler.optimize.rules
only see fixed patterns, so a run like `dup 0 swap 2 place 7 swap 1` stays where
`pick 1 place 6 dup 0` does the same.  `shorten(items)` finds every maximal run of moves
(`Dup`, `Swap`, `Pick`, `Place`, `Pop`, `Push` in TIR) in a straight-line sequence and
asks the block scheduler (compiler.blocks.schedule, its complete move set; a run of
moves is a block with nothing to compute) for the cheapest sequence that leaves the same
stack, within a budget of expanded states.  A run that ends the straight-line sequence
may leave anything in the slots the stack manager's last annotation calls garbage
(`dont_care`, the `Facts` of compiler.tir.ops), as a block's contract allows at `-O2`;
the first annotation's height says how many words the stack holds at least (16 below
`main`'s), so a replacement may pop as deep as the VM allows there and no deeper.

A replacement is used only if it is strictly cheaper in the static figures one execution
adds (compiler.blocks.objective.strictly_cheaper) and the equivalence checker
(compiler.verify) proves it equal to the run on every stack of at least that many words,
but for the don't-care slots.  Runs and
their answers are remembered (the same runs recur across functions).  Deterministic:
the scheduler breaks ties by insertion order and the budget counts states, never seconds.
"""

from __future__ import annotations

from compiler.blocks.dag import DagError, build_dag
from compiler.blocks.objective import strictly_cheaper
from compiler.blocks.rule_engine import inherit
from compiler.blocks.schedule import ScheduleError, cost, search_schedule
from compiler.lower.blocks import BELOW_MAIN
from compiler.tir.ops import OPS
from compiler.tir.ops import Op as TirOp
from compiler.verify import Assumptions, check_equivalent
from vm.isa import BY_NAME
from vm.isa import MOVES as STACK_MOVES
from vm.tasm import Op

# The TIR ops that are one stack move or a push, and their instruction: Dup, Swap, Pick, Place,
# Pop and Push (read off the TIR table and vm.isa's stack moves).
MOVES = {
    row.name: row.tasm[0][0]
    for row in OPS.values()
    if isinstance(row.tasm, tuple)
    and len(row.tasm) == 1
    and row.tasm[0][0] in {*STACK_MOVES, "push"}
}
TIR_NAMES = {mnemonic: name for name, mnemonic in MOVES.items()}
BUDGET = 250  # states the scheduler may expand per run
LONGEST = 8  # longer runs are left alone (the search would rarely finish)
NOTE = "moves shortened"  # the section of `tri build --report` (compiler.report)
DEEP = BELOW_MAIN + 16  # stack words beyond which no run of moves can tell the difference

_answers: dict[tuple, tuple | None] = {}  # (run, dont_care, depth) -> `cheaper_moves`
_candidates: dict[tuple, tuple | None] = {}  # (run, dont_care) -> `_searched`


def shorten(items: list, height: int = 0, dont_care: tuple = (), notes: list | None = None) -> list:
    """`items` ((name, arg) TIR pairs of a straight-line run, with origins) with every run
    of moves replaced by a cheaper one where the scheduler finds it.  `height`: the
    function's words on the stack where `items` start (above the 16 below `main`'s);
    `dont_care`: the depths (0 = top) at the end of `items` whose words nobody reads
    again.  Each replacement is added to `notes` (when given) as (NOTE, "before -> after")."""
    result: list = []
    run: list = []
    depth = BELOW_MAIN + height  # stack words at the start of `run`
    for item in [*items, None]:
        if item is not None and item[0] in MOVES:
            run.append(item)
            continue
        if len(run) >= 2:
            moves = tuple((MOVES[name], arg) for name, arg in run)
            ending = tuple(dont_care) if item is None else ()
            better = cheaper_moves(moves, ending, depth)
            if better is not None:
                run = inherit([(TIR_NAMES[name], arg) for name, arg in better], run)
                if notes is not None:
                    notes.append((NOTE, f"{_text(moves)} -> {_text(better)}"))
        for name, argument in [*run, *([item] if item is not None else [])]:
            consumed, produced = TirOp(name, argument).effect()
            depth += produced - consumed
        result.extend(run)
        run = []
        if item is not None:
            result.append(item)
    return result


def _text(moves) -> str:
    return " ".join(f"{name} {argument}" for name, argument in moves) or "nothing"


def forget() -> None:
    """Drop the remembered answers (to time a build from scratch)."""
    _answers.clear()
    _candidates.clear()


def cheaper_moves(run: tuple, dont_care: tuple = (), depth: int = BELOW_MAIN) -> tuple | None:
    """A sequence of TASM moves strictly cheaper than `run`, proven to have its effect but
    for the exit depths `dont_care` (0 = top) on every stack of at least `depth` words, or
    None."""
    depth = max(BELOW_MAIN, min(depth, DEEP))
    key = (run, dont_care, depth)
    if key in _answers:
        return _answers[key]
    candidate = _searched(run, dont_care)
    answer = None
    if candidate is not None and same_effect(candidate, run, dont_care, depth):
        answer = candidate
    _answers[key] = answer
    return answer


def _searched(run: tuple, dont_care: tuple) -> tuple | None:
    """The scheduler's strictly cheaper sequence for `run` (not yet proven), or None; the
    search does not depend on the depth, so it runs once for every depth."""
    key = (run, dont_care)
    if key not in _candidates:
        candidate = None
        if len(run) <= LONGEST:
            try:
                dag = build_dag(list(run), dont_care)
                found = search_schedule(dag, BUDGET, cost(run), complete=True)
            except (DagError, ScheduleError):
                found = None
            if found is not None and found.instructions is not None:
                candidate = tuple(tuple(pair) for pair in found.instructions)
                if not strictly_cheaper(candidate, run):
                    candidate = None
        _candidates[key] = candidate
    return _candidates[key]


def same_effect(first, second, dont_care: tuple = (), depth: int = BELOW_MAIN) -> bool:
    """Whether the checker proves two sequences of TASM moves equal (failing alike) from
    every stack of at least `depth` words, but for the exit depths `dont_care`."""
    assumptions = Assumptions(minimum_depth=depth, dont_care=dont_care)
    verdict = check_equivalent(_program(first), _program(second), assumptions=assumptions)
    return verdict.equivalent


def _program(moves) -> list[Op]:
    return [Op(BY_NAME[name], argument) for name, argument in moves]


__all__ = ["shorten", "cheaper_moves", "same_effect", "forget"]
