"""Warnings a user relies on (issue 14, problem 9): unused variables, unused `mut`, unused
functions, a duplicate `use`, a `module` line that does not match the file's path, and
`-I` naming a file; and problem 3: `tri build -o` never overwrites source."""

import pytest
from cli_helpers import tri

MAIN = "program example\n\nfn main() {{\n{body}\n}}\n"


def _check(tmp_path, capsys, text, name="example.tri", *options):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    code, _, err = tri(capsys, "check", path, *options)
    return code, err


@pytest.mark.parametrize(
    "body, code, message",
    [
        (
            "    let x: Field = pub_read()\n    let y: Field = x + 1\n    pub_write(x)",
            "W0006",
            "unused variable 'y'",
        ),
        ("    let (a, b) = pub_read2()\n    pub_write(a)", "W0006", "unused variable 'b'"),
        (
            "    let mut t: Field = pub_read()\n    pub_write(t)",
            "W0007",
            "variable 't' is declared mut but never assigned",
        ),
    ],
)
def test_unused_variables_and_mut(tmp_path, capsys, body, code, message):
    exit_code, err = _check(tmp_path, capsys, MAIN.format(body=body))
    assert exit_code == 0
    assert f"warning[{code}]: {message}" in err


def test_names_marked_unused_and_programs_with_errors_get_no_unused_warnings(tmp_path, capsys):
    body = "    let _x: Field = pub_read()\n    let (a, _) = pub_read2()\n    pub_write(a)"
    exit_code, err = _check(tmp_path, capsys, MAIN.format(body=body))
    assert exit_code == 0 and "warning" not in err
    broken = "    let y: Field = pub_read()\n    let z: U32 = 0"
    exit_code, err = _check(tmp_path, capsys, MAIN.format(body=broken))
    assert exit_code == 1 and "error[E0201]" in err and "W0006" not in err


def test_unused_functions(tmp_path, capsys):
    text = (
        "module example\n\nfn helper(x: Field) -> Field {\n    x\n}\n\n"
        "fn used(x: Field) -> Field {\n    x\n}\n\n"
        "pub fn api(x: Field) -> Field {\n    used(x)\n}\n"
    )
    exit_code, err = _check(tmp_path, capsys, text)
    assert exit_code == 0
    assert "warning[W0008]: function 'helper' is never called" in err
    assert "'used'" not in err and "'api'" not in err


def test_a_duplicate_use(tmp_path, capsys):
    body = "    io.write(io.read())"
    text = "program example\n\nuse vm.io.io\nuse vm.io.io\n\nfn main() {\n" + body + "\n}\n"
    exit_code, err = _check(tmp_path, capsys, text)
    assert exit_code == 0 and "example.tri:4:1: warning[W0009]: 'vm.io.io' is imported twice" in err


def test_a_module_line_that_does_not_match_the_path(tmp_path, capsys):
    text = "module std.crypto.other\n\npub fn one() -> Field {\n    1\n}\n"
    exit_code, err = _check(tmp_path, capsys, text, "crypto/example.tri")
    assert exit_code == 0 and "warning[W0010]" in err and "crypto/other.tri" in err
    exit_code, err = _check(
        tmp_path, capsys, text.replace("other", "example"), "crypto/example.tri"
    )
    assert "W0010" not in err
    user = "program user\n\nuse lib.thing\n\nfn main() {\n    pub_write(thing.one())\n}\n"
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "thing.tri").write_text(text.replace("std.crypto.other", "lib.other"))
    exit_code, err = _check(tmp_path, capsys, user, "user.tri")
    assert "lib/thing.tri:1:8: warning[W0010]: this file is imported as 'lib.thing'" in err


def test_include_naming_a_file_is_warned_about(tmp_path, capsys):
    (tmp_path / "lib.tri").write_text("module lib\n")
    text = MAIN.format(body="    pub_write(1)")
    exit_code, err = _check(tmp_path, capsys, text, "example.tri", "-I", tmp_path / "lib.tri")
    assert exit_code == 0
    assert f"warning: -I {tmp_path / 'lib.tri'}: a file; -I names a directory" in err


@pytest.mark.parametrize("output", ["example.tri", "other.tri"])
def test_build_refuses_to_overwrite_source(tmp_path, capsys, monkeypatch, output):
    monkeypatch.chdir(tmp_path)
    source = MAIN.format(body="    pub_write(1)")
    (tmp_path / "example.tri").write_text(source)
    (tmp_path / "other.tri").write_text(source)
    code, out, err = tri(capsys, "build", "example.tri", "-o", output)
    assert code == 2 and "refusing to overwrite" in err
    assert (tmp_path / output).read_text() == source
    code, _, _ = tri(capsys, "build", "example.tri", "-o", "example.tasm")
    assert code == 0 and "call example__main" in (tmp_path / "example.tasm").read_text()
