"""`tri run`: execute a program and print its output; the run options `tri cost` shares.

A run is the VM's (`--engine`), or with `--target wasm` the program compiled to
WebAssembly and run by wasmtime (vm.wasm): the same output and failures, no table heights."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from compiler.failure_kinds import Kind
from tri import api
from tri.commands.build import source_program
from tri.commands.common import (
    EXIT_FAILED,
    EXIT_OK,
    OUTPUT,
    UsageError,
    digests,
    field_list,
    interruptible,
    is_tasm,
    load_tasm,
    positive,
    ram_cells,
)
from tri.commands.source import (
    add_budget_options,
    add_contract_option,
    add_level_options,
    add_model_options,
    add_profile_option,
    add_source_options,
    load_checked,
)
from vm.interp import DEFAULT_MAX_STEPS
from vm.isa import ISAS
from vm.jit import JitUnavailable
from vm.ram import RamImage


def register(commands) -> None:
    run = commands.add_parser("run")
    add_run_options(run)
    run.set_defaults(handler=command_run)


def add_run_options(parser: argparse.ArgumentParser, reference: bool = True) -> None:
    """The options of `tri run`; `tri cost` takes them all but `--reference`."""
    parser.add_argument(
        "program",
        nargs="?",
        help="a .tasm program, a Trident program (any other name) or a project directory "
        "(default: the project's entry)",
    )
    inputs = "repeatable, in order; @FILE (@- for stdin) reads whitespace- or comma-separated words"
    input_options = (  # (option, parser of one value, metavar, what it gives)
        ("--input", field_list, "1,2,3", f"public input words ({inputs})"),
        ("--secret", field_list, "4,5", f"secret input words, read by divine ({inputs})"),
        (
            "--digest",
            digests,
            "D0,D1,D2,D3,D4",
            "a secret digest for merkle_step, d0 first as io.read5() reads it "
            f"({inputs}: five words per digest)",
        ),
        ("--ram", ram_cells, "ADDR=VAL,...", f"initial RAM cells ({inputs})"),
    )
    for option, value_type, metavar, text in input_options:
        parser.add_argument(
            option, type=value_type, action="append", default=[], metavar=metavar, help=text
        )
    parser.add_argument("--isa", choices=ISAS, default="rel", help="instruction set (default: rel)")
    parser.add_argument(
        "--max-steps",
        type=positive,
        default=DEFAULT_MAX_STEPS,
        metavar="N",
        help=f"stop with StepLimitExceeded after N cycles (default {DEFAULT_MAX_STEPS})",
    )
    parser.add_argument(
        "--engine",
        choices=api.ENGINES,
        default="auto",
        help="interp: the interpreter; jit: native code via llvmlite; auto (default): the "
        "interpreter, moving to the JIT once a run has lasted long enough to pay for "
        "compiling (see docs/vm.md). All give identical results",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    if reference:
        parser.add_argument(
            "--target",
            choices=("vm", "wasm"),
            default="vm",
            help="vm (default): run on the VM; wasm: compile the TASM to WebAssembly and run "
            "it with wasmtime (the same output and failures; no table heights)",
        )
        parser.add_argument(
            "--function-profile",
            action="store_true",
            help="print, per TASM function and loop, its entries, cycles, rows per table and "
            'the tier it ran in (to stderr; with --json, under "profile")',
        )
        parser.add_argument(
            "--speedscope",
            metavar="FILE.json",
            help="write the function profile for the speedscope viewer (implies "
            "--function-profile)",
        )
        parser.add_argument(
            "--reference",
            action="store_true",
            help="run a Trident program on the reference evaluator instead of the VM",
        )
    add_level_options(parser)
    add_model_options(parser)
    add_profile_option(parser)
    add_budget_options(parser)
    add_source_options(parser)
    add_contract_option(parser)


def run_inputs(arguments) -> api.Inputs:
    """What --input, --secret, --digest and --ram give a run: each option's words in the
    order given, every repetition and file included."""
    return api.Inputs(
        public=tuple(word for words in arguments.input for word in words),
        secret=tuple(word for words in arguments.secret for word in words),
        digests=tuple(digest for group in arguments.digest for digest in group),
        ram=tuple(cell for cells in arguments.ram for cell in cells),
    )


def _execute(arguments) -> tuple:
    """(the program, the result of running it)."""
    if is_tasm(arguments.program):
        program = load_tasm(arguments.program, arguments.isa)
    else:
        program = source_program(arguments)  # compiled; also kept on `arguments`
    try:
        inputs = run_inputs(arguments)
        if getattr(arguments, "function_profile", False):
            return program, interruptible(lambda: _profiled(program, inputs, arguments))
        result = interruptible(
            lambda: api.execute(program, inputs, arguments.max_steps, arguments.engine)
        )
        return program, result
    except JitUnavailable as error:
        raise UsageError(f"error: --engine jit: {error}") from None


def _profiled(program, inputs: api.Inputs, arguments) -> api.Result:
    """Run and keep the run's profile (vm.profile) on `arguments`."""
    from vm.jit.tiers import run_tiered
    from vm.profile import profile

    tiers = None
    if arguments.engine == "tiered":
        ram = inputs.ram if isinstance(inputs.ram, RamImage) else dict(inputs.ram)
        tiered = run_tiered(
            program, inputs.public, inputs.secret, inputs.digests, ram, arguments.max_steps
        )
        record, tiers = tiered.run, tiered.tiers
    else:
        record = api.run(program, inputs, arguments.max_steps, arguments.engine)
    arguments.run_profile = profile(record, tiers, arguments.engine)
    return api.result_of(record)


def write_profile(arguments) -> None:
    """The profile to stderr (unless --json carries it) and to --speedscope."""
    found = getattr(arguments, "run_profile", None)
    if found is None:
        return
    if not arguments.json:
        print(found.text(), file=sys.stderr)
    if arguments.speedscope:
        name = Path(arguments.program).name
        text = json.dumps(found.speedscope(name), indent=1, sort_keys=True) + "\n"
        try:
            Path(arguments.speedscope).write_text(text, encoding="utf-8")
        except OSError as error:
            raise UsageError(f"error: cannot write {arguments.speedscope}: {error}") from None


def vm_failure(program, error, inputs: api.Inputs, engine: str):
    """The VM error of a run of `program` in the language's terms (compiler.failures),
    its operands read from a second run of the same inputs on the same engine (an engine
    of `api.ENGINES`, or "wasm": the WebAssembly target)."""
    from compiler.failures import vm_failure as explain

    return explain(program, error, rerun(program, inputs, engine))


def rerun(program, inputs: api.Inputs, engine: str):
    """cycles -> the record of a run of `program` on `inputs` stopped after that many."""
    if engine != WASM:
        return lambda cycles: api.run(program, inputs, cycles, engine)
    from vm.wasm.runtime import execute_wasm

    ram = inputs.ram if isinstance(inputs.ram, RamImage) else dict(inputs.ram)
    return lambda cycles: execute_wasm(
        program, inputs.public, inputs.secret, inputs.digests, ram, cycles
    )


WASM = "wasm"  # the engine name of a `--target wasm` run


# A failing run of a source program at most this long is also run on the reference
# evaluator, with a budget of SOURCE_ORDER_STEPS_PER_CYCLE evaluator steps per cycle (steps,
# never seconds), to say where the source order fails first when that is elsewhere.
SOURCE_ORDER_CYCLES = 1 << 20
SOURCE_ORDER_STEPS_PER_CYCLE = 8


def run_failure(program, error, inputs: api.Inputs, engine: str, checked=None):
    """`vm_failure`, and for a source program (`checked`) the source order's failure of the
    same input where that is at another construct (compiler.failures.first_in_source)."""
    from compiler.failures import first_in_source

    failure = vm_failure(program, error, inputs, engine)
    if (
        checked is None
        or error.kind == Kind.STEP_LIMIT_EXCEEDED
        or error.cycle > SOURCE_ORDER_CYCLES
    ):
        return failure
    evaluation = evaluate_source(checked, inputs, SOURCE_ORDER_STEPS_PER_CYCLE * (error.cycle + 1))
    reference = evaluation.failure()
    if reference is None or reference.kind == Kind.STEP_LIMIT_EXCEEDED:
        return failure
    return first_in_source(failure, reference)


def result_json(program, result: api.Result, inputs: api.Inputs, engine: str, checked=None) -> dict:
    """`result.as_json()` with the error's source location, when there is one."""
    report = result.as_json()
    if result.error is not None:
        failure = run_failure(program, result.error, inputs, engine, checked)
        report["error"]["location"] = failure.as_json()
    return report


def report_error(
    program, result: api.Result, inputs: api.Inputs, engine: str, checked=None
) -> None:
    """Print the run's error, if any: at its source line when the program has a source map."""
    if result.error is not None:
        failure = run_failure(program, result.error, inputs, engine, checked)
        show_failure(failure)


def show_failure(failure) -> None:
    """A run failure on stderr: rendered, or one JSON object with --message-format json."""
    from compiler.failures import render

    if OUTPUT.message_format == "json":
        print(json.dumps(failure.as_message()), file=sys.stderr)
    else:
        print(render(failure, OUTPUT.color), file=sys.stderr)


def command_run(arguments) -> int:
    if arguments.reference and is_tasm(arguments.program):
        raise UsageError("error: --reference runs Trident source; a .tasm program runs on the VM")
    if arguments.reference and arguments.target == WASM:
        raise UsageError("error: --reference runs the evaluator; --target wasm runs WebAssembly")
    if arguments.reference:
        return run_source(arguments)
    if arguments.target == WASM:
        return run_wasm(arguments)
    arguments.function_profile = arguments.function_profile or bool(arguments.speedscope)
    program, result = _execute(arguments)
    inputs = run_inputs(arguments)
    checked = getattr(arguments, "checked", None)
    if arguments.json:
        report = result_json(program, result, inputs, arguments.engine, checked)
        if arguments.function_profile:
            report["profile"] = arguments.run_profile.as_json()
        print(json.dumps(report))
    else:
        for value in result.output:
            print(value)
        report_error(program, result, inputs, arguments.engine, checked)
    write_profile(arguments)
    return EXIT_OK if result.error is None else EXIT_FAILED


def run_wasm(arguments) -> int:
    """`tri run --target wasm`: the program's TASM as WebAssembly, run by wasmtime with the
    step limit counted by the module itself; the output and failures are the VM's, the
    report has the cycles and the fuel wasmtime spent, and no table heights."""
    vm_only = {
        "--engine": arguments.engine != "auto",
        "--function-profile": arguments.function_profile,
        "--speedscope": arguments.speedscope,
    }
    given = [option for option, present in vm_only.items() if present]
    if given:
        raise UsageError(f"error: {given[0]} is the VM's; --target wasm runs on wasmtime")
    try:
        import wasmtime  # noqa: F401  (the optional extra)

        from vm.wasm.runtime import execute_wasm
        from vm.wasm.translate import WasmUnsupported
    except ImportError:
        raise UsageError(
            "error: --target wasm needs the wasmtime package: pip install 'tri[wasm]'"
        ) from None
    if is_tasm(arguments.program):
        program = load_tasm(arguments.program, arguments.isa)
    else:
        program = source_program(arguments)
    inputs = run_inputs(arguments)
    ram = inputs.ram if isinstance(inputs.ram, RamImage) else dict(inputs.ram)
    try:
        record = interruptible(
            lambda: execute_wasm(
                program, inputs.public, inputs.secret, inputs.digests, ram, arguments.max_steps
            )
        )
    except WasmUnsupported as refusal:
        raise UsageError(f"error: --target wasm: {refusal}") from None
    checked = getattr(arguments, "checked", None)
    failure = None
    if record.error is not None:
        failure = run_failure(program, record.error, inputs, WASM, checked)
        failure = dataclasses.replace(failure, machine="the wasm run")
    if arguments.json:
        error = api.error_json(record.error)
        if failure is not None:
            error["location"] = failure.as_json()
        report = {"target": WASM, "output": record.output, "cycles": record.cycles}
        report.update(fuel=record.fuel, error=error)
        print(json.dumps(report))
    else:
        for value in record.output:
            print(value)
        if failure is not None:
            show_failure(failure)
    return EXIT_OK if record.error is None else EXIT_FAILED


def evaluate_source(checked, inputs: api.Inputs, max_steps: int):
    """The reference evaluator's run of a checked program on these inputs."""
    from compiler.evaluate import evaluate  # imported on use: it loads the front end

    return evaluate(
        checked,
        public_input=inputs.public,
        secret_input=inputs.secret,
        secret_digests=inputs.digests,
        ram=dict(inputs.ram),
        max_steps=max_steps,
    )


def run_source(arguments) -> int:
    """`tri run PROG.tri --reference`: the reference evaluator (without it: compiled, the VM)."""
    checked = load_checked(arguments.program, arguments)
    if checked.entry is None:
        raise UsageError(f"error: {arguments.program} is a module; only a program can run")
    evaluation = evaluate_source(checked, run_inputs(arguments), arguments.max_steps)
    if arguments.json:
        print(json.dumps(evaluation.as_json()))
    else:
        for value in evaluation.output:
            print(value)
        if evaluation.error is not None:
            show_failure(evaluation.failure())
    return EXIT_OK if evaluation.error is None else EXIT_FAILED
