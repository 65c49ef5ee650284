"""Evolution of fixed-point weights (compiler.neural.evolution) and its workers.

The fitness here is a toy with a known optimum (closeness to a target), so the
tests can say what evolution must do: keep the elite, cross and mutate at the
seed's rates, improve, and give the same weights from the same seed on every
run, whichever workers compute the fitness.  The golden digest pins the weights
a fixed run produces, so a change of any random choice on any machine shows.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from compiler.neural import evolution
from compiler.neural.evolution import LIMIT, POPULATION, STEP, SURVIVORS, Layout, evolve
from compiler.neural.workers import Pool, WorkersError, parse_workers


class Closeness:
    """Fitness: minus the distance to a target, then minus the largest gap (a tie-break)."""

    def __init__(self, target):
        self.target = {name: np.asarray(values) for name, values in target.items()}

    def __call__(self, weights):
        gaps = [np.abs(weights[name] - self.target[name]) for name in self.target]
        return (-int(sum(int(gap.sum()) for gap in gaps)), -max(int(gap.max()) for gap in gaps))


def start_and_target():
    generator = np.random.default_rng(7)
    start = {
        "layer.weight": np.zeros((20, 30), dtype=np.int64),
        "layer.bias": np.zeros(30, dtype=np.int64),
    }
    target = {
        name: generator.integers(-STEP, STEP, size=value.shape) for name, value in start.items()
    }
    return start, Closeness(target)


def run(generations=12, seed=1, workers=1):
    start, fitness = start_and_target()
    with Pool(fitness, workers) as pool:
        return evolve(start, pool.map, generations, seed)


def test_evolution_keeps_the_elite_and_improves():
    result = run()
    bests = [record.best for record in result.generations]
    assert len(bests) == 13
    assert all(later >= earlier for earlier, later in zip(bests, bests[1:]))
    assert bests[-1] > bests[0]
    assert result.best_fitness == bests[-1]
    start, fitness = start_and_target()
    assert fitness(result.best) == result.best_fitness


def test_the_same_seed_gives_the_same_weights_and_another_seed_others():
    first, second, other = run(seed=5), run(seed=5), run(seed=6)
    assert evolution.digest(first.best) == evolution.digest(second.best)
    assert first.generations == second.generations
    assert evolution.digest(first.best) != evolution.digest(other.best)


def test_a_fixed_run_gives_the_same_weights_on_every_machine():
    # PCG64's raw stream and integer arithmetic only: this digest may change only on purpose
    assert evolution.digest(run(generations=6, seed=3).best) == GOLDEN_DIGEST


GOLDEN_DIGEST = "294c2961ff01f2c0e28b0c1aed0669ae"


def test_local_processes_give_the_same_result_as_this_process():
    assert evolution.digest(run(generations=3, workers=2).best) == evolution.digest(
        run(generations=3).best
    )


def test_a_local_ray_cluster_gives_the_same_result_as_this_process(monkeypatch):
    # the cluster's workers import this module to unpickle the fitness function
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).parent))
    ray_run = run(generations=2, workers="ray")
    assert evolution.digest(ray_run.best) == evolution.digest(run(generations=2).best)
    assert ray_run.generations == run(generations=2).generations


def test_children_cross_two_distinct_survivors_and_mutate_one_percent():
    size = 200_000
    generator = np.random.default_rng(0)
    survivors = [generator.integers(-LIMIT, LIMIT, size=size) for _ in range(SURVIVORS)]
    for index in range(POPULATION - SURVIVORS):
        child = evolution.child(survivors, seed=9, generation=4, index=index)
        from_parent = [child == parent for parent in survivors]
        inherited = np.logical_or.reduce(from_parent)
        shares = sorted(int(np.count_nonzero(same)) / size for same in from_parent)
        # two parents give about half each (a mutated weight may match neither)
        assert 0.47 < shares[-1] < 0.53 and 0.47 < shares[-2] < 0.53
        assert shares[-3] < 0.01
        assert 0.008 < 1 - np.count_nonzero(inherited) / size < 0.012
        assert np.all(np.abs(child) <= LIMIT)


def test_mutation_moves_a_weight_at_most_one_step_and_clamps():
    size = 100_000
    vector = np.zeros(size, dtype=np.int64)
    vector[: size // 2] = LIMIT
    mutated = evolution.mutate(vector, evolution.stream(1, 1, 1, 2 * size))
    free = mutated[size // 2 :] != 0  # a step of 0 is drawn once in 2 * STEP + 1
    assert 0.008 < np.count_nonzero(free) / (size // 2) < 0.012
    assert np.all(np.abs(mutated - vector) <= STEP)
    assert np.all(mutated <= LIMIT)
    assert np.any(mutated[: size // 2] < LIMIT)


def test_the_first_generation_is_the_start_and_its_mutants():
    start = np.arange(-5000, 5000, dtype=np.int64)
    population = evolution.first_generation(start, seed=2)
    assert len(population) == POPULATION
    assert np.array_equal(population[0], start)
    assert all(not np.array_equal(mutant, start) for mutant in population[1:])


def test_ranking_puts_the_fittest_first_and_keeps_order_on_ties():
    assert evolution.rank([(1, 0), (3, 0), (1, 5), (3, 0)]) == [1, 3, 2, 0]


def test_layout_round_trips():
    start, _ = start_and_target()
    layout = Layout(start)
    back = layout.unflatten(layout.flatten(start))
    assert list(back) == list(start)
    assert all(np.array_equal(back[name], start[name]) for name in start)


@pytest.mark.parametrize("text", ["0", "-1", "two", "rays", ""])
def test_bad_workers_settings_are_refused(text):
    with pytest.raises(WorkersError):
        parse_workers(text)


def test_workers_settings():
    assert parse_workers("3") == 3
    assert parse_workers("ray") == "ray"
    assert parse_workers("ray://10.0.0.1:10001") == "ray://10.0.0.1:10001"
