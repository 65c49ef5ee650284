"""The `-O3` model in the language on the VM: milliseconds per block inference and per state.

std.nn.optimizer (compiler.neural.language_model) compiled at `--level` (default
`VM_LEVEL`, what `-O3 --model-engine vm` runs) with the shipped weights, on the JIT by default:
for `--blocks` blocks of the training set (compiler/neural/dataset.py) spread over their
sizes, one block inference (`LanguageModel.prepare`) each, then the scores of `--states`
states along the path that always takes the first legal move (`LanguageModel.scores`).
Prints the median, fastest and slowest wall milliseconds per call, the median processor
milliseconds of the calling thread (less sensitive to other jobs on the machine), the
median wall milliseconds in native code (vm.jit.runtime's calls of the compiled program)
and outside it (Python: inputs, RAM, records, the interpreted start), the median cycles,
and the load average, which the figures depend on (2 shared cores).  The first call,
which compiles the program or loads it from the JIT's disk cache, is not counted.

    python benchmarks/optimizer_inference.py [--blocks 24] [--states 3] [--engine jit]
        [--level 2] [--markdown]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from report import print_table  # benchmarks/report.py

from compiler.blocks.dag import build_dag
from compiler.blocks.schedule import Problem
from compiler.driver import model_program
from compiler.neural.dataset import load_dataset
from compiler.neural.encoding import EncodingTooLarge
from compiler.neural.language_model import VM_LEVEL, LanguageModel
from compiler.neural.model import SHIPPED
from compiler.neural.weights import load_weights
from compiler.search.moves import State, legal_moves, start
from vm.jit import runtime


class NativeClock:
    """Seconds spent in native code: wraps vm.jit.runtime's call of compiled programs."""

    def __init__(self):
        self.seconds = 0.0
        self._call = runtime._call

    def __enter__(self):
        def timed(*arguments):
            began = time.perf_counter()
            try:
                return self._call(*arguments)
            finally:
                self.seconds += time.perf_counter() - began

        runtime._call = timed
        return self

    def __exit__(self, *exception):
        runtime._call = self._call


def sample_dags(count: int):
    """`count` blocks of the training set spread over their sizes, the largest included."""
    blocks = load_dataset()["blocks"]
    dags = [
        build_dag([tuple(item) for item in block["start"]], frozenset(block["dont_care"]))
        for block in blocks
    ]
    dags.sort(key=lambda dag: dag.entry + len(dag.nodes))
    if count >= len(dags):
        return dags
    return [dags[(len(dags) - 1) * k // max(1, count - 1)] for k in range(count)]


def timed(clock: NativeClock, call):
    """The call's result, wall seconds, processor seconds (this thread) and native seconds."""
    native = clock.seconds
    began, processor = time.perf_counter(), time.thread_time()
    result = call()
    seconds = (time.perf_counter() - began, time.thread_time() - processor)
    return result, seconds, clock.seconds - native


def measure(model: LanguageModel, dags, states: int) -> dict[str, list]:
    """((wall, processor) seconds, native seconds, cycles) per block inference and per
    state."""
    rows: dict[str, list] = {"block inference": [], "state": []}
    with NativeClock() as clock:
        for dag in dags:
            try:
                prepared, wall, native = timed(clock, lambda dag=dag: model.prepare(dag))
            except EncodingTooLarge:
                continue
            rows["block inference"].append((wall, native, model.cycles))
            problem = Problem(dag)
            state, previous = start(problem), None
            for _ in range(states):
                moves = legal_moves(problem, state)
                if not moves or problem.goal(state.stack, state.done):
                    break
                arguments = (prepared, state, previous, moves)
                _, wall, native = timed(clock, lambda arguments=arguments: model.scores(*arguments))
                rows["state"].append((wall, native, model.cycles))
                previous = moves[0]
                state = State(previous.stack, previous.done)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=24)
    parser.add_argument("--states", type=int, default=3)
    parser.add_argument("--engine", default="jit")
    parser.add_argument("--level", type=int, default=VM_LEVEL)
    parser.add_argument("--markdown", action="store_true")
    arguments = parser.parse_args(argv)
    compiled = model_program(arguments.level)
    model = LanguageModel(load_weights(SHIPPED).tensors, arguments.engine, compiled=compiled)
    dags = sample_dags(arguments.blocks)
    began = time.perf_counter()
    model.prepare(dags[0])  # compiles the program, or loads it from the disk cache
    first = time.perf_counter() - began
    before = os.getloadavg()
    rows = measure(model, dags, arguments.states)
    after = os.getloadavg()
    table = []
    for name, samples in rows.items():
        if not samples:
            continue
        walls = [wall * 1000 for (wall, _), _, _ in samples]
        processors = [processor * 1000 for (_, processor), _, _ in samples]
        natives = [native * 1000 for _, native, _ in samples]
        outside = [wall - native for wall, native in zip(walls, natives)]
        cycles = [count for _, _, count in samples]
        table.append(
            (
                name,
                str(len(samples)),
                f"{statistics.median(walls):.1f}",
                f"{min(walls):.1f}",
                f"{max(walls):.1f}",
                f"{statistics.median(processors):.1f}",
                f"{statistics.median(natives):.1f}",
                f"{statistics.median(outside):.1f}",
                f"{statistics.median(cycles):,.0f}",
            )
        )
    header = (
        "call",
        "calls",
        "median ms",
        "fastest ms",
        "slowest ms",
        "median CPU ms",
        "native ms",
        "outside native ms",
        "cycles",
    )
    title = f"std.nn.optimizer at -O{arguments.level} on {arguments.engine}"
    print_table(title, header, table, arguments.markdown, left=frozenset({"call"}))
    print(
        f"first call (compile or load): {first:.1f} s; load average "
        f"{before[0]:.2f} before, {after[0]:.2f} after"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
