"""`tri cost`: run a program, or each public function of a module, and show what it costs.

Exact figures first (optimizer.md §3): the nine table heights of the run, the padded
height and the slack before it doubles; for `.tri` source, per function, the rows its
instructions added on this run; with `--blocks`, the blocks that dominate the tallest
table, by `vm.attribution` (visits times each block's static vector, which with the
program table and the attestation rows reproduce the measured heights exactly).

A module (no `main`) has no inputs of its own: each public function runs on the bench
cases of `tri bench` (`compiler.cost_runs`), and the report is per function.

RC's static estimate (`compiler/check/cost_estimate.py`, docs/backend.md) is shown only with
`--estimate`, after the exact figures and labelled: it is computed from the source, not the code (a
builtin costs its table entry whatever it lowers to, `sponge_absorb_mem` 1 cycle for 7
instructions; the stack manager's moves, the branch and loop shapes and the peephole are
not seen; every loop runs to its bound), so it is an estimate of RC's compiler, not of
this program.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from tri import api
from tri.commands import cost_baseline, cost_hints
from tri.commands.build import compile_source
from tri.commands.common import (
    EXIT_FAILED,
    EXIT_OK,
    UsageError,
    interruptible,
    is_tasm,
    load_tasm,
    positive,
    shown_path,
)
from tri.commands.common import console as table_console
from tri.commands.run import add_run_options, report_error, result_json, run_inputs
from vm.attribution import (
    ATTRIBUTED,
    EXECUTED,
    WHOLE_RUN,
    Attribution,
    BlockCost,
    attribute,
    combine,
    ranking,
    share,
    tallest_attributable,
)
from vm.jit import JitUnavailable
from vm.tables import REPORT_ORDER, Heights

DEFAULT_CASES = 8
ROWS = ("processor", "op_stack", "ram", "hash")  # the per-function columns


def register(commands) -> None:
    cost = commands.add_parser("cost")
    add_run_options(cost, reference=False)
    cost.add_argument(
        "--blocks",
        action="store_true",
        help="show the blocks that dominate the tallest table, with their function and share",
    )
    cost.add_argument(
        "--top",
        type=positive,
        default=10,
        metavar="N",
        help="blocks shown by --blocks, lines by --hotspots (10)",
    )
    cost.add_argument(
        "--cases",
        type=positive,
        metavar="N",
        help=f"a module: bench cases per public function (default {DEFAULT_CASES})",
    )
    cost.add_argument(
        "--annotate",
        action="store_true",
        help="a program's source with the rows each line added to each table on this run "
        "(the interpreter's run; with --json, a 'lines' list)",
    )
    cost.add_argument(
        "--hotspots",
        action="store_true",
        help="a program's source lines (--top of them) that add most to the table its lines "
        "add most to, with their share",
    )
    cost.add_argument(
        "--hints",
        action="store_true",
        help="a program: what the run's figures suggest, each hint with a code (H0001...)",
    )
    cost.add_argument(
        "--html",
        metavar="OUT.html",
        help="a program: write the cost explorer, one self-contained page of this run (the "
        "tables against the padded height, rows per line and each line's TASM)",
    )
    cost.add_argument(
        "--save", metavar="FILE.json", help="a program: keep this run's figures as a baseline"
    )
    cost.add_argument(
        "--compare",
        metavar="FILE.json",
        help="a program: this run against a baseline --save wrote; exit 1 if --fail-on got worse",
    )
    cost.add_argument(
        "--fail-on",
        choices=cost_baseline.FIGURES,
        default="padded",
        help="the figure --compare fails on: the padded height (default), the tallest "
        "table or the cycles",
    )
    cost.add_argument(
        "--estimate",
        action="store_true",
        help="also show the static estimate the Trident compiler makes from the source: not "
        "exact, and without the cascade and lookup tables",
    )
    cost.set_defaults(handler=command_cost)


def command_cost(arguments) -> int:
    compiled = checked = None
    if is_tasm(arguments.program):
        if arguments.estimate:
            raise UsageError("error: --estimate needs Trident source (it is computed from the AST)")
        program = load_tasm(arguments.program, arguments.isa)
    else:
        checked, compiled = compile_source(
            arguments.program, arguments, arguments.level, arguments.isa
        )
        if checked.entry is None:
            return module_cost(arguments, checked, compiled)
        program = compiled.program
    if arguments.cases is not None:
        raise UsageError("error: --cases applies to a module; a program runs on its inputs")
    lined = arguments.annotate or arguments.hotspots or arguments.hints or arguments.html
    if lined and checked is None:
        options = ("annotate", "hotspots", "hints", "html")
        option = next(f"--{o}" for o in options if getattr(arguments, o))
        raise UsageError(f"error: {option} needs Trident source (its lines come from the source)")
    try:
        inputs = run_inputs(arguments)
        record = interruptible(
            lambda: api.run(program, inputs, arguments.max_steps, arguments.engine)
        )
    except JitUnavailable as error:
        raise UsageError(f"error: --engine jit: {error}") from None
    result = api.result_of(record)
    attribution = checked_attribution(attribute(record))
    owners = label_owners(compiled) if compiled is not None else {}
    if arguments.json:
        report = program_report(arguments, result, attribution, owners, checked)
        costs = line_costs_of(program, arguments) if lined else None
        if arguments.annotate:
            report["lines"], report["lines_fixed"] = annotation_json(costs), unowned_rows(costs)
        if arguments.hints:
            report["hints"] = cost_hints.hints(costs, program, checked, record)
        if arguments.hotspots:
            table, hottest = hotspots(costs, arguments.top)
            functions = function_hotspots(costs, checked, table, arguments.top)
            loops = loop_hotspots(costs, program, table, arguments.top)
            report["hotspots"] = {
                "table": table,
                "lines": hottest,
                "functions": functions,
                "loops": loops,
            }
        if result.error is not None:
            location = result_json(
                program, result, run_inputs(arguments), arguments.engine, checked
            )
            report["error"]["location"] = location["error"]["location"]
        comparison = baselines(arguments, report, result)
        if comparison is not None:
            report["compare"] = comparison
        print(json.dumps(report))
    else:
        print_program_report(arguments, result, attribution, owners, checked)
        costs = line_costs_of(program, arguments) if lined else None
        if arguments.annotate:
            print_annotation(costs)
        if arguments.hotspots:
            print_hotspots(costs, checked, program, arguments.top)
        if arguments.hints:
            cost_hints.print_hints(cost_hints.hints(costs, program, checked, record))
        report_error(program, result, run_inputs(arguments), arguments.engine, checked)
        report = program_report(arguments, result, attribution, owners, checked)
        comparison = baselines(arguments, report, result)
        if comparison is not None:
            cost_baseline.print_comparison(comparison, arguments.compare)
    if arguments.html:
        write_explorer(arguments, checked, program, record, costs, comparison)
    if result.error is not None:
        return EXIT_FAILED
    if comparison is not None and arguments.fail_on in comparison["worse"]:
        return EXIT_FAILED
    return EXIT_OK


def write_explorer(arguments, checked, program, record, costs, comparison) -> None:
    """`--html`: the cost explorer of this run (tri.commands.cost_explorer); at -O2 and
    -O3 beside the -O1 build's run on the same inputs."""
    from tri.commands import cost_explorer

    baseline = None
    if arguments.level >= 2:
        plain = argparse.Namespace(**{**vars(arguments), "model": None, "weights": None})
        base = compile_source(arguments.program, plain, 1, arguments.isa)[1].program
        inputs = run_inputs(arguments)
        base_run = interruptible(
            lambda: api.run(base, inputs, arguments.max_steps, arguments.engine)
        )
        baseline = (base, base_run)
    data = cost_explorer.explorer_data(
        arguments.program, arguments.level, record, costs, checked, program, baseline, comparison
    )
    data["hints"] = cost_hints.hints(costs, program, checked, record)
    try:
        Path(arguments.html).write_text(cost_explorer.render(data), encoding="utf-8")
    except OSError as error:
        raise UsageError(f"error: --html {arguments.html}: {error.strerror}") from None
    print(f"explorer: {arguments.html}", file=sys.stderr)


def baselines(arguments, report: dict, result) -> dict | None:
    """`--save` (of a run that halted) and `--compare`: the comparison, or None."""
    if result.error is not None:  # the run's failure is the report (exit 1)
        for option, path in (("--save", arguments.save), ("--compare", arguments.compare)):
            if path is not None:
                print(f"note: {option} {path} skipped: the run failed", file=sys.stderr)
        return None
    if arguments.save is not None:
        cost_baseline.save(arguments.save, report)
    if arguments.compare is None:
        return None
    return cost_baseline.compare(
        cost_baseline.load(arguments.compare), cost_baseline.baseline(report)
    )


def checked_attribution(attribution: Attribution) -> Attribution:
    if attribution.mismatches():
        raise RuntimeError(
            f"internal error: the blocks do not reproduce the heights: {attribution.mismatches()}"
            "; please report this"
        )
    return attribution


def label_owners(compiled) -> dict[str, str]:
    """Each label of the linked text -> the function (linked label) whose code it starts."""
    from compiler.lower.asm import Label
    from compiler.lower.link import linked_label

    owners = {}
    for function in compiled.asm.functions:
        for item in function.items:
            if isinstance(item, Label):
                owners[linked_label(item.name, compiled.module)] = linked_label(
                    function.label, compiled.module
                )
    return owners


def owner_of(entry: BlockCost, owners: dict[str, str]) -> str:
    label = entry.block.label
    return owners.get(label, label or "")


# --- rows per source line (--annotate) ----------------------------------------------------------

LINE_TABLES = ("processor", "op_stack", "ram", "jump_stack", "hash", "u32", "cascade", "program")
LINE_HEADINGS = ("cycles", "op_stk", "ram", "jump", "hash", "u32", "cascade", "words")


def line_costs_of(program, arguments):
    from compiler.line_costs import line_costs

    return interruptible(lambda: line_costs(program, run_inputs(arguments), arguments.max_steps))


def annotation_json(costs) -> list[dict]:
    """The lines with rows, in file and line order (JSON `lines`); a line with a call that
    was inlined also has `inlined`: the rows of the code inlined there (on the callee's
    lines too)."""
    zero = dict.fromkeys(LINE_TABLES, 0)
    entries = []
    for line in sorted({*costs.rows, *costs.inlined} - {None}):
        rows = costs.rows.get(line, zero)
        entry = {"file": line[0], "line": line[1], "rows": {t: rows[t] for t in LINE_TABLES}}
        if line in costs.inlined:
            entry["inlined"] = {t: costs.inlined[line][t] for t in LINE_TABLES}
        entries.append(entry)
    return entries


def line_table(costs) -> str:
    """The table the source lines add most rows to (program words aside: not a run's)."""
    lines = [rows for line, rows in costs.rows.items() if line is not None]
    return max(LINE_TABLES[:-1], key=lambda table: sum(rows[table] for rows in lines))


def hotspots(costs, count: int) -> tuple[str, list[dict]]:
    """(the table, the `count` lines that add most to it, largest first, with their share
    of its measured height)."""
    table = line_table(costs)
    height = costs.heights.as_dict()[table]
    lines = [(line, rows[table]) for line, rows in costs.rows.items() if line and rows[table]]
    lines.sort(key=lambda item: (-item[1], item[0]))
    return table, [
        {"file": line[0], "line": line[1], "rows": rows, "share": round(rows / height, 4)}
        for line, rows in lines[:count]
    ]


def function_hotspots(costs, checked, table: str, count: int) -> list[dict]:
    """The `count` source functions whose lines add most to `table`, an inlined one's
    code included (it is on its own lines), with their share."""
    spans = {}
    for instance in checked.instances.values():
        function = instance.function
        name = function.name if instance.module is None else f"{instance.module}.{function.name}"
        spans[(str(instance.path), function.span.line)] = (function.span.end_line, name)
    totals: dict[str, int] = {}
    for line, rows in costs.rows.items():
        if line is None or not rows[table]:
            continue
        owner = next(
            (
                name
                for (path, start), (end, name) in spans.items()
                if path == line[0] and start <= line[1] <= end
            ),
            None,
        )
        if owner is not None:
            totals[owner] = totals.get(owner, 0) + rows[table]
    height = costs.heights.as_dict()[table]
    ranked = sorted(totals.items(), key=lambda item: (-item[1], item[0]))[:count]
    return [{"function": n, "rows": r, "share": round(r / height, 4)} for n, r in ranked]


def loop_hotspots(costs, program, table: str, count: int) -> list[dict]:
    """The `count` source loops whose lines add most to `table` (a loop's lines include
    the loops inside it), with their share."""
    from compiler.line_costs import source_loops

    height = max(1, costs.heights.as_dict()[table])
    loops = []
    for path, first, last in source_loops(program):
        rows = costs.within(path, first, last)[table]
        if rows:
            loops.append({"file": path, "first": first, "last": last, "rows": rows})
    loops.sort(key=lambda loop: (-loop["rows"], loop["file"], loop["first"]))
    return [{**loop, "share": round(loop["rows"] / height, 4)} for loop in loops[:count]]


def print_hotspots(costs, checked, program, count: int) -> None:
    table, hottest = hotspots(costs, count)
    height = costs.heights.as_dict()[table]
    print(f"\nhotspots: the lines that add most to the {table} table ({height} rows)")
    for entry in hottest:
        try:
            text = Path(entry["file"]).read_text(encoding="utf-8").splitlines()
            source = text[entry["line"] - 1].strip()
        except (OSError, IndexError):
            source = ""
        where = f"{entry['file']}:{entry['line']}"
        print(f"  {entry['rows']:>8}  {entry['share']:6.1%}  {where}  {source}")
    print("the functions whose lines add most to it (inlined code included):")
    for entry in function_hotspots(costs, checked, table, count):
        print(f"  {entry['rows']:>8}  {entry['share']:6.1%}  {entry['function']}")
    loops = loop_hotspots(costs, program, table, count)
    if loops:
        print("the loops whose lines add most to it (the loops inside them included):")
    for loop in loops:
        where = f"{loop['file']}:{loop['first']}-{loop['last']}"
        print(f"  {loop['rows']:>8}  {loop['share']:6.1%}  {where}")


def unowned_rows(costs) -> dict[str, int]:
    """The rows on no line: the fixed parts and the code without a source line (JSON
    `lines_fixed`; with the lines' rows, the run's heights)."""
    none = costs.rows.get(None, {})
    return {table: value + none.get(table, 0) for table, value in costs.fixed.items()}


def print_annotation(costs) -> None:
    """Each file with rows, from its first line with rows to its last, with the rows in
    columns; the three lines that added most to the table the lines add most to are
    marked `>`."""
    lines = {line: rows for line, rows in costs.rows.items() if line is not None}
    tallest = line_table(costs)
    ranked = sorted(
        (line for line in lines if lines[line][tallest]),
        key=lambda line: (-lines[line][tallest], line),
    )
    hot = set(ranked[:3])
    widths = [
        max(len(h), *(len(str(r[t])) for r in lines.values()))
        for h, t in zip(LINE_HEADINGS, LINE_TABLES)
    ]
    print(f"\nrows per source line (marked: the most {tallest} rows)")
    for path in sorted({line[0] for line in lines}):
        print(f"\n{path}")
        header = "  ".join(h.rjust(w) for h, w in zip(LINE_HEADINGS, widths))
        print(f"   line  {header}")
        try:
            text = Path(path).read_text(encoding="utf-8").splitlines()
        except OSError:
            text = []
        numbers = sorted(number for file, number in lines if file == path)
        for number in range(numbers[0], numbers[-1] + 1):
            rows = lines.get((path, number))
            source = text[number - 1] if number <= len(text) else ""
            if rows is None:
                cells = "  ".join(" " * w for w in widths)
                mark = " "
            else:
                cells = "  ".join(str(rows[t] or "").rjust(w) for t, w in zip(LINE_TABLES, widths))
                mark = ">" if (path, number) in hot else " "
            print(f"{mark}{number:6}  {cells}  {source}".rstrip())
    for (path, number), rows in sorted(costs.inlined.items()):
        cells = ", ".join(f"{t} {rows[t]}" for t in LINE_TABLES[:-1] if rows[t])
        print(f"\ninlined at {path}:{number} (counted on the callee's lines above): {cells}")
    unowned = costs.rows.get(None)
    if unowned and any(unowned.values()):
        cells = ", ".join(f"{t} {unowned[t]}" for t in LINE_TABLES if unowned[t])
        print(f"\nno source line (the entry stub): {cells}")
    fixed = ", ".join(f"{t} {v}" for t, v in costs.fixed.items() if v)
    print(f"the program's own (attestation, padding, lookup): {fixed}")


# --- the report of one program run -------------------------------------------------------------


def slack(heights: Heights) -> int:
    """Rows before the padded height doubles: the tallest table that can grow against the
    padded height (the lookup table is always 256 rows and never grows)."""
    return heights.slack


def function_rows(attribution: Attribution, owners: dict[str, str]) -> list[dict]:
    """Per function (in program order): calls, the rows its blocks added, its words."""
    rows: dict[str, dict] = {}
    for entry in attribution.blocks:
        name = owners.get(entry.block.label) if entry.block.label else None
        if name is None:
            continue  # the entry stub
        row = rows.setdefault(
            name, {"function": name, "calls": 0, "cycles": 0, "rows": dict.fromkeys(ROWS, 0)}
        )
        row["words"] = row.get("words", 0) + entry.block.cost.program_words
        if name in entry.block.labels:
            row["calls"] = entry.visits
        for table in ROWS:
            row["rows"][table] += getattr(entry.contribution, table)
        row["cycles"] = row["rows"]["processor"]
    return list(rows.values())


def block_source(entry: BlockCost, source_map) -> str:
    """The source lines a block's code came from, `FILE:LINE` or `FILE:FIRST-LAST` (the
    file of its first instruction with an origin), or "" when none has one."""
    origins = [source_map[i] for i in entry.block.op_indices if i < len(source_map)]
    origins = [origin for origin in origins if origin is not None]
    if not origins:
        return ""
    lines = [origin.span.line for origin in origins if origin.path == origins[0].path]
    first, last = min(lines), max(lines)
    where = str(first) if first == last else f"{first}-{last}"
    return f"{shown_path(origins[0].path)}:{where}"


def block_entries(
    entries: list[BlockCost], table: str, owners: dict[str, str], source_map=()
) -> list[dict]:
    """The executed blocks, the largest share of `table` first, as JSON rows."""
    return [
        {
            "block": entry.block.name,
            "source": block_source(entry, source_map),
            "function": owner_of(entry, owners),
            "start": entry.block.start,
            "visits": entry.visits,
            "instructions": len(entry.block.op_indices),
            "words": entry.block.cost.program_words,
            "static": entry.block.cost.as_dict(),
            "contribution": entry.contribution.as_dict(),
            "share": share(entry, table),
        }
        for entry in ranking(entries, table)
    ]


def program_report(arguments, result, attribution, owners, checked) -> dict:
    heights = result.heights
    report = result.as_json()
    report.update(dominant=heights.dominant, slack=slack(heights))
    if checked is not None:
        report["functions"] = function_rows(attribution, owners)
    if arguments.blocks:
        table = tallest_attributable(heights.as_dict())
        report["blocks"] = {
            "ranked_by": table,
            "entries": block_entries(
                list(attribution.blocks), table, owners, attribution.program.source_map
            ),
            "fixed": attribution.fixed,
            "whole_run": {name: heights.as_dict()[name] for name in WHOLE_RUN},
        }
    if arguments.estimate:
        report["estimate"] = estimate_report(checked, owners)
    return report


def wide_console(attribution_blocks, owners: dict[str, str], source_map=()) -> Console:
    """A console wide enough that no block or function name, nor a block's source, is cut."""
    names = [entry.block.name for entry in attribution_blocks] + list(owners.values())
    longest = max(map(len, names), default=0)
    source = max((len(block_source(e, source_map)) for e in attribution_blocks), default=0)
    return table_console(max(120, 2 * longest + source + 76))


def print_program_report(arguments, result, attribution, owners, checked) -> None:
    console = wide_console(attribution.blocks, owners, attribution.program.source_map)
    heights = result.heights
    table = Table(title=Path(arguments.program).name, title_justify="left")
    table.add_column("table")
    table.add_column("height", justify="right")
    table.add_column("")
    values = heights.as_dict()
    for name in REPORT_ORDER:
        table.add_row(name, str(values[name]), "dominant" if name in heights.dominant else "")
    console.print(table)
    exponent = result.padded_height.bit_length() - 1
    console.print(f"cycles         {result.cycles}")
    fixed = " (always 256 rows: no run pads to less)" if heights.dominant == ["lookup"] else ""
    console.print(
        f"padded height  {result.padded_height} = 2^{exponent}, "
        f"set by {', '.join(heights.dominant)}{fixed}"
    )
    growing = ""
    if fixed:
        tallest = heights.tallest_growing
        growing = f" (as the {tallest} table, {heights.growing[tallest]} rows, grows)"
    console.print(
        f"slack          {slack(heights)} rows before it doubles to 2^{exponent + 1}{growing}"
    )
    if checked is not None:
        print_functions(console, function_rows(attribution, owners))
    if arguments.blocks:
        print_blocks(
            console,
            list(attribution.blocks),
            heights.as_dict(),
            owners,
            arguments.top,
            source_map=attribution.program.source_map,
        )
        fixed = attribution.fixed
        console.print(
            f"exact: the blocks' rows plus the program table ({fixed['program']}) and the "
            f"attestation rows of the hash table ({fixed['hash']}) are the measured processor, "
            "op_stack, ram, jump_stack, hash and program heights; "
            + ", ".join(f"{name} {values[name]}" for name in WHOLE_RUN)
            + " are whole-run figures"
        )
    if arguments.estimate:
        print_estimate(console, estimate_report(checked, owners))


def print_functions(console: Console, rows: list[dict]) -> None:
    table = Table(
        title="per function: the rows its instructions added on this run (exact)",
        title_justify="left",
    )
    for column in ("function", "calls", *ROWS, "words"):
        table.add_column(column, justify="left" if column == "function" else "right")
    for row in rows:
        cells = [str(row["rows"][name]) for name in ROWS]
        table.add_row(row["function"], str(row["calls"]), *cells, str(row["words"]))
    console.print(table)


def print_blocks(
    console, entries, heights, owners, top: int, candidates=ATTRIBUTED, source_map=()
) -> None:
    """The top blocks by the tallest of the `candidates` tables in `heights`."""
    table_name = tallest_attributable(heights, candidates)
    tallest = max(heights, key=lambda name: heights[name])
    note = ""
    if tallest not in candidates:
        note = f"; the tallest, {tallest} ({heights[tallest]}), is a whole-run figure"
    rows = block_entries(entries, table_name, owners, source_map)
    total = heights[table_name]
    table = Table(
        title=f"blocks by {table_name} ({total} rows{note}): the top {min(top, len(rows))} "
        f"of {len(rows)} executed",
        title_justify="left",
    )
    columns = ("block", "source", "function", "visits", "instructions", table_name, "share")
    if not any(row["source"] for row in rows):
        columns = tuple(column for column in columns if column != "source")
    for column in (*columns, "total"):
        left = column in ("block", "source", "function")
        table.add_column(column, justify="left" if left else "right")
    running = 0
    for row in rows[:top]:
        value = row["share"]
        running += value
        cells = {
            "block": row["block"],
            "source": row["source"],
            "function": row["function"],
            "visits": str(row["visits"]),
            "instructions": str(row["instructions"]),
            table_name: str(value),
            "share": _percent(value, total),
        }
        table.add_row(*(cells[column] for column in columns), _percent(running, total))
    console.print(table)


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


# --- RC's estimate -----------------------------------------------------------------------------


def estimate_report(checked, owners: dict[str, str]) -> dict:
    from compiler.check.cost_estimate import function_costs, program_cost

    cost = program_cost(checked)
    labels = sorted(set(owners.values()))
    keys = [label for label in labels if label in checked.instances]
    functions = {key: value.as_dict() for key, value in function_costs(checked, keys).items()}
    program = {**cost.as_dict(), "padded_height": cost.padded_height}
    return {"program": program, "functions": functions}


def print_estimate(console: Console, estimate: dict) -> None:
    program = estimate["program"]
    console.print(
        "The Trident compiler's estimate (from the source; not exact; no cascade or "
        "lookup table, so it can be below the measured padded height): "
        + ", ".join(f"{name} {value}" for name, value in program.items() if name != "padded_height")
        + f"; padded {program['padded_height']}"
    )
    for name, vector in estimate["functions"].items():
        console.print(f"  {name}: " + ", ".join(f"{key} {value}" for key, value in vector.items()))


# --- a module built alone ------------------------------------------------------------------------


def module_cost(arguments, checked, compiled) -> int:
    from compiler.cost_runs import module_runs

    if arguments.input or arguments.secret or arguments.digest or arguments.ram:
        raise UsageError(
            f"error: {arguments.program} is a module: its public functions run on their bench "
            "cases (--cases N), not on --input, --secret, --digest or --ram"
        )
    if arguments.estimate:
        raise UsageError("error: --estimate is for a program (the estimate starts at main)")
    for option in ("annotate", "hotspots", "hints", "save", "compare"):
        if getattr(arguments, option):
            raise UsageError(f"error: --{option} is for a program run (a module runs many cases)")
    count = arguments.cases or DEFAULT_CASES
    runs = module_runs(checked, compiled, count, max_steps=arguments.max_steps)
    owners = label_owners(compiled)
    attributions = [checked_attribution(attribute(case.run)) for case in runs]
    functions = module_functions(runs, attributions)
    report = {"module": checked.project.entry.name, "cases": count, "functions": functions}
    if arguments.blocks:
        table = tallest_attributable(executed_totals(attributions), EXECUTED)
        report["blocks"] = {
            "ranked_by": table,
            "entries": block_entries(
                combine(attributions), table, owners, module_source_map(attributions)
            ),
        }
    if arguments.json:
        print(json.dumps(report))
    else:
        print_module_report(arguments, report, owners, attributions, runs)
    return EXIT_OK


def module_source_map(attributions) -> tuple:
    """The source map of a module's runs: each runs the same code after a stub of the same
    length (`call __fn` `halt`), so one run's map places every run's blocks."""
    return attributions[0].program.source_map if attributions else ()


def executed_totals(attributions) -> dict[str, int]:
    """The rows added per visit, summed over runs (program tables are per program)."""
    totals = dict.fromkeys(EXECUTED, 0)
    for attribution in attributions:
        for name in EXECUTED:
            totals[name] += attribution.attributed[name]
    return totals


def module_functions(runs, attributions) -> list[dict]:
    """Per public function: cases run and failed, mean cycles and the largest padded height
    of the cases that halted, the tables that set it and its slack."""
    rows: dict[str, dict] = {}
    for case, attribution in zip(runs, attributions, strict=True):
        row = rows.setdefault(case.function, {"function": case.function, "cases": 0, "failed": 0})
        row["cases"] += 1
        if case.run.error is not None:
            row["failed"] += 1
            continue
        heights = attribution.heights
        row.setdefault("cycles", []).append(case.run.cycles - 2)  # without `call` and `halt`
        if heights.maximum > row.get("tallest", -1):  # the case nearest the cliff
            row.update(tallest=heights.maximum, padded_height=heights.padded_height)
            row.update(dominant=heights.dominant, slack=slack(heights))
    for row in rows.values():
        row.pop("tallest", None)
        cycles = row.pop("cycles", [])
        row["mean_cycles"] = round(statistics.mean(cycles), 1) if cycles else None
    return list(rows.values())


def print_module_report(arguments, report, owners, attributions, runs) -> None:
    console = wide_console(attributions[0].blocks if attributions else (), owners)
    table = Table(
        title=f"module {report['module']} built alone: each public function on "
        f"{report['cases']} bench cases (fixed seed, arguments in range)",
        title_justify="left",
    )
    columns = ("function", "cases", "failed", "mean cycles", "padded height", "set by", "slack")
    for column in columns:
        table.add_column(column, justify="left" if column in ("function", "set by") else "right")
    for row in report["functions"]:
        table.add_row(
            row["function"],
            str(row["cases"]),
            str(row["failed"]),
            "-" if row["mean_cycles"] is None else f"{row['mean_cycles']:.1f}",
            str(row.get("padded_height", "-")),
            ", ".join(row.get("dominant", ())),
            str(row.get("slack", "-")),
        )
    console.print(table)
    if arguments.blocks:
        totals = executed_totals(attributions)
        print_blocks(
            console,
            combine(attributions),
            totals,
            owners,
            arguments.top,
            EXECUTED,
            module_source_map(attributions),
        )
        console.print(
            f"summed over all {len(runs)} runs; each run's blocks plus its fixed parts are its "
            "measured heights exactly"
        )
