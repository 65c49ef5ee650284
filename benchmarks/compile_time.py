"""Compile time against program size: generated programs of four shapes, and Trident's library.

Each shape is generated at sizes from about 100 to 10,000 lines and built at `-O0` and
`-O1` (and `-O2` up to `--o2-lines`); the table gives the processor time of the build
(front end and back end, one process, parser tables loaded first), the time per line, and
that time per line as a ratio to the shape's smallest size: a ratio that stays near 1 as
the size grows is a build linear in the program's size.

    wide      a struct of lanes (two U32 words each, like Keccak's 25-lane state) passed
              through a chain of step functions, each calling a small lane function
    straight  one long function of straight-line `let`s
    small     many small functions, each called once from `main`
    chains    lookup functions of 32-deep `else if` chains (like keccak256's `u32_pow2`
              and sha256's `k`), called with run-time and with constant arguments

Then, when a snapshot of Trident's repository is on this machine
(/work/.mirror/mastercyb+trident/repo, absent on CI machines: the section is skipped with
a note), its library files of `--library-lines` lines or more are built at `-O0` and `-O1`.

    python benchmarks/compile_time.py [--sizes 100,300,1000,3000,10000] [--shapes wide,...]
        [--levels 0,1,2] [--o2-lines 1000] [--library-lines 300] [--json]

Processor time (time.process_time) is used, not wall time: the machine may be shared.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from compiler.check.resolve import Resolver  # noqa: E402
from compiler.driver import compile_program  # noqa: E402
from compiler.pipeline import Options, check_source  # noqa: E402
from compiler.syntax import parser  # noqa: E402

TRIDENT = Path("/work/.mirror/mastercyb+trident/repo")
CHAIN_DEPTH = 32
HEADER = "program {name}\n\nuse vm.io.io\nuse vm.core.convert\n\n"
PLAIN_HEADER = "program {name}\n\nuse vm.io.io\n\n"


# --- the shapes ------------------------------------------------------------------------------


def wide(lines: int, lanes: int = 25) -> str:
    """A `State` of `lanes` two-word lanes through a chain of steps (each about lanes + 4
    lines); step k mixes lane i with lane i + k + 1."""
    steps = max(1, (lines - 3 * lanes - 30) // (lanes + 5))
    out = [HEADER.format(name="wide"), "struct Lane {\n    lo: U32,\n    hi: U32,\n}\n\n"]
    out.append("struct State {\n" + "".join(f"    s{i}: Lane,\n" for i in range(lanes)) + "}\n\n")
    out.append(
        "fn mix(a: Lane, b: Lane) -> Lane {\n"
        "    Lane { lo: a.lo ^ b.hi, hi: (a.hi & b.lo) ^ a.lo }\n}\n\n"
    )
    for k in range(steps):
        out.append(f"fn step{k}(st: State) -> State {{\n    State {{\n")
        for i in range(lanes):
            out.append(f"        s{i}: mix(st.s{i}, st.s{(i + k + 1) % lanes}),\n")
        out.append("    }\n}\n\n")
    out.append("fn main() {\n")
    for i in range(lanes):
        out.append(
            f"    let l{i}: Lane = Lane {{ lo: convert.as_u32(io.read()), "
            f"hi: convert.as_u32(io.read()) }}\n"
        )
    fields = ", ".join(f"s{i}: l{i}" for i in range(lanes))
    out.append(f"    let st0: State = State {{ {fields} }}\n")
    for k in range(steps):
        out.append(f"    let st{k + 1}: State = step{k}(st{k})\n")
    for i in range(lanes):
        out.append(f"    io.write(convert.as_field(st{steps}.s{i}.lo))\n")
        out.append(f"    io.write(convert.as_field(st{steps}.s{i}.hi))\n")
    out.append("}\n")
    return "".join(out)


def wide_inputs(lanes: int = 25) -> list[int]:
    return [(7919 * i + 13) % 2**32 for i in range(2 * lanes)]


def straight(lines: int) -> str:
    """One function of about `lines` straight-line `let`s, each reading the two before."""
    count = max(2, lines - 12)
    out = [PLAIN_HEADER.format(name="straight"), "fn long(a: Field, b: Field) -> Field {\n"]
    out.append("    let x0: Field = a * b + 1\n    let x1: Field = x0 + a\n")
    for i in range(2, count):
        operator = "*" if i % 3 == 0 else "+"
        out.append(f"    let x{i}: Field = x{i - 1} {operator} x{i - 2} + {i}\n")
    out.append(f"    x{count - 1}\n}}\n\n")
    out.append("fn main() {\n    let a: Field = io.read()\n    let b: Field = io.read()\n")
    out.append("    io.write(long(a, b))\n}\n")
    return "".join(out)


def small(lines: int) -> str:
    """About lines / 6 functions of four lines each, every one called from `main`."""
    count = max(1, (lines - 10) // 6)
    out = [PLAIN_HEADER.format(name="small")]
    for i in range(count):
        out.append(
            f"fn f{i}(x: Field, y: Field) -> Field {{\n"
            f"    let t: Field = x * y + {i + 1}\n    t + x\n}}\n\n"
        )
    out.append("fn main() {\n    let a: Field = io.read()\n    let v0: Field = a\n")
    for i in range(count):
        out.append(f"    let v{i + 1}: Field = f{i}(v{i}, a)\n")
    out.append(f"    io.write(v{count})\n}}\n")
    return "".join(out)


def chains(lines: int) -> str:
    """Lookup functions of CHAIN_DEPTH-deep `else if` chains, each called twice: with the
    run-time input and with a constant."""
    per = 2 * CHAIN_DEPTH + 6
    count = max(1, (lines - 10) // (per + 2))
    out = [HEADER.format(name="chains")]
    for j in range(count):
        out.append(f"fn lookup{j}(n: U32) -> U32 {{\n    if n == convert.as_u32(0) {{\n")
        out.append(f"        convert.as_u32({j + 1})\n")
        for i in range(1, CHAIN_DEPTH):
            out.append(f"    }} else if n == convert.as_u32({i}) {{\n")
            out.append(f"        convert.as_u32({(j + 1) * 1000 + i})\n")
        out.append(f"    }} else {{\n        convert.as_u32({j + 7})\n    }}\n}}\n\n")
    out.append("fn main() {\n    let n: U32 = convert.as_u32(io.read())\n")
    for j in range(count):
        out.append(f"    io.write(convert.as_field(lookup{j}(n)))\n")
        out.append(f"    io.write(convert.as_field(lookup{j}(convert.as_u32({j % 40}))))\n")
    out.append("}\n")
    return "".join(out)


SHAPES = {"wide": wide, "straight": straight, "small": small, "chains": chains}


# --- measuring -------------------------------------------------------------------------------


def build_seconds(path: Path, level: int, resolver: Resolver | None = None) -> float:
    """Processor seconds of `tri build PATH -O<level>`'s work: check, then compile."""
    options = Options() if resolver is None else Options(resolver=resolver)
    start = time.process_time()
    compile_program(check_source(path, options), level)
    return time.process_time() - start


def line_count(text: str) -> int:
    return text.count("\n") + (not text.endswith("\n"))


def measure_shapes(shapes, sizes, levels, o2_lines, folder: Path) -> list[dict]:
    rows = []
    for shape in shapes:
        first = {}  # level -> seconds per line at the smallest size
        for size in sizes:
            text = SHAPES[shape](size)
            path = folder / f"{shape}_{size}.tri"
            path.write_text(text)
            lines = line_count(text)
            for level in levels:
                if level >= 2 and lines > o2_lines:
                    continue
                seconds = build_seconds(path, level)
                per_line = seconds / lines
                first.setdefault(level, per_line)
                rows.append(
                    {
                        "shape": shape,
                        "lines": lines,
                        "level": level,
                        "seconds": seconds,
                        "ms_per_line": 1000 * per_line,
                        "ratio": per_line / first[level],
                    }
                )
                print_progress(rows[-1])
    return rows


def library_files(folder: Path, minimum: int) -> list[tuple[str, Path]] | None:
    """Trident's .tri files of `minimum` lines or more, written under `folder` (the library
    root), or None when the snapshot is absent."""
    if not TRIDENT.exists():
        return None
    git = ["git", f"--git-dir={TRIDENT}"]
    names = subprocess.run(
        [*git, "ls-tree", "-r", "HEAD", "--name-only"], capture_output=True, text=True, check=True
    ).stdout.split()
    found = []
    for name in sorted(n for n in names if n.endswith(".tri")):
        text = subprocess.run(
            [*git, "show", f"HEAD:{name}"], capture_output=True, text=True, check=True
        ).stdout
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        if line_count(text) >= minimum:
            found.append((name, path))
    return found


def measure_library(levels, minimum: int, folder: Path) -> list[dict] | None:
    files = library_files(folder, minimum)
    if files is None:
        return None
    resolver = Resolver(folder)
    rows = []
    for name, path in files:
        lines = line_count(path.read_text())
        for level in [level for level in levels if level <= 1]:
            seconds = build_seconds(path, level, resolver)
            rows.append({"file": name, "lines": lines, "level": level, "seconds": seconds})
            print(f"  {name} -O{level}: {seconds:.2f} s", file=sys.stderr)
    return rows


def print_progress(row: dict) -> None:
    print(
        f"  {row['shape']} {row['lines']} lines -O{row['level']}: {row['seconds']:.2f} s",
        file=sys.stderr,
    )


def render(rows: list[dict], library: list[dict] | None, skipped: str) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    table = Table(title="Build time against program size (processor seconds)")
    for column in ("shape", "lines", "level", "seconds", "ms/line", "ms/line vs smallest"):
        table.add_column(column, justify="left" if column == "shape" else "right")
    for row in rows:
        table.add_row(
            row["shape"],
            f"{row['lines']:,}",
            f"-O{row['level']}",
            f"{row['seconds']:.2f}",
            f"{row['ms_per_line']:.2f}",
            f"{row['ratio']:.2f}x",
        )
    console.print(table)
    if library is None:
        console.print(f"Trident's library: skipped ({skipped})")
        return
    table = Table(title="Trident's library files (processor seconds)")
    for column in ("file", "lines", "-O0", "-O1"):
        table.add_column(column, justify="left" if column == "file" else "right")
    files = {}
    for row in library:
        files.setdefault((row["file"], row["lines"]), {})[row["level"]] = row["seconds"]
    for (name, lines), seconds in files.items():
        cells = [f"{seconds[level]:.2f}" if level in seconds else "" for level in (0, 1)]
        table.add_row(name, f"{lines:,}", *cells)
    console.print(table)


def main() -> None:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("--sizes", default="100,300,1000,3000,10000")
    arguments.add_argument("--shapes", default=",".join(SHAPES))
    arguments.add_argument("--levels", default="0,1,2")
    arguments.add_argument("--o2-lines", type=int, default=1000, help="-O2 up to this size")
    arguments.add_argument("--library-lines", type=int, default=300)
    arguments.add_argument("--no-library", action="store_true")
    arguments.add_argument("--json", action="store_true")
    options = arguments.parse_args()
    sizes = [int(size) for size in options.sizes.split(",")]
    levels = [int(level) for level in options.levels.split(",")]
    shapes = options.shapes.split(",")
    with tempfile.TemporaryDirectory(prefix="tri-compile-time-") as folder:
        os.environ["TRI_CACHE"] = str(Path(folder) / "cache")  # -O2 starts from no decisions
        parser._parser()  # load the parser tables and every level's modules before timing
        warm = Path(folder) / "warm.tri"
        for text in (small(20), wide(60, lanes=2), chains(80)):
            warm.write_text(text)
            for level in levels:
                build_seconds(warm, level)
        rows = measure_shapes(shapes, sizes, levels, options.o2_lines, Path(folder))
        library = None
        if not options.no_library:
            library = measure_library(levels, options.library_lines, Path(folder) / "trident")
    if options.json:
        print(json.dumps({"shapes": rows, "library": library}, indent=1))
    else:
        skipped = "--no-library" if options.no_library else f"{TRIDENT} is absent"
        render(rows, library, skipped)


if __name__ == "__main__":
    main()
