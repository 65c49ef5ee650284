"""`tri build --decisions` and `tri decisions` (compiler.search.decisions): a frozen table
builds byte-identical TASM with no search and no model run; tampered entries are refused and
re-decided; new weights show as drift, and the rebuild re-decides exactly the drifted ones."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_helpers import tri

from compiler.neural.model import initial_parameters
from compiler.neural.weights import save_weights

VALID = Path(__file__).parents[1] / "programs" / "valid"
# programs where the -O3 model is asked about blocks, and where other weights decide otherwise
MODEL_PROGRAMS = [VALID / name for name in ("arrays.tri", "inlining.tri", "pointer_bases.tri")]
SUMMARY = re.compile(
    r"decisions: .*: (\d+) blocks from the table, (\d+) decided \((\d+) searched, "
    r"the model asked (\d+) times\), (\d+) frozen entries refused"
)


def build(capsys, program, table, *options):
    """(TASM, hits, decided, searched, model runs, refused) of `tri build -O3 --decisions`."""
    code, out, err = tri(capsys, "build", program, "-O3", "--decisions", table, *options)
    assert code == 0, err
    return (out, *(int(n) for n in SUMMARY.search(err).groups()))


@pytest.fixture
def no_cache(monkeypatch):
    monkeypatch.setenv("TRI_CACHE", "off")


def test_a_frozen_table_builds_the_same_tasm_without_search_or_model(capsys, tmp_path, no_cache):
    table = tmp_path / "decisions.json"
    first = [build(capsys, program, table) for program in MODEL_PROGRAMS]
    assert all(row[1] == 0 and row[2] == row[3] > 0 for row in first)
    assert sum(row[4] for row in first) > 0  # the model was asked
    code, out, _ = tri(capsys, "decisions", "freeze", table)
    assert code == 0 and " entries frozen" in out
    written = table.read_bytes()
    second = [build(capsys, program, table) for program in MODEL_PROGRAMS]
    for before, after in zip(first, second):
        assert after[0] == before[0]  # byte-identical TASM
        assert after[1] > 0 and after[2:] == (0, 0, 0, 0)
    assert table.read_bytes() == written  # nothing decided, nothing written differently
    code, out, _ = tri(capsys, "decisions", "check", table)
    assert code == 0 and "drifted: 0" in out


def _tamper(table: Path, how: str) -> None:
    content = json.loads(table.read_text())
    for entry in content["entries"].values():
        code = entry["frozen"]
        if (
            code is None
            or code == entry["baseline"]
            or not any(line.startswith("push ") for line in code)
        ):
            continue
        choice = next(choice for choice in entry["choices"] if choice["code"] == code)
        if how == "wrong":  # as cheap, and wrong: another constant
            index = next(i for i, line in enumerate(code) if line.startswith("push "))
            new = [*code]
            new[index] = f"push {int(code[index].split()[1]) + 1}"
        else:  # right, and costlier than the baseline
            new = [*entry["baseline"], "push 0", "pop 1"]
            choice["figures"]["instructions_after"] = len(new)
        choice["code"] = entry["frozen"] = new
        table.write_text(json.dumps(content))
        return
    raise AssertionError("no frozen entry with changed code")


@pytest.mark.parametrize("how", ["wrong", "costlier"])
def test_a_tampered_entry_is_refused_and_re_decided(capsys, tmp_path, how):
    table, program = tmp_path / "decisions.json", VALID / "fib.tri"
    original = build(capsys, program, table)[0]
    assert tri(capsys, "decisions", "freeze", table)[0] == 0
    _tamper(table, how)
    code, out, _ = tri(capsys, "decisions", "check", table)
    assert code == 1 and "refused: 1" in out
    _tamper_again = json.loads(table.read_text())
    assert any(e["drift"] for e in _tamper_again["entries"].values())
    tasm, hits, decided, *_, refused = build(capsys, program, table)
    assert tasm == original and decided == 1 and refused == 0
    # the same tampering met by a build directly: refused there, the block decided afresh
    assert tri(capsys, "decisions", "freeze", table)[0] == 0
    _tamper(table, how)
    tasm, hits, decided, *_, refused = build(capsys, program, table)
    assert tasm == original and refused == 1 and decided == 1


def test_new_weights_drift_and_the_rebuild_re_decides_exactly_the_drifted(capsys, tmp_path):
    table, weights = tmp_path / "decisions.json", tmp_path / "untrained.weights"
    save_weights(weights, initial_parameters(1))
    for program in MODEL_PROGRAMS:
        build(capsys, program, table)
    assert tri(capsys, "decisions", "freeze", table)[0] == 0
    code, out, _ = tri(capsys, "decisions", "check", table, "--weights", weights, "--json")
    report = json.loads(out)
    assert code == 1 and report["drifted"] > 0 and report["churn"] > 0
    drifted = len(report["marked"])
    rebuilt = [build(capsys, program, table, "--weights", weights) for program in MODEL_PROGRAMS]
    assert sum(row[2] for row in rebuilt) == drifted
    for program, row in zip(MODEL_PROGRAMS, rebuilt):  # the build without a table, byte for byte
        assert tri(capsys, "build", program, "-O3", "--weights", weights)[1] == row[0]
    code, out, _ = tri(capsys, "decisions", "check", table, "--weights", weights, "--json")
    assert code == 0 and json.loads(out)["drifted"] == 0


@pytest.mark.parametrize("level", ["0", "1"])
def test_decisions_need_the_search(capsys, tmp_path, level):
    code, _, err = tri(
        capsys, "build", VALID / "fib.tri", "-O", level, "--decisions", tmp_path / "t.json"
    )
    assert code == 2 and "add -O2 or -O3" in err


def test_at_o2_and_bad_files(capsys, tmp_path):
    table = tmp_path / "t.json"
    code, out, err = tri(capsys, "build", VALID / "fib.tri", "-O2", "--decisions", table)
    assert code == 0 and SUMMARY.search(err)
    code, out, _ = tri(capsys, "decisions", "show", table)
    assert code == 0 and "open" in out
    content = json.loads(table.read_text())
    key = sorted(content["entries"])[0]
    content["entries"][key]["choices"] = "nonsense"
    table.write_text(json.dumps(content))
    code, _, err = tri(capsys, "decisions", "show", table)
    assert code == 0 and "1 entries could not be read" in err
    table.write_text("not json")
    code, _, err = tri(capsys, "decisions", "show", table)
    assert code == 2 and "not a decision table" in err and "Traceback" not in err
    code, _, err = tri(capsys, "decisions", "check", tmp_path / "absent.json")
    assert code == 2 and "no such decision table" in err


def test_the_documented_session(capsys, tmp_path, monkeypatch, no_cache):
    """docs/cli.md's `tri decisions` session prints what the page shows, command by command."""
    from doc_blocks import fenced, session

    root = Path(__file__).parents[2]
    text = (root / "docs" / "cli.md").read_text()
    section = text.split("## tri decisions")[1].split("\n## ")[0]
    (block,) = fenced(section, "console")
    monkeypatch.chdir(tmp_path)
    steps = session(block)
    assert [command.split()[:3] for command, _ in steps][:2] == [
        ["tri", "build", "-O3"],
        ["tri", "decisions", "freeze"],
    ]
    for command, shown in steps:
        arguments = [
            str(root / word) if word.startswith("tests/") else word for word in command.split()[1:]
        ]
        code, out, err = tri(capsys, *arguments)
        assert code == 0, (command, err)
        assert (out + err).splitlines() == shown, command
    assert (tmp_path / "again.tasm").read_bytes() == (tmp_path / "arrays.tasm").read_bytes()
