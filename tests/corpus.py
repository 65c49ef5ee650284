"""The test-program corpus: .tri files under tests/programs/ with inline expectations.

Annotations are comments:

    // run: --input 3,4 --secret 9 => 7, 12
    // run: --input 0 => error AssertionFailed
    // run: --input 1 => 5 error BoundExceeded       (output before the failure, then the error)
    // error[E0201] 3:18                            (an invalid program: exactly these errors)
    // warning[W0001] 2:1

`run:` flags are those of `tri run` (--input, --secret, --digest, --ram).  A file
with no annotation must check clean (a module used by other programs).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from tri.commands.common import digest, field_list, ram_cells

PROGRAMS = Path(__file__).parent / "programs"
_RUN = re.compile(r"//\s*run:(.*?)=>(.*)$")
_DIAGNOSTIC = re.compile(r"//\s*(error|warning)\[(\w+)\]\s+(\d+):(\d+)")


@dataclass
class Case:
    line: int
    public: tuple = ()
    secret: tuple = ()
    digests: list = field(default_factory=list)
    ram: dict = field(default_factory=dict)
    output: list[int] = field(default_factory=list)
    error: str | None = None
    flags: str = ""  # the `run:` flags as written, `tri run`'s own


@dataclass
class Expectations:
    path: Path
    cases: list[Case]
    diagnostics: set[tuple[str, str, int, int]]  # (severity, code, line, column)


def _case(line: int, flags: str, expected: str) -> Case:
    case = Case(line, flags=flags.strip())
    tokens = shlex.split(flags)
    for option, value in zip(tokens[::2], tokens[1::2], strict=True):
        match option:
            case "--input":
                case.public += field_list(value)
            case "--secret":
                case.secret += field_list(value)
            case "--digest":
                case.digests.append(digest(value))
            case "--ram":
                case.ram.update(ram_cells(value))
            case _:
                raise ValueError(f"unknown run flag {option}")
    output, _, error = expected.partition("error")
    case.output = [int(word) for word in output.replace(",", " ").split()]
    case.error = error.strip() or None
    return case


def expectations(path: Path) -> Expectations:
    cases, diagnostics = [], set()
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if match := _RUN.search(line):
            cases.append(_case(number, match.group(1), match.group(2)))
        elif match := _DIAGNOSTIC.search(line):
            severity, code, at_line, at_column = match.groups()
            diagnostics.add((severity, code, int(at_line), int(at_column)))
    return Expectations(path, cases, diagnostics)


def corpus(kind: str) -> list[Path]:
    """Every .tri file under tests/programs/<kind>/, except the modules in lib/ folders."""
    return sorted(path for path in (PROGRAMS / kind).rglob("*.tri") if "lib" not in path.parts)
