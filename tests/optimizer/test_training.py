"""Training the `-O3` model (compiler.neural.training, fitness; `tri train`).

* `tri train --summary` prints the exact parameter count, from the model's table.
* A reduced run (a few blocks, one epoch, one generation) writes weights that load as
  the model's, a PNG, and prints the supervised accuracy in float and in fixed point;
  two runs from one seed write the same file (the same identity), and local processes
  give what this process gives.
* The evolution phase on the real fitness is bit-reproducible: its weights from fixed
  starting weights have a committed digest (the same on any machine: integer weights,
  PCG64's raw stream, a fitness computed in fixed point).
* Supervised training lowers the loss and, on its training blocks, ranks the search's
  move first more often than the untrained model does.
* The fitness counts only verified, strictly cheaper schedules as wins.
"""

from __future__ import annotations

import numpy as np
from cli_helpers import tri

from compiler.neural import evolution
from compiler.neural.dataset import load_dataset
from compiler.neural.fitness import (
    GreedyFitness,
    TrainingBlock,
    strictly_cheaper,
    training_blocks,
    verified,
)
from compiler.neural.model import PARAMETERS, Model, initial_parameters, parameter_count
from compiler.neural.training import accuracy, examples, train
from compiler.neural.weights import load_weights

BLOCKS = 10


def test_the_summary_prints_the_exact_parameter_count(capsys):
    code, out, _ = tri(capsys, "train", "--summary")
    assert code == 0
    assert out.splitlines()[-1] == f"{parameter_count():,} parameters"
    assert parameter_count() == sum(int(np.prod(shape)) for _, shape in PARAMETERS)


def test_a_reduced_run_writes_the_same_weights_twice(capsys, tmp_path):
    identities = []
    for run, workers in enumerate(("1", "2")):
        output = tmp_path / f"run{run}.weights"
        arguments = ["train", "--blocks", BLOCKS, "--epochs", 1, "--generations", 1]
        code, out, err = tri(capsys, *arguments, "--workers", workers, "--output", output)
        assert code == 0, err
        assert "optimal schedule, float:" in out and "optimal schedule, fixed point:" in out
        assert output.with_suffix(".png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        weights = load_weights(output, list(PARAMETERS))
        assert f"identity {weights.identity}" in out
        identities.append(weights.identity)
    assert identities[0] == identities[1]


def test_bad_training_settings_are_usage_errors(capsys):
    for arguments in (("--epochs", "-1"), ("--blocks", "0"), ("--workers", "none")):
        code, _, err = tri(capsys, "train", *arguments)
        assert code == 2 and err.startswith("error: --"), err


def test_the_evolution_phase_is_bit_reproducible():
    fitness = GreedyFitness(training_blocks(load_dataset())[:6])
    result = evolution.evolve(initial_parameters(5), lambda pop: [fitness(w) for w in pop], 1, 9)
    assert result.generations[-1].best >= result.generations[0].best
    assert evolution.digest(result.best) == EVOLUTION_DIGEST


EVOLUTION_DIGEST = "bb6b049b642000d6268c791ac40f6515"


def test_supervised_training_learns_the_search_moves():
    found = examples(load_dataset())[:BLOCKS]
    start = initial_parameters(3)
    before = accuracy(Model(start), found)
    trained = train(start, found, epochs=3, seed=3)
    assert trained.losses[-1] < trained.losses[0]
    assert trained.fixed_accuracy[0] > before[0]
    assert trained.fixed_accuracy[1] == before[1] == sum(len(e.steps) for e in found)
    assert abs(trained.fixed_accuracy[0] - trained.float_accuracy[0]) <= before[1] // 20


def test_only_verified_strictly_cheaper_schedules_count_as_wins():
    block = TrainingBlock(
        baseline=(("push", 1), ("push", 1), ("add", None)),
        start=(("push", 1), ("push", 1), ("add", None)),
        dont_care=frozenset(),
        schedule=(("push", 2),),
    )
    assert strictly_cheaper([("push", 2)], block.baseline)
    assert not strictly_cheaper(list(block.baseline), block.baseline)
    assert verified(block, [("push", 2)])
    assert not verified(block, [("push", 3)])
