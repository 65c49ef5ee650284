"""Diagnostics for tools: `tri check --json` and `--message-format json` on every command
print one JSON object per diagnostic -- code, span, message, hints, the rendered text --
that says exactly what the human output says; run failures too, with their call chain."""

import json
from pathlib import Path

import pytest
from cli_helpers import tri

INVALID = sorted((Path(__file__).parents[1] / "programs" / "invalid").glob("*.tri"))

CHAIN = """program chain

use vm.io.io
use vm.core.assert

fn inner(x: Field) {
    assert.eq(x, 5)
}

fn main() {
    inner(io.read())
}
"""


def _objects(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _headline(entry: dict) -> str:
    where = entry["file"] + (f":{entry['line']}:{entry['column']}" if entry["line"] else "")
    return f"{where}: {entry['severity']}[{entry['code']}]: {entry['message']}"


@pytest.mark.parametrize("path", INVALID, ids=lambda path: path.stem)
def test_check_json_says_what_the_text_says(path, capsys):
    code, text_out, text_err = tri(capsys, "check", path, "--color", "never")
    json_code, out, err = tri(capsys, "check", path, "--json")
    assert json_code == code
    *diagnostics, summary = _objects(out)
    assert err == ""
    assert summary == {
        "summary": {
            "files": 1,
            "errors": sum(entry["severity"] == "error" for entry in diagnostics),
            "warnings": sum(entry["severity"] == "warning" for entry in diagnostics),
        }
    }
    assert summary["summary"]["errors"] >= 1
    human = "\n".join(entry["rendered"] for entry in diagnostics)
    assert human in text_err + text_out
    for entry in diagnostics:
        assert entry["rendered"].splitlines()[0] == _headline(entry)
        assert entry["line"] <= entry["end_line"] or entry["line"] == 0
        hint_lines = [line for line in entry["rendered"].splitlines() if "= hint:" in line]
        assert [line.split("= hint: ", 1)[1] for line in hint_lines] == entry["hints"]


@pytest.mark.parametrize("command", ["check", "build", "run", "test", "cost"])
def test_every_command_prints_json_diagnostics_on_stderr(tmp_path, capsys, command):
    path = tmp_path / "bad.tri"
    path.write_text("program bad\n\nfn main() {\n    let x: U32 = 0\n    let unused = 1\n}\n")
    code, _, err = tri(capsys, "--message-format", "json", command, path)
    assert code in (1, 2)
    entries = _objects(err)
    codes = [entry["code"] for entry in entries if "code" in entry]
    assert "E0201" in codes
    (error,) = [entry for entry in entries if entry.get("code") == "E0201"]
    assert (error["line"], error["column"], error["end_column"]) == (4, 18, 18)
    assert error["hints"] and "as_u32" in error["hints"][0]


def test_a_clean_check_prints_only_the_summary(tmp_path, capsys):
    path = tmp_path / "chain.tri"
    path.write_text(CHAIN)
    code, out, err = tri(capsys, "check", path, "--json")
    assert code == 0 and err == ""
    assert _objects(out) == [{"summary": {"files": 1, "errors": 0, "warnings": 0}}]


@pytest.mark.parametrize("mode", [["-O0"], ["-O2"], ["--engine", "jit"], ["--reference"]])
def test_a_run_failure_is_one_json_object_with_its_calls(tmp_path, capsys, mode):
    path = tmp_path / "chain.tri"
    path.write_text(CHAIN)
    code, out, err = tri(capsys, "run", path, "--input", "4", "--message-format", "json", *mode)
    assert code == 1 and out == ""
    (entry,) = _objects(err)
    assert (entry["code"], entry["line"], entry["column"]) == ("AssertionFailed", 7, 5)
    assert entry["message"] == "assert.eq failed: 4 != 5"
    assert entry["calls"] == [{"file": str(path), "line": 11, "column": 5}]
    _, _, text = tri(capsys, "run", path, "--input", "4", "--color", "never", *mode)
    assert entry["rendered"] == text.rstrip("\n")


def test_a_manifest_error_is_json_too(tmp_path, capsys, monkeypatch):
    (tmp_path / "tri.toml").write_text('[project]\nname = "demo"\nlevel = 7\n')
    (tmp_path / "main.tri").write_text(CHAIN)
    monkeypatch.chdir(tmp_path)
    code, _, err = tri(capsys, "--message-format", "json", "check")
    assert code == 2
    (entry,) = _objects(err)
    assert entry["code"] == "E0112" and entry["line"] == 3
