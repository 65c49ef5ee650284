"""Expectation lines: a program's `// run:` comments, each a run and what it must give.

    // run: --input 3,4 --secret 9 => 7, 12
    // run: --input 0 => error AssertionFailed
    // run: --input 1 => 5 error BoundExceeded       (output before the failure, then the error)

The flags are `tri run`'s run options (--input, --secret, --digest, --ram); after `=>`
the output words, then optionally `error` and the failure's kind in the language's terms
(the reference evaluator's). `tri test` runs every such line of a program as a test; the
corpus tests read the same lines.
"""

from __future__ import annotations

import argparse
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from tri.commands.common import digest, field_list, ram_cells

RUN_LINE = re.compile(r"//\s*run:(.*?)=>(.*)$")
FLAGS = ("--input", "--secret", "--digest", "--ram")


class RunLineError(ValueError):
    """A `// run:` line that does not say a run: its column and what is wrong."""

    def __init__(self, column: int, message: str):
        super().__init__(message)
        self.column = column


@dataclass
class RunLine:
    line: int
    public: tuple = ()
    secret: tuple = ()
    digests: list = field(default_factory=list)
    ram: dict = field(default_factory=dict)
    output: list[int] = field(default_factory=list)
    error: str | None = None  # the failure's kind, or None: the run must halt
    flags: str = ""  # the flags as written: `tri run`'s own


def parse_run_line(number: int, text: str) -> RunLine | None:
    """The run a source line states (None when it holds no `// run:`); RunLineError when
    it holds one that cannot be read."""
    match = RUN_LINE.search(text)
    if match is None:
        return None
    flags, expected = match.group(1), match.group(2)
    case = RunLine(number, flags=flags.strip())
    column = match.start(1) + 1
    try:
        tokens = shlex.split(flags)
    except ValueError as error:
        raise RunLineError(column, f"run: {error}") from None
    if len(tokens) % 2:
        raise RunLineError(column, f"run: {tokens[-1]} has no value")
    for option, value in zip(tokens[::2], tokens[1::2], strict=True):
        try:
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
                    known = ", ".join(FLAGS)
                    raise RunLineError(column, f"run: unknown flag {option} (the flags: {known})")
        except argparse.ArgumentTypeError as error:
            raise RunLineError(column, f"run: {option} {value}: {error}") from None
    output, _, error = expected.partition("error")
    try:
        case.output = [int(word) for word in output.replace(",", " ").split()]
    except ValueError:
        where = match.start(2) + 1
        message = f"run: the output after => is not words: {output.strip()}"
        raise RunLineError(where, message) from None
    case.error = error.strip() or None
    return case


def run_lines(path: Path) -> list[RunLine]:
    """Every `// run:` line of a file, in order (RunLineError carries no line: see
    `parse_run_line`, which callers use to place it)."""
    found = []
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        case = parse_run_line(number, text)
        if case is not None:
            found.append(case)
    return found
