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
from tri.commands import bench, build, check, cost, equiv, fmt, new, run, test, view
from tri.commands.common import EXIT_OK, EXIT_USAGE, OUTPUT, UsageError, did_you_mean

# Each command module has `register(subparsers)`, which adds its parsers and sets
# `handler` to a function from parsed arguments to an exit code.
COMMAND_MODULES = (run, cost, check, test, view, fmt, equiv, build, bench, new)
COLORS = ("auto", "always", "never")

VALUE_OPTIONS = frozenset({"--input", "--secret", "--digest", "--ram"})


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tri", description="tri: a toolchain for Trident programs on Triton VM"
    )
    parser.add_argument("--version", action="version", version=f"tri {__version__}")
    _add_output_options(parser, defaults=True)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMAND_MODULES:
        module.register(commands)
    for command in commands.choices.values():
        _add_output_options(command, defaults=False)
    return parser


def _add_output_options(parser: argparse.ArgumentParser, defaults: bool) -> None:
    """--quiet and --color, before the command or after it (a subcommand's own copies
    default to nothing, so that they do not undo one given before the command)."""
    keep = {} if defaults else {"default": argparse.SUPPRESS}
    parser.add_argument(
        "--quiet",
        action="store_true",
        help="print only the output asked for and errors: no warnings, notes or summaries",
        **({"default": False} if defaults else keep),
    )
    parser.add_argument(
        "--color",
        choices=COLORS,
        help="colour diagnostics: auto (default: on a terminal, unless NO_COLOR is set), "
        "always or never",
        **({"default": "auto"} if defaults else keep),
    )


def _unknown_command(argv: list[str], parser) -> str | None:
    """The message for a first word that is not a command (with a suggestion), or None."""
    commands = next(
        action.choices
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction)
    )
    skip = False
    for token in argv:
        if skip:
            skip = False
            continue
        if token == "--color":
            skip = True
            continue
        if token.startswith("-"):
            continue
        if token in commands:
            return None
        hint = did_you_mean(token, commands)
        return f"error: '{token}' is not a tri command{hint} (the commands: {', '.join(commands)})"
    return None


def _settle(arguments) -> None:
    """What the command line left open: the output settings, the project's settings and
    paths (tri.commands.project), and the optimization level."""
    OUTPUT.quiet = arguments.quiet
    stream = sys.stderr
    OUTPUT.color = arguments.color == "always" or (
        arguments.color == "auto"
        and "NO_COLOR" not in os.environ
        and os.environ.get("TERM") != "dumb"
        and stream.isatty()
    )
    if arguments.command in ("new", "init"):
        return
    from tri.commands.project import apply_project, program_path, project_for, source_paths

    apply_project(arguments, project_for(arguments))
    if getattr(arguments, "level", "absent") is None:
        from compiler.levels import DEFAULT_LEVEL

        arguments.level = DEFAULT_LEVEL
    if hasattr(arguments, "program"):
        arguments.program = program_path(arguments, arguments.program)
    if hasattr(arguments, "paths"):
        arguments.paths = source_paths(arguments, arguments.paths)


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
    argv = _attach_negative_values(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    unknown = _unknown_command(argv, parser)
    if unknown is not None:
        print(unknown, file=sys.stderr)
        return EXIT_USAGE
    arguments = parser.parse_args(argv)
    if arguments.command is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        _settle(arguments)
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
