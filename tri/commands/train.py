"""`tri train`: train the `-O3` model on the shipped training set and write its weights.

Phases (optimizer.md §7), each with a progress bar on a terminal:

1. **supervised**: the float twin, through PyTorch's automatic differentiation, learns to
   pick the search's moves (compiler.neural.training), `--epochs` passes;
2. **quantized** to fixed point; the share of steps whose chosen move ranks first is
   printed before and after;
3. **evolution** in fixed point, as the seed specifies (compiler.neural.evolution),
   `--generations` rounds; fitness = the verified, strictly cheaper savings of the
   model's greedy decodes over the training blocks (compiler.neural.fitness), computed
   on `--workers` (a number of local processes, `ray` or `ray://HOST:PORT`);
4. the weights file (`--output`), hashed with Poseidon2: its identity is printed; and a
   PNG of the loss per epoch, the best fitness and the accepted wins per generation
   (`--plot`).

`--summary` prints the model's parameter table and count and trains nothing.  Training
is deterministic from `--seed`: two runs give the same weights hash on one machine, and
the evolution phase is bit-reproducible on any machine.

`--model FILE.tri` trains a model program of the user's instead
(compiler.neural.program_model, docs/optimizer-experiments.md): evolution only, from
small seeded random weights (or `--weights`), the fitness computed with the compiled
program run on the JIT as the policy; the weights file holds one flat tensor; no plot
unless `--plot` is given.  No PyTorch needed.

Exit codes: 0; 2 on bad usage, a missing training extra (PyTorch, matplotlib) or an
unwritable file.
"""

from __future__ import annotations

import time
from pathlib import Path

from tri.commands.common import EXIT_OK, OUTPUT, UsageError


def register(commands) -> None:
    parser = commands.add_parser("train")
    parser.add_argument(
        "--summary", action="store_true", help="print the parameter table and count, then stop"
    )
    parser.add_argument("--seed", type=int, default=0, metavar="N", help="random seed (default 0)")
    parser.add_argument(
        "--ask",
        action="store_true",
        help="train the learned tier of tri ask on generated paraphrases instead (numpy only; "
        "writes ask.json, or --output)",
    )
    parser.add_argument(
        "--epochs", type=int, default=6, metavar="N", help="supervised passes (default 6)"
    )
    parser.add_argument(
        "--generations",
        type=int,
        default=4,
        metavar="N",
        help="evolution rounds after the supervised phase (default 4; 0 skips evolution)",
    )
    parser.add_argument(
        "--workers",
        default="1",
        metavar="W",
        help="where fitness runs: N local processes, ray (a local Ray cluster) or "
        "ray://HOST:PORT (default 1: this process)",
    )
    parser.add_argument(
        "--blocks",
        type=int,
        metavar="N",
        help="train on the first N blocks of the training set only (a quick run)",
    )
    parser.add_argument(
        "--model",
        metavar="FILE.tri",
        help="evolve the weights of this model program instead (evolution only, fitness "
        "on the JIT; docs/optimizer-experiments.md)",
    )
    parser.add_argument(
        "--weights",
        metavar="FILE",
        help="with --model: start from this weight file (default: small random weights)",
    )
    parser.add_argument(
        "--output",
        metavar="FILE",
        help="the weights file to write (default model.weights; with --model, the "
        "program's name with .weights)",
    )
    parser.add_argument(
        "--plot",
        metavar="FILE",
        help="the PNG of loss, fitness and wins (default: the output's name with .png)",
    )
    parser.set_defaults(handler=command_train)


def command_train(arguments) -> int:
    from compiler.neural import model

    if arguments.weights is not None and arguments.model is None:
        raise UsageError("error: --weights is the start of --model's evolution; add --model")
    if arguments.ask:
        return command_train_ask(arguments)
    if arguments.model is not None:
        from tri.commands.train_program import command_train_program

        return command_train_program(arguments)
    if arguments.summary:
        print(model.summary())
        return EXIT_OK
    check_budgets(arguments)
    from compiler.neural.workers import WorkersError, parse_workers

    try:
        workers = parse_workers(arguments.workers)
    except WorkersError as error:
        raise UsageError(f"error: {error}") from None
    output = Path(arguments.output or "model.weights")
    plot = Path(arguments.plot) if arguments.plot else output.with_suffix(".png")
    report = run_training(
        arguments.seed, arguments.epochs, arguments.generations, workers, arguments.blocks
    )
    write_outputs(report, output, plot)
    return EXIT_OK


def command_train_ask(arguments) -> int:
    """`tri train --ask`: the learned tier's weights (tri.ask.learned), deterministic given
    --seed; prints its accuracy on fresh paraphrases of another seed."""
    from tri.ask import learned
    from tri.ask.paraphrases import generate

    if arguments.model is not None:
        raise UsageError("error: --ask trains tri ask's learned tier; it takes no --model")
    output = Path(arguments.output or "ask.json")
    learned.save(learned.train(arguments.seed), output)
    learned.load.cache_clear()
    fresh = generate(arguments.seed + 1, 1000)
    right = sum(learned.predict(question, output)[0] == shape for question, shape in fresh)
    print(
        f"wrote {output}: {right} of {len(fresh)} fresh paraphrases (seed {arguments.seed + 1}) "
        "get their shape right"
    )
    return EXIT_OK


def check_budgets(arguments) -> None:
    """--epochs and --generations at least 0, --blocks at least 1."""
    for name in ("epochs", "generations", "blocks"):
        value = getattr(arguments, name)
        if value is not None and value < (1 if name == "blocks" else 0):
            raise UsageError(f"error: --{name} takes a number of at least {int(name == 'blocks')}")


def run_training(seed: int, epochs: int, generations: int, workers, blocks=None) -> dict:
    """The four phases, on the first `blocks` training blocks (None: all); returns what
    they produced and measured."""
    from compiler.neural import dataset as training_set
    from compiler.neural.evolution import evolve
    from compiler.neural.fitness import GreedyFitness, training_blocks
    from compiler.neural.model import initial_parameters
    from compiler.neural.training import TrainingError, examples, train
    from compiler.neural.workers import Pool, WorkersError

    data = training_set.load_dataset()
    data = {**data, "blocks": data["blocks"][:blocks]}
    found = examples(data)
    say(f"training set: {len(found)} blocks, {sum(len(e.steps) for e in found)} steps")
    started = time.process_time()
    with progress("supervised", epochs) as advance:
        try:
            trained = train(
                initial_parameters(seed), found, epochs, seed, on_epoch=lambda *_: advance()
            )
        except TrainingError as error:
            raise UsageError(f"error: {error}") from None
    for label, (right, total) in (
        ("float", trained.float_accuracy),
        ("fixed point", trained.fixed_accuracy),
    ):
        say(
            f"first-ranked moves that start an optimal schedule, {label}: "
            f"{right}/{total} = {right / max(total, 1):.1%}"
        )
    parameters, history = trained.parameters, ()
    if generations:
        fitness = GreedyFitness(training_blocks(data))
        try:
            with Pool(fitness, workers) as pool, progress("evolution", generations + 1) as step:
                evolution = evolve(
                    parameters, pool.map, generations, seed, on_generation=lambda _: step()
                )
        except WorkersError as error:
            raise UsageError(f"error: {error}") from None
        parameters, history = evolution.best, evolution.generations
        say(f"fitness (saved, closeness, completed): {evolution.best_fitness}")
    return {
        "parameters": parameters,
        "losses": trained.losses,
        "generations": history,
        "seconds": time.process_time() - started,
    }


def write_outputs(report: dict, output: Path, plot: Path | None) -> None:
    """The weights file and its identity, then the plot (none when `plot` is None)."""
    from compiler.neural.weights import WeightsError, save_weights

    try:
        identity = save_weights(output, report["parameters"])
    except (OSError, WeightsError) as error:
        raise UsageError(f"error: {output}: cannot write the weights ({error})") from None
    print(f"wrote {output}  identity {identity}")
    if plot is None:
        return
    try:
        draw(report, plot)
    except ImportError:
        raise UsageError("error: plots need matplotlib: pip install 'tri[train]'") from None
    except OSError as error:
        raise UsageError(f"error: {plot}: cannot write ({error.strerror})") from None
    print(f"wrote {plot}")


def draw(report: dict, path: Path) -> None:
    """Loss per epoch, best fitness and accepted wins (saved instructions) per generation."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, (loss, fitness, wins) = pyplot.subplots(1, 3, figsize=(12, 3.5))
    if report["losses"]:
        loss.plot(range(1, len(report["losses"]) + 1), report["losses"], marker="o")
        loss.set(title="supervised loss", xlabel="epoch", ylabel="cross-entropy per step")
    else:  # tri train --model: evolution only
        loss.set_axis_off()
        loss.text(0.5, 0.5, "no supervised phase", ha="center", va="center")
    generations = report["generations"]
    indices = [record.index for record in generations]
    fitness.plot(indices, [record.best[1] for record in generations], marker="o")
    fitness.set(title="best closeness", xlabel="generation", ylabel="instructions (negated)")
    wins.plot(indices, [record.best[0] for record in generations], marker="o")
    wins.set(title="accepted wins", xlabel="generation", ylabel="instructions saved")
    figure.tight_layout()
    figure.savefig(path, format="png", metadata={"Software": None})
    pyplot.close(figure)


def say(text: str) -> None:
    if not OUTPUT.quiet:
        print(text)


class progress:
    """A rich progress bar for one phase (on a terminal, unless --quiet); `advance()` per
    step."""

    def __init__(self, label: str, total: int):
        self.label, self.total = label, total
        self.bar = None

    def __enter__(self):
        import sys

        if OUTPUT.quiet or not sys.stderr.isatty() or not self.total:
            return lambda: None
        from rich.progress import Progress

        self.bar = Progress(transient=True)
        self.bar.start()
        task = self.bar.add_task(self.label, total=self.total)
        return lambda: self.bar.advance(task)

    def __exit__(self, *exception):
        if self.bar is not None:
            self.bar.stop()
