"""`tri decisions show|freeze|check FILE`: the decision table that `tri build -O2|-O3
--decisions FILE` reads and writes (compiler.search.decisions).

- `show` prints each entry: its block's size before and after, how many decisions it has
  had and how stably they agreed, and its state (frozen, open, drifted, refused).
- `freeze` freezes the entries whose most frequent choice has at least `--stability` of
  the samples (default 0.8) and is proven equivalent and no costlier than the baseline;
  the next build emits those without searching or running the model.
- `check` re-validates every frozen entry and decides it again with the current compiler
  (its rules, and at -O3 the model `--weights` names), and reports drift: the entries it
  would decide differently (and how many of those cheaper), those the checker now
  refuses, and the churn, the frozen instructions they hold.  It marks them in the file,
  so that the next build re-decides exactly those.

Exit codes: 0; 1 when `check` finds drift or a refused entry; 2 on bad usage or a file
that is not a decision table.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tri.commands.common import EXIT_FAILED, EXIT_OK, OUTPUT, UsageError
from tri.commands.source import add_model_options


def register(commands) -> None:
    parser = commands.add_parser("decisions")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    show = actions.add_parser("show", help="print the table's entries and their state")
    freeze = actions.add_parser("freeze", help="freeze the stable, proven entries")
    freeze.add_argument(
        "--stability",
        type=_share,
        default=None,
        metavar="SHARE",
        help="the share of an entry's samples its most frequent choice needs (default 0.8)",
    )
    check = actions.add_parser("check", help="report and mark drift against this compiler")
    add_model_options(check)
    for action in (show, freeze, check):
        action.add_argument(
            "table", metavar="FILE", help="a decision table (tri build --decisions)"
        )
        action.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=command_decisions)


def _share(text: str) -> float:
    import argparse

    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 < value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a share between 0 (excluded) and 1")
    return value


def read_table(path_text: str, must_exist: bool = True):
    """The table in `path_text`; a UsageError if it is missing (when `must_exist`) or not a
    table; a warning for each entry that could not be read."""
    from compiler.search.decisions import DecisionTable, TableError

    path = Path(path_text)
    if must_exist and not path.exists():
        raise UsageError(
            f"error: {path_text}: no such decision table "
            f"(tri build -O2 --decisions {path_text} writes one)"
        )
    try:
        table = DecisionTable.read(path)
    except TableError as problem:
        raise UsageError(f"error: {problem}") from None
    if table.malformed and not OUTPUT.quiet:
        print(
            f"warning: {path_text}: {table.malformed} entries could not be read and are dropped; "
            "their blocks are decided afresh",
            file=sys.stderr,
        )
    return table


def write_table(table, path_text: str) -> None:
    try:
        table.write(Path(path_text))
    except OSError as problem:
        raise UsageError(f"error: cannot write {path_text}: {problem.strerror}") from None


def state(entry) -> str:
    if entry.drift is not None:
        return "refused" if entry.drift.get("reason") == "refused" else "drifted"
    return "frozen" if entry.frozen is not None else "open"


def command_decisions(arguments) -> int:
    table = read_table(arguments.table)
    if arguments.action == "show":
        return show(table, arguments)
    if arguments.action == "freeze":
        return freeze(table, arguments)
    return check(table, arguments)


def show(table, arguments) -> int:
    rows = []
    for key in sorted(table.entries):
        entry = table.entries[key]
        chosen = entry.frozen or (entry.choices[0].code if entry.choices else entry.baseline)
        rows.append(
            {
                "key": key,
                "baseline": len(entry.baseline),
                "chosen": len(chosen),
                "samples": entry.samples,
                "stability": round(entry.stability, 4),
                "state": state(entry),
            }
        )
    if arguments.json:
        print(json.dumps({"entries": rows, "summary": table.summary()}, sort_keys=True))
        return EXIT_OK
    print(f"{'block':<14}{'instructions':>14}{'samples':>9}{'stability':>11}  state")
    for row in rows:
        sizes = f"{row['baseline']} -> {row['chosen']}"
        print(
            f"{row['key'][:12]:<14}{sizes:>14}{row['samples']:>9}"
            f"{row['stability']:>11.2f}  {row['state']}"
        )
    summary = table.summary()
    print(
        f"{summary['entries']} entries: {summary['frozen']} frozen, "
        f"{summary['drifted']} marked for re-decision"
    )
    return EXIT_OK


def freeze(table, arguments) -> int:
    from compiler.driver import search_lowerer
    from compiler.search.decisions import STABILITY
    from compiler.search.decisions import freeze as freeze_table

    stability = STABILITY if arguments.stability is None else arguments.stability
    report = freeze_table(table, search_lowerer(2, cache=None), stability)
    write_table(table, arguments.table)
    if arguments.json:
        figures = {"frozen": report.frozen, "unstable": report.unstable, "refused": report.refused}
        print(
            json.dumps(
                {**figures, "stability": stability, "unfrozen": report.unfrozen}, sort_keys=True
            )
        )
    elif not OUTPUT.quiet:
        print(
            f"{arguments.table}: {report.frozen} of {len(table.entries)} entries frozen "
            f"(stability {stability:g}); {report.unstable} less stable; "
            f"{report.refused} refused (not proven equivalent and no costlier than the baseline)"
        )
    return EXIT_OK


def check(table, arguments) -> int:
    from compiler.driver import search_lowerer
    from compiler.search.decisions import check as check_table

    try:
        lowerers = {
            2: search_lowerer(2, cache=None),
            3: search_lowerer(
                3, arguments.weights, arguments.model_engine, arguments.model, cache=None
            ),
        }
    except (ValueError, OSError) as problem:
        raise UsageError(f"error: {problem}") from None
    report = check_table(table, lowerers)
    write_table(table, arguments.table)
    if arguments.json:
        print(json.dumps(report.to_json(), sort_keys=True))
    else:
        checked = max(report.checked, 1)
        share = f"{report.drifted / checked:.1%}" if report.checked else "0%"
        churn = f"{report.churn} of {report.instructions} frozen instructions"
        print(f"{arguments.table}: {report.checked} frozen entries checked against this compiler")
        print(
            f"  drifted: {report.drifted} ({share}) decided differently now, "
            f"{report.cheaper} of them cheaper"
        )
        print(f"  refused: {report.refused} no longer proven equivalent and strictly cheaper")
        print(f"  churn:   {churn}")
        if report.keys:
            print(
                f"  marked:  {len(report.keys)} entries; "
                "the next build with --decisions re-decides them"
            )
    return EXIT_FAILED if report.keys else EXIT_OK
