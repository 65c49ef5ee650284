"""Equivalence-checker speed: checks per second on blocks of 10, 20 and 40 instructions.

Blocks come from compiler.verify.generate.compiled_block.  Two workloads per size:

* equivalent: a block against itself with a neutral pair inserted somewhere
  (`push 0 add`, `swap 1 swap 1`, `dup 0 pop 1`, `nop`); every check goes
  through the concrete screen and the full symbolic proof;
* mutant: a block against a random mutation (insert, delete, replace, change
  an argument); most are rejected by the concrete screen.

The target is 200 checks per second at 20 instructions.  With `--baseline REV`
the same pairs (as TASM text) are also checked by the checker of git revision
REV, in a child process, workload by workload in turn with this one, and the
table shows both rates and their ratio: a figure measured in one run, so that
the machine's load affects both alike.  Prints a table (markdown with
--markdown) of checks per second and the verdicts.

    python benchmarks/verify_speed.py [--pairs 200] [--baseline REV] [--markdown]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from report import print_table  # benchmarks/report.py

from compiler.verify import check_equivalent
from compiler.verify.generate import compiled_block, make_op, mutate
from vm import tip5
from vm.tasm import parse

SIZES = (10, 20, 40)
REPEATS = 3
NEUTRAL_PAIRS = (
    (("push", 0), ("add", None)),
    (("swap", 1), ("swap", 1)),
    (("dup", 0), ("pop", 1)),
    (("nop", None),),
)
ROOT = Path(__file__).resolve().parent.parent


def neutral_rewrite(generator: random.Random, block: tuple) -> tuple:
    position = generator.randrange(len(block) + 1)
    inserted = tuple(make_op(name, argument) for name, argument in generator.choice(NEUTRAL_PAIRS))
    return block[:position] + inserted + block[position:]


def workloads(count: int) -> list[tuple[str, str, list[tuple[str, str]]]]:
    """(size, workload, pairs as TASM text) for every size and workload."""
    generator = random.Random(1)
    result = []
    for size in SIZES:
        blocks = [compiled_block(generator, size) for _ in range(count)]
        equivalent = [(block, neutral_rewrite(generator, block)) for block in blocks]
        mutants = [(block, mutate(generator, block)) for block in blocks]
        for name, pairs in (("equivalent", equivalent), ("mutant", mutants)):
            texts = [(_text(first), _text(second)) for first, second in pairs]
            result.append((str(size), name, texts))
    return result


def _text(ops) -> str:
    return "\n".join(op.text for op in ops)


def measure(pairs: list[tuple[str, str]]) -> tuple[float, Counter]:
    """Checks per second of processor time over `pairs` (TASM text), best of `REPEATS`
    runs, and the verdicts.  Processor time, not wall time: the development machine is
    shared, and another process's load would otherwise count as ours."""
    parsed = [(parse(first).ops, parse(second).ops) for first, second in pairs]
    best = float("inf")
    for _ in range(REPEATS):
        verdicts: Counter = Counter()
        start = time.process_time()
        for index, (first, second) in enumerate(parsed):
            verdicts[check_equivalent(first, second, seed=index).status] += 1
        best = min(best, time.process_time() - start)
    return len(pairs) / best, verdicts


def warm_up() -> None:
    for _ in range(tip5.COMPILE_AFTER + 1):  # load the compiled Tip5 kernel before timing
        tip5.permutation((0,) * 16)
    block = compiled_block(random.Random(0), 10)
    check_equivalent(block, block)  # and the compiled field kernels


def measure_file(path: str) -> None:
    """The child's side of --baseline: measure the pairs in `path`, print JSON."""
    warm_up()
    rate, verdicts = measure(json.loads(Path(path).read_text()))
    print(json.dumps({"rate": rate, "verdicts": dict(verdicts)}))


class Baseline:
    """The checker of another git revision, run in a child process on the same pairs."""

    def __init__(self, revision: str):
        self.directory = tempfile.TemporaryDirectory(prefix="tri-baseline-")
        archive = subprocess.run(
            ["git", "archive", revision], cwd=ROOT, capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", self.directory.name], input=archive, check=True)
        self.revision = revision

    def measure(self, pairs) -> float:
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
            json.dump(pairs, handle)
        environment = {**os.environ, "PYTHONPATH": self.directory.name}
        completed = subprocess.run(
            [sys.executable, __file__, "--measure", handle.name],
            env=environment,
            capture_output=True,
            text=True,
            check=True,
        )
        os.unlink(handle.name)
        return json.loads(completed.stdout.splitlines()[-1])["rate"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=200, help="pairs per size and workload")
    parser.add_argument("--baseline", metavar="REV", help="also measure git revision REV")
    parser.add_argument("--markdown", action="store_true", help="print a markdown table")
    parser.add_argument("--measure", metavar="FILE", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.measure:
        measure_file(arguments.measure)
        return
    baseline = Baseline(arguments.baseline) if arguments.baseline else None
    warm_up()
    rows = []
    for size, name, pairs in workloads(arguments.pairs):
        rate, verdicts = measure(pairs)
        summary = ", ".join(f"{count} {status}" for status, count in sorted(verdicts.items()))
        row = [size, name, f"{rate:.0f}"]
        if baseline is not None:
            before = baseline.measure(pairs)
            row += [f"{before:.0f}", f"{rate / before:.2f}"]
        rows.append((*row, summary))
    header = ["instructions", "workload", "checks/s"]
    if baseline is not None:
        header += [f"checks/s at {arguments.baseline}", "ratio"]
    header.append("verdicts")
    title = "Equivalence checks per second (target: 200 at 20 instructions)"
    left = frozenset({"instructions", "workload", "verdicts"})
    print_table(title, tuple(header), rows, arguments.markdown, left=left)


if __name__ == "__main__":
    main()
