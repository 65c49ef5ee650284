"""JIT speed: the JIT against the interpreter on four loops, against C on the field loop,
and on a long straight-line program.

Each loop runs on both engines and its nine table heights are computed; times
cover the run and the heights together, best of `--repeat`, with compiled code
already cached (compile time is a separate column: IR generation plus LLVM,
cache bypassed).  Beside the hash loop, the floor: its permutations times the
cost of one native Tip5 permutation (the shared helper, in a native loop).  The
field loop (Fibonacci to 100,000) is also written in C, compiled with `cc -O2`
into a temporary directory and timed inside the C program: the physical-limit
anchor.  The straight-line program is Triton VM's long sponge test (23,631
`sponge_init`, then 2,100 `sponge_squeeze sponge_absorb` pairs): the JIT's time
there includes compiling it (caches bypassed), and its peak memory is that of a
fresh process that compiles and runs it.  Prints tables (markdown with
--markdown).

    python benchmarks/jit_speed.py [--scale 1.0] [--repeat 5] [--markdown]

JIT runs are repeated for at least half a second each and the best taken, the C loop
200 times: the minimum is what the machine can do when nothing else runs.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

import numpy as np
from loops import FIELD_LOOP, HASH_LOOP, MEMORY_LOOP, U32_LOOP  # benchmarks/loops.py
from report import print_table  # benchmarks/report.py

from vm import interp, jit, tables, tip5
from vm.jit import compiler, helpers, runtime, support
from vm.jit.codegen import generate
from vm.tasm import parse

STRAIGHT_LINE = "sponge_init\n" * 23_631 + "sponge_squeeze sponge_absorb\n" * 2_100 + "halt\n"

LOOPS = {
    "field (fibonacci)": (FIELD_LOOP, 100_000),
    "u32": (U32_LOOP, 40_000),
    "memory": (MEMORY_LOOP, 100_000),
    "hash": (HASH_LOOP, 20_000),
}

C_FIELD_LOOP = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#define P 0xFFFFFFFF00000001ULL
/* The TASM field loop: a field addition of -1 to the counter, one for the sum. */
static inline uint64_t field_add(uint64_t a, uint64_t b) {
    uint64_t negated = P - b, difference = a - negated;
    return a < negated ? difference + P : difference;
}
__attribute__((noinline)) static uint64_t fibonacci(uint64_t n) {
    uint64_t a = 0, b = 1;
    while (n != 0) {
        n = field_add(n, P - 1);
        uint64_t sum = field_add(a, b);
        a = b;
        b = sum;
    }
    return b;
}
int main(int argc, char **argv) {
    uint64_t n = strtoull(argv[1], 0, 10), result = 0;
    int repeat = atoi(argv[2]);
    double best = 1e9;
    for (int r = 0; r < repeat; r++) {
        struct timespec start, end;
        volatile uint64_t input = n;
        clock_gettime(CLOCK_MONOTONIC, &start);
        result = fibonacci(input);
        __asm__ volatile("" : : "r"(result) : "memory"); /* computed inside the timing */
        clock_gettime(CLOCK_MONOTONIC, &end);
        double seconds = (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) * 1e-9;
        if (seconds < best) best = seconds;
    }
    printf("%llu %.9f\n", (unsigned long long)result, best);
    return 0;
}
"""


def best_time(action, repeat: int, least_seconds: float = 0.5) -> tuple[float, object]:
    """The best of `repeat` runs, or of as many as fit in `least_seconds` if that is more:
    short runs are repeated until the minimum is stable on a busy machine."""
    best, result, spent, runs = float("inf"), None, 0.0, 0
    while runs < repeat or spent < least_seconds:
        start = time.perf_counter()
        result = action()
        elapsed = time.perf_counter() - start
        best, spent, runs = min(best, elapsed), spent + elapsed, runs + 1
    return best, result


def run_with_tables(engine, program, count: int):
    run = engine(program, public_input=[count])
    assert run.error is None, run.error
    return run, tables.heights(run)


def compile_seconds(program, repeat: int) -> float:
    """IR generation and LLVM for `program`, without any cache."""
    return best_time(lambda: compiler.object_code(generate(program, "benchmark")), repeat, 0.0)[0]


def tip5_seconds(permutations: int = 20_000) -> float:
    """Seconds per native Tip5 permutation (the marking one compiled code uses), measured in
    a native loop that feeds each output back as the next input: the hash loop's floor."""
    from llvmlite import ir

    from vm.jit.arith import I64, I64_POINTER, constant

    module = ir.Module(name="tip5_floor")
    loop_type = ir.FunctionType(ir.VoidType(), [I64_POINTER, I64_POINTER, I64, I64])
    function = ir.Function(module, loop_type, "tip5_floor_loop")
    state, cascade, count, address = function.args
    entry, body, done = (function.append_basic_block(name) for name in ("entry", "body", "done"))
    builder = ir.IRBuilder(entry)
    builder.branch(body)
    builder.position_at_end(body)
    index = builder.phi(I64)
    index.add_incoming(constant(0), entry)
    permute = builder.inttoptr(address, ir.PointerType(helpers.TYPES["tip5_permute_marking"]))
    builder.call(permute, [state, state, cascade])
    following = builder.add(index, constant(1))
    index.add_incoming(following, body)
    builder.cbranch(builder.icmp_unsigned("<", following, count), body, done)
    builder.position_at_end(done)
    builder.ret_void()
    text = str(module)
    address = compiler.load(compiler.key_for("tip5-floor", text), function.name, lambda: text)
    loop = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * 2, ctypes.c_int64, ctypes.c_int64)(
        address.address
    )
    marking = int(support.support().table[helpers.NAMES.index("tip5_permute_marking")])
    words, limbs = np.zeros(16, dtype=np.uint64), np.zeros(1024, dtype=np.uint64)
    action = partial(loop, words.ctypes.data, limbs.ctypes.data, permutations, marking)
    return best_time(action, 5)[0] / permutations


_STRAIGHT_LINE_CHILD = """
import json, resource, sys, time
from vm import jit, tables, tip5
from vm.tasm import parse
tip5.prefer_compiled()
program = parse(sys.stdin.read())
start = time.perf_counter()
run = jit.execute(program)
tables.heights(run)
seconds = time.perf_counter() - start
print(json.dumps([seconds, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024]))
"""


def straight_line(repeat: int) -> tuple:
    """The long sponge program: interpreter seconds, JIT seconds with compiling (caches
    bypassed), and the peak memory of a fresh process that compiles and runs it."""
    program = parse(STRAIGHT_LINE)
    interpreted = partial(interp.execute, program)
    interp_seconds, expected = best_time(lambda: _with_tables(interpreted), repeat, 0.0)

    def compiled_afresh():
        runtime._compiled.clear()  # the in-process cache; the disk cache is off below
        return _with_tables(partial(jit.execute, program))

    previous = os.environ.get("TRI_JIT_CACHE")
    os.environ["TRI_JIT_CACHE"] = "off"
    compiler._in_memory.clear()
    try:
        jit_seconds, actual = best_time(compiled_afresh, 1, 0.0)  # loaded once: one compile
    finally:
        if previous is None:
            del os.environ["TRI_JIT_CACHE"]
        else:
            os.environ["TRI_JIT_CACHE"] = previous
    assert actual == expected, "straight line: the engines disagree"
    environment = {**os.environ, "TRI_JIT_CACHE": "off"}
    child = subprocess.run(
        [sys.executable, "-c", _STRAIGHT_LINE_CHILD],
        input=STRAIGHT_LINE,
        capture_output=True,
        text=True,
        env=environment,
        check=True,
    )
    _, peak = json.loads(child.stdout)
    return program, interp_seconds, jit_seconds, peak, expected


def _with_tables(action):
    run = action()
    return run, tables.heights(run)


def c_anchor(count: int, repeat: int) -> tuple[float | None, str]:
    """Seconds of the C field loop, or None and the reason it could not run."""
    compiler_path = shutil.which("cc")
    if compiler_path is None:
        return None, "no C compiler (cc) on PATH"
    with tempfile.TemporaryDirectory() as directory:
        source, binary = Path(directory) / "fibonacci.c", Path(directory) / "fibonacci"
        source.write_text(C_FIELD_LOOP)
        built = subprocess.run([compiler_path, "-O2", "-o", binary, source], capture_output=True)
        if built.returncode != 0:
            return None, f"cc -O2 failed: {built.stderr.decode().strip()[:200]}"
        output = subprocess.run([binary, str(count), str(max(repeat, 200))], capture_output=True)
        result, seconds = output.stdout.decode().split()
    return float(seconds), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every loop count")
    parser.add_argument("--repeat", type=int, default=5, help="take the best of this many runs")
    parser.add_argument("--markdown", action="store_true", help="print markdown tables")
    arguments = parser.parse_args()
    tip5.prefer_compiled()  # load the compiled Tip5 kernels (both engines use them) before timing
    support_seconds = best_time(support.support, 1, 0.0)[0]
    permutation_seconds = tip5_seconds()
    rows, field = [], None
    for name, (text, count) in LOOPS.items():
        count = max(1, int(count * arguments.scale))
        program = parse(text)
        jit.execute(program, public_input=[1])  # compile (or load) before timing
        on_interpreter = partial(run_with_tables, interp.execute, program, count)
        interp_repeat = max(1, arguments.repeat // 2)
        interp_seconds, (expected, _) = best_time(on_interpreter, interp_repeat, 0.0)
        on_jit = partial(run_with_tables, jit.execute, program, count)
        jit_seconds, (actual, heights) = best_time(on_jit, arguments.repeat)
        assert actual == expected, f"{name}: the engines disagree"
        empty_seconds = best_time(partial(run_with_tables, jit.execute, program, 0), 5)[0]
        rows.append(
            (
                name,
                f"{actual.cycles:,}",
                f"{interp_seconds:.4f}",
                f"{jit_seconds:.4f}",
                f"{interp_seconds / jit_seconds:.0f}x",
                f"{actual.cycles / jit_seconds / 1e6:.0f}",
                f"{empty_seconds * 1e3:.2f}",
                f"{compile_seconds(program, 3) * 1e3:.0f}",
                f"2^{heights.padded_height.bit_length() - 1}",
                _floor(actual, permutation_seconds, interp_seconds),
            )
        )
        if field is None:
            field = (count, jit_seconds, empty_seconds, actual.output)
    header = (
        "loop",
        "cycles",
        "interpreter s",
        "JIT s",
        "speed-up",
        "JIT M instr/s",
        "JIT fixed ms",
        "compile ms",
        "padded height",
        "Tip5 floor ms (speed-up)",
    )
    count, jit_seconds, empty_seconds, output = field
    c_seconds, c_result = c_anchor(count, arguments.repeat)
    if c_seconds is None:
        anchor = [(f"C anchor skipped: {c_result}",)]
    else:
        assert int(c_result) == output[0], "the C loop computes another number"
        anchor = [
            (
                f"fibonacci to {count:,}",
                f"{c_seconds * 1e3:.3f}",
                f"{jit_seconds * 1e3:.3f}",
                f"{jit_seconds / c_seconds:.1f}x",
                f"{(jit_seconds - empty_seconds) * 1e3:.3f}",
                f"{(jit_seconds - empty_seconds) / c_seconds:.1f}x",
            )
        ]
    anchor_header = (
        "field loop",
        "C -O2 ms",
        "JIT ms (run + tables)",
        "JIT / C",
        "JIT ms less fixed cost",
        "JIT / C (loop only)",
    )
    note = (
        f"Tip5 support code: {support_seconds * 1e3:.0f} ms to compile or load (once per process);"
        f" one native Tip5 permutation: {permutation_seconds * 1e9:.0f} ns"
    )
    title = "JIT against the interpreter, all nine tables recorded"
    print_table(title, header, rows, arguments.markdown, left=frozenset({"loop"}))
    if c_seconds is None:
        print(anchor[0][0])
    else:
        if arguments.markdown:
            print()
        title = "JIT against C (cc -O2), the field loop"
        print_table(title, anchor_header, anchor, arguments.markdown, frozenset({"field loop"}))
    if arguments.markdown:
        print()
    program, interp_seconds, jit_seconds, peak, (run, _) = straight_line(arguments.repeat)
    rows = [
        (
            f"{len(program.ops):,} instructions, {run.cycles:,} cycles",
            f"{interp_seconds:.3f}",
            f"{jit_seconds:.3f}",
            f"{jit_seconds / interp_seconds:.2f}",
            f"{peak / 2**20:.0f}",
        )
    ]
    header = (
        "straight-line sponge program",
        "interpreter s",
        "JIT s (compile + run)",
        "JIT / interpreter",
        "JIT peak MB",
    )
    title = "JIT on a long straight-line program, compiled afresh"
    print_table(title, header, rows, arguments.markdown, frozenset({header[0]}))
    print(note)


def _floor(run, permutation_seconds: float, interp_seconds: float) -> str:
    """A loop's permutations times a native permutation, and the speed-up that would leave."""
    program = run.program
    permutations = sum(
        run.visits[address] * op.instruction.permutations
        for op, address in zip(program.ops, program.addresses)
    )
    if not permutations:
        return "-"
    floor = permutations * permutation_seconds
    return f"{floor * 1e3:.1f} ({interp_seconds / floor:.0f}x)"


if __name__ == "__main__":
    main()
