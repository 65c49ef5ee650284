"""`tri test FILE_OR_DIR... [-k TEXT] [--max-steps N] [--json] [-O LEVEL]`: run the tests.

Each file is checked as an entry point; each `#[test]` function of that file (no
parameters, no result: language.md §4.1) is compiled as the program's entry and run
on the VM, with no input.  A test passes when the run halts and fails on a VM error,
a failed `assert` being the usual one; the error is printed with its kind,
instruction, address and cycle.  Every test also runs on the reference evaluator:
if the two disagree, that is a bug in tri, and the test is reported as such.

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
from vm.interp import DEFAULT_MAX_STEPS


def register(commands) -> None:
    parser = commands.add_parser("test", help="run the #[test] functions of .tri files")
    parser.add_argument("paths", nargs="+", metavar="FILE_OR_DIR", help=".tri files or directories")
    parser.add_argument("-k", dest="keyword", metavar="TEXT", help="only tests whose name has TEXT")
    parser.add_argument(
        "--max-steps",
        type=positive,
        default=DEFAULT_MAX_STEPS,
        metavar="N",
        help=f"fail a test that runs more than N cycles (default {DEFAULT_MAX_STEPS})",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
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

    def as_json(self) -> dict:
        return {
            "file": self.path,
            "test": self.name,
            "passed": self.passed,
            "cycles": self.cycles,
            "error": self.error,
        }


def command_test(arguments) -> int:
    from compiler.diagnostics import CompileError
    from compiler.evaluate import call_function
    from compiler.pipeline import compile_program
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
            oracle = call_function(checked, key, [], max_steps=arguments.max_steps)
            error = None if run.error is None else str(run.error)
            agree = run.output == oracle.output and (run.error is None) == (oracle.error is None)
            if not agree:
                error = (
                    f"internal error: the VM and the reference evaluator disagree (VM: output "
                    f"{run.output}, {error or 'halted'}; evaluator: output {oracle.output}, "
                    f"{oracle.error.kind if oracle.error else 'finished'}); please report this"
                )
            passed = run.error is None and agree
            outcomes.append(Outcome(str(path), function.name, passed, run.cycles, error))
    failed = [outcome for outcome in outcomes if not outcome.passed]
    if arguments.json:
        print(json.dumps({"tests": [o.as_json() for o in outcomes], "failed": len(failed)}))
    else:
        for outcome in outcomes:
            where = f"{outcome.path}::{outcome.name}"
            if outcome.passed:
                print(f"PASS {where} ({outcome.cycles} cycles)")
            else:
                print(f"FAIL {where}: {outcome.error}")
        count = len(outcomes)
        summary = f"{count} test{'s' * (count != 1)}: {count - len(failed)} passed"
        summary += f", {len(failed)} failed"
        print(summary, file=sys.stderr if failed else sys.stdout)
    return EXIT_FAILED if failed else EXIT_OK
