"""`tri test FILE_OR_DIR... [-k TEXT] [--max-steps N] [--json] [--no-reference] [-O LEVEL]`.

Each file is checked as an entry point; each `#[test]` function of that file (no
parameters, no result: language.md §4.1) is compiled as the program's entry and run
on the VM, with no input.  A test passes when the run halts and fails on a VM error,
a failed `assert` being the usual one; the failure is printed at its source line, in
the language's terms (compiler.failures).  Unless `--no-reference`, every test that
did not hit the step limit also runs on the reference evaluator: if the two disagree,
that is a bug in tri, and the test is reported as such.

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
    add_level_options,
    add_source_options,
    check_path,
    flags_for,
    render_all,
    resolver_for,
)
from vm.interp import DEFAULT_MAX_STEPS, STEP_LIMIT_KIND

UNLIMITED = 1 << 62  # the evaluator always ends (no recursion, every loop counted)


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
        "--no-reference",
        dest="reference",
        action="store_false",
        help="do not also run each test on the reference evaluator (faster)",
    )
    add_level_options(parser)
    add_source_options(parser)
    parser.set_defaults(handler=command_test)


@dataclass
class Outcome:
    path: str
    name: str
    passed: bool
    cycles: int
    error: str | None  # the VM error, or what went wrong in tri
    failure: object = None  # the VM error in the language's terms (compiler.failures)

    def as_json(self) -> dict:
        return {
            "file": self.path,
            "test": self.name,
            "passed": self.passed,
            "cycles": self.cycles,
            "error": self.error,
            "location": None if self.failure is None else self.failure.as_json(),
        }


def command_test(arguments) -> int:
    from compiler.diagnostics import CompileError
    from compiler.evaluate import call_function
    from compiler.failures import render
    from compiler.pipeline import compile_program
    from tri import api
    from tri.commands.run import vm_failure
    from vm import interp

    resolver = resolver_for(arguments)
    outcomes = []
    for path in existing_source_files(arguments.paths):
        checked, diagnostics = check_path(path, resolver, flags_for(arguments))
        if checked is None:
            raise UsageError(render_all(diagnostics))
        for key, instance in checked.instances.items():
            function = instance.function
            if instance.module != checked.project.entry.name or not function.attribute("test"):
                continue
            if arguments.keyword and arguments.keyword not in function.name:
                continue
            try:
                entry = dataclasses.replace(checked, entry=key)
                program = compile_program(entry, arguments.level).program
            except CompileError as failure:
                raise UsageError(render_all(failure.diagnostics)) from None
            run = interp.execute(program, max_steps=arguments.max_steps)
            failure = error = None
            if run.error is not None:
                failure = vm_failure(program, run.error, api.Inputs(), "interp")
                error = f"{failure.kind}: {failure.message}"
            agree = True
            if arguments.reference and not _step_limit(run):
                # the VM halted (or failed) within the limit: so does the evaluator, whose
                # steps are not cycles, so it gets no limit of its own
                oracle = call_function(checked, key, [], max_steps=UNLIMITED)
                agree = run.output == oracle.output and (run.error is None) == (
                    oracle.error is None
                )
                if not agree:
                    error = (
                        f"internal error: the VM and the reference evaluator disagree (VM: "
                        f"output {run.output}, {error or 'halted'}; evaluator: output "
                        f"{oracle.output}, {oracle.error.kind if oracle.error else 'finished'})"
                        "; please report this"
                    )
                    failure = None
            passed = run.error is None and agree
            outcomes.append(Outcome(str(path), function.name, passed, run.cycles, error, failure))
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
        if not OUTPUT.quiet or failed:
            print(summary, file=sys.stderr if failed else sys.stdout)
    return EXIT_FAILED if failed else EXIT_OK
