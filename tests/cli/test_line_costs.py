"""Rows per source line (compiler.line_costs): on every corpus program at -O1 and -O2, on
the inputs of its first case, the
lines' rows plus the fixed rows are the run's heights, table by table, the u32 and cascade
tables included, and the rows sit on lines."""

from __future__ import annotations

import json

import pytest
from corpus import corpus, expectations

from compiler.line_costs import line_costs
from tri import api
from tri.cli import build_parser
from tri.commands.build import compile_source
from vm.tables import REPORT_ORDER

PROGRAMS = [path for path in corpus("valid") if expectations(path).cases]


def compiled(path, level: int):
    arguments = build_parser().parse_args(["build", str(path), f"-O{level}"])
    return compile_source(str(path), arguments, level)[1].program


def inputs(case) -> api.Inputs:
    return api.Inputs(
        tuple(case.public), tuple(case.secret), tuple(case.digests), tuple(case.ram.items())
    )


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("path", PROGRAMS, ids=lambda path: path.stem)
def test_the_lines_rows_sum_to_the_heights_on_every_corpus_program(path, level):
    case = expectations(path).cases[0]
    program = compiled(path, level)
    costs = line_costs(program, inputs(case), max_steps=10**6)
    measured = api.run(program, inputs(case), 10**6, "interp")
    assert costs.heights == api.result_of(measured).heights
    assert costs.totals() == costs.heights.as_dict()
    on_lines = {table for line, rows in costs.rows.items() if line for table in rows if rows[table]}
    assert {"processor", "op_stack", "program"} <= on_lines
    assert any(line is not None and line[0] == str(path) for line in costs.rows)
    for rows in costs.inlined.values():  # inlined rows are a part of the lines' rows
        assert all(rows[table] <= costs.totals()[table] for table in rows)


def test_an_inlined_calls_rows_are_its_callees_lines_rows():
    """fib.tri calls std.math.fibonacci.fib once, on line 9, and -O1 inlines it: the rows
    at that call are exactly the rows on the callee's lines."""
    path = next(path for path in PROGRAMS if path.name == "fib.tri")
    costs = line_costs(compiled(path, 1), api.Inputs((30,)))
    callee = [rows for line, rows in costs.rows.items() if line and line[0] != str(path)]
    assert set(costs.inlined) == {(str(path), 9)}
    for table in REPORT_ORDER:
        assert costs.inlined[(str(path), 9)][table] == sum(rows[table] for rows in callee)
    assert costs.inlined[(str(path), 9)]["processor"] > 200
    assert not line_costs(compiled(path, 0), api.Inputs((30,))).inlined  # -O0 inlines nothing


def test_u32_and_cascade_rows_go_to_the_lines_that_record_them_first(tmp_path):
    program = tmp_path / "first.tri"
    program.write_text(
        "program first\n\nuse vm.io.io\nuse vm.core.convert\nuse vm.crypto.hash\n\n"
        "fn main() {\n"
        "    let x: Field = io.read()\n"
        "    let a: U32 = convert.as_u32(x)\n"
        "    let b: U32 = convert.as_u32(x)\n"
        "    let d: Digest = hash.tip5(x, 0, 0, 0, 0, 0, 0, 0, 0, 0)\n"
        "    let e: Digest = hash.tip5(x, 0, 0, 0, 0, 0, 0, 0, 0, 0)\n"
        "    io.write(convert.as_field(a) + convert.as_field(b))\n"
        "}\n"
    )
    costs = line_costs(compiled(program, 0), api.Inputs((12345,)))
    by_line = {line[1]: rows for line, rows in costs.rows.items() if line}
    assert by_line[9]["u32"] > 0 and by_line[10]["u32"] == 0  # the same entry, recorded twice
    assert by_line[11]["cascade"] > 0 and by_line[12]["cascade"] == 0
    assert by_line[11]["hash"] == by_line[12]["hash"] > 0  # each permutation's own rows
    assert costs.totals() == costs.heights.as_dict()
    assert set(costs.fixed) == set(REPORT_ORDER) and costs.fixed["lookup"] == 256


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_tri_cost_annotate_at_every_level(capsys, tmp_path, level):
    from cli_helpers import tri

    program = tmp_path / "annotated.tri"
    program.write_text(
        "program annotated\n\nuse vm.io.io\n\nfn main() {\n"
        "    let n: Field = io.read()\n"
        "    let mut total: Field = 0\n"
        "    for i in 0..n bounded 64 {\n"
        "        total = total + total * n + 1\n"
        "    }\n"
        "    io.write(total)\n"
        "}\n"
    )
    code, out, err = tri(capsys, "cost", program, f"-O{level}", "--input", "40", "--annotate")
    assert code == 0, err
    assert "rows per source line" in out
    loop_line = next(line for line in out.splitlines() if "total = total + total * n" in line)
    mark, number, cycles = loop_line.split()[:3]
    assert mark == ">" and number == "9"
    assert int(cycles) > 0 and int(cycles) % 40 == 0  # its instructions, 40 times each
    code, out, _ = tri(
        capsys, "cost", program, f"-O{level}", "--input", "40", "--annotate", "--json"
    )
    report = json.loads(out)
    totals = dict(report["lines_fixed"])
    for entry in report["lines"]:
        assert entry["file"] == str(program)
        for table, rows in entry["rows"].items():
            totals[table] += rows
    assert totals == report["heights"]


def test_tri_cost_annotate_needs_source(capsys, tmp_path):
    from cli_helpers import tri

    program = tmp_path / "plain.tasm"
    program.write_text("push 1\nwrite_io 1\nhalt\n")
    code, _, err = tri(capsys, "cost", program, "--annotate")
    assert code == 2 and "--annotate needs Trident source" in err


def test_tri_cost_hotspots_names_the_loop_body_first(capsys, tmp_path):
    from cli_helpers import tri

    program = tmp_path / "hot.tri"
    program.write_text(
        "program hot\n\nuse vm.io.io\n\nfn main() {\n"
        "    let n: Field = io.read()\n"
        "    let mut total: Field = 0\n"
        "    for i in 0..n bounded 64 {\n"
        "        total = total * total + total * n + n * n + 1\n"
        "    }\n"
        "    io.write(total)\n"
        "}\n"
    )
    for level in (1, 2):
        code, out, _ = tri(
            capsys,
            "cost",
            program,
            f"-O{level}",
            "--input",
            "50",
            "--hotspots",
            "--top",
            "2",
            "--json",
        )
        report = json.loads(out)
        assert code == 0 and report["hotspots"]["table"] == "processor"
        first, second = report["hotspots"]["lines"]
        assert (first["line"], second["line"]) == (9, 8)  # the body, then the loop's control
        assert 0 < second["share"] < first["share"] < 1
        code, out, _ = tri(capsys, "cost", program, f"-O{level}", "--input", "50", "--hotspots")
        assert f"{program}:9  total = total * total" in out
    plain = tmp_path / "plain.tasm"
    plain.write_text("push 1\nwrite_io 1\nhalt\n")
    code, _, err = tri(capsys, "cost", plain, "--hotspots")
    assert code == 2 and "--hotspots needs Trident source" in err


def test_hotspots_count_an_inlined_function_as_its_own(capsys):
    from cli_helpers import tri

    for level in (0, 1):  # -O1 inlines fibonacci.pair into main: its rows stay its own
        code, out, _ = tri(
            capsys,
            "cost",
            "tests/programs/valid/fib.tri",
            f"-O{level}",
            "--input",
            "30",
            "--hotspots",
            "--json",
        )
        functions = json.loads(out)["hotspots"]["functions"]
        assert code == 0 and functions[0]["function"] == "std.math.fibonacci.pair"
        assert functions[0]["share"] > 0.9


def test_hotspots_rank_loops_a_loop_with_the_loops_inside_it(capsys, tmp_path):
    from cli_helpers import tri

    program = tmp_path / "nested.tri"
    program.write_text(
        "program nested\n\nuse vm.io.io\n\n"
        "fn main() {\n"
        "    let n: Field = io.read()\n"
        "    let mut total: Field = 0\n"
        "    for i in 0..n bounded 20 {\n"
        "        for j in 0..n bounded 20 {\n"
        "            total = total + 1\n"
        "        }\n"
        "    }\n"
        "    io.write(total)\n"
        "}\n"
    )
    code, out, _ = tri(
        capsys, "cost", program, "--input", "12", "--hotspots", "--annotate", "--json"
    )
    report = json.loads(out)
    loops = report["hotspots"]["loops"]
    table = report["hotspots"]["table"]
    assert code == 0 and [(loop["first"], loop["last"]) for loop in loops] == [(8, 12), (9, 11)]
    rows = {entry["line"]: entry["rows"][table] for entry in report["lines"]}
    for loop in loops:
        assert loop["rows"] == sum(
            rows.get(line, 0) for line in range(loop["first"], loop["last"] + 1)
        )
    assert loops[0]["rows"] > loops[1]["rows"] > 0
    code, out, _ = tri(capsys, "cost", program, "--input", "12", "--hotspots")
    assert "the loops whose lines add most to it" in out and f"{program}:8-12" in out


def test_blocks_name_the_source_lines_their_code_came_from(capsys):
    from cli_helpers import tri

    code, out, _ = tri(
        capsys, "cost", "tests/programs/valid/fib.tri", "--input", "30", "--blocks", "--json"
    )
    entries = json.loads(out)["blocks"]["entries"]
    loop = entries[0]  # the loop body of std.math.fibonacci.fib, inlined into main
    assert code == 0 and loop["block"].endswith("__loop__1")
    where, lines = loop["source"].rsplit(":", 1)
    assert where.endswith("stdlib/math/fibonacci.tri")
    first, _, last = lines.partition("-")
    assert 12 <= int(first) <= int(last or first) <= 16  # the `for` statement's lines
    code, out, _ = tri(capsys, "cost", "tests/programs/gcd.tasm", "--input", "42,56", "--blocks")
    assert code == 0 and "source" not in out.split("blocks by")[1].splitlines()[2]
