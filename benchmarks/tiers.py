"""Cold start of the `-O3` model on the VM: the whole-program JIT against the tiered engine.

std.nn.optimizer (compiler.neural.language_model) compiled at `VM_LEVEL` with the shipped
weights; for each engine, in a fresh process with an empty JIT cache (a fresh machine: the
shared Tip5 code is compiled too), the seconds to the first block inference's result and
then the median milliseconds of `--blocks` more inferences (warm), and how many functions
the tiered engine compiled.  Both engines run in the same invocation, one after the other.

    python benchmarks/tiers.py [--blocks 12] [--markdown]
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from report import print_table  # benchmarks/report.py

ENGINES = ("jit", "tiered")


def measure(engine: str, blocks: int) -> dict:
    """In this process: the program built, then the first and the warm inferences."""
    importlib.import_module("tri")  # makes compiler and vm importable
    from optimizer_inference import sample_dags

    from compiler.neural.language_model import VM_LEVEL, LanguageModel, program
    from compiler.neural.model import SHIPPED
    from compiler.neural.weights import load_weights

    compiled = program(VM_LEVEL)
    model = LanguageModel(load_weights(SHIPPED).tensors, engine, compiled=compiled)
    dags = sample_dags(blocks + 1)
    began = time.perf_counter()
    model.prepare(dags[-1])
    first = time.perf_counter() - began
    warm = []
    for dag in dags[:-1]:
        began = time.perf_counter()
        model.prepare(dag)
        warm.append(time.perf_counter() - began)
    return {"first": first, "warm": statistics.median(warm), "inferences": len(warm)}


def cold(engine: str, blocks: int) -> dict:
    """`measure` in a new process with an empty JIT cache."""
    with tempfile.TemporaryDirectory() as cache:
        environment = {**os.environ, "TRI_JIT_CACHE": cache}
        command = [sys.executable, __file__, "--child", engine, "--blocks", str(blocks)]
        done = subprocess.run(command, env=environment, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=12)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--child", choices=ENGINES, help=argparse.SUPPRESS)
    arguments = parser.parse_args(argv)
    if arguments.child:
        print(json.dumps(measure(arguments.child, arguments.blocks)))
        return 0
    results = {engine: cold(engine, arguments.blocks) for engine in ENGINES}
    baseline = results["jit"]
    rows = [
        (
            engine,
            f"{result['first']:.2f}",
            f"{result['first'] / baseline['first']:.2f}",
            f"{result['warm'] * 1000:.1f}",
            f"{result['warm'] / baseline['warm']:.2f}",
        )
        for engine, result in results.items()
    ]
    header = ("engine", "first inference s (cold)", "ratio", "warm inference ms", "ratio")
    print_table(
        "Cold start of std.nn.optimizer", header, rows, arguments.markdown, frozenset({"engine"})
    )
    print(f"load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
