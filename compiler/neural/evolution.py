"""Evolution of fixed-point weights (optimizer.md §7), bit-reproducible on any machine.

Input: the starting weights (an ordered mapping name -> integer array of signed
fixed-point values, as the model and the weights file hold them), a fitness function
(`Evaluator`: weights -> a tuple of integers, larger is better, compared
lexicographically) and a seed.  Output: `evolve(...) -> Evolution`, the best weights
and one `Generation` record per generation (for the progress display and the plots).

The seed's scheme, nothing added:

* a population of 16; generation 0 is the starting weights and 15 mutants of them;
* each generation the population is ranked by fitness (ties: the lower index first,
  so the elite keeps its place) and the best 4 survive unchanged (elitism);
* 12 children, each a uniform crossover of two distinct survivors (every weight from
  either parent with equal chance) followed by mutation of 1% of its weights.

A mutation adds a uniform step in [-STEP, STEP] (as a fixed-point integer) and clamps
the weight to [-LIMIT, LIMIT], the bound the model's fixed-point accumulations are
designed for.  Every random choice comes from `stream`, the raw 64-bit output of
numpy's PCG64 bit generator keyed by (seed, generation, child): numpy guarantees that
stream on every platform and version, where the convenience samplers of `Generator`
are not guaranteed to stay the same.  All arithmetic on the weights is on integers,
so two runs from the same seed give the same weights everywhere, and the fitness
function (verified program-level savings, computed in fixed point) is deterministic
too, whichever worker runs it (compiler.neural.workers).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from compiler.neural.fixed import ONE

POPULATION = 16
SURVIVORS = 4
MUTATION_RATE = (1, 100)  # the share of a child's weights mutated
STEP = ONE // 16  # a mutation moves a weight by at most 1/16
LIMIT = 4 * ONE  # weights stay within [-4, 4]

Weights = Mapping[str, np.ndarray]
Fitness = tuple[int, ...]
Evaluator = Callable[[Weights], Fitness]


@dataclass(frozen=True)
class Generation:
    index: int
    best: Fitness  # the best individual's fitness
    median: Fitness  # the 8th-best individual's fitness
    fitnesses: tuple[Fitness, ...]  # every individual's, in population order


@dataclass(frozen=True)
class Evolution:
    best: dict[str, np.ndarray]  # the fittest weights of the last generation
    best_fitness: Fitness
    generations: tuple[Generation, ...]


class Layout:
    """Names and shapes of the weights, to see them as one flat vector and back."""

    def __init__(self, weights: Weights):
        self.names = list(weights)
        self.shapes = [tuple(np.shape(weights[name])) for name in self.names]
        self.sizes = [int(np.prod(shape, dtype=np.int64)) for shape in self.shapes]

    def flatten(self, weights: Weights) -> np.ndarray:
        parts = [np.asarray(weights[name], dtype=np.int64).reshape(-1) for name in self.names]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

    def unflatten(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        weights, start = {}, 0
        for name, shape, size in zip(self.names, self.shapes, self.sizes):
            weights[name] = vector[start : start + size].reshape(shape).copy()
            start += size
        return weights


def stream(seed: int, generation: int, child: int, count: int) -> np.ndarray:
    """`count` raw 64-bit words for one child of one generation (see the docstring)."""
    key = hashlib.blake2b(f"tri-evolution:{seed}:{generation}:{child}".encode(), digest_size=16)
    bit_generator = np.random.PCG64(int.from_bytes(key.digest(), "little"))
    return bit_generator.random_raw(count).astype(np.uint64)


def _below(words: np.ndarray, numerator: int, denominator: int) -> np.ndarray:
    """Per word, whether it falls in the lowest numerator/denominator of the 64-bit range."""
    threshold = np.uint64((2**64 * numerator) // denominator)
    return words < threshold


def uniform(words: np.ndarray, low: int, high: int) -> np.ndarray:
    """Per word, an integer in [low, high], from its top 32 bits (the bias of the modulo is
    below 2^-20 for the ranges used here, and is the same on every machine)."""
    span = np.uint64(high - low + 1)
    return ((words >> np.uint64(32)) % span).astype(np.int64) + low


def mutate(vector: np.ndarray, words: np.ndarray) -> np.ndarray:
    """`vector` with MUTATION_RATE of its weights moved; `words`: 2 per weight."""
    chosen = _below(words[0::2], *MUTATION_RATE)
    steps = uniform(words[1::2], -STEP, STEP)
    moved = np.clip(vector + steps, -LIMIT, LIMIT)
    return np.where(chosen, moved, vector)


def crossover(first: np.ndarray, second: np.ndarray, words: np.ndarray) -> np.ndarray:
    """Each weight from `first` or `second` with equal chance (the top bit of its word)."""
    return np.where(words >> np.uint64(63) == 0, first, second)


def child(survivors: list[np.ndarray], seed: int, generation: int, index: int) -> np.ndarray:
    """Child `index` of `generation`: two distinct survivors crossed, then mutated."""
    size = len(survivors[0])
    words = stream(seed, generation, index, 1 + 3 * size)
    pick = int(words[0] >> np.uint64(32)) % (len(survivors) * (len(survivors) - 1))
    first = pick // (len(survivors) - 1)
    second = pick % (len(survivors) - 1)
    second += second >= first  # two distinct parents, every ordered pair equally likely
    mixed = crossover(survivors[first], survivors[second], words[1 : 1 + size])
    return mutate(mixed, words[1 + size :])


def first_generation(start: np.ndarray, seed: int) -> list[np.ndarray]:
    """The starting weights and POPULATION - 1 mutants of them."""
    population = [start.copy()]
    for index in range(1, POPULATION):
        population.append(mutate(start, stream(seed, 0, index, 2 * len(start))))
    return population


def rank(fitnesses: list[Fitness]) -> list[int]:
    """Population indices, fittest first; ties keep population order."""
    return sorted(range(len(fitnesses)), key=lambda index: (_negated(fitnesses[index]), index))


def _negated(fitness: Fitness) -> tuple[int, ...]:
    return tuple(-value for value in fitness)


def evolve(
    start: Weights,
    evaluate,
    generations: int,
    seed: int,
    on_generation: Callable[[Generation], None] | None = None,
) -> Evolution:
    """`generations` rounds of selection, crossover and mutation from `start`.

    `evaluate(population) -> list[Fitness]` scores a list of weight vectors, in order
    (compiler.neural.workers runs it serially, on local processes or on Ray)."""
    layout = Layout(start)
    population = first_generation(layout.flatten(start), seed)
    records: list[Generation] = []
    fitnesses = [tuple(fitness) for fitness in evaluate([layout.unflatten(v) for v in population])]
    for index in range(1, generations + 1):
        order = rank(fitnesses)
        records.append(_record(index - 1, fitnesses, order))
        if on_generation is not None:
            on_generation(records[-1])
        survivors = [population[position] for position in order[:SURVIVORS]]
        children = [
            child(survivors, seed, index, number) for number in range(POPULATION - SURVIVORS)
        ]
        population = survivors + children
        kept = [fitnesses[position] for position in order[:SURVIVORS]]
        scored = evaluate([layout.unflatten(vector) for vector in children])
        fitnesses = kept + [tuple(fitness) for fitness in scored]
    order = rank(fitnesses)
    records.append(_record(generations, fitnesses, order))
    if on_generation is not None:
        on_generation(records[-1])
    best = order[0]
    return Evolution(layout.unflatten(population[best]), fitnesses[best], tuple(records))


def _record(index: int, fitnesses: list[Fitness], order: list[int]) -> Generation:
    return Generation(
        index=index,
        best=fitnesses[order[0]],
        median=fitnesses[order[len(order) // 2 - 1]],
        fitnesses=tuple(fitnesses),
    )


def digest(weights: Weights) -> str:
    """A short hash of weights (names, shapes and values), to compare runs in tests and logs."""
    hasher = hashlib.blake2b(digest_size=16)
    for name in weights:
        array = np.ascontiguousarray(np.asarray(weights[name], dtype="<i8"))
        hasher.update(f"{name}:{array.shape};".encode())
        hasher.update(array.tobytes())
    return hasher.hexdigest()
