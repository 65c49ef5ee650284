"""The shape of the code a reader meets: the TIR builder's functions fit on a screen.

The builder (compiler/tir/) is the part of the compiler most changed and most easily
misread; a function over LONGEST lines there is a sign that several steps share one body
(the loop builder's body-building choices were one 104-line function before they were
split into named steps).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LONGEST = 60


def test_no_function_of_the_tir_builder_is_over_sixty_lines():
    long = []
    for path in sorted((ROOT / "compiler" / "tir").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1
                if lines > LONGEST:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({lines})")
    assert not long, f"functions over {LONGEST} lines: {long}"
