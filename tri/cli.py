"""The `tri` command line: argument parsing and printing, nothing else.

Exit codes: 0 on success, 1 when the program fails (a VM error), 2 on bad
usage, unreadable files and syntax errors.  No input produces a traceback:
user errors are printed as one diagnostic line (plus the source line and a
caret for syntax errors); anything else is an internal error and says so.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from tri import __version__, api
from vm.field import P
from vm.interp import DEFAULT_MAX_STEPS
from vm.isa import ISAS
from vm.tables import REPORT_ORDER
from vm.tasm import TasmSyntaxError

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad command-line input, an unreadable file or a syntax error: exit code 2.

    The message is complete as it stands and is printed unchanged.
    """


# --- argument types --------------------------------------------------------------------------


def _field_value(text: str) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text.strip()}' is not an integer") from None
    if not -P < value < P:
        raise argparse.ArgumentTypeError(f"{value} is outside (-p, p)")
    return value % P


def _field_list(text: str) -> tuple[int, ...]:
    if not text.strip():
        return ()
    return tuple(_field_value(part) for part in text.split(","))


def _digest(text: str) -> tuple[int, ...]:
    values = _field_list(text)
    if len(values) != 5:
        raise argparse.ArgumentTypeError(f"a digest has 5 words, got {len(values)}")
    return values


def _ram(text: str) -> tuple[tuple[int, int], ...]:
    cells = []
    for part in filter(None, (part.strip() for part in text.split(","))):
        address, equals, value = part.partition("=")
        if not equals:
            raise argparse.ArgumentTypeError(f"'{part}' is not ADDR=VALUE")
        cells.append((_field_value(address), _field_value(value)))
    return tuple(cells)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("must be positive")
    return value


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("program", help="a .tasm program")
    parser.add_argument(
        "--input", type=_field_list, default=(), metavar="1,2,3", help="public input words"
    )
    parser.add_argument(
        "--secret", type=_field_list, default=(), metavar="4,5", help="secret input words (divine)"
    )
    parser.add_argument(
        "--digest",
        type=_digest,
        action="append",
        default=[],
        metavar="A,B,C,D,E",
        help="a secret digest for merkle_step (repeatable, consumed in order)",
    )
    parser.add_argument(
        "--ram",
        type=_ram,
        action="append",
        default=[],
        metavar="ADDR=VAL,...",
        help="initial RAM cells",
    )
    parser.add_argument("--isa", choices=ISAS, default="rel", help="instruction set (default: rel)")
    parser.add_argument(
        "--max-steps",
        type=_positive,
        default=DEFAULT_MAX_STEPS,
        metavar="N",
        help=f"stop with StepLimitExceeded after N cycles (default {DEFAULT_MAX_STEPS})",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tri", description="tri: a toolchain for Trident programs on Triton VM"
    )
    parser.add_argument("--version", action="version", version=f"tri {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    run = commands.add_parser("run", help="run a program and print its public output")
    _add_run_options(run)
    cost = commands.add_parser(
        "cost", help="run a program and show its table heights and padded height"
    )
    _add_run_options(cost)
    return parser


# --- commands --------------------------------------------------------------------------------


def _load(path_text: str, isa: str):
    path = Path(path_text)
    if path.suffix == ".tri":
        raise UsageError(
            f"error: {path}: compiling .tri source is not supported yet; pass a .tasm file"
        )
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(
            f"error: cannot read {path}: {getattr(error, 'strerror', None) or error}"
        ) from None
    try:
        return api.assemble(text, isa)
    except TasmSyntaxError as error:
        raise UsageError(_render_syntax_error(path, text, error)) from None


def _render_syntax_error(path: Path, text: str, error: TasmSyntaxError) -> str:
    lines = text.splitlines() or [""]
    source = lines[error.line - 1] if error.line <= len(lines) else ""
    gutter = f"{error.line} | "
    caret = " " * (len(gutter) + error.column - 1) + "^"
    headline = f"{path}:{error.line}:{error.column}: error[{error.code}]: {error.message}"
    return f"{headline}\n{gutter}{source}\n{caret}"


def _execute(arguments) -> api.Result:
    program = _load(arguments.program, arguments.isa)
    inputs = api.Inputs(
        public=arguments.input,
        secret=arguments.secret,
        digests=tuple(arguments.digest),
        ram=tuple(cell for cells in arguments.ram for cell in cells),
    )
    return api.execute(program, inputs, arguments.max_steps)


def _report_error(result: api.Result) -> None:
    if result.error is not None:
        print(f"error: {result.error}", file=sys.stderr)


def command_run(arguments) -> int:
    result = _execute(arguments)
    if arguments.json:
        print(json.dumps(result.as_json()))
    else:
        for value in result.output:
            print(value)
        _report_error(result)
    return EXIT_OK if result.error is None else EXIT_FAILED


def command_cost(arguments) -> int:
    result = _execute(arguments)
    heights = result.heights
    slack = result.padded_height - heights.maximum
    if arguments.json:
        report = result.as_json()
        report.update(dominant=heights.dominant, slack=slack)
        print(json.dumps(report))
        return EXIT_OK if result.error is None else EXIT_FAILED
    table = Table(title=Path(arguments.program).name, title_justify="left")
    table.add_column("table")
    table.add_column("height", justify="right")
    table.add_column("")
    values = heights.as_dict()
    for name in REPORT_ORDER:
        table.add_row(name, str(values[name]), "dominant" if name in heights.dominant else "")
    console = Console(highlight=False)
    console.print(table)
    exponent = result.padded_height.bit_length() - 1
    console.print(f"cycles         {result.cycles}")
    console.print(
        f"padded height  {result.padded_height} = 2^{exponent}, "
        f"set by {', '.join(heights.dominant)}"
    )
    console.print(f"slack          {slack} rows before it doubles to 2^{exponent + 1}")
    _report_error(result)
    return EXIT_OK if result.error is None else EXIT_FAILED


COMMANDS = {"run": command_run, "cost": command_cost}


def _attach_negative_values(argv: list[str]) -> list[str]:
    """`--input -1,5` -> `--input=-1,5`: argparse would take `-1,5` for an option."""
    result: list[str] = []
    for token in argv:
        if result and result[-1] in VALUE_OPTIONS and token[:2].replace("-", "", 1)[:1].isdigit():
            result[-1] = f"{result[-1]}={token}"
        else:
            result.append(token)
    return result


VALUE_OPTIONS = frozenset({"--input", "--secret", "--digest", "--ram"})


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    arguments = parser.parse_args(_attach_negative_values(sys.argv[1:] if argv is None else argv))
    if arguments.command is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        return COMMANDS[arguments.command](arguments)
    except UsageError as error:
        print(error, file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
