"""`tri test FILE_OR_DIR... [-k TEXT] [--max-steps N] [--engine E] [--json] [-O LEVEL]`.

Each file is checked as an entry point.  Its tests:
- each `#[test]` function of the file (no parameters, no result), compiled as the
  program's entry and run with no input; it passes when the run halts;
- for a program, each `// run: FLAGS => OUTPUT [error KIND]` line
  (tri.commands.run_lines), named `run:LINE`: the program run on the line's inputs;
  it passes when the output is the line's and the run fails exactly when the line says.
Runs are on `--engine` (auto: the JIT for long runs).  A failure is printed at its
source line, in the language's terms (compiler.failures).  A test whose VM run ended
within REFERENCE_CYCLES cycles (any that ended, with `--reference`; none, with
`--no-reference`) also runs on the reference evaluator, which must agree: if it does
not, that is a bug in tri, and the test is reported as such; a `run:` line's error kind
is checked against the evaluator's, the language's kind.

Exit codes: 0 when every test passed (or there were none), 1 when one failed,
2 on bad usage or source that does not check or compile.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from dataclasses import dataclass

from tri.commands.common import (
    EXIT_FAILED,
    EXIT_OK,
    OUTPUT,
    UsageError,
    existing_source_files,
    positive,
)
from tri.commands.source import (
    add_contract_option,
    add_level_options,
    add_source_options,
    check_path,
    flags_for,
    render_all,
    resolver_for,
)
from vm.interp import DEFAULT_MAX_STEPS, STEP_LIMIT_KIND

UNLIMITED = 1 << 62  # the evaluator always ends (no recursion, every loop counted)
# By default a test also runs on the reference evaluator when its VM run ended within this
# many cycles: the evaluator is a tree walker, some hundred times slower than the JIT.
REFERENCE_CYCLES = 1 << 20
ENGINES = ("auto", "interp", "jit", "tiered")


def _step_limit(run) -> bool:
    return run.error is not None and run.error.kind == STEP_LIMIT_KIND


def register(commands) -> None:
    parser = commands.add_parser("test")
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="FILE_OR_DIR",
        help=".tri files or directories (default: the project's directory)",
    )
    parser.add_argument("-k", dest="keyword", metavar="TEXT", help="only tests whose name has TEXT")
    parser.add_argument(
        "--max-steps",
        type=positive,
        default=DEFAULT_MAX_STEPS,
        metavar="N",
        help=f"fail a test that runs more than N cycles (default {DEFAULT_MAX_STEPS})",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        default="auto",
        help="interp: the interpreter; jit: native code via llvmlite; auto (default): the "
        "interpreter, moving to the JIT once a run has lasted long enough to pay for compiling",
    )
    parser.add_argument(
        "--reference",
        dest="reference",
        action="store_const",
        const="always",
        default="auto",
        help="run every test that ends within --max-steps on the reference evaluator too "
        f"(default: those that end within {REFERENCE_CYCLES} cycles)",
    )
    parser.add_argument(
        "--no-reference",
        dest="reference",
        action="store_const",
        const="never",
        help="run no test on the reference evaluator (faster)",
    )
    add_level_options(parser)
    add_source_options(parser)
    add_contract_option(parser)
    parser.set_defaults(handler=command_test)


def _compiled(checked, key: str, level: int):
    from compiler.diagnostics import CompileError
    from compiler.driver import compile_program

    try:
        return compile_program(dataclasses.replace(checked, entry=key), level).program
    except CompileError as failure:
        raise UsageError(render_all(failure.diagnostics)) from None


def _test_functions(arguments, path, checked) -> list[Outcome]:
    """Each `#[test]` function of the file, compiled as the entry, run with no input."""
    from compiler.evaluate import call_function
    from tri import api

    outcomes = []
    for key, instance in checked.instances.items():
        function = instance.function
        if instance.module != checked.project.entry.name or not function.attribute("test"):
            continue
        if arguments.keyword and arguments.keyword not in function.name:
            continue
        program = _compiled(checked, key, arguments.level)
        run, failure = _run(arguments, program, api.Inputs())
        evaluation, disagreement = _reference(
            arguments, run, lambda key=key: call_function(checked, key, [], max_steps=UNLIMITED)
        )
        error = disagreement or _failure_text(failure)
        passed = run.error is None and disagreement is None
        outcomes.append(
            Outcome(str(path), function.name, passed, run.cycles, error, failure, evaluation)
        )
    return outcomes


def _run_lines(arguments, path, checked) -> list[Outcome]:
    """Each `// run:` line of a program file: the program run on the line's inputs, its
    output and failure compared with the line's (tri.commands.run_lines)."""
    from tri import api
    from tri.commands.run import evaluate_source
    from tri.commands.run_lines import RunLineError, parse_run_line

    if checked.entry is None:
        return []
    cases = []
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            case = parse_run_line(number, text)
        except RunLineError as error:
            raise UsageError(_run_line_error(path, number, text, error)) from None
        if case is not None and (not arguments.keyword or arguments.keyword in f"run:{number}"):
            cases.append(case)
    if not cases:
        return []
    program = _compiled(checked, checked.entry, arguments.level)
    outcomes = []
    for case in cases:
        inputs = api.Inputs(case.public, case.secret, tuple(case.digests), tuple(case.ram.items()))
        run, failure = _run(arguments, program, inputs)
        evaluation, disagreement = _reference(
            arguments, run, lambda inputs=inputs: evaluate_source(checked, inputs, UNLIMITED)
        )
        error = disagreement or _mismatch(case, run, failure, evaluation)
        if failure is not None and error != _failure_text(failure):
            failure = None  # the message is not the failure's: print no source line for it
        name = f"run:{case.line}"
        outcomes.append(
            Outcome(str(path), name, error is None, run.cycles, error, failure, evaluation)
        )
    return outcomes


def _run_line_error(path, number: int, text: str, error) -> str:
    from compiler.diagnostics import error as diagnostic
    from compiler.diagnostics import render
    from compiler.syntax.ast import Span

    span = Span(number, error.column, number, max(error.column, len(text)))
    hint = "write `// run: --input 1,2 => 3, 4` (or `=> error KIND` for a failing run)"
    shown = diagnostic("E0113", str(error), str(path), span, hint)
    return render(shown, path.read_text(encoding="utf-8"), OUTPUT.color)


def _run(arguments, program, inputs):
    """The run on the chosen engine, and its failure in the language's terms (or None)."""
    from tri import api
    from tri.commands.run import vm_failure

    run = api.run(program, inputs, arguments.max_steps, arguments.engine)
    if run.error is None:
        return run, None
    return run, vm_failure(program, run.error, inputs, arguments.engine)


def _failure_text(failure) -> str | None:
    return None if failure is None else f"{failure.kind}: {failure.message}"


def _reference(arguments, run, evaluate):
    """(the reference evaluator's run, or None where the policy skips it; what the two
    disagree about, or None).  `auto` checks every test that halted or failed within
    REFERENCE_CYCLES cycles, `always` every one within the step limit."""
    if arguments.reference == "never" or _step_limit(run):
        return None, None
    if arguments.reference == "auto" and run.cycles > REFERENCE_CYCLES:
        return None, None
    # the VM halted (or failed) within the limit: so does the evaluator, whose steps are
    # not cycles, so it gets no limit of its own
    oracle = evaluate()
    if run.output == oracle.output and (run.error is None) == (oracle.error is None):
        return oracle, None
    vm = run.error.kind if run.error else "halted"
    found = oracle.error.kind if oracle.error else "finished"
    return oracle, (
        f"internal error: the VM and the reference evaluator disagree (VM: output "
        f"{run.output}, {vm}; evaluator: output {oracle.output}, {found}); please report this"
    )


def _mismatch(case, run, failure, evaluation) -> str | None:
    """What a run does that its `// run:` line does not say, or None."""
    if run.output != case.output:
        return f"output {run.output}, expected {case.output}"
    if case.error is None:
        return _failure_text(failure)
    if run.error is None:
        return f"the run halted; expected error {case.error}"
    if evaluation is not None and evaluation.error.kind != case.error:
        return f"failed with {evaluation.error.kind}, expected error {case.error}"
    return None


@dataclass
class Outcome:
    path: str
    name: str
    passed: bool
    cycles: int
    error: str | None  # the VM error, or what went wrong in tri
    failure: object = None  # the VM error in the language's terms (compiler.failures)
    reference: object = None  # the reference evaluator's run, where it checked this one

    def as_json(self) -> dict:
        return {
            "file": self.path,
            "test": self.name,
            "passed": self.passed,
            "cycles": self.cycles,
            "error": self.error,
            "location": None if self.failure is None else self.failure.as_json(),
            "reference": self.reference is not None,
        }


def command_test(arguments) -> int:
    resolver = resolver_for(arguments)
    outcomes = []
    for path in existing_source_files(arguments.paths):
        checked, diagnostics = check_path(path, resolver, flags_for(arguments))
        if checked is None:
            raise UsageError(render_all(diagnostics))
        outcomes += _test_functions(arguments, path, checked)
        outcomes += _run_lines(arguments, path, checked)
    from compiler.failures import render

    failed = [outcome for outcome in outcomes if not outcome.passed]
    if arguments.json:
        print(json.dumps({"tests": [o.as_json() for o in outcomes], "failed": len(failed)}))
    else:
        for outcome in outcomes:
            where = f"{outcome.path}::{outcome.name}"
            if outcome.passed:
                if not OUTPUT.quiet:
                    print(f"PASS {where} ({outcome.cycles} cycles)")
            elif outcome.failure is not None and outcome.failure.origin is not None:
                print(f"FAIL {where}: {outcome.failure.origin.where}: {outcome.failure.message}")
                shown = render(outcome.failure, OUTPUT.color)
                print(shown.split("\n", 1)[1])  # the source line and caret
            else:
                print(f"FAIL {where}: {outcome.error}")
        count = len(outcomes)
        summary = f"{count} test{'s' * (count != 1)}: {count - len(failed)} passed"
        summary += f", {len(failed)} failed"
        unchecked = sum(
            outcome.reference is None and outcome.cycles > REFERENCE_CYCLES
            for outcome in outcomes
            if arguments.reference == "auto"
        )
        if unchecked:
            summary += (
                f" ({unchecked} longer than {REFERENCE_CYCLES} cycles not run on the reference "
                "evaluator: --reference runs them)"
            )
        if not OUTPUT.quiet or failed:
            print(summary, file=sys.stderr if failed else sys.stdout)
    return EXIT_FAILED if failed else EXIT_OK
