"""The WebAssembly target (vm.wasm): the whole differential, and its speed against the
interpreter and the JIT.

1. **Differential** (what tests/vm/test_wasm.py checks on a part, for CI's time): every corpus
   program with run cases at every level (`-O2` and `-O3` as `tri build` builds them, the
   decision cache as the environment says), and `--generated N` random source programs
   (tests/source_generator.py) at `-O1`, each case run by the interpreter and by WebAssembly
   with the record compared as the test compares it.  Printed: the programs and runs that
   agree.
2. **Speed**: a loop of 10,000,000 cycles (`tri ask "Sum 1 to 1000000"`'s program) and the
   corpus programs with the longest runs, each engine timed on the same input after a first
   run that compiles it (wall seconds, median of three), as ratios to the interpreter.
3. **The command**: `tri run answer.tri` (that loop's program) as a user runs it, a new
   process each time (start-up, compiling the source, translating and running),
   `--engine interp`, `--engine jit` and `--target wasm`, wall seconds, the median of three
   after a first run that fills the caches.

    python benchmarks/wasm.py [--generated 200] [--markdown]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from report import print_table  # benchmarks/report.py

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from corpus import corpus, expectations  # noqa: E402
from source_generator import generate  # noqa: E402
from test_wasm import assert_same_run  # noqa: E402

from compiler.check.checker import check  # noqa: E402
from compiler.check.resolve import load_project  # noqa: E402
from compiler.driver import compile_program  # noqa: E402
from tri.ask.program import program_text  # noqa: E402
from tri.ask.rules import normalize  # noqa: E402
from vm import interp, jit  # noqa: E402
from vm.wasm.runtime import execute_wasm  # noqa: E402

CORPUS = [path for path in corpus("valid") if expectations(path).cases]


def differential(generated: int) -> list[list[str]]:
    rows = []
    for level in (0, 1, 2, 3):
        runs = 0
        for path in CORPUS:
            program = compile_program(check(load_project(path)), level).program
            for case in expectations(path).cases:
                assert_same_run(program, case.public, case.secret, case.digests, case.ram)
                runs += 1
        rows.append([f"corpus at -O{level}", f"{len(CORPUS)} of {len(CORPUS)}", str(runs)])
    runs = 0
    with tempfile.TemporaryDirectory() as directory:
        for seed in range(generated):
            source = generate(seed, kind="program", cases=4, size=0.5)
            path = Path(directory) / f"{source.name}.tri"
            path.write_text(source.text)
            program = compile_program(check(load_project(path)), 1).program
            for case in source.cases:
                assert_same_run(program, case.public, case.secret, case.digests, dict(case.ram))
                runs += 1
    rows.append(["generated source programs at -O1", f"{generated} of {generated}", str(runs)])
    return rows


ENGINES = {"interp": interp.execute, "jit": jit.execute, "wasm": execute_wasm}


def _timed(engine: str, program, public) -> float:
    """Wall seconds of a run on `engine`, the median of three after a first (compiling) one."""
    execute = ENGINES[engine]
    execute(program, public, max_steps=1 << 28)
    times = []
    for _ in range(3):
        start = time.perf_counter()
        execute(program, public, max_steps=1 << 28)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def speed() -> list[list[str]]:
    subjects = []
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "answer.tri"
        path.write_text(program_text(normalize("Sum 1 to 1000000")))
        subjects.append(
            (
                "sum 1..1,000,000 (tri ask)",
                compile_program(check(load_project(path)), 1).program,
                (),
            )
        )
    longest = []
    for path in CORPUS:
        program = compile_program(check(load_project(path)), 1).program
        for case in expectations(path).cases:
            if case.secret or case.digests or case.ram:
                continue
            run = interp.execute(program, case.public)
            if run.error is None:
                longest.append((run.cycles, path.stem, program, case.public))
    for _, name, program, public in sorted(longest, key=lambda row: (-row[0], row[1]))[:3]:
        subjects.append((name, program, public))
    rows = []
    for name, program, public in subjects:
        cycles = interp.execute(program, public, max_steps=1 << 28).cycles
        seconds = {engine: _timed(engine, program, public) for engine in ENGINES}
        base = seconds["interp"]
        rows.append(
            [name, f"{cycles:,}"]
            + [f"{seconds[engine]:.4f} ({base / seconds[engine]:.1f}x)" for engine in seconds]
        )
    return rows


COMMANDS = (  # (name, the options of `tri run` that choose it)
    ("interpreter", ("--engine", "interp")),
    ("JIT", ("--engine", "jit")),
    ("wasm", ("--target", "wasm")),
)


def command_speed() -> list[list[str]]:
    """`tri run` of the 10M-cycle loop in a new process per run, per engine and target."""
    rows = []
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "answer.tri"
        path.write_text(program_text(normalize("Sum 1 to 1000000")))
        base = None
        for name, options in COMMANDS:
            command = [sys.executable, "-m", "tri", "run", str(path), *options]
            outputs, times = set(), []
            for attempt in range(4):
                start = time.perf_counter()
                done = subprocess.run(command, capture_output=True, text=True, check=True)
                if attempt:
                    times.append(time.perf_counter() - start)
                outputs.add(done.stdout)
            assert outputs == {"500000500000\n"}, outputs
            seconds = statistics.median(times)
            base = base or seconds
            rows.append(
                [name, f"tri run {' '.join(options)}", f"{seconds:.2f}", f"{base / seconds:.1f}x"]
            )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--generated", type=int, default=200)
    parser.add_argument("--markdown", action="store_true")
    arguments = parser.parse_args(argv)
    header = ("programs", "agree", "runs compared")
    print_table(
        "WebAssembly against the interpreter",
        header,
        differential(arguments.generated),
        arguments.markdown,
    )
    print()
    header = ("program", "cycles", "interpreter s", "JIT s (speed-up)", "wasm s (speed-up)")
    print_table(
        "speed, wall seconds, median of 3 after a first run", header, speed(), arguments.markdown
    )
    print()
    header = ("engine", "command (sum 1..1,000,000: 10,000,009 cycles)", "wall s", "speed-up")
    print_table("the command, a new process per run", header, command_speed(), arguments.markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
