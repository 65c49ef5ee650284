"""`tri train --model FILE.tri`: evolve the weights of a model program of the user's.

Input: the parsed `tri train` arguments with `--model` (a program that speaks the
interface of compiler.neural.program_model), the training set's first `--blocks`
blocks, `--generations`, `--seed`, `--workers`, and `--weights` (the start; default:
small random weights from the seed, program_model.initial_weights).  Output: the
weights file (`--output`, default the program's name with `.weights`; one flat tensor)
and its identity on stdout, after the fitness of the start and of each generation's
best; a PNG of the fitness per generation only with `--plot`.

Evolution only (compiler.neural.evolution), no PyTorch: the fitness is
compiler.neural.fitness.GreedyFitness with the compiled program on the JIT as the
policy, so the weights are the same from the same seed on any machine.  A program or
weight file that cannot be used is a UsageError (exit 2), before any training.
"""

from __future__ import annotations

from pathlib import Path

from tri.commands.common import EXIT_OK, UsageError


def command_train_program(arguments) -> int:
    from compiler.neural.program_model import ProgramModelError, load_model_program
    from tri.commands.train import check_budgets, say

    check_budgets(arguments)
    try:
        model = load_model_program(arguments.model)
    except ProgramModelError as error:
        raise UsageError(f"error: --model {error}") from None
    say(f"model: {arguments.model}, {model.parameters} weights")
    if arguments.summary:
        return EXIT_OK
    start = start_weights(model, arguments.weights, arguments.seed)
    output = Path(arguments.output or Path(arguments.model).with_suffix(".weights").name)
    report = evolve_program(model, start, arguments)
    save(report, output, Path(arguments.plot) if arguments.plot else None)
    return EXIT_OK


def start_weights(model, path: str | None, seed: int) -> dict:
    """The evolution's start: the weight file `path`, else seeded random weights."""
    from compiler.neural.program_model import TENSOR, initial_weights
    from compiler.neural.weights import WeightsError, load_weights

    if path is None:
        return initial_weights(model.parameters, seed)
    try:
        return dict(load_weights(path, [(TENSOR, (model.parameters,))]).tensors)
    except WeightsError as error:
        raise UsageError(f"error: --weights {error}") from None


def evolve_program(model, start: dict, arguments) -> dict:
    """`--generations` rounds of evolution on the first `--blocks` training blocks."""
    from compiler.neural import dataset as training_set
    from compiler.neural.evolution import evolve
    from compiler.neural.fitness import GreedyFitness, training_blocks
    from compiler.neural.program_model import (
        ProgramModelError,
        ProgramPolicies,
        ProgramPolicy,
        check_policy,
        weight_vector,
    )
    from compiler.neural.workers import Pool, WorkersError, parse_workers
    from tri.commands.train import progress, say

    try:
        workers = parse_workers(arguments.workers)
        check_policy(ProgramPolicy(model, weight_vector(start), "start"))
    except (WorkersError, ProgramModelError) as error:
        raise UsageError(f"error: {error}") from None
    blocks = training_blocks(training_set.load_dataset())[: arguments.blocks]
    say(f"training set: {len(blocks)} blocks")
    fitness = GreedyFitness(blocks, ProgramPolicies(model))

    def show(record) -> None:
        say(f"generation {record.index}: best {record.best}, median {record.median}")
        advance()

    try:
        with (
            Pool(fitness, workers) as pool,
            progress("evolution", arguments.generations + 1) as advance,
        ):
            evolution = evolve(start, pool.map, arguments.generations, arguments.seed, show)
    except (WorkersError, ProgramModelError) as error:
        raise UsageError(f"error: {error}") from None
    say(f"fitness (saved, closeness, completed): {evolution.best_fitness}")
    return {"parameters": evolution.best, "losses": [], "generations": evolution.generations}


def save(report: dict, output: Path, plot: Path | None) -> None:
    """The weights file and its identity; the plot when asked for (tri train's)."""
    from tri.commands.train import write_outputs

    write_outputs(report, output, plot)
