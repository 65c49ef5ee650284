"""`tri hash`: a function's hash follows its meaning, not its spelling -- the same after
renaming locals, reformatting and commenting, another after any change of what it does
-- and is the same on every run and machine."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import tri

BASE = """module shapes

use vm.core.convert

/// The area of a w by h box.
pub fn area(w: Field, h: Field) -> Field {
    let product: Field = w * h
    product
}

pub fn sum_to(n: U32) -> Field {
    let mut total: Field = 0
    for i in 0..n bounded 16 {
        let step: Field = convert.as_field(i)
        total = total + step
    }
    total
}
"""

# the same meaning: locals renamed (a shadowing name resolved by scope), other layout,
# other comments
SAME = """module shapes

use vm.core.convert

// nothing here counts
pub fn area(width: Field, height: Field) -> Field {
    let p: Field = width * height  // a product
    p
}

pub fn sum_to(count: U32) -> Field {
    let mut acc: Field = 0
    for k in 0..count bounded 16 {
        let acc2: Field = convert.as_field(k)
        acc = acc + acc2
    }
    acc
}
"""

# one change each, to `area` (first) or `sum_to` (second)
CHANGES = [
    ("w * h", "w + h", 0),
    ("w * h", "h * w", 0),
    ("-> Field {\n    let product", "-> Field {\n    let product", None),  # no change
    ("pub fn area", "fn area", 0),
    ("fn area", "fn surface", 0),
    ("w: Field, h: Field", "h: Field, w: Field", 0),
    ("bounded 16", "bounded 17", 1),
    ("let mut total: Field = 0", "let mut total: Field = 1", 1),
    ("convert.as_field(i)", "convert.as_field(n)", 1),
    ("total = total + step", "total = step + total", 1),
]


def _hashes(capsys, tmp_path, text, name="shapes.tri"):
    path = tmp_path / name
    path.write_text(text)
    code, out, err = tri(capsys, "hash", path, "--json")
    assert code == 0, err
    return [entry["hash"] for entry in json.loads(out)["functions"]]


def test_spelling_does_not_count(tmp_path, capsys):
    assert _hashes(capsys, tmp_path, SAME) == _hashes(capsys, tmp_path, BASE)


@pytest.mark.parametrize("old, new, changed", CHANGES)
def test_meaning_counts(tmp_path, capsys, old, new, changed):
    assert old in BASE
    before = _hashes(capsys, tmp_path, BASE)
    after = _hashes(capsys, tmp_path, BASE.replace(old, new, 1))
    expected = [index == changed for index in range(2)]
    assert [a != b for a, b in zip(before, after, strict=True)] == expected


def test_a_local_shadowing_a_parameter_is_resolved_by_scope(tmp_path, capsys):
    inner = (
        "module m\n\npub fn f(x: Field) -> Field {\n    if x == 0 {\n"
        "        let x: Field = 5\n        pub_write(x)\n    }\n    x\n}\n"
    )
    renamed = inner.replace(
        "x: Field = 5\n        pub_write(x)", "y: Field = 5\n        pub_write(y)"
    )
    wrong = inner.replace("        pub_write(x)", "        pub_write(x)\n        pub_write(x)")
    assert _hashes(capsys, tmp_path, inner, "m.tri") == _hashes(capsys, tmp_path, renamed, "m.tri")
    assert _hashes(capsys, tmp_path, inner, "m.tri") != _hashes(capsys, tmp_path, wrong, "m.tri")


def test_the_hash_is_the_same_in_another_process(tmp_path, capsys):
    path = tmp_path / "shapes.tri"
    path.write_text(BASE)
    code, here, _ = tri(capsys, "hash", path, "--full")
    there = subprocess.run(
        [sys.executable, "-m", "tri", "hash", str(path), "--full"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
        env={"PYTHONHASHSEED": "123", "PATH": "/usr/bin:/bin"},
    )
    assert code == 0 and there.returncode == 0, there.stderr
    assert here == there.stdout
    lines = here.splitlines()
    assert [line.split()[1] for line in lines] == ["shapes::area", "shapes::sum_to"]
    assert all(len(line.split()[0]) == 80 for line in lines)
    code, short, _ = tri(capsys, "hash", path)
    assert [line.split()[0] for line in short.splitlines()] == [
        line.split()[0][:16] for line in lines
    ]


def test_a_file_that_does_not_parse_is_an_error(tmp_path, capsys):
    path = tmp_path / "bad.tri"
    path.write_text("module bad\n\npub fn f( {\n}\n")
    code, out, err = tri(capsys, "hash", path)
    assert code == 2 and out == "" and "error[E0001]" in err and "Traceback" not in err
