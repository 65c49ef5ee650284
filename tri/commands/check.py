"""`tri check FILE_OR_DIR...`: parse and type-check, report every diagnostic."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from compiler.check.budget import WINDOW, stack_budget
from tri.commands.common import EXIT_FAILED, EXIT_OK, OUTPUT, existing_source_files
from tri.commands.source import (
    add_source_options,
    check_path,
    flags_for,
    print_diagnostics,
    resolver_for,
)


def register(commands) -> None:
    parser = commands.add_parser("check")
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="FILE",
        help=".tri files or directories (default: the project's directory)",
    )
    parser.add_argument(
        "--stack",
        action="store_true",
        help="also print each function's stack-width budget: the most elements it keeps live",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print each diagnostic as one JSON object per line on stdout, then a summary "
        "object (--message-format json, on stdout)",
    )
    add_source_options(parser)
    parser.set_defaults(handler=command_check)


def print_budgets(checked, path: Path) -> None:
    """One line per function of the checked file: its peak live stack width."""
    for instance in checked.instances.values():
        if instance.path != str(path):
            continue
        budget = stack_budget(instance)
        note = f"  (over the {WINDOW}-element window: spills)" if budget > WINDOW else ""
        print(f"{path}: fn {instance.key}: {budget} live elements{note}")


def command_check(arguments) -> int:
    if arguments.json:
        OUTPUT.message_format = "json"
    as_json = OUTPUT.message_format == "json"
    stream = sys.stdout if arguments.json else sys.stderr
    resolver = resolver_for(arguments)
    files = existing_source_files(arguments.paths)
    errors = warnings = 0
    seen = set()
    for path in files:
        checked, diagnostics = check_path(path, resolver, flags_for(arguments))
        if checked is not None and arguments.stack:
            print_budgets(checked, path)
        fresh = [d for d in diagnostics if (d.path, d.span, d.code, d.message) not in seen]
        seen.update((d.path, d.span, d.code, d.message) for d in fresh)
        print_diagnostics(fresh, stream)
        errors += sum(d.is_error for d in fresh)
        warnings += sum(not d.is_error for d in fresh)
    summary = (
        f"checked {len(files)} file{'s' * (len(files) != 1)}: {errors} error{'s' * (errors != 1)}, "
    )
    summary += f"{warnings} warning{'s' * (warnings != 1)}"
    if as_json:
        counts = {"files": len(files), "errors": errors, "warnings": warnings}
        print(json.dumps({"summary": counts}), file=stream)
    elif not OUTPUT.quiet:
        print(summary, file=sys.stderr if errors else sys.stdout)
    return EXIT_FAILED if errors else EXIT_OK
