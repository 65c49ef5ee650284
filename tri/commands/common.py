"""What the commands share: exit codes, the usage error, argument types, and
loading a program file with syntax errors rendered as `file:line:col: error[CODE]`."""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from vm.field import P

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 130  # Ctrl-C, as a shell reports a SIGINT


@dataclass
class Output:
    """How the command line prints, from --quiet and --color (tri.cli sets it per run)."""

    quiet: bool = False  # only the output asked for and errors
    color: bool = False  # diagnostics in colour (on stderr)
    message_format: str = "human"  # diagnostics as text, or "json": one object per line


OUTPUT = Output()


def did_you_mean(word: str, candidates) -> str:
    """`; did you mean 'x'?` for the closest candidate, or nothing."""
    from difflib import get_close_matches

    close = get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


class UsageError(Exception):
    """Bad command-line input, an unreadable file or a syntax error: exit code 2.

    The message is complete as it stands and is printed unchanged.
    """


def interruptible(call):
    """`call()`, run on a helper thread so that Ctrl-C stops the command at once: native
    code (the JIT) does not return to Python, where KeyboardInterrupt is raised, until it
    halts, and the main thread, which only waits, takes the signal instead.

    An interrupted run is abandoned, and the process ends at once with exit code 130,
    without the interpreter's shutdown: the helper thread still runs, perhaps inside LLVM
    compiling the program, and shutting down around it destroys what it is using (LLVM
    aborts, crashes or waits for ever).  The main thread waits on an event, not with
    `Thread.join`: in Python 3.11 a join interrupted by Ctrl-C marks a running thread
    as stopped."""
    import os
    import threading

    outcome: list = []
    finished = threading.Event()

    def target() -> None:
        try:
            outcome.append((True, call()))
        except BaseException as error:  # handed to the main thread, which raises it
            outcome.append((False, error))
        finally:
            finished.set()

    threading.Thread(target=target, name="tri-run", daemon=True).start()
    try:
        while not finished.wait(WAIT_SECONDS):
            pass
    except KeyboardInterrupt:
        if outcome:
            raise
        print("interrupted", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(EXIT_INTERRUPTED)
    succeeded, value = outcome[0]
    if not succeeded:
        raise value
    return value


WAIT_SECONDS = 0.05  # how often the main thread wakes to take a Ctrl-C


# --- argument types --------------------------------------------------------------------------


def field_value(text: str) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text.strip()}' is not an integer") from None
    if not -P < value < P:
        raise argparse.ArgumentTypeError(f"{value} is outside (-p, p)")
    return value % P


_SEPARATORS = re.compile(r"[\s,]+")


def words_of(text: str) -> list[str]:
    """The words of an input option's value: `1,2,3`, or `@FILE` (`@-`: standard input)
    holding words separated by whitespace or commas."""
    if not text.startswith("@"):
        return [part.strip() for part in text.split(",")] if text.strip() else []
    name = text[1:]
    try:
        if name == "-":
            content = sys.stdin.read()
        else:
            content = Path(name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or error
        raise argparse.ArgumentTypeError(f"cannot read {name}: {reason}") from None
    return [word for word in _SEPARATORS.split(content) if word]


def field_list(text: str) -> tuple[int, ...]:
    """Words for --input and --secret: `1,2,3` or `@FILE`."""
    return tuple(field_value(part) for part in words_of(text))


DIGEST_WORDS = 5


def digests(text: str) -> tuple[tuple[int, ...], ...]:
    """One or more secret digests for --digest (`@FILE`: any number, five words each),
    each written in the language's order, d0 first -- the order `io.read5()` reads a
    digest's words and `let (d0, d1, d2, d3, d4) = d` names them -- and returned in the
    VM's queue order, Tip5's (d4 first: `merkle_step` takes st0 to be element 0)."""
    values = field_list(text)
    if not values or len(values) % DIGEST_WORDS:
        if text.startswith("@"):
            raise argparse.ArgumentTypeError(
                f"{text[1:]}: digests have 5 words each, got {len(values)} words"
            )
        raise argparse.ArgumentTypeError(f"a digest has 5 words, got {len(values)}")
    return tuple(
        tuple(reversed(values[start : start + DIGEST_WORDS]))
        for start in range(0, len(values), DIGEST_WORDS)
    )


def digest(text: str) -> tuple[int, ...]:
    """One digest (language order, d0 first) in the VM's queue order (see `digests`)."""
    found = digests(text)
    if len(found) != 1:
        raise argparse.ArgumentTypeError(f"a digest has 5 words, got {5 * len(found)}")
    return found[0]


def ram_cells(text: str) -> tuple[tuple[int, int], ...]:
    """RAM cells for --ram: `ADDR=VAL,...` or `@FILE` of ADDR=VAL words."""
    cells = []
    for part in filter(None, words_of(text)):
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
    from tri import api
    from vm.tasm import TasmSyntaxError

    path = Path(path_text)
    if not path.exists():
        raise missing(path)
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
    """The text of a source file, or a UsageError that says why it cannot be read (for
    text that is not UTF-8, at the line and column of the first bad byte)."""
    from compiler.diagnostics import CompileError, read_text, render_files

    if not Path(path).exists():
        raise missing(path)
    try:
        return read_text(path)
    except CompileError as problem:
        raise UsageError(render_files(problem.diagnostics)) from None


def missing(path) -> UsageError:
    """The one wording of a file that is not there."""
    return UsageError(f"error: cannot read {path}: no such file or directory")


def shown_path(path: str) -> str:
    """A path as reports show it: relative to the working directory when inside it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return path


def is_tasm(path) -> bool:
    """Every command reads a `.tasm` file as TASM and any other as Trident source."""
    return str(path).endswith(".tasm")


class _Console:
    """rich's Console, except that a closed pipe (`tri cost | head`) stops the command
    quietly (tri.cli catches BrokenPipeError) instead of exiting with 1."""

    def __new__(cls, **options):
        from rich.console import Console

        class PipeConsole(Console):
            def on_broken_pipe(self) -> None:
                raise BrokenPipeError

        return PipeConsole(**options)


def console(minimum_width: int = 0):
    """The console the commands print tables to: at least `minimum_width` columns."""
    from rich.console import Console

    return _Console(highlight=False, width=max(Console().width, minimum_width))


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
            found.append(missing(path))
    return found


def existing_source_files(paths: list[str]) -> list[Path]:
    """`source_files`, raising the UsageError of the first path that does not exist."""
    files = source_files(paths)
    for entry in files:
        if isinstance(entry, UsageError):
            raise entry
    return files
