"""The command line: output, JSON schema, exit codes, and clear one-line errors."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import HEIGHT_NAMES, tri

from tri import __version__
from tri.cli import main
from vm.field import P

PROGRAMS = Path(__file__).parents[1] / "programs"


def write(tmp_path, text, name="program.tasm"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_run_prints_the_output(capsys):
    code, out, err = tri(capsys, "run", PROGRAMS / "countdown.tasm")
    assert code == 0 and err == ""
    assert out.split() == [str(n) for n in range(10, -1, -1)]


def test_run_json_schema(capsys):
    code, out, _ = tri(capsys, "run", PROGRAMS / "gcd.tasm", "--input", "42,56", "--json")
    report = json.loads(out)
    assert code == 0
    assert list(report) == ["output", "cycles", "heights", "padded_height", "error"]
    assert list(report["heights"]) == HEIGHT_NAMES
    assert report["output"] == [14] and report["cycles"] == 34 and report["error"] is None
    assert report["heights"]["u32"] == 33 and report["padded_height"] == 512


def test_run_json_error(capsys):
    code, out, _ = tri(capsys, "run", PROGRAMS / "fibonacci.tasm", "--json")
    report = json.loads(out)
    assert code == 1
    assert report["error"] == {
        "kind": "EmptyPublicInput",
        "ip": 4,
        "instruction": "read_io 1",
        "cycle": 2,
        "message": report["error"]["message"],
        "location": None,  # hand-written TASM has no source map
    }
    assert report["heights"]["processor"] == 2


def test_negative_inputs_are_canonical(capsys, tmp_path):
    program = write(tmp_path, "read_io 2 write_io 2 halt")
    code, out, _ = tri(capsys, "run", program, "--input", f"-1,{-(P - 1)}", "--json")
    assert json.loads(out)["output"] == [1, P - 1]


def test_secret_digest_ram_and_isa_flags(capsys):
    n1 = [
        5778616925620397101,
        977151889104403440,
        5665740249988204958,
        12002820465748076267,
        13580803340493125858,
    ]
    secret = ",".join(map(str, list(reversed(n1)) + [1337] * 10))
    ram = ",".join(f"{a}={42 + a}" for a in range(1000))
    code, out, err = tri(
        capsys,
        "run",
        PROGRAMS / "every_instruction_head.tasm",
        "--isa",
        "head",
        "--input",
        "5,5,5,5,5",
        "--secret",
        secret,
        "--digest",
        "4,4,4,4,4",
        "--ram",
        ram,
        "--ram",
        ",".join(f"{a}=3" for a in range(100000, 100005)),
        "--json",
    )
    assert code == 0, err
    assert json.loads(out)["output"] == [496, 0, 1081, 1082, 1083]


def test_cost_table(capsys):
    code, out, _ = tri(capsys, "cost", PROGRAMS / "fibonacci.tasm", "--input", "11")
    assert code == 0
    for name in HEIGHT_NAMES:
        assert name in out
    assert "512 = 2^9, set by cascade" in out
    assert "slack          240 rows" in out


def test_the_lookup_table_never_takes_the_slack(tmp_path, capsys):
    """The lookup table is always 256 rows: when it is the tallest, the slack is what the
    tallest table that grows has left, not 0."""
    path = tmp_path / "small.tri"
    path.write_text("program small\n\nfn main() {\n    pub_write(pub_read() + 1)\n}\n")
    code, out, _ = tri(capsys, "cost", path, "--input", "1", "--json")
    report = json.loads(out)
    assert code == 0 and report["dominant"] == ["lookup"] and report["padded_height"] == 256
    growing = {name: value for name, value in report["heights"].items() if name != "lookup"}
    assert report["slack"] == 256 - max(growing.values()) > 0
    tallest = max(growing, key=growing.get)
    code, out, _ = tri(capsys, "cost", path, "--input", "1")
    assert "set by lookup (always 256 rows: no run pads to less)" in out
    slack = report["slack"]
    assert f"slack          {slack} rows before it doubles to 2^9 (as the {tallest}" in out


def test_cost_json(capsys):
    code, out, _ = tri(capsys, "cost", PROGRAMS / "fibonacci.tasm", "--input", "11", "--json")
    report = json.loads(out)
    assert report["dominant"] == ["cascade"] and report["slack"] == 240


@pytest.mark.parametrize(
    "text, message",
    [
        ("push 1\npusj 2\n", ":2:1: error[A0001]: unknown instruction 'pusj'"),
        ("pop 7", ":1:5: error[A0002]: 'pop' takes 1..5, found '7'"),
        ("call nowhere", ":1:6: error[A0003]: call to undefined label 'nowhere'"),
        (
            "push 99999999999999999999",
            ":1:6: error[A0002]: constant 99999999999999999999 is out of bounds",
        ),
    ],
)
def test_syntax_errors_exit_2_with_a_caret(capsys, tmp_path, text, message):
    program = write(tmp_path, text)
    code, out, err = tri(capsys, "run", program)
    assert code == 2 and out == ""
    first, source, caret = err.splitlines()
    assert first.startswith(str(program)) and message in first
    column = int(first.split(":")[2])
    assert caret.index("^") == source.index("|") + 1 + column


@pytest.mark.parametrize(
    "arguments, kind",
    [
        (["--input", ""], "EmptyPublicInput"),
        (["--input", "7", "--max-steps", "50"], "StepLimitExceeded"),
    ],
)
def test_vm_errors_exit_1(capsys, arguments, kind):
    code, out, err = tri(capsys, "run", PROGRAMS / "fibonacci.tasm", *arguments)
    assert code == 1
    assert err.startswith(f"error: {kind} at ip ") and len(err.splitlines()) == 1


def test_runaway_loop_is_bounded(capsys, tmp_path):
    program = write(tmp_path, "loop: call loop")
    code, _, err = tri(capsys, "run", program, "--max-steps", "10000")
    assert code == 1 and "StepLimitExceeded" in err and "cycle 10000" in err


@pytest.mark.parametrize(
    "arguments",
    [
        ["run", "missing.tasm"],
        ["run", "--input", "1,,2", "x.tasm"],
        ["run", "--digest", "1,2,3", "x.tasm"],
        ["run", "--ram", "5", "x.tasm"],
        ["run", "--isa", "v9", "x.tasm"],
        ["run", "--max-steps", "0", "x.tasm"],
        ["run", "--max-steps", str(2**63), "x.tasm"],
        ["run", "--input", str(P), "x.tasm"],
        ["frobnicate"],
    ],
)
def test_bad_usage_exits_2(capsys, arguments):
    with pytest.raises(SystemExit) as caught:
        if main(arguments) == 2:
            raise SystemExit(2)
    assert caught.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["run", "--reference", str(PROGRAMS / "gcd.tasm")], "runs Trident source"),
    ],
)
def test_reference_where_it_cannot_apply_is_a_usage_error(capsys, arguments, message):
    code, out, err = tri(capsys, *arguments)
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err


def test_a_file_that_is_not_utf8_is_named_at_the_bad_byte(capsys, tmp_path):
    path = tmp_path / "binary.tri"
    path.write_bytes(b"program p\n\xff\xfe")
    code, _, err = tri(capsys, "check", path)
    assert code == 1
    assert f"{path}:2:1: error[E0100]: cannot read file: not UTF-8 text (byte 0xff)" in err


def test_through_a_real_process(tmp_path):
    """The installed entry point: no traceback for bad input, the exit codes hold."""
    bad = write(tmp_path, "push 1 dup 0dup 0")
    broken = subprocess.run(
        [sys.executable, "-m", "tri", "run", str(bad)], capture_output=True, text=True
    )
    assert broken.returncode == 2 and "Traceback" not in broken.stderr
    assert "error[A0002]" in broken.stderr
    empty = write(tmp_path, "read_io 1 halt", "empty.tasm")
    failed = subprocess.run(
        [sys.executable, "-m", "tri", "run", str(empty)], capture_output=True, text=True
    )
    assert failed.returncode == 1 and failed.stderr.startswith("error: EmptyPublicInput")
    version = subprocess.run(
        [sys.executable, "-m", "tri", "--version"], capture_output=True, text=True
    )
    assert version.stdout.strip() == f"tri {__version__}"


@pytest.mark.parametrize("extra", [[], ["--reference"]])
def test_profile_chooses_the_cfg_items(capsys, extra):
    program = PROGRAMS / "valid" / "attributes.tri"
    assert tri(capsys, "run", program, "--input", "3", *extra)[1].split()[0] == "1"
    code, out, _ = tri(capsys, "run", program, "--input", "3", "--profile", "release", *extra)
    assert code == 0 and out.split() == ["2", "9", "4"]
