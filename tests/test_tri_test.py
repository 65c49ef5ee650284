"""`tri test`: each #[test] function compiled as the entry, run on the VM, checked
against the reference evaluator; exit 0 when all pass, 1 when one fails."""

import json
from pathlib import Path

from cli_helpers import tri

MODULE = """module tested

use vm.io.io
use vm.core.assert

pub fn double(x: Field) -> Field {
    x + x
}

#[test]
fn doubles_one() {
    assert.eq(double(1), 2)
}

#[test]
fn doubles_wrong() {
    assert.eq(double(2), 5)
}

#[test]
fn loops_forever() {
    let mut n: Field = 0
    for _ in 0..1000000 {
        n = n + 1
    }
    io.write(n)
}
"""


def write(tmp_path, text=MODULE, name="tested.tri"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_passing_and_failing_tests_are_reported_with_the_vm_error(tmp_path, capsys):
    path = write(tmp_path)
    code, out, err = tri(capsys, "test", path, "--max-steps", "5000")
    assert code == 1
    assert f"PASS {path}::doubles_one (" in out
    assert f"FAIL {path}::doubles_wrong: {path}:17:5: assert.eq failed: 4 != 5" in out
    assert f"FAIL {path}::loops_forever: StepLimitExceeded" in out
    assert "3 tests: 1 passed, 2 failed" in err


def test_a_keyword_selects_tests_and_all_passing_exits_0(tmp_path, capsys):
    code, out, _ = tri(capsys, "test", write(tmp_path), "-k", "one")
    assert code == 0
    assert out.count("PASS") == 1 and "1 test: 1 passed, 0 failed" in out


def test_json_lists_every_test(tmp_path, capsys):
    code, out, _ = tri(capsys, "test", write(tmp_path), "--json", "--max-steps", "5000")
    report = json.loads(out)
    assert code == 1 and report["failed"] == 2
    by_name = {entry["test"]: entry for entry in report["tests"]}
    assert by_name["doubles_one"]["passed"] and by_name["doubles_one"]["error"] is None
    assert by_name["doubles_wrong"]["error"].startswith("AssertionFailed")


def test_tests_of_imported_modules_are_not_run(tmp_path, capsys):
    write(tmp_path)
    program = "program user\n\nuse tested\n\nfn main() {\n    pub_write(tested.double(2))\n}\n"
    code, out, _ = tri(capsys, "test", write(tmp_path, program, "user.tri"))
    assert code == 0 and "0 tests: 0 passed, 0 failed" in out


def test_source_that_does_not_check_exits_2(tmp_path, capsys):
    code, _, err = tri(capsys, "test", write(tmp_path, "module broken\n#[test]\nfn t() { x }\n"))
    assert code == 2 and "error[E0103]" in err and "Traceback" not in err


def test_the_library_tests_pass(capsys):
    code, out, _ = tri(capsys, "test", Path(__file__).parents[1] / "stdlib")
    assert code == 0 and out.count("PASS") >= 6 and "FAIL" not in out


def test_a_module_build_leaves_test_functions_out(tmp_path, capsys):
    text = "module m\n\npub fn f() -> Field {\n    1\n}\n\n"
    text += "#[test]\npub fn t() {\n    assert(f() == 1)\n}\n"
    path = write(tmp_path, text, "m.tri")
    code, out, _ = tri(capsys, "build", path)
    assert code == 0 and "__f:" in out and "__t" not in out
    assert tri(capsys, "test", path)[0] == 0
