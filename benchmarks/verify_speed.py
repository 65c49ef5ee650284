"""Equivalence-checker speed: checks per second on blocks of 10, 20 and 40 instructions.

Blocks come from compiler.verify.generate.compiled_block.  Two workloads per size:

* equivalent: a block against itself with a neutral pair inserted somewhere
  (`push 0 add`, `swap 1 swap 1`, `dup 0 pop 1`, `nop`); every check goes
  through the concrete screen and the full symbolic proof;
* mutant: a block against a random mutation (insert, delete, replace, change
  an argument); most are rejected by the concrete screen.

The target is 200 checks per second at 20 instructions.  Prints a table
(markdown with --markdown) of checks per second and the verdicts.

    python benchmarks/verify_speed.py [--pairs 200] [--markdown]
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter

from report import print_table  # benchmarks/report.py

from compiler.verify import check_equivalent
from compiler.verify.generate import compiled_block, make_op, mutate
from vm import tip5

SIZES = (10, 20, 40)
NEUTRAL_PAIRS = (
    (("push", 0), ("add", None)),
    (("swap", 1), ("swap", 1)),
    (("dup", 0), ("pop", 1)),
    (("nop", None),),
)


def neutral_rewrite(generator: random.Random, block: tuple) -> tuple:
    position = generator.randrange(len(block) + 1)
    inserted = tuple(make_op(name, argument) for name, argument in generator.choice(NEUTRAL_PAIRS))
    return block[:position] + inserted + block[position:]


def measure(pairs) -> tuple[float, Counter]:
    verdicts: Counter = Counter()
    start = time.perf_counter()
    for index, (first, second) in enumerate(pairs):
        verdicts[check_equivalent(first, second, seed=index).status] += 1
    return len(pairs) / (time.perf_counter() - start), verdicts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=200, help="pairs per size and workload")
    parser.add_argument("--markdown", action="store_true", help="print a markdown table")
    arguments = parser.parse_args()
    generator = random.Random(1)
    for _ in range(tip5.COMPILE_AFTER + 1):  # load the compiled Tip5 kernel before timing
        tip5.permutation((0,) * 16)
    warm_up = compiled_block(generator, 10)
    check_equivalent(warm_up, warm_up)  # and the compiled field kernels
    rows = []
    for size in SIZES:
        blocks = [compiled_block(generator, size) for _ in range(arguments.pairs)]
        workloads = {
            "equivalent": [(block, neutral_rewrite(generator, block)) for block in blocks],
            "mutant": [(block, mutate(generator, block)) for block in blocks],
        }
        for name, pairs in workloads.items():
            rate, verdicts = measure(pairs)
            summary = ", ".join(f"{count} {status}" for status, count in sorted(verdicts.items()))
            rows.append((str(size), name, f"{rate:.0f}", summary))
    header = ("instructions", "workload", "checks/s", "verdicts")
    title = "Equivalence checks per second (target: 200 at 20 instructions)"
    left = frozenset(header) - {"checks/s"}
    print_table(title, header, rows, arguments.markdown, left=left)


if __name__ == "__main__":
    main()
