"""The `tri` command line: argument parsing and printing, nothing else.

Exit codes: 0 on success, 1 when the program fails (a VM error), 2 on bad
usage, unreadable files and syntax errors.  No input produces a traceback:
user errors are printed as one diagnostic line (plus the source line and a
caret for syntax errors); anything else is an internal error and says so.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from tri import __version__

# Every command: the module under tri.commands that registers it, and its one-line help.
# A module has `register(subparsers)`, which adds its parsers (with `add_parser(NAME)`;
# the help comes from here) and sets `handler` to a function from parsed arguments to an
# exit code.  Only the module of the command given is imported: `tri --version` loads no
# command at all, `tri view` not the compiler's back end (issue 14, start-up).
COMMANDS = {
    "run": ("run", "run a program and print its public output"),
    "cost": ("cost", "run a program and show its table heights and where they come from"),
    "check": ("check", "type-check .tri files and report every error"),
    "test": ("test", "run the #[test] functions of .tri files"),
    "view": ("view", "print a .tri or .tasm file with syntax highlighting"),
    "fmt": ("fmt", "format .tri source files in the canonical style"),
    "equiv": ("equiv", "check that two TASM blocks or two functions mean the same, failure too"),
    "audit": ("audit", "prove each function's contracts for all inputs, or find a counterexample"),
    "build": ("build", "compile a .tri program (or a module's public functions) to TASM"),
    "decisions": ("decisions", "show, freeze or check a table of -O2/-O3 block decisions"),
    "bench": ("bench", "compare the compiled stdlib with the hand-written baselines"),
    "hash": ("hash", "print a content hash of each function: its meaning, not its spelling"),
    "doc": ("doc", "write documentation of modules' public functions, constants and structs"),
    "superopt": ("superopt", "regenerate the proven superoptimizer rule database"),
    "train": ("train", "train the -O3 model on the shipped training set and write its weights"),
    "selfhost": ("selfhost", "compile the -O3 model's program by itself to a fixed point"),
    "new": ("new", "make a directory NAME with a project in it"),
    "init": ("new", "make a project of an existing directory"),
    "lsp": ("lsp", "run the language server for editors, on standard input and output"),
    "ask": ("ask", "answer an arithmetic question in words exactly, by a program run on the VM"),
}
COLORS = ("auto", "always", "never")
MESSAGE_FORMATS = ("human", "json")
# as in tri.commands.common, which `tri --version` does not load
EXIT_OK, EXIT_USAGE, EXIT_INTERRUPTED = 0, 2, 130

VALUE_OPTIONS = frozenset({"--input", "--secret", "--digest", "--ram"})


class _Parser(argparse.ArgumentParser):
    """argparse's parser with errors as the rest of tri prints them: one line and where to
    look, not the whole usage; an unknown option gets the closest of the command's own."""

    def error(self, message: str):
        prog = self.prog
        if message.startswith("unrecognized arguments: ") and self.known is not None:
            word = message.removeprefix("unrecognized arguments: ").split()[0]
            message += _closest_option(word, self.known)
            prog = self.known.prog
        self.exit(EXIT_USAGE, f"{prog}: error: {message}\n  (see '{prog} --help')\n")

    known = None  # the options of the command given, for the top-level parser's message


def _closest_option(word: str, parser: argparse.ArgumentParser) -> str:
    import difflib

    options = [o for action in parser._actions for o in action.option_strings]
    found = difflib.get_close_matches(word.split("=")[0], options, n=1, cutoff=0.6)
    return f"; did you mean '{found[0]}'?" if found else ""


class _Commands:
    """The subparsers action as a module's `register` sees it: each parser gets its help
    from COMMANDS and the output options."""

    def __init__(self, subparsers):
        self.subparsers = subparsers
        self.parsers: dict[str, argparse.ArgumentParser] = {}

    def add_parser(self, name: str, **options) -> argparse.ArgumentParser:
        parser = self.subparsers.add_parser(name, help=COMMANDS[name][1], **options)
        _add_output_options(parser, defaults=False)
        self.parsers[name] = parser
        return parser


def build_parser(only: str | None = None, stubs: bool = False) -> argparse.ArgumentParser:
    """The parser of every command, or of command `only`; with `stubs`, every command is
    named (for `tri --help`) but none is loaded."""
    parser = _Parser(prog="tri", description="tri: a toolchain for Trident programs on Triton VM")
    parser.add_argument("--version", action="version", version=f"tri {__version__}")
    _add_output_options(parser, defaults=True)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    if stubs:
        for name, (_, help_text) in COMMANDS.items():
            subparsers.add_parser(name, help=help_text)
        return parser
    names = [only] if only is not None else list(COMMANDS)
    modules = dict.fromkeys(COMMANDS[name][0] for name in names)
    commands = _Commands(subparsers)
    for module_name in modules:
        module = importlib.import_module(f"tri.commands.{module_name}")
        module.register(commands)
    if only is not None:
        parser.known = commands.parsers.get(only)
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
    parser.add_argument(
        "--message-format",
        choices=MESSAGE_FORMATS,
        help="diagnostics and run failures as human text (default) or json: one JSON object "
        "per line, where the text would go",
        **({"default": "human"} if defaults else keep),
    )


def _command_word(argv: list[str]) -> str | None:
    """The first word of the command line that is not an option (or an option's value)."""
    skip = False
    for token in argv:
        if skip:
            skip = False
        elif token in ("--color", "--message-format"):
            skip = True
        elif token == "--":
            return None
        elif not token.startswith("-"):
            return token
    return None


def _unknown_command(word: str) -> str:
    """The message for a first word that is not a command, with a suggestion."""
    from tri.commands.common import did_you_mean

    hint = did_you_mean(word, COMMANDS)
    return f"error: '{word}' is not a tri command{hint} (the commands: {', '.join(COMMANDS)})"


def _settle(arguments) -> None:
    """What the command line left open: the output settings, the project's settings and
    paths (tri.commands.project), and the optimization level."""
    from tri.commands.common import OUTPUT

    OUTPUT.quiet = arguments.quiet
    OUTPUT.message_format = arguments.message_format
    stream = sys.stderr
    OUTPUT.color = arguments.color == "always" or (
        arguments.color == "auto"
        and "NO_COLOR" not in os.environ
        and os.environ.get("TERM") != "dumb"
        and stream.isatty()
    )
    if arguments.command in ("new", "init", "lsp"):  # lsp: each file's own project
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
    word = _command_word(argv)
    if word is not None and word not in COMMANDS:
        print(_unknown_command(word), file=sys.stderr)
        return EXIT_USAGE
    parser = build_parser(only=word, stubs=word is None)
    arguments = parser.parse_args(argv)
    if arguments.command is None:
        parser.print_help()
        return EXIT_USAGE
    from tri.commands.common import UsageError

    try:
        _settle(arguments)
        return arguments.handler(arguments)
    except UsageError as error:
        print(error, file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader went away (`tri ... | head`): stop quietly
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - so that the exit flush cannot fail
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
