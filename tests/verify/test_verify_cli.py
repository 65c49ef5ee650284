"""`tri equiv`: verdicts, counterexamples, JSON, exit codes and clean usage errors."""

import json
import subprocess
import sys

import pytest

from tri.cli import main

STRAIGHT = "tri equiv compares straight-line blocks"
SELECTS = " (a skiz only before swap, pick, place, nop or addi)"
UNKNOWN_PAIR = (  # both almost always fail, on different conditions no input can separate
    "hash dup 2 split pop 1 push 0 eq assert",
    "hash dup 3 split pop 1 push 0 eq assert",
)


def tri(capsys, *arguments):
    code = main([str(argument) for argument in arguments])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_equivalent(capsys, tmp_path):
    first = write(tmp_path, "a.tasm", "dup 0 add\n")
    second = write(tmp_path, "b.tasm", "push 2 mul // strength-reduced\n")
    code, out, err = tri(capsys, "equiv", first, second)
    assert code == 0 and err == ""
    assert out.startswith("equivalent (")


def test_different_prints_a_counterexample(capsys, tmp_path):
    first = write(tmp_path, "a.tasm", "lt")
    second = write(tmp_path, "b.tasm", "swap 1 lt")
    code, out, _ = tri(capsys, "equiv", first, second)
    lines = out.splitlines()
    assert code == 1
    assert lines[0].startswith("different: ")
    assert lines[1].startswith("  entry stack (st0 first): [")
    assert lines[-2].startswith("  A: ") and lines[-1].startswith("  B: ")


def test_a_failure_one_side_lacks(capsys, tmp_path):
    first = write(tmp_path, "a.tasm", "eq assert")
    second = write(tmp_path, "b.tasm", "eq pop 1")
    code, out, _ = tri(capsys, "equiv", first, second)
    assert code == 1
    assert "block A fails with AssertionFailed, block B does not" in out
    assert "A: fails: AssertionFailed" in out


@pytest.mark.parametrize(
    ("first", "second", "options"),
    [
        ("split pop 1", "push 0 swap 1 pop 1", ["--u32", "0"]),  # the high word of a u32 is 0
        ("pop 1 push 5", "push 5 swap 1 pop 1", ["--min-depth", "17"]),  # a word below to pop
        ("dup 0 push 1 add", "dup 0 push 2 add", ["--dont-care", "0"]),  # st0 is garbage
    ],
)
def test_assumptions_make_blocks_equal(capsys, tmp_path, first, second, options):
    paths = write(tmp_path, "a.tasm", first), write(tmp_path, "b.tasm", second)
    code, out, _ = tri(capsys, "equiv", *paths)
    assert code == 1 and out.startswith("different: ")
    code, out, _ = tri(capsys, "equiv", *paths, *options)
    assert code == 0 and out.startswith("equivalent ("), out
    code, out, _ = tri(capsys, "equiv", *paths, *options, "--json")
    report = json.loads(out)
    assert report["status"] == "equivalent" and report["assumptions"]["minimum_depth"] >= 16


@pytest.mark.parametrize("options", [["--u32", "16"], ["--dont-care", "x"], ["--min-depth", "3"]])
def test_bad_assumptions_are_usage_errors(capsys, tmp_path, options):
    paths = write(tmp_path, "a.tasm", "nop"), write(tmp_path, "b.tasm", "nop")
    with pytest.raises(SystemExit) as exit_info:
        tri(capsys, "equiv", *paths, *options)
    assert exit_info.value.code == 2


def test_unknown_is_not_equivalent(capsys, tmp_path):
    first = write(tmp_path, "a.tasm", UNKNOWN_PAIR[0])
    second = write(tmp_path, "b.tasm", UNKNOWN_PAIR[1])
    code, out, _ = tri(capsys, "equiv", first, second)
    assert code == 1
    assert out.startswith("unknown: not proven: ")


def test_json(capsys, tmp_path):
    first = write(tmp_path, "a.tasm", "read_io 1")
    second = write(tmp_path, "b.tasm", "push 0")
    code, out, _ = tri(capsys, "equiv", first, second, "--json", "--inputs", "3")
    report = json.loads(out)
    assert code == 1
    assert report["status"] == "different" and report["entry_depth"] == 3
    example = report["counterexample"]
    assert set(example) == {"difference", "entry", "a", "b"}
    assert len(example["entry"]["stack"]) == 3 and example["entry"]["public_input"]
    assert example["a"]["stack"][0] != example["b"]["stack"][0]
    code, out, _ = tri(capsys, "equiv", first, first, "--json")
    assert code == 0 and json.loads(out)["status"] == "equivalent"


def test_head_isa(capsys, tmp_path):
    block = write(tmp_path, "a.tasm", "b_horner_step")
    code, out, _ = tri(capsys, "equiv", block, block, "--isa", "head")
    assert code == 0 and out.startswith("equivalent")


@pytest.mark.parametrize(
    "text, message",
    [
        ("push 1 call f f: return", "{path}:1:8: error: 'call f' is control flow; " + STRAIGHT),
        ("skiz push 1", "{path}:1:1: error: 'skiz' is control flow; " + STRAIGHT + SELECTS),
        ("push 1\n  recurse", "{path}:2:3: error: 'recurse' is control flow; " + STRAIGHT),
        ("pusj 1", "{path}:1:1: error[A0001]: unknown instruction 'pusj'"),
    ],
)
def test_bad_blocks_are_usage_errors(capsys, tmp_path, text, message):
    good = write(tmp_path, "good.tasm", "add")
    bad = write(tmp_path, "bad.tasm", text)
    code, out, err = tri(capsys, "equiv", good, bad)
    assert code == 2 and out == ""
    assert err.splitlines()[0] == message.format(path=bad)


def test_unreadable_file(capsys, tmp_path):
    good = write(tmp_path, "good.tasm", "add")
    code, out, err = tri(capsys, "equiv", tmp_path / "missing.tasm", good)
    assert code == 2 and out == ""
    assert (
        err.strip() == f"error: cannot read {tmp_path / 'missing.tasm'}: no such file or directory"
    )


def test_negative_inputs_option(tmp_path):
    good = write(tmp_path, "good.tasm", "add")
    result = subprocess.run(
        [sys.executable, "-m", "tri", "equiv", str(good), str(good), "--inputs", "-1"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "--inputs: must not be negative" in result.stderr
