"""`tri test`: each #[test] function compiled as the entry, run on the VM, checked
against the reference evaluator; exit 0 when all pass, 1 when one fails."""

import json
from pathlib import Path

import pytest
from cli_helpers import tri

from compiler.levels import LEVELS

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
    # the step limit stops the loop's counter, which has no source: the loop is named
    assert f"FAIL {path}::loops_forever: {path}:23:5: the run did not halt within 5000" in out
    assert " 23 |     for _ in 0..1000000 {" in out
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
    code, out, _ = tri(capsys, "test", Path(__file__).parents[2] / "stdlib")
    assert code == 0 and out.count("PASS") >= 6 and "FAIL" not in out


def test_a_module_build_leaves_test_functions_out(tmp_path, capsys):
    text = "module m\n\npub fn f() -> Field {\n    1\n}\n\n"
    text += "#[test]\npub fn t() {\n    assert(f() == 1)\n}\n"
    path = write(tmp_path, text, "m.tri")
    code, out, _ = tri(capsys, "build", path)
    assert code == 0 and "__f:" in out and "__t" not in out
    assert tri(capsys, "test", path)[0] == 0


RUN_LINES = """program lined

use vm.io.io
use vm.core.assert
use vm.core.convert

fn main() {
    let n: Field = io.read()
    assert((n == 7) == false)
    let small: U32 = convert.as_u32(n)
    io.write(n * 2)
    io.write(convert.as_field(small) + 1)
}
// run: --input 3 => 6, 4
// run: --input 5 => 10, 7
// run: --input 7 => error AssertionFailed
// run: --input 4294967296 => error FailedU32Conversion
// run: --input 9 => error AssertionFailed
"""


@pytest.mark.parametrize("engine", ["auto", "interp", "jit"])
@pytest.mark.parametrize("level", sorted(LEVELS))
def test_run_lines_are_tests(tmp_path, capsys, level, engine):
    """Each `// run:` line of a program is a test: output and failure as the line says,
    at every level and on every engine."""
    path = write(tmp_path, RUN_LINES, "lined.tri")
    code, out, err = tri(capsys, "test", path, f"-O{level}", "--engine", engine)
    assert code == 1, err
    assert f"PASS {path}::run:14 (" in out
    assert f"FAIL {path}::run:15: output [10, 6], expected [10, 7]" in out
    assert f"PASS {path}::run:16 (" in out and f"PASS {path}::run:17 (" in out
    assert f"FAIL {path}::run:18: output [18, 10], expected []" in out
    assert "5 tests: 3 passed, 2 failed" in err
    code, out, _ = tri(capsys, "test", path, f"-O{level}", "--engine", engine, "--json")
    by_name = {entry["test"]: entry for entry in json.loads(out)["tests"]}
    assert [name for name, entry in by_name.items() if not entry["passed"]] == ["run:15", "run:18"]
    assert all(entry["reference"] for entry in by_name.values())


def test_a_run_line_checks_the_failure_kind_and_k_selects_lines(tmp_path, capsys):
    text = RUN_LINES.replace("--input 7 => error AssertionFailed", "--input 7 => error Boom")
    path = write(tmp_path, text, "lined.tri")
    code, out, _ = tri(capsys, "test", path, "-k", "run:16")
    assert code == 1 and out.count("::run:") == 1
    assert f"FAIL {path}::run:16: failed with AssertionFailed, expected error Boom" in out
    code, out, _ = tri(capsys, "test", path, "-k", "run:14")
    assert code == 0 and f"PASS {path}::run:14" in out


def test_an_unreadable_run_line_is_an_error_at_its_place(tmp_path, capsys):
    path = write(tmp_path, RUN_LINES + "// run: --inputs 3 => 6\n", "lined.tri")
    code, out, err = tri(capsys, "test", path)
    assert code == 2 and out == "" and "Traceback" not in err
    assert f"{path}:19:8: error[E0113]: run: unknown flag --inputs" in err
    assert " 19 | // run: --inputs 3 => 6" in err and "= hint:" in err
    path.write_text(RUN_LINES + "// run: --input 3 => six\n")
    code, _, err = tri(capsys, "test", path)
    assert code == 2 and "error[E0113]: run: the output after => is not words: six" in err


LONG = """module long

use vm.core.assert

fn spin(n: Field) -> Field {
    let mut total: Field = 0
    for i in 0..n bounded 1000000 {
        total = total + 3
    }
    total
}

#[test]
fn long_loop() {
    assert.eq(spin(300000), 900000)
}
"""


def test_a_long_test_runs_on_the_reference_evaluator_only_when_asked(tmp_path, capsys, monkeypatch):
    """Past 2^20 cycles the tree-walking evaluator would take far longer than the run: by
    default it is skipped (and the summary says so); `--reference` runs it."""
    import compiler.evaluate

    path = write(tmp_path, LONG, "long.tri")
    calls = []
    real = compiler.evaluate.call_function

    def counted(*arguments, **options):
        calls.append(arguments[1])
        return real(*arguments, **options)

    monkeypatch.setattr(compiler.evaluate, "call_function", counted)
    code, out, err = tri(capsys, "test", path, "--engine", "jit")
    assert code == 0 and calls == []
    assert "1 longer than 1048576 cycles not run on the reference evaluator" in out
    code, out, _ = tri(capsys, "test", path, "--engine", "jit", "--reference", "--json")
    assert code == 0 and len(calls) == 1
    (entry,) = json.loads(out)["tests"]
    assert entry["reference"] and entry["cycles"] > 1 << 20
