"""Runs of stack moves are replaced only by cheaper runs that leave the same stack
(compiler.optimize.shuffles), checked on the VM from random stacks."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.optimize.shuffles import cheaper_moves, same_effect, shorten
from vm.cost import static_cost
from vm.field import P
from vm.interp import execute
from vm.tasm import parse

MOVE = st.one_of(
    st.tuples(st.sampled_from(["dup", "swap", "pick", "place"]), st.integers(1, 7)),
    st.tuples(st.just("dup"), st.just(0)),
    st.tuples(st.just("pop"), st.integers(1, 3)),
    st.tuples(st.just("push"), st.sampled_from([0, 1, P - 1])),
)


def final_stack(moves, words) -> list[int]:
    """The VM's stack after pushing `words` and running `moves`, without its bottom five
    words (the program's digest, which differs between programs)."""
    lines = [f"push {word}" for word in words] + [f"{name} {argument}" for name, argument in moves]
    run = execute(parse("\n".join([*lines, "halt"])))
    assert run.error is None, run.error
    return list(run.stack)[5:]


def figures(moves) -> tuple[int, int, int]:
    cost = static_cost(moves)
    return cost.processor, cost.op_stack, cost.program_words


def check(run, better) -> None:
    assert figures(better) != figures(run)
    assert all(a <= b for a, b in zip(figures(better), figures(run)))
    rng = random.Random(repr(run))
    for _ in range(3):
        words = [rng.randrange(P) for _ in range(10)]
        assert final_stack(better, words) == final_stack(run, words)


def test_known_runs_get_shorter_and_stay_equal():
    # the guard copied then the frame sunk, as the stack manager emitted it for merkle.verify
    run = (("dup", 0), ("swap", 2), ("place", 7), ("swap", 1))
    better = cheaper_moves(run)
    assert better is not None and len(better) < len(run)
    check(run, better)
    run = (("pop", 1), ("swap", 1), ("pop", 1))
    better = cheaper_moves(run)
    assert better == (("pick", 2), ("pop", 2)) or len(better) < 3
    check(run, better)


def test_an_optimal_run_is_kept():
    assert cheaper_moves((("swap", 1),)) is None
    assert cheaper_moves((("dup", 3), ("pick", 5))) is None
    items = [("Push", 3), ("Add", None), ("Dup", 0), ("Swap", 1), ("Mul", None)]
    assert [tuple(item) for item in shorten(items)] == [
        ("Push", 3),
        ("Add", None),
        ("Dup", 0),
        ("Mul", None),
    ]


def test_dont_care_slots_at_the_end_may_hold_anything():
    run = (("swap", 1), ("pop", 1))  # [.. a b c] -> [.. a c]
    assert cheaper_moves(run) is None
    better = cheaper_moves(run, (0,))  # the top is garbage: [.. a b] will do
    assert better == (("pop", 1),)
    words = list(range(1, 11))
    assert final_stack(better, words)[:-1] == final_stack(run, words)[:-1]
    assert not same_effect(better, run) and same_effect(better, run, (0,))
    # only a run that ends the sequence may use them
    items = [("Swap", 1), ("Pop", 1), ("Add", None)]
    assert [tuple(item) for item in shorten(items, dont_care=(0,))] == items
    assert [tuple(item) for item in shorten(items[:2], dont_care=(0,))] == [("Pop", 1)]


@settings(max_examples=60, deadline=None)
@given(st.lists(MOVE, min_size=2, max_size=7))
def test_random_runs_are_replaced_only_by_cheaper_equal_ones(moves):
    height = 10
    for name, argument in moves:  # keep every move within the ten words pushed
        if name in ("dup", "swap", "pick", "place") and argument >= height:
            return
        height += {"dup": 1, "push": 1, "pop": -argument}.get(name, 0)
        if height < 1:
            return
    run = tuple(moves)
    better = cheaper_moves(run)
    if better is None:
        return
    assert same_effect(better, run)
    check(run, better)
