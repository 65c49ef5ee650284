"""`tri cost --hints` (tri/commands/cost_hints.py): each hint on a run that triggers it and
on one that does not, through the command line, in text and JSON."""

from __future__ import annotations

import json

import pytest
from cli_helpers import tri

FIB = "tests/programs/valid/fib.tri"  # about 8 cycles per iteration at -O1


def codes(capsys, program, words: str, *options) -> tuple[list[str], dict]:
    code, out, err = tri(capsys, "cost", program, "--input", words, "--hints", "--json", *options)
    assert code == 0, err
    report = json.loads(out)
    return [hint["code"] for hint in report["hints"]], report


@pytest.mark.parametrize(
    "words, expected",
    [
        ("30", ["H0005"]),  # the cascade table, all of it the program's own words
        ("63", ["H0006"]),  # 520 processor rows: 8 over the cliff at 512
        ("62", ["H0002"]),  # 512 rows: 0 below the cliff
        ("60", []),
    ],
)
def test_each_hint_fires_where_its_figures_say(capsys, words, expected):
    found, report = codes(capsys, FIB, words, "-O1")
    assert found == expected, report["heights"]


def test_the_hash_table_hint(capsys, tmp_path):
    program = tmp_path / "rare.tri"
    rare = "\n".join(f"        io.write(n * {k} + {k * k})" for k in range(120))
    program.write_text(
        "program rare\n\nuse vm.io.io\n\nfn main() {\n    let n: Field = io.read()\n"
        f"    if n == 7 {{\n{rare}\n    }}\n    io.write(n)\n}}\n"
    )
    found, report = codes(capsys, program, "1")  # the long branch never runs
    assert "H0001" in found and report["heights"]["hash"] > report["heights"]["processor"]
    message = next(h["message"] for h in report["hints"] if h["code"] == "H0001")
    assert "hash the program's own words" in message
    assert "H0001" not in codes(capsys, FIB, "30")[0]
    code, out, _ = tri(capsys, "cost", program, "--input", "1", "--hints")
    assert code == 0 and "hint[H0001] hash table:" in out


def test_every_hint_is_documented():
    from pathlib import Path

    from tri.commands.cost_hints import HINTS

    page = (Path(__file__).parents[2] / "docs" / "cli.md").read_text()
    for hint in HINTS:
        assert f"| {hint.code} | {hint.name} |" in page, hint.code


def _program(tmp_path, name: str, body: str):
    """A program `name` whose `main` is `body` (lines of four-space-indented statements)."""
    path = tmp_path / f"{name}.tri"
    path.write_text(f"program {name}\n\nuse vm.io.io\n\nfn main() {{\n{body}}}\n")
    return path


def _message(report: dict, code: str) -> str:
    return next(hint["message"] for hint in report["hints"] if hint["code"] == code)


CHECKED_TWICE = """\
    let v: Field = io.read()
    let a: U32 = as_u32(v)
    io.write(v)
    let b: U32 = as_u32(v)
    io.write(as_field(a))
    io.write(as_field(b))
"""


def test_a_repeated_range_check_is_redundant(capsys, tmp_path):
    found, report = codes(capsys, _program(tmp_path, "twice", CHECKED_TWICE), "7", "-O1")
    assert "H0003" in found
    message = _message(report, "H0003")
    # line 9's `dup 0` `pop_count` `pop 1`, once; its popcount entry is line 7's
    assert "twice.tri:9" in message and "`v` was checked at line 7" in message
    assert "3 instructions ran 1 time, 3 processor rows" in message
    assert "its line adds 0 u32 rows" in message
    once = CHECKED_TWICE.replace("as_u32(v)\n    io.write(as_field(a))", "a\n    io.write(v)")
    assert once.count("as_u32") == 1
    assert "H0003" not in codes(capsys, _program(tmp_path, "once", once), "7", "-O1")[0]


def test_a_check_repeated_in_a_loop_costs_every_iteration(capsys, tmp_path):
    body = """\
    let v: Field = io.read()
    let mut t: U32 = as_u32(v)
    for i in 0..4 {
        t = as_u32(v)
    }
    io.write(as_field(t))
"""
    found, report = codes(capsys, _program(tmp_path, "hoisted", body), "7", "-O1")
    assert "H0003" in found
    assert "3 instructions ran 4 times, 12 processor rows" in _message(report, "H0003")


@pytest.mark.parametrize(
    "name, body",
    [
        # a new `v`: a new value, which the second check is the first of
        ("shadowed", CHECKED_TWICE.replace("    io.write(v)\n", "    let v: Field = io.read()\n")),
        # checked in one arm only: the value may be unchecked after the `if`
        (
            "branch",
            "    let v: Field = io.read()\n    if v == 7 {\n        io.write(as_field(as_u32(v)))\n"
            "    }\n    io.write(as_field(as_u32(v)))\n",
        ),
        # W0002: a U32 made a Field and checked again: the compiler emits no code for it
        (
            "converted",
            "    let x: U32 = as_u32(io.read())\n    let y: U32 = as_u32(as_field(x))\n"
            "    io.write(as_field(y))\n",
        ),
    ],
)
def test_checks_that_are_not_redundant_or_cost_nothing(capsys, tmp_path, name, body):
    code, out, err = tri(
        capsys, "cost", _program(tmp_path, name, body), "--input", "7,8", "--hints", "--json"
    )
    assert code == 0, err
    assert "H0003" not in [hint["code"] for hint in json.loads(out)["hints"]]
    assert ("W0002" in err) == (name == "converted")


LOOPS = """\
    let n: U32 = as_u32(io.read())
    let mut mixed: U32 = as_u32(0)
    let mut total: Field = 0
    for i in 0..n bounded OUTER {
        let word: U32 = as_u32(io.read())
        mixed = mixed ^ word
        let count: U32 = word & as_u32(3)
        for j in 0..count bounded INNER {
            total = total + 1
        }
    }
    io.write(total)
    io.write(as_field(mixed))
"""
WORDS = ",".join(["20"] + [str(2**31 + 1000003 * k) for k in range(20)])  # counts 0..3


def _loops(capsys, tmp_path, outer: int, inner: int) -> tuple[list[str], dict]:
    body = LOOPS.replace("OUTER", str(outer)).replace("INNER", str(inner))
    return codes(capsys, _program(tmp_path, f"loops{outer}_{inner}", body), WORDS, "-O1")


def test_a_loose_loop_bound_on_the_tallest_table(capsys, tmp_path):
    found, report = _loops(capsys, tmp_path, 30, 4000000000)
    assert found == ["H0004"] and report["heights"]["u32"] == 1458
    message = _message(report, "H0004")
    # four distinct counts (0..3), each an `lt` against 4000000001: 32 bits, 33 rows
    assert "132 of them are the bound checks of the loop at" in message
    assert "4 distinct counts, 33 rows each" in message
    assert "largest count was 3: a bound of at most 6 costs 4 rows each" in message
    assert "116 u32 rows fewer, the tallest table 1342 rows" in message
    # what it predicts is what the tighter bound measures
    found, report = _loops(capsys, tmp_path, 30, 6)
    assert found == [] and report["heights"]["u32"] == 1342


def test_a_loose_bound_off_the_tallest_table_is_no_hint(capsys, tmp_path):
    body = "    let n: U32 = as_u32(io.read())\n    let mut t: Field = 0\n"
    body += "    for i in 0..n bounded 1000000 {\n        t = t + 1\n    }\n    io.write(t)\n"
    found, report = codes(capsys, _program(tmp_path, "loose", body), "10", "-O1")
    assert "H0004" not in found
    # the check's one entry costs 21 u32 rows (1000001 has 20 bits), the cascade is taller
    assert report["heights"]["u32"] == 21 and report["heights"]["cascade"] > 21
