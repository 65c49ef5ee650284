"""Build many programs and print one digest per build, for tests/whole/test_determinism.py.

    python tests/build_digests.py                 every stdlib module and corpus program
                                                  (the golden set) at every level
    python tests/build_digests.py --generated N   N random programs of each generator: the
                                                  differential fuzzer's, wide functions with
                                                  more live values than the window (deep
                                                  spills, also across loops), and the spill
                                                  programs of test_backend_spills

One line per build: `NAME -O<level> <sha256 of the TASM>`.  The determinism test runs
this in separate processes with different PYTHONHASHSEED values and compares.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import tempfile
from pathlib import Path

from folders import on_path
from golden_tasm import build, sources

from compiler.levels import LEVELS
from tri.cli import RECURSION_LIMIT


def wide_program(seed: int) -> str:
    """A function of 16 to 25 parameters with lets, a loop and a branch over them, called
    from main: more live values than the 16 addressable slots."""
    rng = random.Random(seed)
    names = [f"a{i}" for i in range(rng.randrange(16, 26))]
    params = ", ".join(f"{name}: Field" for name in names)
    lines = ["program wide", "", f"fn f({params}) -> Field {{"]
    live = list(names)
    for k in range(rng.randrange(3, 10)):
        left, operator, right = rng.choice(live), rng.choice("+*"), rng.choice(live)
        lines.append(f"    let l{k}: Field = {left} {operator} {right}")
        live.append(f"l{k}")
    lines.append("    let mut s: Field = 0")
    lines.append(f"    for i in 0..{rng.randrange(1, 4)} {{")
    for _ in range(rng.randrange(1, 4)):
        lines.append(f"        s = s + {rng.choice(live)} * {rng.choice(live)}")
    lines.append("    }")
    lines.append(f"    if s == {rng.choice(live)} {{")
    lines.append(f"        s = s + {rng.choice(live)}")
    lines.append("    }")
    terms = [f"{rng.choice(live)} * {rng.choice(live)}" for _ in range(rng.randrange(3, 12))]
    lines.append("    s + " + " + ".join(terms))
    lines += ["}", "", "fn main() {", "    let v: Field = pub_read()"]
    lines.append("    pub_write(f(" + ", ".join(f"v + {i}" for i in range(len(names))) + "))")
    lines.append("}")
    return "\n".join(lines) + "\n"


def generated(count: int) -> dict[str, str]:
    on_path()
    from test_backend_fuzz import program_text
    from test_backend_spills import PROGRAMS

    programs = {f"fuzz{seed}": program_text(seed) for seed in range(count)}
    programs |= {f"wide{seed}": wide_program(seed) for seed in range(count)}
    return programs | {f"spills_{name}": text for name, text in PROGRAMS.items()}


def main(argv: list[str] | None = None) -> int:
    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--generated", type=int, metavar="N", help="generated programs instead")
    parser.add_argument(
        "--levels", default=",".join(map(str, LEVELS)), help="comma-separated levels to build at"
    )
    arguments = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        if arguments.generated is None:
            paths = sources()
        else:
            paths = {}
            for name, text in generated(arguments.generated).items():
                paths[name] = Path(folder) / f"{name}.tri"
                paths[name].write_text(text, encoding="utf-8")
        for name, path in paths.items():
            for level in map(int, arguments.levels.split(",")):
                digest = hashlib.sha256(build(path, level).encode()).hexdigest()
                print(f"{name} -O{level} {digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
