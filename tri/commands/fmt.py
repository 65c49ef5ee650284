"""`tri fmt`: rewrite `.tri` files in the canonical style (`compiler.syntax.formatter`).

Input: files and directories (a directory means every `*.tri` below it, in sorted order), or
`-` alone: the source on standard input, named `<stdin>` in messages.
Without `--check` or `--diff`, each file whose formatted text differs is rewritten and its name
printed; standard input's formatted text is printed to standard output, changed or not.
With `--check`, nothing is written; each file that would change is printed, then (on stderr,
unless `--quiet`) how many and the `tri fmt --diff` command that shows the changes.
With `--diff`, nothing is written; a unified diff (`--- a/PATH`, `+++ b/PATH`) of each file
that would change is printed.

Exit code: 2 if a path cannot be read or standard input has a syntax error (nothing is
printed to standard output then); else 1 if a file has a syntax error (its diagnostics are
printed to stderr; a formatter cannot format broken input) or, with `--check` or `--diff`, if
a file would change; else 0.  Every file is processed even after a failure, so all problems
are reported.
"""

from __future__ import annotations

import difflib
import shlex
import sys
from pathlib import Path

from compiler.diagnostics import CompileError, render
from compiler.syntax.formatter import format_source
from tri.commands.common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    OUTPUT,
    UsageError,
    read_source,
    source_files,
)

STDIN = "-"  # the path that means standard input
STDIN_NAME = "<stdin>"  # its name in messages and diff headers


def register(commands) -> None:
    fmt = commands.add_parser("fmt")
    fmt.add_argument(
        "paths",
        nargs="*",
        metavar="FILE_OR_DIR",
        help=".tri files or directories (default: the project's directory), or - alone: "
        "format standard input to standard output",
    )
    mode = fmt.add_mutually_exclusive_group()
    mode.add_argument(
        "--check",
        action="store_true",
        help="change nothing; list the files that would change and exit 1 if there are any",
    )
    mode.add_argument(
        "--diff",
        action="store_true",
        help="change nothing; print a unified diff of the changes and exit 1 if there are any",
    )
    fmt.set_defaults(handler=command_fmt)


def command_fmt(arguments) -> int:
    if STDIN in arguments.paths:
        if len(arguments.paths) > 1:
            raise UsageError(
                "error: - (standard input) is formatted alone: give no other paths with it"
            )
        return _format_stdin(arguments)
    status = EXIT_OK
    changed = 0
    for path in source_files(arguments.paths):
        try:
            if isinstance(path, UsageError):
                raise path
            text = read_source(path)
        except UsageError as problem:
            print(problem, file=sys.stderr)
            status = EXIT_USAGE
            continue
        try:
            formatted = format_source(text, str(path))
        except CompileError as problem:  # source that does not parse: 2, as for every command
            _print_diagnostics(problem, text)
            status = EXIT_USAGE
            continue
        if formatted == text:
            continue
        if arguments.check or arguments.diff:
            changed += 1
            _report(arguments, str(path), text, formatted)
            status = max(status, EXIT_FAILED)
            continue
        try:
            path.write_text(formatted, encoding="utf-8")
        except OSError as error:
            print(f"error: cannot write {path}: {error.strerror or error}", file=sys.stderr)
            status = EXIT_USAGE
            continue
        print(path)
    if arguments.check and changed:
        _point_to_diff(changed, [path for path in arguments.paths if Path(path).exists()])
    return status


def _format_stdin(arguments) -> int:
    text = _read_stdin()
    try:
        formatted = format_source(text, STDIN_NAME)
    except CompileError as problem:
        _print_diagnostics(problem, text)
        return EXIT_USAGE
    if not (arguments.check or arguments.diff):
        sys.stdout.write(formatted)
        return EXIT_OK
    if formatted == text:
        return EXIT_OK
    _report(arguments, STDIN_NAME, text, formatted)
    if arguments.check:
        _point_to_diff(1, [STDIN])
    return EXIT_FAILED


def _read_stdin() -> str:
    """Standard input as UTF-8 text (a byte-order mark dropped), or a UsageError."""
    stream = getattr(sys.stdin, "buffer", sys.stdin)  # a test may put a text stream there
    data = stream.read()
    if isinstance(data, str):
        return data.removeprefix("\ufeff")
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as problem:
        line = data[: problem.start].count(b"\n") + 1
        byte = data[problem.start]
        raise UsageError(
            f"error: cannot read {STDIN_NAME}: not UTF-8 text (byte 0x{byte:02x} on line {line})"
        ) from None


def _print_diagnostics(problem: CompileError, text: str) -> None:
    for diagnostic in problem.diagnostics:
        print(render(diagnostic, text, OUTPUT.color), file=sys.stderr)


def _report(arguments, name: str, text: str, formatted: str) -> None:
    """What `--check` or `--diff` prints for a file that would change."""
    if arguments.diff:
        sys.stdout.write(unified_diff(text, formatted, name))
    else:
        print(name)


def _point_to_diff(changed: int, paths: list[str]) -> None:
    if OUTPUT.quiet:
        return
    files = "file" if changed == 1 else "files"
    command = shlex.join(["tri", "fmt", "--diff", *paths])
    print(f"{changed} {files} would be reformatted; '{command}' shows how", file=sys.stderr)


def unified_diff(before: str, after: str, name: str) -> str:
    """The unified diff from `before` to `after`, headed `--- a/NAME` and `+++ b/NAME` (a
    leading `/` of NAME dropped, as git does), with diff's `\\ No newline at end of file`
    after a last line that has no newline."""
    name = name.lstrip("/")
    lines = difflib.unified_diff(_lines(before), _lines(after), f"a/{name}", f"b/{name}")
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )


def _lines(text: str) -> list[str]:
    """`text` split after each `\\n` (only there: `str.splitlines` also splits at form feeds
    and other separators a source line may hold)."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]
