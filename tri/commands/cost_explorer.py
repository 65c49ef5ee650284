"""`tri cost PROG --html OUT.html`: the cost explorer, one self-contained page of one run.

`explorer_data(...)` gathers what the page shows into a plain dict; `render(data)` fills
the jinja2 template `explorer.html.j2` (beside this file) with it.  The page needs no
network and no script library: the charts are inline SVG, the source is highlighted by
Pygments when the page is written, and a short script shows a clicked line's TASM.

What it shows, all from the same interpreter run as `tri cost --annotate`
(compiler.line_costs):

* the nine tables as bars against the padded height, with the cliff below it (half the
  padded height: a run whose tallest table fits there proves in half the rows) and the
  slack (rows left before the padded height doubles);
* each source file with rows per line in columns, a line's share of the table its lines
  add most to as its shade; a click shows the TASM the line became, each instruction with
  how often it ran, and for a call that was inlined the rows of the code inlined there;
* the source functions and loops with their rows and share of that table (an inlined
  function counted as its own, a loop with the loops inside it);
* at -O2 and -O3, the blocks whose code differs from the -O1 build's, with what each
  cost in this run at both levels, and the heights of both builds' runs;
* with `--compare`, the comparison with the baseline, a worse figure marked;
* the hints of `tri cost --hints` for the run (the caller adds them as `hints`).
"""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape

from compiler.line_costs import source_loops
from tri import api
from tri.commands.common import shown_path
from vm.attribution import attribute
from vm.tables import REPORT_ORDER

LINE_TABLES = ("processor", "op_stack", "ram", "jump_stack", "hash", "u32", "cascade", "program")
LINE_HEADINGS = ("cycles", "op stack", "RAM", "jump", "hash", "u32", "cascade", "words")
RUN_TABLES = LINE_TABLES[:-1]  # a run's tables, program words aside
WIDTH = 640  # the bars' width in pixels at the padded height


def explorer_data(
    source: str, level: int, run, costs, checked, program, baseline=None, comparison=None
) -> dict:
    """The page's contents: `source` the program's path, `run` the run's record (tri.api),
    `costs` its rows per line, `baseline` (-O2, -O3) the -O1 build's (program, run) on the
    same inputs, `comparison` what `--compare` found (tri.commands.cost_baseline)."""
    result = api.result_of(run)
    heights = costs.heights.as_dict()
    padded = costs.heights.padded_height
    table = hot_table(costs)
    return {
        "source": source,
        "level": level,
        "output": list(result.output),
        "error": None if result.error is None else str(result.error),
        "cycles": result.cycles,
        "padded": padded,
        "cliff": padded // 2,
        "tallest": costs.heights.dominant[0],
        "slack": costs.heights.slack,
        "bars": bars(heights, padded),
        "hot_table": table,
        "headings": list(zip(LINE_TABLES, LINE_HEADINGS)),
        "files": files(source, costs, program, table),
        "functions": function_shares(costs, checked, table),
        "loops": loop_shares(costs, program, table),
        "optimizer": optimizer_changes(program, run, baseline) if baseline else None,
        "comparison": comparison_rows(comparison) if comparison else None,
    }


def hot_table(costs) -> str:
    """The run table the source lines add most rows to."""
    lines = [rows for line, rows in costs.rows.items() if line is not None]
    return max(RUN_TABLES, key=lambda table: sum(rows[table] for rows in lines))


def bars(heights: dict, padded: int) -> list[dict]:
    return [
        {
            "table": table,
            "rows": heights[table],
            "width": round(WIDTH * heights[table] / padded, 1),
            "over_cliff": heights[table] > padded // 2,
        }
        for table in REPORT_ORDER
    ]


def files(source: str, costs, program, table: str) -> list[dict]:
    """Each file with rows, the entry file whole and the others from their first line with
    rows to their last; each line with its rows, inlined rows, shade and TASM."""
    from pygments import highlight
    from pygments.formatters import HtmlFormatter

    from compiler.syntax.highlight import TridentLexer

    tasm: dict = {}
    for op, address in zip(program.ops, program.addresses):
        line, visits = costs.placed[address]
        tasm.setdefault(line, []).append([address, op.text, visits])
    lines = {line for line in (*costs.rows, *costs.inlined) if line is not None}
    total = max(1, sum(rows[table] for line, rows in costs.rows.items() if line is not None))
    entry = Path(source).resolve()
    found = []
    for path in sorted(
        {line[0] for line in lines}, key=lambda path: (Path(path).resolve() != entry, path)
    ):
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError:
            text = ""
        marked = highlight(text, TridentLexer(), HtmlFormatter(nowrap=True)).split("\n")
        numbers = sorted(number for file, number in lines if file == path)
        first, last = (
            (1, len(text.splitlines()))
            if Path(path).resolve() == entry
            else (numbers[0], numbers[-1])
        )
        rows_of = []
        for number in range(first, last + 1):
            rows = costs.rows.get((path, number))
            inlined = costs.inlined.get((path, number))
            rows_of.append(
                {
                    "number": number,
                    "html": marked[number - 1] if number <= len(marked) else "",
                    "rows": [rows[t] if rows else 0 for t in LINE_TABLES],
                    "inlined": [inlined[t] for t in LINE_TABLES] if inlined else None,
                    "shade": round((rows[table] if rows else 0) / total, 4),
                    "tasm": tasm.get((path, number), []),
                }
            )
        found.append({"path": path, "shown": shown_path(path), "lines": rows_of})
    return found


def function_shares(costs, checked, table: str) -> list[dict]:
    """The source functions with rows, largest first in `table`: rows per table, share."""
    spans = []
    for instance in checked.instances.values():
        function = instance.function
        name = function.name if instance.module is None else f"{instance.module}.{function.name}"
        spans.append((str(instance.path), function.span.line, function.span.end_line, name))
    totals: dict[str, list[int]] = {}
    for line, rows in costs.rows.items():
        owner = next(
            (
                name
                for path, start, end, name in spans
                if line and path == line[0] and start <= line[1] <= end
            ),
            None,
        )
        if owner is not None:
            mine = totals.setdefault(owner, [0] * len(LINE_TABLES))
            for position, name in enumerate(LINE_TABLES):
                mine[position] += rows[name]
    return ranked(totals, costs, table)


def loop_shares(costs, program, table: str) -> list[dict]:
    """The source loops (a `for` statement's lines, the loops inside it included)."""
    totals = {}
    for path, first, last in source_loops(program):
        rows = costs.within(path, first, last)
        totals[f"{shown_path(path)}:{first}-{last}"] = [rows[name] for name in LINE_TABLES]
    return ranked(totals, costs, table)


def ranked(totals: dict[str, list[int]], costs, table: str) -> list[dict]:
    position = LINE_TABLES.index(table)
    height = max(1, costs.heights.as_dict()[table])
    entries = [(name, rows) for name, rows in totals.items() if any(rows[:-1])]
    entries.sort(key=lambda item: (-item[1][position], item[0]))
    return [
        {"name": name, "rows": rows, "share": round(rows[position] / height, 4)}
        for name, rows in entries
    ]


def optimizer_changes(program, run, baseline) -> dict:
    """The labelled stretches of code (a function, a loop body, a branch arm: what lies
    between a label and the next) whose instructions differ from the -O1 build's, with
    the cycles each took in this run at both levels, largest saving first."""
    base_program, base_run = baseline
    now, before = stretches(program, run), stretches(base_program, base_run)
    blocks = []
    for name in sorted(set(now) | set(before)):
        old_code, old_cycles, old_visits = before.get(name, ([], 0, 0))
        new_code, new_cycles, new_visits = now.get(name, ([], 0, 0))
        if old_code != new_code:
            blocks.append(
                {
                    "name": name,
                    "before": old_code,
                    "after": new_code,
                    "visits": (old_visits, new_visits),
                    "cycles": (old_cycles, new_cycles),
                    "saved": old_cycles - new_cycles,
                }
            )
    blocks.sort(key=lambda block: (-block["saved"], block["name"]))
    base, result = api.result_of(base_run), api.result_of(run)
    base_heights, heights = base.heights.as_dict(), result.heights.as_dict()
    return {
        "tables": [
            {"table": t, "before": base_heights[t], "after": heights[t]} for t in REPORT_ORDER
        ],
        "padded": (base.heights.padded_height, result.heights.padded_height),
        "cycles": (base.cycles, result.cycles),
        "blocks": blocks,
    }


def stretches(program, run) -> dict[str, tuple[list[str], int, int]]:
    """Per label (the code before the first label is `(entry)`): its instructions, the
    cycles they took in `run` and how often its first block ran."""
    found: dict[str, tuple[list[str], int, int]] = {}
    for entry in attribute(run).blocks:
        name = entry.block.label or "(entry)"
        code, cycles, visits = found.get(name, ([], 0, entry.visits))
        code = code + [program.ops[index].text for index in entry.block.op_indices]
        found[name] = (code, cycles + entry.contribution.processor, visits)
    return found


def comparison_rows(comparison: dict) -> list[dict]:
    """`--compare`'s figures, tables and function figures as rows: name, old, new,
    difference, and whether it got worse (a higher figure is a costlier proof)."""
    functions = {
        f"{name} {key}": entry
        for name, figures in comparison["functions"].items()
        for key, entry in figures.items()
    }
    return [
        {
            "title": title,
            "rows": [
                {**entry, "name": name, "worse": entry["difference"] > 0}
                for name, entry in part.items()
            ],
        }
        for title, part in (
            ("figure", comparison["figures"]),
            ("table", comparison["tables"]),
            ("function", functions),
        )
    ]


def render(data: dict) -> str:
    """The page: the template filled with `data`, the TASM of each line (key `F:L`, F the
    file's position in `data["files"]`) as a JSON table the page's script reads."""
    environment = Environment(
        loader=FileSystemLoader(Path(__file__).parent),
        autoescape=select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    tasm = {
        f"{position}:{line['number']}": line["tasm"]
        for position, file in enumerate(data["files"])
        for line in file["lines"]
        if line["tasm"]
    }
    return environment.get_template("explorer.html.j2").render(data=data, tasm=tasm)
