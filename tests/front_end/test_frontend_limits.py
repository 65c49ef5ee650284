"""Pathological sources get a diagnostic, never a Python exception."""

import pytest

from tri.cli import main


def test_a_very_long_operator_chain_compiles(tmp_path, capsys):
    path = tmp_path / "long.tri"
    path.write_text(
        "program long\nfn main() {\n    let x = " + "1 + " * 3000 + "1\n    pub_write(x)\n}\n"
    )
    assert main(["run", str(path), "--reference"]) == 0
    assert main(["run", str(path)]) == 0
    assert capsys.readouterr().out.split() == ["3001", "3001"]


def test_nesting_beyond_the_limit_is_a_diagnostic(tmp_path, capsys):
    path = tmp_path / "deep.tri"
    path.write_text("program deep\nfn main() {\n    let x = " + "1 + " * 40000 + "1\n}\n")
    assert main(["check", str(path)]) == 1
    assert "error[E0006]" in capsys.readouterr().err


@pytest.mark.parametrize(
    "command", [["check"], ["fmt", "--check"], ["run"], ["run", "--reference"], ["build"]]
)
def test_deeply_nested_calls_are_a_diagnostic_in_every_command(tmp_path, capsys, command):
    # The parser itself does not recurse, so the nesting reaches every later stage.
    path = tmp_path / "deep.tri"
    depth = 20000
    path.write_text(
        "program deep\nfn main() {\n    let x: Field = "
        + "neg(" * depth
        + "1"
        + ")" * depth
        + "\n    pub_write(x)\n}\n"
    )
    assert main([*command, str(path)]) in (1, 2)
    assert "error[E0006]" in capsys.readouterr().err
