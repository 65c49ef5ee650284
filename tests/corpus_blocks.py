"""The straight-line TASM blocks of the compiled corpus, for tests that need real code.

Every program of tests/programs/valid and every stdlib module (built alone) is
compiled with and without the peephole passes (-O0, -O1); each function is cut at labels
and control instructions (compiler.lower.asm.CONTROL).  `corpus_blocks()` returns
the distinct blocks, each with the file it first came from, in a fixed order.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.driver import compile_program
from compiler.levels import CLASSICAL_LEVELS
from compiler.lower.asm import CONTROL, Label
from vm.isa import instruction_set
from vm.tasm import Op

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "tests/programs/valid").glob("*.tri")) + sorted(
    (ROOT / "stdlib").rglob("*.tri")
)


@cache
def corpus_blocks() -> tuple[tuple[str, tuple[Op, ...]], ...]:
    instructions = instruction_set()
    found: dict[tuple, str] = {}
    for path in SOURCES:
        checked = check(load_project(path))
        for level in CLASSICAL_LEVELS:  # what -O2's search starts from
            for function in compile_program(checked, level).asm.functions:
                run: list = []
                for item in [*function.items, Label("end")]:
                    if isinstance(item, Label) or item.name in CONTROL:
                        if run:
                            found.setdefault(tuple(run), path.relative_to(ROOT).as_posix())
                        run = []
                    else:
                        run.append((item.name, item.arg))
    return tuple(
        (origin, tuple(Op(instructions[name], argument) for name, argument in block))
        for block, origin in found.items()
    )
