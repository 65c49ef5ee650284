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

    page = (Path(__file__).parents[1] / "docs" / "cli.md").read_text()
    for hint in HINTS:
        assert f"| {hint.code} | {hint.name} |" in page, hint.code
