"""`tri audit FILE [--fn NAME] [--json]`: prove each function's contracts for all inputs.

For every function of the file (or the one `--fn` names), each `#[ensures(...)]` and each
place the body can fail (an assert, a u32 check, an inverse of 0, a division by zero, an
index, a loop bound, a called function's `requires`) is `proven` (for every input that
satisfies the function's `#[requires(...)]`), `refuted` with a counterexample the VM
confirmed by running the function on it, or `unknown` with the reason (compiler.audit).

Exit codes: 0 when every goal is proven; 1 when one is refuted or unknown; 2 on bad usage,
source that does not check, or no solver installed (`pip install 'tri[solvers]'`).
"""

from __future__ import annotations

import json
from pathlib import Path

from tri.commands.common import EXIT_FAILED, EXIT_OK, OUTPUT, UsageError, did_you_mean
from tri.commands.source import add_source_options, check_path, render_all, resolver_for

SOLVER_HINT = "pip install 'tri[solvers]' (z3-solver and cvc5-gpl)"


def register(commands) -> None:
    parser = commands.add_parser("audit")
    parser.add_argument("file", help="a .tri file")
    parser.add_argument("--fn", dest="function", metavar="NAME", help="audit this function only")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_source_options(parser)
    parser.set_defaults(handler=command_audit)


def checked_with_contracts(path_text: str, arguments):
    """The file checked with its contracts as asserts (compiler.contracts), or a UsageError."""
    from compiler.contracts import CHECK_FLAG

    flags = frozenset({arguments.profile or "debug", CHECK_FLAG})
    checked, diagnostics = check_path(Path(path_text), resolver_for(arguments), flags)
    if checked is None:
        raise UsageError(render_all(diagnostics))
    return checked


def require_solvers() -> None:
    from compiler.audit.solvers import missing_solvers

    missing = missing_solvers()
    if len(missing) == 2:
        raise UsageError(f"error: no solver is installed; {SOLVER_HINT}")


def function_names(checked, wanted: list[str]) -> None:
    """A UsageError for a name that is not a function of the file."""
    from compiler.audit import audited_functions

    known = audited_functions(checked)
    for name in wanted:
        if name not in known:
            raise UsageError(f"error: no function '{name}' in the file{did_you_mean(name, known)}")


def command_audit(arguments) -> int:
    from compiler.audit import audit_function, audited_functions

    checked = checked_with_contracts(arguments.file, arguments)
    require_solvers()
    names = audited_functions(checked)
    if arguments.function is not None:
        function_names(checked, [arguments.function])
        names = [arguments.function]
    verdicts = [verdict for name in names for verdict in audit_function(checked, name)]
    if arguments.json:
        print(json.dumps({"file": arguments.file, "goals": [v.as_json() for v in verdicts]}))
    else:
        for verdict in verdicts:
            _print(arguments.file, verdict)
        counts = {
            status: sum(v.status == status for v in verdicts)
            for status in ("proven", "refuted", "unknown")
        }
        print(", ".join(f"{count} {status}" for status, count in counts.items()))
    return EXIT_OK if all(v.status == "proven" for v in verdicts) else EXIT_FAILED


def _print(path: str, verdict) -> None:
    where = f"{path}:{verdict.line}" if verdict.line else path
    line = f"{where}: {verdict.function}: {verdict.goal}: {verdict.status}"
    if verdict.status == "proven":
        line += f" ({proof_text(verdict.solver)})"
    print(line)
    if verdict.arguments:
        print(f"  counterexample: {counterexample_text(verdict)}")
        print(f"  on the VM: {verdict.observed}")
    if verdict.reason and not OUTPUT.quiet:
        print(f"  {'reason' if verdict.status == 'unknown' else 'note'}: {verdict.reason}")


def proof_text(solver: str) -> str:
    """Who proved a goal: a solver, or no one needed (compiler.audit.solvers)."""
    return "the terms are equal" if solver == "terms" else solver


def counterexample_text(verdict) -> str:
    """`a = 1, v = [1, 2, 3]; input 5; RAM 7: 1`: the arguments, input and RAM of a
    counterexample (an audit's Verdict or an Equivalence)."""
    values = ", ".join(f"{name} = {_words(words)}" for name, words in verdict.arguments)
    return (
        (values or "no arguments")
        + (f"; input {_words(verdict.public)}" if verdict.public else "")
        + (f"; secret {_words(verdict.secret)}" if verdict.secret else "")
        + (f"; RAM {_cells(verdict.ram)}" if verdict.ram else "")
    )


def _words(words: list[int]) -> str:
    return str(words[0]) if len(words) == 1 else "[" + ", ".join(map(str, words)) + "]"


def _cells(ram: dict[int, int]) -> str:
    return ", ".join(f"{address}: {value}" for address, value in ram.items())
