"""`tri run` and `tri cost`: execute a program and report its output or its cost."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from tri import api
from tri.commands.common import (
    EXIT_FAILED,
    EXIT_OK,
    digest,
    field_list,
    load_tasm,
    positive,
    ram_cells,
)
from vm.interp import DEFAULT_MAX_STEPS
from vm.isa import ISAS
from vm.tables import REPORT_ORDER


def register(commands) -> None:
    run = commands.add_parser("run", help="run a program and print its public output")
    add_run_options(run)
    run.set_defaults(handler=command_run)
    cost = commands.add_parser("cost", help="run a program and show its table heights")
    add_run_options(cost)
    cost.set_defaults(handler=command_cost)


def add_run_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("program", help="a .tasm program")
    parser.add_argument(
        "--input", type=field_list, default=(), metavar="1,2,3", help="public input words"
    )
    parser.add_argument(
        "--secret", type=field_list, default=(), metavar="4,5", help="secret input words (divine)"
    )
    parser.add_argument(
        "--digest",
        type=digest,
        action="append",
        default=[],
        metavar="A,B,C,D,E",
        help="a secret digest for merkle_step (repeatable, consumed in order)",
    )
    parser.add_argument(
        "--ram",
        type=ram_cells,
        action="append",
        default=[],
        metavar="ADDR=VAL,...",
        help="initial RAM cells",
    )
    parser.add_argument("--isa", choices=ISAS, default="rel", help="instruction set (default: rel)")
    parser.add_argument(
        "--max-steps",
        type=positive,
        default=DEFAULT_MAX_STEPS,
        metavar="N",
        help=f"stop with StepLimitExceeded after N cycles (default {DEFAULT_MAX_STEPS})",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _execute(arguments) -> api.Result:
    program = load_tasm(arguments.program, arguments.isa)
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
