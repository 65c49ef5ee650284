"""The `tri` command line: argument parsing and printing, nothing else.

Exit codes: 0 on success, 1 when the program fails (a VM error), 2 on bad
usage, unreadable files and syntax errors.  No input produces a traceback:
user errors are printed as one diagnostic line (plus the source line and a
caret for syntax errors); anything else is an internal error and says so.
"""

from __future__ import annotations

import argparse
import os
import sys

from tri import __version__
from tri.commands import bench, build, check, cost, equiv, fmt, run, superopt, test, view
from tri.commands.common import EXIT_OK, EXIT_USAGE, UsageError

# Each command module has `register(subparsers)`, which adds its parsers and sets
# `handler` to a function from parsed arguments to an exit code.
COMMAND_MODULES = (run, cost, check, test, view, fmt, equiv, build, bench, superopt)

VALUE_OPTIONS = frozenset({"--input", "--secret", "--digest", "--ram"})


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tri", description="tri: a toolchain for Trident programs on Triton VM"
    )
    parser.add_argument("--version", action="version", version=f"tri {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMAND_MODULES:
        module.register(commands)
    return parser


def _attach_negative_values(argv: list[str]) -> list[str]:
    """`--input -1,5` -> `--input=-1,5`: argparse would take `-1,5` for an option."""
    result: list[str] = []
    for token in argv:
        if result and result[-1] in VALUE_OPTIONS and token[:2].replace("-", "", 1)[:1].isdigit():
            result[-1] = f"{result[-1]}={token}"
        else:
            result.append(token)
    return result


# Compiling walks the syntax tree recursively; a long operator chain is deep.
RECURSION_LIMIT = 20_000


def main(argv: list[str] | None = None) -> int:
    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
    parser = build_parser()
    arguments = parser.parse_args(_attach_negative_values(sys.argv[1:] if argv is None else argv))
    if arguments.command is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        return arguments.handler(arguments)
    except UsageError as error:
        print(error, file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`tri ... | head`): stop quietly
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - so that the exit flush cannot fail
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
