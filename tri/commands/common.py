"""What the commands share: exit codes, the usage error, argument types, and
loading a program file with syntax errors rendered as `file:line:col: error[CODE]`."""

from __future__ import annotations

import argparse
from pathlib import Path

from tri import api
from vm.field import P
from vm.tasm import TasmSyntaxError

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad command-line input, an unreadable file or a syntax error: exit code 2.

    The message is complete as it stands and is printed unchanged.
    """


# --- argument types --------------------------------------------------------------------------


def field_value(text: str) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text.strip()}' is not an integer") from None
    if not -P < value < P:
        raise argparse.ArgumentTypeError(f"{value} is outside (-p, p)")
    return value % P


def field_list(text: str) -> tuple[int, ...]:
    if not text.strip():
        return ()
    return tuple(field_value(part) for part in text.split(","))


def digest(text: str) -> tuple[int, ...]:
    values = field_list(text)
    if len(values) != 5:
        raise argparse.ArgumentTypeError(f"a digest has 5 words, got {len(values)}")
    return values


def ram_cells(text: str) -> tuple[tuple[int, int], ...]:
    cells = []
    for part in filter(None, (part.strip() for part in text.split(","))):
        address, equals, value = part.partition("=")
        if not equals:
            raise argparse.ArgumentTypeError(f"'{part}' is not ADDR=VALUE")
        cells.append((field_value(address), field_value(value)))
    return tuple(cells)


LARGEST_COUNT = 2**62  # step limits and counts beyond this are not meaningful (and overflow C)


def positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
    if not 0 < value <= LARGEST_COUNT:
        raise argparse.ArgumentTypeError(f"must be between 1 and 2^62, got {value}")
    return value


def load_tasm(path_text: str, isa: str):
    """Assemble a .tasm file; unreadable files and syntax errors become UsageErrors."""
    path = Path(path_text)
    if path.suffix == ".tri":
        raise UsageError(
            f"error: {path}: compiling .tri source is not supported yet; pass a .tasm file"
        )
    text = read_source(path)
    try:
        return api.assemble(text, isa)
    except TasmSyntaxError as error:
        raise UsageError(render_syntax_error(path, text, error)) from None


def render_syntax_error(path: Path, text: str, error) -> str:
    """`file:line:col: error[CODE]: message`, the source line, and a caret under the column.

    `error` is any syntax error with `line`, `column`, `code` and `message`.
    """
    lines = text.splitlines() or [""]
    source = lines[error.line - 1] if error.line <= len(lines) else ""
    gutter = f"{error.line} | "
    caret = " " * (len(gutter) + error.column - 1) + "^"
    headline = f"{path}:{error.line}:{error.column}: error[{error.code}]: {error.message}"
    return f"{headline}\n{gutter}{source}\n{caret}"


def read_source(path: Path) -> str:
    """The text of a source file, or a UsageError that says why it cannot be read."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or error
        raise UsageError(f"error: cannot read {path}: {reason}") from None


def source_files(paths: list[str]) -> list[Path | UsageError]:
    """The files named, with every *.tri below each named directory (sorted), in order; a
    path that does not exist becomes a UsageError in its place, for the command to raise
    at once or to report and go on."""
    found: list[Path | UsageError] = []
    for text in paths:
        path = Path(text)
        if path.is_dir():
            found.extend(sorted(path.rglob("*.tri")))
        elif path.exists():
            found.append(path)
        else:
            found.append(UsageError(f"error: cannot read {path}: no such file or directory"))
    return found


def existing_source_files(paths: list[str]) -> list[Path]:
    """`source_files`, raising the UsageError of the first path that does not exist."""
    files = source_files(paths)
    for entry in files:
        if isinstance(entry, UsageError):
            raise entry
    return files
