"""`tri fmt`: rewrite `.tri` files in the canonical style (`compiler.syntax.formatter`).

Input: files and directories (a directory means every `*.tri` below it, in sorted order).
Without `--check`, each file whose formatted text differs is rewritten and its name printed.
With `--check`, nothing is written; each file that would change is printed.

Exit code: 2 if a path cannot be read; else 1 if a file has a syntax error (its diagnostics are
printed to stderr; a formatter cannot format broken input) or, with `--check`, if a file would
change; else 0.  Every file is processed even after a failure, so all problems are reported.
"""

from __future__ import annotations

import sys

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


def register(commands) -> None:
    fmt = commands.add_parser("fmt")
    fmt.add_argument(
        "paths",
        nargs="*",
        metavar="FILE_OR_DIR",
        help=".tri files or directories (default: the project's directory)",
    )
    fmt.add_argument(
        "--check",
        action="store_true",
        help="change nothing; list the files that would change and exit 1 if there are any",
    )
    fmt.set_defaults(handler=command_fmt)


def command_fmt(arguments) -> int:
    status = EXIT_OK
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
        except CompileError as problem:
            for diagnostic in problem.diagnostics:
                print(render(diagnostic, text, OUTPUT.color), file=sys.stderr)
            status = max(status, EXIT_FAILED)
            continue
        if formatted == text:
            continue
        if arguments.check:
            print(path)
            status = max(status, EXIT_FAILED)
            continue
        try:
            path.write_text(formatted, encoding="utf-8")
        except OSError as error:
            print(f"error: cannot write {path}: {error.strerror or error}", file=sys.stderr)
            status = EXIT_USAGE
            continue
        print(path)
    return status
