"""`tri build --report` (compiler/report.py): what the optimizer did to each function."""

from __future__ import annotations

from pathlib import Path

from test_backend_cli import tri

from compiler import report
from compiler.check.checker import check
from compiler.check.resolve import DEFAULT_LIBRARY, load_project
from compiler.driver import compile_program

VALID = Path(__file__).parents[1] / "programs" / "valid"


def sections_of(text: str) -> dict[str, list[str]]:
    """function label -> its indented lines."""
    found: dict[str, list[str]] = {}
    label = None
    for line in text.splitlines()[1:]:
        if line.startswith("    "):
            found[label].append(line.strip())
        else:
            label = line
            found[label] = []
    return found


def test_the_report_lists_inlined_and_specialized_calls(capsys):
    code, out, _ = tri(capsys, "build", str(VALID / "inlining.tri"), "--report")
    assert code == 0 and out.startswith(";; optimization report (-O1)\n")
    main = sections_of(out)["inlining__main"]
    inlined = next(line for line in main if line.startswith("inlined: "))
    assert "inlining__shadow" in inlined and "inlining__rotate__k1_3" in inlined
    specialized = next(line for line in main if line.startswith("specialized: "))
    assert specialized == (
        "specialized: inlining__rotate (k = 3), inlining__rotate (k = 1), "
        "inlining__rotate (k = 2), inlining__rotate (k = 7)"
    )
    assert sections_of(out)["inlining__rotate"] == ["nothing"]  # rotate(a, b) is a call


def test_the_report_lists_updates_and_inline_arms(capsys):
    out = tri(capsys, "build", str(VALID / "updates.tri"), "--report", "-O0")[1]
    rows = sections_of(out)
    assert rows["updates__step"] == ["updated in place: s (1 of 7 parts changed)"]
    assert "u (1 of 7 parts changed) x4" in rows["updates__main"][0]
    assert rows["updates__write_state"] == ["nothing"]
    arith = sections_of(
        tri(capsys, "build", str(DEFAULT_LIBRARY / "math" / "arith.tri"), "--report")[1]
    )
    assert arith["std_math_arith__abs_diff"][0] == (
        "inlined: std_math_arith__max, std_math_arith__min"
    )
    assert any(line.startswith("laid out inline: ") for line in arith["std_math_arith__max"])
    # candidate * candidate and the result: u32s by the bounds root and bit keep in the loop
    assert "checks dropped: as_u32 by mutable names' bounds x2" in arith["std_math_arith__isqrt"]


def test_the_report_goes_to_stdout_and_the_code_to_the_file(capsys, tmp_path):
    output = tmp_path / "out.tasm"
    code, out, _ = tri(capsys, "build", str(VALID / "updates.tri"), "--report", "-o", str(output))
    assert code == 0 and out.startswith(";; optimization report")
    assert output.read_text() == tri(capsys, "build", str(VALID / "updates.tri"))[1]


def test_a_pass_adds_a_section():
    """The report is a list of sections: a new one is a row, and renders like the others."""
    compiled = compile_program(check(load_project(VALID / "updates.tri")))
    extra = report.SectionKind("searched", lambda outputs: {"updates__main": ["2 of 5 blocks"]})
    program = report.SectionKind("funnel", lambda outputs: {"": ["5 seen, 2 cheaper"]})
    sections = report.report(compiled.outputs, [*report.SECTIONS, extra, program])
    text = report.render(sections, ["updates__main"], 1)
    assert text.splitlines()[1] == "funnel: 5 seen, 2 cheaper"
    assert "    searched: 2 of 5 blocks" in text.splitlines()


SIGNS = """module signs

use vm.core.convert

// x > (p - 1) / 2 by comparing words (std.nn.tensor's is_negative before it used the
// parity of x + x)
pub fn is_negative(x: Field) -> Bool {
    let (hi, lo) = convert.split(x)
    let half_hi: U32 = convert.as_u32(2147483647)
    if half_hi < hi {
        true
    } else if hi == half_hi {
        convert.as_u32(2147483648) < lo
    } else {
        false
    }
}

pub fn relu(x: Field) -> Field {
    if is_negative(x) {
        0
    } else {
        x
    }
}
"""


def test_an_alternative_built_twice_is_reported_once(capsys, tmp_path):
    # is_negative's inner `if` is built in both ways of laying out its arm (copy or move) and
    # as part of a select of the outer `if`; the product is in the code once, and said once
    path = tmp_path / "signs.tri"
    path.write_text(SIGNS)
    rows = sections_of(tri(capsys, "build", str(path), "--report")[1])
    assert rows["signs__is_negative"] == ["laid out inline: select by a product"]
    assert "laid out inline: select by a product x2" in rows["signs__relu"]


def test_shortened_moves_are_reported(capsys):
    # storage.fill's loop entry: the frame sunk under five words, the guard on top
    storage = DEFAULT_LIBRARY / "io" / "storage.tri"
    rows = sections_of(tri(capsys, "build", str(storage), "--report")[1])
    shortened = (
        "pick 3 pick 2 push 0 push 0 push 0 push 0 pick 7 pick 5 -> dup 0 dup 3 dup 1 place 6 dup 3"
    )
    assert any(shortened in line for line in rows["std_io_storage__fill"]), rows
