"""Run inputs (issue 14, problems 5 and 8): every input option accumulates in order, takes
`@FILE` and `@-`, has no length limit, and `--digest` takes a digest's words in the order
the language reads them (`io.read5()`), d0 first."""

import io
import json
import sys

import pytest
from cli_helpers import tri

from vm.field import P

ECHO = """program echo

use vm.io.io

fn main() {
    let count: Field = io.read()
    for _ in 0..count bounded 200000 {
        io.write(io.read() + io.divine())
    }
}
"""

# merkle.step hashes (node, sibling) for an even index and (sibling, node) for an odd one:
# with the sibling's words given exactly as the node's, both orders give the same parent.
SAME_ORDER = """program same_order

use vm.io.io
use vm.crypto.merkle
use vm.core.convert

fn main() {
    let (d0, d1, d2, d3, d4) = io.read5()
    let (_, left) = merkle.step(convert.as_u32(0), d0, d1, d2, d3, d4)
    let (_, right) = merkle.step(convert.as_u32(1), d0, d1, d2, d3, d4)
    let (a0, a1, a2, a3, a4) = left
    let (b0, b1, b2, b3, b4) = right
    io.write(a0 + a1 * 2 + a2 * 3 + a3 * 4 + a4 * 5)
    io.write(b0 + b1 * 2 + b2 * 3 + b3 * 4 + b4 * 5)
}
"""


def _program(tmp_path, text=ECHO, name="echo.tri"):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("engine", [["--engine", "interp"], ["--reference"]])
def test_repeated_inputs_accumulate_in_order(tmp_path, capsys, engine):
    path = _program(tmp_path)
    arguments = ["--input", "2", "--input", "10,20", "--secret", "1", "--secret", "2"]
    code, out, err = tri(capsys, "run", path, *arguments, *engine)
    assert code == 0, err
    assert out.split() == ["11", "22"]


def test_words_from_files_and_stdin(tmp_path, capsys, monkeypatch):
    path = _program(tmp_path)
    count = 100_000  # far more than a command line holds
    words = tmp_path / "public.txt"
    words.write_text(f"{count}\n" + " ,\n".join(str(i) for i in range(count)))
    secret = " ".join("-1" for _ in range(count))
    monkeypatch.setattr(sys, "stdin", io.StringIO(secret))
    code, out, err = tri(capsys, "run", path, "--input", f"@{words}", "--secret", "@-", "--json")
    assert code == 0, err
    output = json.loads(out)["output"]
    assert len(output) == count and output[:3] == [P - 1, 0, 1] and output[-1] == count - 2


def test_unreadable_input_files_are_usage_errors(tmp_path, capsys):
    path = _program(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        tri(capsys, "run", path, "--input", f"@{tmp_path / 'missing.txt'}")
    assert stopped.value.code == 2
    assert "cannot read" in capsys.readouterr().err


def test_digests_and_ram_from_files(tmp_path, capsys):
    path = _program(tmp_path, SAME_ORDER, "same_order.tri")
    digests = tmp_path / "digests.txt"
    digests.write_text("1 2 3 4 5\n1 2 3 4 5\n")
    code, out, err = tri(capsys, "run", path, "--input", "1,2,3,4,5", "--digest", f"@{digests}")
    assert code == 0, err
    left, right = out.split()
    assert left == right


def test_a_digest_is_given_in_the_order_the_language_reads_it(tmp_path, capsys):
    path = _program(tmp_path, SAME_ORDER, "same_order.tri")
    words = "7,11,13,17,19"
    arguments = ["--input", words, "--digest", words, "--digest", words]
    for engine in (["--engine", "interp"], ["--reference"]):
        code, out, err = tri(capsys, "run", path, *arguments, *engine)
        assert code == 0, err
        left, right = out.split()
        assert left == right


def test_ram_accumulates(tmp_path, capsys):
    program = tmp_path / "ram.tri"
    program.write_text(
        "program ram\n\nuse vm.io.io\nuse vm.io.mem\n\nfn main() {\n"
        "    io.write(mem.read(1) + mem.read(2) + mem.read(3))\n}\n"
    )
    cells = tmp_path / "cells.txt"
    cells.write_text("2=20\n3=300")
    code, out, err = tri(capsys, "run", program, "--ram", "1=1", "--ram", f"@{cells}")
    assert code == 0, err
    assert out.split() == ["321"]
