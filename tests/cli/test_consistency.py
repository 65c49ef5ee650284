"""Every command treats files the same way (issue 14, problem 12): what a file is, how an
unreadable or missing one is reported, and the small things that differed."""

import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import tri

ROOT = Path(__file__).parents[2]
PROGRAM = "program echo\n\nfn main() {\n    pub_write(pub_read() + 1)\n}\n"


def test_a_file_not_named_tasm_is_trident_source_to_every_command(tmp_path, capsys):
    path = tmp_path / "echo.txt"
    path.write_text(PROGRAM)
    assert tri(capsys, "run", path, "--input", "41")[:2] == (0, "42\n")
    assert tri(capsys, "run", path, "--input", "41", "--reference")[:2] == (0, "42\n")
    assert tri(capsys, "check", path)[0] == 0
    code, out, _ = tri(capsys, "build", path)
    assert code == 0 and out.startswith("    call echo__main\n")
    code, _, err = tri(capsys, "build", ROOT / "tests" / "programs" / "gcd.tasm")
    assert code == 2 and "is TASM already" in err


@pytest.mark.parametrize(
    "command", [["check"], ["fmt"], ["view"], ["run"], ["build"], ["test"], ["cost"]]
)
def test_text_that_is_not_utf8_is_reported_at_the_bad_byte(tmp_path, capsys, command):
    path = tmp_path / "bad.tri"
    path.write_bytes(b"program bad\n\nfn main() {\n    pub_write(\xff)\n}\n")
    code, _, err = tri(capsys, *command, path)
    assert code in (1, 2)
    assert f"{path}:4:15: error[E0100]: cannot read file: not UTF-8 text (byte 0xff)" in err
    assert "codec" not in err


@pytest.mark.parametrize(
    "command", [["check"], ["fmt"], ["view"], ["run"], ["build"], ["test"], ["cost"]]
)
def test_a_missing_file_has_one_wording(tmp_path, capsys, command):
    path = tmp_path / "missing.tri"
    code, _, err = tri(capsys, *command, path)
    assert code == 2
    assert err.strip() == f"error: cannot read {path}: no such file or directory"


def test_check_reads_a_file_that_is_not_a_regular_one(capsys):
    code, _, err = tri(capsys, "check", "/dev/null")
    assert code == 1 and "no such file" not in err
    assert "/dev/null:1:1: error[E0001]: unexpected end of file" in err


def test_cost_does_not_offer_the_reference_evaluator(capsys):
    with pytest.raises(SystemExit):
        tri(capsys, "cost", "--help")
    assert "--reference" not in capsys.readouterr().out


def test_a_reader_that_goes_away_is_not_an_error(tmp_path):
    path = tmp_path / "echo.tri"
    path.write_text(PROGRAM)
    command = [sys.executable, "-m", "tri", "cost", str(path), "--input", "1"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()  # like `| head -0`: every write finds the pipe closed
    _, err = process.communicate()
    assert process.returncode == 0, err.decode()


def test_counts_are_singular_when_they_are_one(tmp_path, capsys):
    path = tmp_path / "read.tasm"
    path.write_text("read_io 1 halt")
    code, _, err = tri(capsys, "run", path)
    assert code == 1 and "needs 1 public word, 0 left" in err
