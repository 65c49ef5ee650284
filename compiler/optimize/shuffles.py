"""Shuffles: runs of stack moves replaced by the cheapest sequence with the same effect.

The stack manager (compiler.tir.stack) emits its moves one request at a time -- copy
the guard, sink the frame, fetch an operand -- and the rules of compiler.optimize.rules
only see fixed patterns, so a run like `dup 0 swap 2 place 7 swap 1` stays where
`pick 1 place 6 dup 0` does the same.  `shorten(items)` finds every maximal run of moves
(`Dup`, `Swap`, `Pick`, `Place`, `Pop`, `Push` in TIR) in a straight-line sequence and
asks the block scheduler (compiler.search.schedule; a run of moves is a block with
nothing to compute) for the cheapest sequence that leaves the same stack, within a
budget of expanded states.  A run that ends the straight-line sequence may leave
anything in the slots the stack manager's last annotation calls garbage (`dont_care`,
the `Facts` of compiler.tir.ops), as a block's contract allows at `-O2`.  A replacement is used only if no static figure one
execution adds is larger (instructions, op-stack rows, program words) and one is
smaller, and if running both on a stack of distinct symbols gives the same stack, but
for the don't-care slots (`same_effect`): the proof, which needs nothing but the moves'
definitions.

Runs and their answers are remembered (the same runs recur across functions).
Deterministic: the scheduler breaks ties by insertion order and the budget counts
states, never seconds.
"""

from __future__ import annotations

from compiler.optimize.engine import inherit
from compiler.search.dag import DagError, build_dag
from compiler.search.schedule import ScheduleError, cost, search_schedule
from vm.cost import static_cost

MOVES = {"Dup": "dup", "Swap": "swap", "Pick": "pick", "Place": "place", "Pop": "pop", "Push": "push"}
TIR_NAMES = {mnemonic: name for name, mnemonic in MOVES.items()}
BUDGET = 250  # states the scheduler may expand per run
LONGEST = 8  # longer runs are left alone (the search would rarely finish)

_answers: dict[tuple, tuple | None] = {}


NOTE = "moves shortened"  # the section of `tri build --report` (compiler.report)


def shorten(items: list, dont_care: tuple = (), notes: list | None = None) -> list:
    """`items` ((name, arg) TIR pairs of a straight-line run, with origins) with every run
    of moves replaced by a cheaper one where the scheduler finds it; `dont_care`: the
    depths (0 = top) at the end of `items` whose words nobody reads again.  Each
    replacement is added to `notes` (when given) as (NOTE, "before -> after")."""
    result: list = []
    run: list = []
    for item in [*items, None]:
        if item is not None and item[0] in MOVES:
            run.append(item)
            continue
        if len(run) >= 2:
            moves = tuple((MOVES[name], arg) for name, arg in run)
            better = cheaper_moves(moves, tuple(dont_care) if item is None else ())
            if better is not None:
                run = inherit([(TIR_NAMES[name], arg) for name, arg in better], run)
                if notes is not None:
                    notes.append((NOTE, f"{_text(moves)} -> {_text(better)}"))
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


def cheaper_moves(run: tuple, dont_care: tuple = ()) -> tuple | None:
    """A sequence of TASM moves strictly cheaper than `run` with its effect, but for the
    exit depths `dont_care` (0 = top), or None."""
    key = (run, dont_care)
    if key in _answers:
        return _answers[key]
    answer = None
    if len(run) <= LONGEST:
        try:
            dag = build_dag(list(run), dont_care)
            found = search_schedule(dag, BUDGET, cost(run), complete=True)
        except (DagError, ScheduleError):
            found = None
        if found is not None and found.instructions is not None:
            candidate = tuple(tuple(pair) for pair in found.instructions)
            if _strictly_cheaper(candidate, run) and same_effect(candidate, run, dont_care):
                answer = candidate
    _answers[key] = answer
    return answer


def _figures(moves) -> tuple[int, int, int]:
    figures = static_cost(moves)
    return figures.processor, figures.op_stack, figures.program_words


def _strictly_cheaper(candidate, run) -> bool:
    after, before = _figures(candidate), _figures(run)
    return all(a <= b for a, b in zip(after, before)) and after != before


def same_effect(first, second, dont_care: tuple = ()) -> bool:
    """Whether two sequences of TASM moves leave the same stack from any stack, but for
    the exit depths `dont_care`: run on symbols for the deepest slot either reaches, they
    must give stacks of one height with the same symbol in every other slot."""
    depth = max(_reach(first), _reach(second))
    one, other = _simulate(first, depth), _simulate(second, depth)
    if len(one) != len(other):
        return False
    cared = [index for index in range(len(one)) if len(one) - 1 - index not in dont_care]
    return all(one[index] == other[index] for index in cared)


def _reach(moves) -> int:
    """How many entry words `moves` may touch."""
    height = reach = 0
    for name, argument in moves:
        if name in ("dup", "swap", "pick", "place"):
            reach = max(reach, argument + 1 - height)
        if name == "pop":
            reach = max(reach, argument - height)
        height += {"dup": 1, "push": 1, "pop": -(argument or 0)}.get(name, 0)
    return reach


def _simulate(moves, depth: int) -> list:
    stack: list = [("entry", index) for index in range(depth)]  # bottom -> top
    for name, argument in moves:
        if name == "dup":
            stack.append(stack[-1 - argument])
        elif name == "swap":
            stack[-1], stack[-1 - argument] = stack[-1 - argument], stack[-1]
        elif name == "pick":
            stack.append(stack.pop(len(stack) - 1 - argument))
        elif name == "place":
            top = stack.pop()
            stack.insert(len(stack) - argument, top)
        elif name == "pop":
            del stack[len(stack) - argument :]
        else:
            stack.append(("constant", argument))
    return stack


__all__ = ["shorten", "cheaper_moves", "same_effect", "forget"]
