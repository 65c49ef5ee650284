"""`tri fmt` as a user runs it: the parentheses it keeps, `--diff`, what `--check` points to,
and `-` (standard input to standard output), in this process (tests/cli_helpers.py, with
standard input replaced) and as a subprocess on a real pipe.

More of `tri fmt` (rewriting, `--check`, unreadable files) is in tests/front_end/test_formatter.py.
"""

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import tri
from test_formatter import normalized

from compiler.syntax.parser import parse

UGLY = "module m\nfn f() { let x=1+2 x }\n"
PRETTY = "module m\n\nfn f() {\n    let x = 1 + 2\n    x\n}\n"
UGLY_DIFF = """\
@@ -1,2 +1,6 @@
 module m
-fn f() { let x=1+2 x }
+
+fn f() {
+    let x = 1 + 2
+    x
+}
"""
BROKEN = "module m\nfn f( {\n"
ROOT = Path(__file__).parents[2]


def fmt(capsys, monkeypatch, *arguments, stdin: bytes | None = None):
    """`tri fmt ARGUMENTS...` in this process, with `stdin` as standard input."""
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
    return tri(capsys, "fmt", *arguments)


# --- the parentheses a comparison keeps ------------------------------------------------------

COMPARED = """\
module m

fn at_least(a: U32, b: U32) -> Bool {
    (a < b) == false
}

fn differ(a: Field, b: Field) -> Bool {
    (a == b) == false
}

fn both(a: U32, b: U32, c: Bool) -> Bool {
    c == (a < b)
}
"""


def test_a_comparison_inside_a_comparison_keeps_its_parentheses(tmp_path, capsys, monkeypatch):
    """The idiom the `>=` hint suggests, `(a < b) == false`, is left as written: `tri fmt`
    used to print `a < b == false`."""
    path = tmp_path / "compared.tri"
    path.write_text(COMPARED)
    assert fmt(capsys, monkeypatch, "--check", path) == (0, "", "")
    assert fmt(capsys, monkeypatch, path) == (0, "", "")
    assert path.read_text() == COMPARED


CHAINED = """\
module m
fn at_least(a: U32, b: U32) -> Bool { a < b == false }
fn differ(a: Field, b: Field) -> Bool { a == b == false }
fn both(a: U32, b: U32, c: Bool) -> Bool { c == a < b }
"""


def test_chained_comparisons_are_written_with_the_parentheses_the_parser_implies(
    tmp_path, capsys, monkeypatch
):
    """The parser reads `a < b == false` as `(a < b) == false` (every operator is
    left-associative; `<` binds tighter than `==`), so the formatter writes that tree with
    its parentheses, which parses to the same tree."""
    assert normalized(parse(CHAINED)) == normalized(parse(COMPARED))
    path = tmp_path / "chained.tri"
    path.write_text(CHAINED)
    assert fmt(capsys, monkeypatch, path) == (0, f"{path}\n", "")
    assert path.read_text() == COMPARED


def test_an_assignment_target_starting_with_a_bracket_keeps_its_parentheses(
    tmp_path, capsys, monkeypatch
):
    """Without them, `[a, b][0] = 1` after another statement indexes that statement's value:
    `tri fmt` used to write text that did not parse."""
    text = "module m\n\nfn f() {\n    g()\n    ([a, b][0]) = 1\n}\n"
    path = tmp_path / "target.tri"
    path.write_text(text)
    assert fmt(capsys, monkeypatch, "--check", path) == (0, "", "")
    written = text.replace("([a, b][0])", "([a, b])[0]")
    assert fmt(capsys, monkeypatch, "-", stdin=written.encode()) == (0, text, "")


# --- --diff ----------------------------------------------------------------------------------


def test_diff_prints_a_unified_diff_and_writes_nothing(tmp_path, capsys, monkeypatch):
    ugly, pretty = tmp_path / "ugly.tri", tmp_path / "pretty.tri"
    ugly.write_text(UGLY)
    pretty.write_text(PRETTY)
    code, out, err = fmt(capsys, monkeypatch, "--diff", tmp_path)
    name = str(ugly).lstrip("/")
    assert (code, err) == (1, "")
    assert out == f"--- a/{name}\n+++ b/{name}\n{UGLY_DIFF}"
    assert ugly.read_text() == UGLY and pretty.read_text() == PRETTY


def test_diff_of_formatted_files_is_empty(tmp_path, capsys, monkeypatch):
    (tmp_path / "pretty.tri").write_text(PRETTY)
    assert fmt(capsys, monkeypatch, "--diff", tmp_path) == (0, "", "")


def test_diff_paths_are_as_named_and_each_file_has_its_own_headers(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.tri").write_text(UGLY)
    (tmp_path / "src" / "b.tri").write_text(PRETTY.replace("1 + 2", "1+2"))
    code, out, err = fmt(capsys, monkeypatch, "--diff", "src")
    assert (code, err) == (1, "")
    headers = [line for line in out.splitlines() if line.startswith(("--- ", "+++ "))]
    assert headers == ["--- a/src/a.tri", "+++ b/src/a.tri", "--- a/src/b.tri", "+++ b/src/b.tri"]
    assert "-    let x = 1+2\n+    let x = 1 + 2\n" in out


def test_diff_marks_a_last_line_without_a_newline(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "end.tri").write_text("module m\n\nfn f() {}")
    code, out, _ = fmt(capsys, monkeypatch, "--diff", "end.tri")
    assert code == 1
    assert out.endswith("-fn f() {}\n\\ No newline at end of file\n+fn f() {}\n")


def test_diff_reports_syntax_errors_and_goes_on(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a_broken.tri").write_text(BROKEN)
    (tmp_path / "b_ugly.tri").write_text(UGLY)
    code, out, err = fmt(capsys, monkeypatch, "--diff", ".")
    assert code == 2  # the syntax error; the diff of the other file is printed
    assert out == f"--- a/b_ugly.tri\n+++ b/b_ugly.tri\n{UGLY_DIFF}"
    assert err.startswith("a_broken.tri:2:7: error[E0001]: unexpected '{'")


def test_check_and_diff_do_not_go_together(tmp_path, capsys, monkeypatch):
    (tmp_path / "ugly.tri").write_text(UGLY)
    with pytest.raises(SystemExit) as caught:  # argparse's usage error
        fmt(capsys, monkeypatch, "--check", "--diff", tmp_path)
    captured = capsys.readouterr()
    assert (caught.value.code, captured.out) == (2, "")
    assert "argument --diff: not allowed with argument --check" in captured.err
    assert (tmp_path / "ugly.tri").read_text() == UGLY


# --- what --check says -----------------------------------------------------------------------


def test_check_lists_the_files_and_points_to_diff(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    for name in ("a.tri", "b.tri"):
        (tmp_path / "src" / name).write_text(UGLY)
    (tmp_path / "src" / "c.tri").write_text(PRETTY)
    code, out, err = fmt(capsys, monkeypatch, "--check", "src")
    assert (code, out.splitlines()) == (1, ["src/a.tri", "src/b.tri"])
    assert err == "2 files would be reformatted; 'tri fmt --diff src' shows how\n"
    # and the command it names shows them
    code, out, _ = fmt(capsys, monkeypatch, "--diff", "src")
    assert code == 1 and out.count("--- a/src/") == 2


def test_check_under_quiet_lists_the_files_only(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ugly.tri").write_text(UGLY)
    assert fmt(capsys, monkeypatch, "--check", "--quiet", "ugly.tri") == (1, "ugly.tri\n", "")


# --- - : standard input ----------------------------------------------------------------------


def test_stdin_is_formatted_to_stdout(capsys, monkeypatch):
    assert fmt(capsys, monkeypatch, "-", stdin=UGLY.encode()) == (0, PRETTY, "")


def test_formatted_stdin_is_printed_unchanged(capsys, monkeypatch):
    assert fmt(capsys, monkeypatch, "-", stdin=PRETTY.encode()) == (0, PRETTY, "")


def test_stdin_keeps_its_text_past_a_byte_order_mark(capsys, monkeypatch):
    text = "\ufeff" + UGLY
    assert fmt(capsys, monkeypatch, "-", stdin=text.encode()) == (0, PRETTY, "")


def test_check_on_stdin(capsys, monkeypatch):
    code, out, err = fmt(capsys, monkeypatch, "--check", "-", stdin=UGLY.encode())
    assert (code, out) == (1, "<stdin>\n")
    assert err == "1 file would be reformatted; 'tri fmt --diff -' shows how\n"
    assert fmt(capsys, monkeypatch, "--check", "-", stdin=PRETTY.encode()) == (0, "", "")


def test_diff_on_stdin(capsys, monkeypatch):
    code, out, err = fmt(capsys, monkeypatch, "--diff", "-", stdin=UGLY.encode())
    assert (code, out, err) == (1, f"--- a/<stdin>\n+++ b/<stdin>\n{UGLY_DIFF}", "")
    assert fmt(capsys, monkeypatch, "--diff", "-", stdin=PRETTY.encode()) == (0, "", "")


def test_a_syntax_error_on_stdin_is_rendered_with_a_caret_and_exits_2(capsys, monkeypatch):
    for options in ([], ["--check"], ["--diff"]):
        code, out, err = fmt(capsys, monkeypatch, *options, "-", stdin=BROKEN.encode())
        assert (code, out) == (2, "")
        assert err.splitlines() == [
            "<stdin>:2:7: error[E0001]: unexpected '{'; expected ')', a name",
            " 2 | fn f( {",
            "   |       ^",
        ]


def test_stdin_that_is_not_utf8_exits_2(capsys, monkeypatch):
    code, out, err = fmt(capsys, monkeypatch, "-", stdin=b"module m\n\xff\n")
    assert (code, out) == (2, "")
    assert err == "error: cannot read <stdin>: not UTF-8 text (byte 0xff on line 2)\n"


def test_stdin_is_formatted_alone(tmp_path, capsys, monkeypatch):
    (tmp_path / "ugly.tri").write_text(UGLY)
    code, out, err = fmt(capsys, monkeypatch, "-", tmp_path / "ugly.tri", stdin=UGLY.encode())
    assert (code, out) == (2, "")
    assert err == "error: - (standard input) is formatted alone: give no other paths with it\n"
    assert (tmp_path / "ugly.tri").read_text() == UGLY


def _tri_fmt_process(arguments: list[str], stdin: bytes, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tri", "fmt", *arguments],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT)},  # this checkout's tri, wherever it runs
        timeout=120,
        check=False,
    )


def test_stdin_through_a_pipe(tmp_path):
    """As a shell runs it: `tri fmt - < file`, and a syntax error without a traceback."""
    done = _tri_fmt_process(["-"], UGLY.encode(), tmp_path)
    assert (done.returncode, done.stdout.decode(), done.stderr.decode()) == (0, PRETTY, "")
    done = _tri_fmt_process(["--diff", "-"], UGLY.encode(), tmp_path)
    assert done.returncode == 1
    assert done.stdout.decode() == f"--- a/<stdin>\n+++ b/<stdin>\n{UGLY_DIFF}"
    done = _tri_fmt_process(["-"], BROKEN.encode(), tmp_path)
    err = done.stderr.decode()
    assert (done.returncode, done.stdout) == (2, b"")
    assert err.startswith("<stdin>:2:7: error[E0001]: unexpected '{'")
    assert "   |       ^" in err and "Traceback" not in err
