"""Interpreter speed: instructions per second on four loops, every table recorded.

Each loop is assembled once, run on the interpreter, and its nine table heights are
computed; the time covers the run and the height computation together. Prints a table
(markdown with --markdown) of cycles, seconds, million instructions per second and
padded height.

    python benchmarks/vm_speed.py [--scale 1.0] [--repeat 3] [--markdown]
"""

from __future__ import annotations

import argparse
import time

from loops import FIELD_LOOP, HASH_LOOP, MEMORY_LOOP, U32_LOOP  # benchmarks/loops.py
from report import print_table  # benchmarks/report.py

from vm import interp, tables, tip5
from vm.tasm import parse

LOOPS = {
    "field (fibonacci)": (FIELD_LOOP, 200_000),
    "u32": (U32_LOOP, 40_000),
    "memory": (MEMORY_LOOP, 100_000),
    "hash": (HASH_LOOP, 20_000),
}


def measure(text: str, count: int, repeat: int) -> tuple[int, float, int]:
    program = parse(text)
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run = interp.execute(program, public_input=[count])
        heights = tables.heights(run)
        best = min(best, time.perf_counter() - start)
        assert run.error is None, run.error
    return run.cycles, best, heights.padded_height


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every loop count")
    parser.add_argument("--repeat", type=int, default=3, help="take the best of this many runs")
    parser.add_argument("--markdown", action="store_true", help="print a markdown table")
    arguments = parser.parse_args()
    tip5.prefer_compiled()  # load the compiled Tip5 kernels before timing
    rows = []
    for name, (text, count) in LOOPS.items():
        cycles, seconds, padded = measure(
            text, max(1, int(count * arguments.scale)), arguments.repeat
        )
        rows.append(
            (
                name,
                f"{cycles:,}",
                f"{seconds:.3f}",
                f"{cycles / seconds / 1e6:.2f}",
                f"2^{padded.bit_length() - 1}",
            )
        )
    header = ("loop", "cycles", "seconds", "M instructions/s", "padded height")
    title = "Interpreter speed, all nine tables recorded"
    print_table(title, header, rows, arguments.markdown, left=frozenset({"loop"}))


if __name__ == "__main__":
    main()
