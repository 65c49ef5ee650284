"""The test-program corpus: .tri files under tests/programs/ with inline expectations.

Annotations are comments:

    // run: --input 3,4 --secret 9 => 7, 12
    // run: --input 0 => error AssertionFailed
    // run: --input 1 => 5 error BoundExceeded       (output before the failure, then the error)
    // error[E0201] 3:18                            (an invalid program: exactly these errors)
    // warning[W0001] 2:1

`run:` lines are read by tri.commands.run_lines (what `tri test` runs too).  A file
with no annotation must check clean (a module used by other programs).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tri.commands.run_lines import RunLine, parse_run_line

PROGRAMS = Path(__file__).parent / "programs"
_DIAGNOSTIC = re.compile(r"//\s*(error|warning)\[(\w+)\]\s+(\d+):(\d+)")

Case = RunLine  # one `// run:` line (tri.commands.run_lines)


@dataclass
class Expectations:
    path: Path
    cases: list[Case]
    diagnostics: set[tuple[str, str, int, int]]  # (severity, code, line, column)


def expectations(path: Path) -> Expectations:
    cases, diagnostics = [], set()
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if case := parse_run_line(number, line):
            cases.append(case)
        elif match := _DIAGNOSTIC.search(line):
            severity, code, at_line, at_column = match.groups()
            diagnostics.add((severity, code, int(at_line), int(at_column)))
    return Expectations(path, cases, diagnostics)


def corpus(kind: str) -> list[Path]:
    """Every .tri file under tests/programs/<kind>/, except the modules in lib/ folders."""
    return sorted(path for path in (PROGRAMS / kind).rglob("*.tri") if "lib" not in path.parts)
