"""Cold start of the `-O3` model on the VM: the whole-program JIT against the tiered engine.

std.nn.optimizer (compiler.neural.language_model) compiled at `VM_LEVEL` with the shipped
weights; for each engine, in a fresh process with an empty JIT cache (a fresh machine: the
shared Tip5 code is compiled too), the seconds to the first block inference's result and
then the median milliseconds of `--blocks` more inferences (warm).  Then `tri build -O3` of
tests/programs/valid/fib.tri with the model on the VM on each engine: in a fresh process
with empty JIT and decision caches (cold), and again in another with the caches the first
left (warm).  Both engines run in the same invocation, one after the other.

    python benchmarks/tiers.py [--blocks 12] [--markdown]
"""

from __future__ import annotations

import argparse
import hashlib
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

    from compiler.driver import model_program
    from compiler.neural.language_model import VM_LEVEL, LanguageModel
    from compiler.neural.model import SHIPPED
    from compiler.neural.weights import load_weights

    compiled = model_program(VM_LEVEL)
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


BUILT = "tests/programs/valid/fib.tri"


def build(engine: str) -> dict:
    """In this process: `tri build -O3` of `BUILT` with the model on the VM on `engine`."""
    importlib.import_module("tri")
    from pathlib import Path

    from compiler.check.checker import check
    from compiler.check.resolve import load_project
    from compiler.driver import compile_program, model_program
    from compiler.neural.language_model import VM_LEVEL, vm_policy
    from compiler.neural.model import SHIPPED, load_policy
    from compiler.search.lowerer import SearchLowerer

    root = Path(__file__).resolve().parent.parent
    began = time.perf_counter()
    shipped = load_policy(str(SHIPPED))
    policy = vm_policy(shipped.parameters, shipped.identity, model_program(VM_LEVEL), engine)
    checked = check(load_project(root / BUILT))
    compiled = compile_program(checked, 3, lowerer=SearchLowerer(policy=policy))
    digest = hashlib.sha256(compiled.text.encode()).hexdigest()
    return {"seconds": time.perf_counter() - began, "tasm": digest}


def builds(engine: str) -> tuple[dict, dict]:
    """`build` cold, then warm, each in a new process, sharing fresh caches."""
    with tempfile.TemporaryDirectory() as jit_cache, tempfile.TemporaryDirectory() as cache:
        environment = {**os.environ, "TRI_JIT_CACHE": jit_cache, "TRI_CACHE": cache}
        command = [sys.executable, __file__, "--build-child", engine]
        results = []
        for _ in range(2):
            done = subprocess.run(
                command, env=environment, capture_output=True, text=True, check=True
            )
            results.append(json.loads(done.stdout.splitlines()[-1]))
    return results[0], results[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=12)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--child", choices=ENGINES, help=argparse.SUPPRESS)
    parser.add_argument("--build-child", choices=ENGINES, help=argparse.SUPPRESS)
    arguments = parser.parse_args(argv)
    if arguments.child:
        print(json.dumps(measure(arguments.child, arguments.blocks)))
        return 0
    if arguments.build_child:
        print(json.dumps(build(arguments.build_child)))
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
    built = {engine: builds(engine) for engine in ENGINES}
    cold_baseline, warm_baseline = built["jit"]
    rows = [
        (
            engine,
            f"{cold_build['seconds']:.2f}",
            f"{cold_build['seconds'] / cold_baseline['seconds']:.2f}",
            f"{warm_build['seconds']:.2f}",
            f"{warm_build['seconds'] / warm_baseline['seconds']:.2f}",
        )
        for engine, (cold_build, warm_build) in built.items()
    ]
    same = len({result["tasm"] for pair in built.values() for result in pair}) == 1
    header = ("engine", "build s (cold)", "ratio", "build s (warm)", "ratio")
    print_table(
        f"tri build -O3 {BUILT}, the model on the VM (same TASM: {'yes' if same else 'NO'})",
        header,
        rows,
        arguments.markdown,
        frozenset({"engine"}),
    )
    print(f"load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
