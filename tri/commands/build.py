"""`tri build`: compile a .tri program (or a module alone) to TASM or TIR.

Also what `tri run` and `tri cost` need for .tri files: compiling a source
file for the VM, and the per-function report of `tri cost` (measured cycles
and calls beside the static estimate of tir.md §7).
"""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from tri.commands.common import EXIT_OK, UsageError
from tri.commands.source import add_source_options, load_checked, render_all
from vm.isa import ISAS

# The compiler is imported when a command needs it, so that `tri run X.tasm` stays quick.
EMIT = ("tir", "tasm")
TABLES = ("processor", "hash", "u32", "op_stack", "ram", "jump_stack")


def register(commands) -> None:
    build = commands.add_parser(
        "build", help="compile a .tri program (or a module's public functions) to TASM"
    )
    build.add_argument("program", help="a .tri program or module")
    build.add_argument("-o", dest="output", metavar="OUT.tasm", help="write here, not stdout")
    build.add_argument("--emit", choices=EMIT, default="tasm", help="what to print (default tasm)")
    build.add_argument("--no-opt", action="store_true", help="skip the peephole passes")
    build.add_argument("--isa", choices=ISAS, default="rel", help="instruction set (default: rel)")
    add_source_options(build)
    build.set_defaults(handler=command_build)


def compile_source(path_text: str, arguments, optimize: bool = True, isa: str = "rel"):
    """(checked, compiled) for a .tri file; every problem becomes a UsageError (exit 2)."""
    if not path_text.endswith(".tri"):
        raise UsageError(f"error: {path_text}: expected a .tri source file")
    from compiler.diagnostics import CompileError
    from compiler.pipeline import compile_program

    checked = load_checked(path_text, arguments)
    try:
        compiled = compile_program(checked, optimize=optimize, isa=isa)
    except CompileError as failure:
        raise UsageError(render_all(failure.diagnostics)) from None
    return checked, compiled


def command_build(arguments) -> int:
    _, compiled = compile_source(
        arguments.program, arguments, optimize=not arguments.no_opt, isa=arguments.isa
    )
    text = compiled.emit(arguments.emit)
    if arguments.output:
        try:
            Path(arguments.output).write_text(text, encoding="utf-8")
        except OSError as problem:
            reason = problem.strerror
            raise UsageError(f"error: cannot write {arguments.output}: {reason}") from None
    else:
        sys.stdout.write(text)
    return EXIT_OK


def source_program(arguments):
    """The assembled program of a .tri file for `tri run` / `tri cost` (kept on `arguments`)."""
    checked, compiled = compile_source(
        arguments.program,
        arguments,
        optimize=not getattr(arguments, "no_opt", False),
        isa=arguments.isa,
    )
    if checked.entry is None:
        raise UsageError(f"error: {arguments.program} is a module; only a program can run")
    arguments.checked, arguments.compiled = checked, compiled
    return compiled.program


def function_report(arguments) -> list[dict]:
    """Per function: calls and cycles measured on the VM, and the static estimate."""
    from compiler.tir.cost import function_costs
    from vm import interp

    compiled, checked = arguments.compiled, arguments.checked
    run = interp.execute(
        compiled.program,
        arguments.input,
        arguments.secret,
        tuple(arguments.digest),
        dict(cell for cells in arguments.ram for cell in cells),
        arguments.max_steps,
    )
    static = function_costs(checked, [f.label for f in compiled.asm.functions])
    report, address = [], 3  # after `call main` `halt`
    for function in compiled.asm.functions:
        start = address
        for item in function.items:
            if hasattr(item, "arg"):
                address += 1 if item.arg is None else 2
        cycles = sum(run.visits[start:address])
        report.append(
            {
                "function": function.label,
                "calls": run.visits[start],
                "cycles": cycles,
                "static": static[function.label].as_dict(),
            }
        )
    return report


def static_report(arguments) -> dict:
    from compiler.tir.cost import program_cost

    cost = program_cost(arguments.checked)
    return {**cost.as_dict(), "padded_height": cost.padded_height}


def print_function_report(arguments) -> None:
    console = Console(highlight=False, width=max(Console().width, 120))
    static = static_report(arguments)
    console.print(
        "static estimate (tir.md §7: RC's six tables, every loop at its bound)  "
        + ", ".join(f"{name} {static[name]}" for name in TABLES)
        + f"; these six padded: {static['padded_height']} (the lookup table is always 256)"
    )
    table = Table(
        title="per function: measured on this run; static estimate of one call "
        "(loops at their bound)",
        title_justify="left",
    )
    table.add_column("function", no_wrap=True)
    table.add_column("calls", justify="right")
    table.add_column("cycles", justify="right")
    table.add_column("static " + "/".join(SHORT), justify="right", no_wrap=True)
    for row in function_report(arguments):
        vector = "/".join(str(row["static"][name]) for name in TABLES)
        table.add_row(row["function"], str(row["calls"]), str(row["cycles"]), vector)
    console.print(table)


SHORT = ("cc", "hash", "u32", "opst", "ram", "jump")
