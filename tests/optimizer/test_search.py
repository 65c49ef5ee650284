"""Search-based lowering: DAGs say what blocks do, schedules realize them, the checker agrees.

* Every straight-line block of the compiled corpus (tests/corpus_blocks.py) is rebuilt
  from its DAG by the plain scheduler and proven equal to the original by the
  equivalence checker (the entry is assumed to hold 16 words below the block's own, as
  compiled code always does): the DAG loses nothing and invents nothing.
* The search's schedules of corpus blocks are proven equal too, and are never costlier.
* Known improvements are found, and a completed search proves optimality.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from corpus_blocks import corpus_blocks

from compiler.blocks.dag import build_dag
from compiler.blocks.schedule import (
    Problem,
    ScheduleError,
    common_length,
    cost,
    match_masks,
    plain_completion,
    plain_schedule,
    search_schedule,
)
from compiler.blocks.windows import windowed_schedule
from compiler.search.moves import State, legal_moves, start
from compiler.verify import Assumptions, check_equivalent
from vm.isa import instruction_set
from vm.tasm import Op, parse

INSTRUCTIONS = instruction_set()


def ops(instructions) -> list[Op]:
    return [Op(INSTRUCTIONS[name], argument) for name, argument in instructions]


def pairs(text: str) -> list[tuple]:
    return [(op.instruction.name, op.argument) for op in parse(text).ops]


def blocks() -> list[list[tuple]]:
    return [[(op.instruction.name, op.argument) for op in block] for _, block in corpus_blocks()]


def proven_equal(original, rewritten, dag) -> bool:
    assumptions = Assumptions(minimum_depth=16 + dag.entry)
    return check_equivalent(ops(original), ops(rewritten), assumptions=assumptions).equivalent


def test_every_corpus_block_is_rebuilt_from_its_dag():
    counts: Counter = Counter()
    for block in blocks():
        dag = build_dag(block)
        try:
            rebuilt = plain_schedule(dag)
        except ScheduleError:  # a value the original kept in reach only by its own order
            counts["out of reach"] += 1
            continue
        assumptions = Assumptions(minimum_depth=16 + dag.entry)
        verdict = check_equivalent(ops(block), ops(rebuilt), assumptions=assumptions)
        # never refuted; where the checker cannot decide (failure conditions of reordered
        # u32 checks it cannot show equal) the block is counted apart, and must be rare
        assert verdict.status != "different", (block, verdict.reason)
        counts["proven equal" if verdict.equivalent else "unknown"] += 1
    print(f"\nDAG rebuild: {dict(counts)}")
    assert counts["proven equal"] > 600  # the corpus has about 670 distinct blocks
    assert counts["out of reach"] <= len(blocks()) // 100
    assert counts["unknown"] <= len(blocks()) // 100


def test_the_plain_completion_finishes_a_block_from_any_state():
    """From a state reached by random legal moves (copies made, constants pushed, words
    moved or dropped, nodes run out of order), the moves so far and the plain completion
    are proven equal to the block (greedy decoding relies on it)."""
    generator = random.Random(5)
    checked = 0
    for block in blocks()[::9]:
        dag = build_dag(block)
        if len(dag.nodes) > 24:
            continue
        problem = Problem(dag)
        state, prefix = start(problem), []
        for _ in range(generator.randrange(1, 8)):
            moves = legal_moves(problem, state)
            if not moves or problem.goal(state.stack, state.done):
                break
            move = generator.choice(moves)
            prefix.append(move.instruction)
            state = State(move.stack, move.done)
        completion = plain_completion(problem, state.stack, state.done)
        if completion is None:  # a word beyond the 16 reachable slots
            continue
        verdict = check_equivalent(
            ops(block),
            ops(prefix + completion),
            assumptions=Assumptions(minimum_depth=16 + dag.entry),
        )
        assert verdict.status != "different", (block, prefix, completion, verdict.reason)
        checked += verdict.equivalent
    assert checked >= 50


@pytest.mark.parametrize("part", range(2))
def test_search_schedules_are_proven_equal_and_never_costlier(part):
    improved = 0
    for block in blocks()[part::12]:
        dag = build_dag(block)
        found = windowed_schedule(block, length=6, budget=300)
        assert cost(found.instructions) <= cost(block)
        if found.instructions != block:
            assert proven_equal(block, found.instructions, dag), (block, found.instructions)
            improved += cost(found.instructions) < cost(block)
    assert improved >= 3


@pytest.mark.parametrize(
    ("text", "best"),
    [
        ("pick 5 pick 5 pick 5 pick 5", "place 5 place 5"),  # a rotation the other way
        ("dup 1 swap 1 mul", "dup 1 mul"),  # multiplication commutes
        ("pop 1 dup 0 pop_count pop 1", "dup 1 pop_count pop 2"),
        ("push 3 push 4 swap 1", "push 4 push 3"),
        ("dup 0 add dup 0 add pop 1", "pop 1"),  # dead pure code goes
    ],
)
def test_search_finds_the_optimum(text, best):
    block = pairs(text)
    dag = build_dag(block)
    result = search_schedule(dag, 5_000)
    assert result.optimal and result.instructions is not None
    assert cost(result.instructions) == cost(pairs(best))
    assert proven_equal(block, result.instructions, dag)


def test_a_bound_proves_a_block_optimal_without_a_schedule():
    block = pairs("dup 1 dup 1 add")
    result = search_schedule(build_dag(block), 5_000, bound=cost(block))
    assert result.optimal and result.instructions is None  # nothing cheaper exists


def test_the_dag_keeps_effects_in_order_and_merges_pure_repeats():
    dag = build_dag(pairs("read_io 1 read_io 1 dup 1 dup 1 add dup 2 dup 2 add write_io 1"))
    names = [dag.nodes[index].name for index in dag.chain]
    assert names == ["read_io", "read_io", "write_io"]
    assert [node.name for node in dag.nodes].count("add") == 1  # the same sum, once
    failing = build_dag(pairs("dup 0 dup 1 lt pop 1"))
    assert [node.name for node in failing.nodes if node.mandatory] == ["lt"]  # u32 checks


def test_a_check_that_may_fail_stays_between_the_outputs_around_it():
    # the u32 check of `pop_count` may not move before the first write: a failing run
    # prints what it printed before it failed
    block = pairs("read_mem 1 pop 1 write_io 1 pick 5 dup 0 pop_count pop 1 dup 0 write_io 1")
    dag = build_dag(block)
    names = {index: node.name for index, node in enumerate(dag.nodes)}
    assert [(names[a], names[b]) for a, b in dag.order] == [
        ("write_io", "pop_count"),
        ("pop_count", "write_io"),
    ]
    found = search_schedule(dag, 20_000)
    positions = [name for name, _ in found.instructions if name in ("write_io", "pop_count")]
    assert positions == ["write_io", "pop_count", "write_io"]


def test_dont_care_exit_slots_free_the_schedule():
    block = pairs("dup 1 dup 1 add swap 2 pop 1")  # st1 after the block is garbage
    plain = search_schedule(build_dag(block), 5_000)
    free = search_schedule(build_dag(block, dont_care={1}), 5_000)
    assert cost(free.instructions) < cost(plain.instructions)
    assumptions = Assumptions(dont_care=frozenset({1}))
    verdict = check_equivalent(ops(block), ops(free.instructions), assumptions=assumptions)
    assert verdict.equivalent


def test_the_bit_parallel_common_subsequence_is_the_table_s():
    def table(stack, target):
        previous = [0] * (len(target) + 1)
        for value in stack:
            current = [0]
            for position, wanted in enumerate(target):
                step = previous[position] + 1 if wanted in (None, value) else 0
                current.append(max(step, previous[position + 1], current[position]))
            previous = current
        return previous[-1]

    generator = random.Random(11)
    for _ in range(3000):
        stack = tuple(generator.randrange(5) for _ in range(generator.randrange(12)))
        target = tuple(
            generator.choice([None, 0, 1, 2, 3, 5]) for _ in range(generator.randrange(12))
        )
        masks, anything = match_masks(target)
        assert common_length(stack, masks, anything, len(target)) == table(stack, target)


def test_the_search_is_deterministic():
    block = blocks()[200]
    first = windowed_schedule(block, length=6, budget=300)
    assert windowed_schedule(block, length=6, budget=300) == first


# The prologue of std.nn.tensor's `dot` before its loop: three slots of the loop frame are
# garbage (don't-care at the exit).  Filling them takes a copy of any word, a move the
# default move set leaves out.
DOT_PROLOGUE = (
    "push 0 swap 1 push 1025 dup 1 lt assert pick 2 dup 3 dup 2 add pick 4 pick 3 "
    "push 0 push 0 push 0 pick 7 pick 7 pick 5 swap 1 place 2"
)


def test_without_the_complete_move_set_optimality_is_claimed_wrongly():
    block = pairs(DOT_PROLOGUE)
    dag = build_dag(block, dont_care={3, 4, 5})
    partial = search_schedule(dag, 20_000, bound=cost(block))
    assert partial.optimal and partial.instructions is None  # "nothing cheaper exists" ...
    found = windowed_schedule(block, {3, 4, 5}, length=6, budget=300)
    assert cost(found.instructions) < cost(block)  # ... but here is something cheaper
    assumptions = Assumptions(minimum_depth=16 + dag.entry, dont_care=frozenset({3, 4, 5}))
    verdict = check_equivalent(ops(block), ops(found.instructions), assumptions=assumptions)
    assert verdict.equivalent
    complete = search_schedule(dag, 20_000, bound=cost(block), complete=True)
    assert not complete.optimal  # the complete search claims nothing it has not shown


def test_a_longer_last_window_sees_the_freedom_of_the_don_t_care_slots():
    block = pairs(DOT_PROLOGUE)
    dag = build_dag(block, dont_care={3, 4, 5})
    short = windowed_schedule(block, {3, 4, 5}, length=6, budget=300)
    tail = windowed_schedule(block, {3, 4, 5}, length=6, budget=300, tail=(10, 3_000))
    assert len(short.instructions) == 16 and len(tail.instructions) == 13
    assumptions = Assumptions(minimum_depth=16 + dag.entry, dont_care=frozenset({3, 4, 5}))
    verdict = check_equivalent(ops(block), ops(tail.instructions), assumptions=assumptions)
    assert verdict.equivalent
    # without don't-care slots the last window is no longer than the others
    plain = windowed_schedule(block, length=6, budget=300, tail=(10, 3_000))
    assert plain == windowed_schedule(block, length=6, budget=300)


def test_the_lowerer_keeps_the_windows_when_the_whole_search_runs_out():
    from compiler.search.lowerer import TAIL, Funnel, SearchLowerer

    block = pairs(DOT_PROLOGUE)
    windows = windowed_schedule(block, {3, 4, 5}, length=6, budget=300, tail=TAIL)
    for whole_budget in (50, 3_000):  # the whole search runs out either way
        lowerer = SearchLowerer(whole=24, whole_budget=whole_budget, cache=None)
        found, optimal = lowerer.search(block, frozenset({3, 4, 5}), Funnel())
        assert found == windows.instructions and not optimal
        assert len(found) == 13  # (17 with the default move set's windows, no tail)
