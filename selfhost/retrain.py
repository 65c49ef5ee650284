"""`tri selfhost --iterate --retrain`: the model's weights evolved again between stages, on
the training set and std.nn.optimizer's own blocks (optimizer.md §7, §9).

Input: the weights of stage k (signed fixed-point tensors, compiler.neural.model order)
and a `Retraining` (generations, a block limit, where fitness runs).  Output:
`Retrainer(settings)(weights) -> Retrained`, the weights of stage k + 1, their identity
(the weight file's Poseidon2 hash, compiler.neural.weights) and their fitness.

* **Blocks**: the shipped training set's (compiler.neural.dataset), then the blocks of
  std.nn.optimizer's own `-O1` build that the search schedules, proven optimal and no
  costlier than `-O1` (compiler.neural.dataset.target_blocks: the training set's rule,
  applied to the program that runs as the model); at most `blocks` of each.  They are
  found once, on first use, and are the same at every stage: the source does not change.
* **Evolution**: compiler.neural.evolution from the stage's weights, `generations`
  rounds, fitness compiler.neural.fitness.GreedyFitness (verified, strictly cheaper
  greedy decodes) computed by the fixed-point numpy model: the function every stage's
  program computes, as `tri selfhost` checks on its check blocks each stage.
* **One seed for every stage**, so retraining is one deterministic map from weights to
  weights.  The starting weights are in generation 0 and win every tie, so the map
  returns them unchanged unless a child is strictly fitter: fitness never falls from
  stage to stage, and once a stage's weights come back unchanged every later stage's do
  too.  That stage is where the weights *settle*; the run reports it or that they did
  not within its stages.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.neural.poseidon2 import hash_bytes
from compiler.neural.weights import encode

SEED = 0  # evolution's seed at every stage (see the module docstring)
OWN_MODULE = "std.nn.optimizer"  # how the program's own blocks are labelled


@dataclass(frozen=True)
class Retraining:
    generations: int = 1
    blocks: int | None = None  # at most this many blocks of each source (None: all)
    workers: int | str = 1  # compiler.neural.workers: N local processes, ray, ray://...


@dataclass(frozen=True)
class Retrained:
    parameters: dict
    identity: str
    fitness: tuple[int, ...]  # (saved, closeness, completed), compiler.neural.fitness


def weights_identity(parameters) -> str:
    """The identity a weight file of these tensors would have."""
    return hash_bytes(encode(parameters))


def own_blocks(limit: int | None = None) -> list[dict]:
    """Training-set entries of std.nn.optimizer's own blocks (at most `limit`)."""
    from compiler.neural.dataset import program_blocks, target_blocks
    from compiler.neural.language_model import source_program

    return target_blocks(OWN_MODULE, program_blocks(source_program()), limit=limit)


class Retrainer:
    """`settings` fixed for a run; the blocks found on the first call."""

    def __init__(self, settings: Retraining):
        self.settings = settings
        self.blocks = None  # compiler.neural.fitness.TrainingBlock list
        self.own = 0  # how many of them are std.nn.optimizer's

    def _training_blocks(self) -> list:
        if self.blocks is None:
            from compiler.neural.dataset import load_dataset
            from compiler.neural.fitness import training_blocks

            limit = self.settings.blocks
            shipped = load_dataset()["blocks"][:limit]
            own = own_blocks(limit)
            self.own = len(own)
            self.blocks = training_blocks({"blocks": shipped + own})
        return self.blocks

    def __call__(self, parameters) -> Retrained:
        from compiler.neural.evolution import evolve
        from compiler.neural.fitness import GreedyFitness
        from compiler.neural.workers import Pool

        fitness = GreedyFitness(self._training_blocks())
        with Pool(fitness, self.settings.workers) as pool:
            evolution = evolve(parameters, pool.map, self.settings.generations, SEED)
        best = dict(evolution.best)
        return Retrained(best, weights_identity(best), tuple(evolution.best_fitness))
