"""`tri selfhost`: the `-O3` model's program compiled by the compiler it is the model of.

* `--identity` prints the identity of the compiler whose model is std.nn.optimizer
  compiled at `-O2` (stage 0 of the iteration; what `tri build -O3` would depend on with
  that program as its model): the hash of the program's digest, the weights' identity and
  the rule database's hash (optimizer.md §9).
* `--iterate` compiles the program stage after stage (selfhost.stages) until the
  identity repeats, at most `--max-stages` stages, one row per stage as it finishes: the
  stage, its level, identity, the cycles and padded height of one block inference, the
  mean cycles of a state's scores, the blocks of its own build the model made cheaper,
  and seconds; on a terminal, a transient status line says what the current stage is
  doing.  Then where the fixed point was reached (or that it was not) and whether
  every stage computed the same function.  `--blocks N` lets the model guide only the
  first N blocks of each build (a quicker run; the fixed point is then that compiler's);
  `--engine` runs the stages' programs on the JIT (default), the tiered engine or the
  interpreter.  `--json`
  prints `{"stages": [...], "fixed_point": k, "same_function": true}` instead.
* `--retrain` (with `--iterate`) evolves the weights again before each stage after the
  first (selfhost.retrain): `--generations` rounds on the training set's blocks and the
  optimizer's own, at most `--retrain-blocks` of each, fitness computed on `--workers`
  as `tri train` does.  Two more columns, the stage's weights and their fitness, and a
  line saying at which stage the weights settled, or that they did not.

Exit codes: 0; 1 when the fixed point is not reached or the stages disagree; 2 on bad
usage or an unusable weight file.
"""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager

from tri.commands.common import EXIT_FAILED, EXIT_OK, OUTPUT, UsageError

COLUMNS = ("stage", "level", "identity", "block cycles", "padded height", "state cycles")
COLUMNS += ("model wins", "seconds")
RETRAIN_COLUMNS = ("weights", "fitness")


def register(commands) -> None:
    parser = commands.add_parser("selfhost")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument(
        "--identity", action="store_true", help="print the compiler's identity and stop"
    )
    action.add_argument(
        "--iterate",
        action="store_true",
        help="compile the model's program until its identity repeats",
    )
    parser.add_argument(
        "--max-stages",
        type=int,
        default=4,
        metavar="N",
        help="stages to build at most with --iterate (default 4)",
    )
    parser.add_argument(
        "--blocks",
        type=int,
        metavar="N",
        help="with --iterate: the model guides only the first N blocks of each stage's build "
        "(default: every block it takes)",
    )
    parser.add_argument(
        "--weights", metavar="FILE", help="the model's weight file (default: the shipped one)"
    )
    parser.add_argument(
        "--engine",
        choices=("jit", "tiered", "interp"),
        default="jit",
        help="where the stages' programs run: the JIT (default), the tiered engine (hot "
        "functions compiled alone) or the interpreter",
    )
    parser.add_argument(
        "--retrain",
        action="store_true",
        help="with --iterate: evolve the weights again before each stage after the first",
    )
    parser.add_argument(
        "--generations",
        type=int,
        default=1,
        metavar="N",
        help="with --retrain: evolution rounds per stage (default 1)",
    )
    parser.add_argument(
        "--retrain-blocks",
        type=int,
        metavar="N",
        help="with --retrain: at most N training-set blocks and N of the optimizer's own "
        "(default: all)",
    )
    parser.add_argument(
        "--workers",
        default="1",
        metavar="W",
        help="with --retrain: where fitness runs, as for tri train (default 1)",
    )
    parser.add_argument("--json", action="store_true", help="print the stages as JSON")
    parser.set_defaults(handler=command_selfhost)


def command_selfhost(arguments) -> int:
    from compiler.neural.weights import WeightsError

    retrain = _retraining(arguments)
    try:
        if arguments.identity:
            print(_identity(arguments.weights))
            return EXIT_OK
        return _iterate(arguments, retrain)
    except WeightsError as error:
        raise UsageError(f"error: {error}") from None


def _identity(weights: str | None) -> str:
    from compiler.driver import model_program
    from compiler.neural.language_model import VM_LEVEL
    from selfhost.stages import identity_of, load_model_weights

    return identity_of(model_program(VM_LEVEL), load_model_weights(weights).identity)


def _row(stage, retrained: bool) -> list[str]:
    columns = [
        str(stage.number),
        f"-O{stage.level}",
        stage.identity[:16],
        f"{stage.block_cycles:,}",
        f"2^{stage.block_padded_height.bit_length() - 1}",
        f"{stage.state_cycles:,.0f}",
        str(stage.model_wins),
        f"{stage.seconds:.1f}",
    ]
    if retrained:
        fitness = "-" if stage.fitness is None else ",".join(map(str, stage.fitness))
        columns += [stage.weights_identity[:16], fitness]
    return columns


def _iterate(arguments, retrain) -> int:
    from selfhost.stages import iterate

    if arguments.max_stages < 2:
        raise UsageError("error: --max-stages must be at least 2 (a fixed point compares two)")
    for name in ("blocks", "generations", "retrain_blocks"):
        value = getattr(arguments, name)
        if value is not None and value < 1:
            raise UsageError(f"error: --{name.replace('_', '-')} must be at least 1")

    def progress(stage) -> None:
        if not arguments.json and not OUTPUT.quiet:
            print("  ".join(_row(stage, retrain is not None)), flush=True)

    if not arguments.json and not OUTPUT.quiet:
        print("  ".join(COLUMNS + (RETRAIN_COLUMNS if retrain is not None else ())))
    with _status_line() as status:
        iteration = iterate(
            arguments.weights,
            arguments.max_stages,
            progress=progress,
            blocks=arguments.blocks,
            engine=arguments.engine,
            retrain=retrain,
            status=status,
        )
    if arguments.json:
        print(json.dumps(iteration.as_json(), indent=2))
    else:
        if iteration.fixed_point is None:
            print(f"no fixed point within {arguments.max_stages} stages")
        else:
            print(f"fixed point at stage {iteration.fixed_point}")
        if iteration.retrained:
            settled = iteration.weights_settled
            print(
                f"weights settled at stage {settled}"
                if settled is not None
                else f"weights did not settle within {len(iteration.stages)} stages"
            )
            print(f"retrained on {iteration.own_blocks} of the optimizer's own blocks")
        same = "yes" if iteration.same_function else "NO"
        print(f"every stage computes the same function: {same}")
    reached = iteration.fixed_point is not None and iteration.same_function
    return EXIT_OK if reached else EXIT_FAILED


@contextmanager
def _status_line():
    """A transient line on the terminal (stderr) saying what the stage is doing; nothing
    when stderr is not a terminal or with --quiet."""
    if OUTPUT.quiet or not sys.stderr.isatty():
        yield lambda text: None
        return
    from rich.console import Console

    with Console(stderr=True).status("starting") as line:
        yield lambda text: line.update(text)


def _retraining(arguments):
    """`--retrain`'s settings (selfhost.retrain.Retraining), or None without it."""
    retraining_options = ("--generations", "--retrain-blocks", "--workers")
    if not arguments.retrain:
        given = [
            option
            for option, value, default in zip(
                retraining_options,
                (arguments.generations, arguments.retrain_blocks, arguments.workers),
                (1, None, "1"),
            )
            if value != default
        ]
        if given:
            raise UsageError(f"error: {given[0]} needs --retrain")
        return None
    if not arguments.iterate:
        raise UsageError("error: --retrain needs --iterate")
    from compiler.neural.workers import WorkersError, parse_workers
    from selfhost.retrain import Retraining

    try:
        workers = parse_workers(arguments.workers)
    except WorkersError as error:
        raise UsageError(f"error: {error}") from None
    return Retraining(arguments.generations, arguments.retrain_blocks, workers)
