"""The policy-guided search, greedy decoding, the controls and the training set.

* Guided schedules of corpus blocks (tests/corpus_blocks.py), under each control and at
  both frontier orders, are proven equal to the block by compiler.verify and strictly
  cheaper than the bound; with the admissible order a schedule found is as cheap as
  the unguided search's optimum.
* Everything is deterministic: twice in one process, and across PYTHONHASHSEED.
* The shipped frequency table is the one the shipped training set gives; the training
  set's trajectories replay through the legal moves to a goal, and the schedules they
  spell are proven equal to their blocks.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from corpus_blocks import corpus_blocks

from compiler.blocks.dag import DagError, build_dag
from compiler.blocks.schedule import Problem, cost, search_schedule
from compiler.neural.dataset import (
    build_dataset,
    dataset_hash,
    load_dataset,
    replay_steps,
    split,
)
from compiler.search.guided import (
    GAP_CAP,
    GAP_UNIT,
    decode_greedy,
    guided_schedule,
    led_schedule,
    ranks,
)
from compiler.search.moves import State, legal_moves, start
from compiler.search.policies import (
    TABLE,
    FrequencyPolicy,
    UniformRandomPolicy,
    frequency_policy,
    frequency_table,
    load_table,
    table_hash,
)
from compiler.verify import Assumptions, check_equivalent
from vm.isa import instruction_set

ROOT = Path(__file__).resolve().parents[2]
INSTRUCTIONS = instruction_set()
POLICIES = {"uniform": UniformRandomPolicy(7), "frequency": frequency_policy()}
# greedy decodings of `sample(13)` that must reach the goal: the random control rarely does
DECODED = {"uniform": 1, "frequency": 5}
SMALL = [  # blocks for the determinism checks (no corpus build in a subprocess)
    "dup 1 push 3 mul swap 2 add",
    "pick 5 pick 5 pick 5 pick 5",
    "dup 0 dup 2 add swap 2 pop 1 mul",
    "push 7 dup 1 lt swap 1 pop 1 dup 0",
    "swap 1 dup 1 xor dup 2 and pick 3 pop 1",
]


def ops(instructions):
    from vm.tasm import Op

    return [Op(INSTRUCTIONS[name], argument) for name, argument in instructions]


def proven_equal(original, rewritten, entry: int, dont_care=frozenset()) -> bool:
    assumptions = Assumptions(minimum_depth=16 + entry, dont_care=frozenset(dont_care))
    return check_equivalent(ops(original), ops(rewritten), assumptions=assumptions).equivalent


def sample(step: int = 9) -> list[tuple[list, object]]:
    """Every `step`-th corpus block of 3 to 14 instructions, with its DAG."""
    chosen = []
    for _, block in corpus_blocks():
        instructions = [(op.instruction.name, op.argument) for op in block]
        if 3 <= len(instructions) <= 14:
            try:
                chosen.append((instructions, build_dag(instructions)))
            except DagError:
                continue
    return chosen[::step]


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_guided_schedules_are_proven_equal_and_cheaper_than_the_bound(name):
    policy = POLICIES[name]
    improved = 0
    for block, dag in sample():
        bound = cost(block)
        result = guided_schedule(dag, policy, 150, bound)
        if result.instructions is None:
            continue
        assert cost(result.instructions) < bound
        assert proven_equal(block, result.instructions, dag.entry), (block, result.instructions)
        improved += 1
        if result.optimal and improved % 3 == 1:  # as cheap as the unguided optimum
            unguided = search_schedule(dag, 20_000, bound)
            assert unguided.optimal and cost(unguided.instructions) == cost(result.instructions)
    assert improved >= 5


def test_the_weighted_order_is_anytime_and_never_costlier():
    improved = 0
    for block, dag in sample(17):
        bound = cost(block)
        result = guided_schedule(dag, POLICIES["frequency"], 300, bound, weight=4)
        if result.instructions is None:
            continue
        assert cost(result.instructions) < bound
        assert proven_equal(block, result.instructions, dag.entry)
        improved += 1
        if result.optimal:  # the frontier ran empty: nothing cheaper exists
            best = search_schedule(dag, 20_000, bound)
            assert best.optimal and cost(best.instructions) == cost(result.instructions)
    assert improved >= 2


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_led_schedules_are_proven_equal_and_cheaper_than_the_bound(name):
    improved = 0
    for block, dag in sample():
        bound = cost(block)
        result = led_schedule(dag, POLICIES[name], 60, bound)
        if result.instructions is None:
            if result.optimal:  # the frontier ran empty: nothing cheaper exists
                assert search_schedule(dag, 20_000, bound).instructions is None
            continue
        assert cost(result.instructions) < bound
        assert proven_equal(block, result.instructions, dag.entry), (block, result.instructions)
        improved += 1
        if result.optimal:  # anytime: an empty frontier proves the last one found optimal
            best = search_schedule(dag, 20_000, bound)
            assert best.optimal and cost(best.instructions) == cost(result.instructions)
    assert improved >= 3


class _Scripted:
    """A policy that knows one schedule: at each state on its way, the schedule's next
    move gets score 0 and every other move the largest doubt, or the reverse (`right`
    False: a policy that is always wrong)."""

    identity = "scripted"

    def __init__(self, dag, schedule, right: bool):
        problem = Problem(dag)
        state, self.next = start(problem), {}
        for instruction in schedule:
            self.next[(state.stack, state.done)] = instruction
            move = next(m for m in legal_moves(problem, state) if m.instruction == instruction)
            state = State(move.stack, move.done)
        self.right = right

    def block(self, dag):
        return self

    def scores(self, state, previous, moves):
        wanted = self.next.get((state.stack, state.done))
        doubt = -GAP_CAP * GAP_UNIT
        return [0 if (move.instruction == wanted) == self.right else doubt for move in moves]


def test_a_policy_that_is_always_right_leads_the_search_straight_to_the_optimum():
    block = [("pick", 7), ("pick", 5), ("pick", 5), ("write_io", 3)]
    block += [("pick", 2), ("pick", 2), ("pick", 2), ("write_io", 3), ("pop", 2)]
    dag = build_dag(block)
    best = search_schedule(dag, 20_000, cost(block))
    assert best.optimal and best.instructions is not None
    assert best.expanded > 100 * len(best.instructions)  # A* needs far more states
    steps = len(best.instructions)  # the led search: one state per instruction
    right = led_schedule(dag, _Scripted(dag, best.instructions, True), steps, cost(block))
    assert right.instructions == best.instructions
    wrong = led_schedule(dag, _Scripted(dag, best.instructions, False), steps, cost(block))
    assert wrong.instructions is None


def test_a_bound_no_schedule_beats_is_proven_by_the_guided_search():
    block = [("dup", 1), ("dup", 1), ("add", None)]
    result = guided_schedule(build_dag(block), POLICIES["frequency"], 5_000, cost(block))
    assert result.optimal and result.instructions is None


# the one corpus block where a decoded schedule (the frequency table's) is valid but the
# checker cannot decide it (`unknown`, which the pipeline rejects): `div_mod` moved before
# the `assert` that makes its divisor non-zero, failure conditions compared as written
UNDECIDED = (
    (("push", 2), ("mul", None), ("split", None), ("swap", 1), ("push", 0), ("eq", None)),
    (("assert", None), ("swap", 1), ("div_mod", None), ("pop", 1), ("push", 0)),
)


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_greedy_decoding_gives_valid_schedules(name):
    decoded = 0
    for block, dag in sample(13):
        result = decode_greedy(POLICIES[name], dag, 64)
        if result.instructions is None:
            continue
        assert not result.optimal
        assumptions = Assumptions(minimum_depth=16 + dag.entry)
        verdict = check_equivalent(ops(block), ops(result.instructions), assumptions=assumptions)
        if tuple(block) == UNDECIDED[0] + UNDECIDED[1] and verdict.status == "unknown":
            continue  # the frequency table's decode: never refuted, never used
        assert verdict.equivalent, (block, result.instructions, verdict)
        decoded += 1
    assert decoded >= DECODED[name]


def test_ranks_put_the_best_score_first_and_keep_ties_in_order():
    assert ranks([3, 9, 3, 1]) == [1, 0, 2, 3]


def _runs() -> list:
    from vm.tasm import parse

    found = []
    for text in SMALL:
        block = [(op.instruction.name, op.argument) for op in parse(text).ops]
        dag = build_dag(block)
        for policy in POLICIES.values():
            result = guided_schedule(dag, policy, 100, cost(block))
            found.append((result.instructions, result.optimal, result.expanded))
            result = led_schedule(dag, policy, 100, cost(block))
            found.append((result.instructions, result.optimal, result.expanded))
            found.append(decode_greedy(policy, dag, 64).instructions)
    return found


def test_guided_search_is_deterministic():
    assert _runs() == _runs()


SCRIPT = """
import json, sys
sys.path.insert(0, "tests")
from folders import on_path
on_path()
from test_guided import _runs
from compiler.search.moves import legal_moves, start
from compiler.blocks.schedule import Problem
from compiler.blocks.dag import build_dag
from compiler.search.policies import UniformRandomPolicy
dag = build_dag([("dup", 1), ("push", 3), ("mul", None), ("swap", 2), ("add", None)])
problem = Problem(dag)
state = start(problem)
scores = UniformRandomPolicy(5).block(dag).scores(state, None, legal_moves(problem, state))
print(json.dumps([_runs(), list(scores)]))
"""


def test_guided_search_does_not_depend_on_the_hash_seed():
    outputs = []
    for seed in ("0", "12345"):
        environment = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
        done = subprocess.run(
            [sys.executable, "-c", SCRIPT],
            cwd=ROOT,
            env=environment,
            capture_output=True,
            text=True,
            check=True,
        )
        outputs.append(json.loads(done.stdout))
    assert outputs[0] == outputs[1]
    # the random control's scores are the same on every machine (a BLAKE2b hash)
    assert outputs[0][1][:3] == PINNED_SCORES


PINNED_SCORES = [1345090789, 1375186940, 1623069958]


def test_the_shipped_frequency_table_is_the_training_set_s():
    dataset = load_dataset()
    rebuilt = frequency_table(replay_steps(dataset))
    assert rebuilt == load_table(TABLE)
    assert FrequencyPolicy(rebuilt).identity == "frequency:" + table_hash(load_table(TABLE))


def test_training_trajectories_replay_to_proven_schedules():
    dataset = load_dataset()
    assert dataset["counts"]["kept"] == len(dataset["blocks"]) > 300
    training, held = split()
    assert {block["module"] for block in dataset["blocks"]} <= set(training)
    assert not set(training) & set(held)
    for number, block in enumerate(dataset["blocks"]):
        start_code = [tuple(item) for item in block["start"]]
        dag = build_dag(start_code, frozenset(block["dont_care"]))
        problem = Problem(dag)
        state = start(problem)
        spelled = []
        for step in block["steps"]:
            moves = legal_moves(problem, state)
            assert [list(move.instruction) for move in moves] == step["moves"]
            assert (list(state.stack), state.done) == (step["stack"], step["done"])
            chosen = moves[step["chosen"]]
            spelled.append(chosen.instruction)
            state = State(chosen.stack, chosen.done)
        assert problem.goal(state.stack, state.done)
        assert [list(item) for item in spelled] == block["schedule"]
        assert cost(spelled) <= cost([tuple(item) for item in block["baseline"]])
        if number % 4 == 0:  # the checker on a quarter of them keeps the file fast
            assert proven_equal(start_code, spelled, dag.entry, block["dont_care"])


def test_every_move_labelled_optimal_starts_a_schedule_as_cheap_as_the_target():
    dataset = load_dataset()
    labelled = 0
    for block in dataset["blocks"][::6]:
        start_code = [tuple(item) for item in block["start"]]
        dag = build_dag(start_code, frozenset(block["dont_care"]))
        target = cost([tuple(item) for item in block["schedule"]])
        problem = Problem(dag)
        state, spelled = start(problem), []
        for step in block["steps"]:
            moves = legal_moves(problem, state)
            assert step["chosen"] in step["optimal"]
            for index in step["optimal"]:
                if index == step["chosen"]:
                    continue
                move = moves[index]
                rest = search_schedule(dag, 20_000, origin=(move.stack, move.done))
                schedule = spelled + [move.instruction] + rest.instructions
                assert cost(schedule) == target
                assert proven_equal(start_code, schedule, dag.entry, block["dont_care"])
                labelled += 1
            chosen = moves[step["chosen"]]
            spelled.append(chosen.instruction)
            state = State(chosen.stack, chosen.done)
    assert labelled > 20  # the target is not the only optimal schedule


def test_the_dataset_build_is_deterministic():
    modules = ["stdlib/math/bits.tri", "tests/programs/valid/fib.tri"]
    first = build_dataset(modules, budget=2_000)
    assert first["counts"]["kept"] > 5
    assert dataset_hash(build_dataset(modules, budget=2_000)) == dataset_hash(first)
