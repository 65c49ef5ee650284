"""`tri bench` and compiler/bench.py: function splitting, counts, linking, the CLI, the report.

The small modules here live in tmp directories (`mod.tri` beside `mod.baseline.tasm`), so
the CLI tests run in well under a second; one test runs the real benches/ once.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from compiler import bench, bench_cases
from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.driver import compile_program
from tri.cli import main
from vm import tasm

ROOT = Path(__file__).resolve().parents[2]


def tri(capsys, *arguments):
    code = main([str(argument) for argument in arguments])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def code_of(text: str, mangled: str = "m") -> bench.Code:
    return bench.split(tasm.parse(text), mangled)


# --- splitting and counting ----------------------------------------------------------------------

COMPILER_STYLE = """
__f:
    push 3
    call __f__loop__1
    pop 1
    return
__f__loop__1:
    addi -1
    dup 0
    skiz
    recurse
    return
__g:
    call __f
    return
"""


def test_labels_split_into_functions_and_their_helper_blocks():
    code = code_of(COMPILER_STYLE)
    assert set(code.functions) == {("m", "f"), ("m", "g")}
    assert code.owners == (("m", "f"), ("m", "f"), ("m", "g"))
    assert code.static(("m", "f")) == 4  # the loop block is not counted (RC's rule)
    assert code.inclusive(("m", "f")) == 4 + 5
    assert code.static(("m", "g")) == 2
    assert code.inclusive(("m", "g")) == 2 + 4 + 5  # the called function, with its loop


def test_rc_style_block_labels_belong_to_the_function_before_them():
    text = "__main:\n push 1\n skiz\n call __then__3\n return\n__then__3:\n push 7\n return\n"
    code = code_of(text)
    assert set(code.functions) == {("m", "main")}
    assert code.owners == (("m", "main"), ("m", "main"))
    assert (code.static(("m", "main")), code.inclusive(("m", "main"))) == (4, 6)


def test_module_prefixed_and_foreign_labels():
    text = (
        "std_math_x__f:\n call std_crypto_digest__equal\n return\n"
        "std_crypto_digest__equal:\n skiz\n call std_crypto_digest__equal__then__1\n return\n"
        "std_crypto_digest__equal__then__1:\n push 1\n return\n"
    )
    code = bench.split(tasm.parse(text), "std_math_x")
    assert set(code.functions) == {("std_math_x", "f"), ("std_crypto_digest", "equal")}
    assert code.inclusive(("std_math_x", "f")) == 2 + 3 + 2


def test_fall_through_into_the_next_block_is_reachable():
    text = "__f:\n push 1\n__f__tail:\n pop 1\n return\n__g:\n push 2\n return\n"
    code = code_of(text)
    assert code.static(("m", "f")) == 1
    assert code.inclusive(("m", "f")) == 3


def test_classify():
    assert bench.classify("__pair", "m") == (("m", "pair"), False)
    assert bench.classify("__pair__loop__1", "m") == (("m", "pair"), True)
    assert bench.classify("m__pair", "m") == (("m", "pair"), False)
    assert bench.classify("std_io_storage__sum", "m") == (("std_io_storage", "sum"), False)
    assert bench.classify("loop", "m") == (None, True)


def test_compiled_module_text_splits_into_its_public_functions():
    checked = check(load_project(ROOT / "stdlib" / "math" / "arith.tri"))
    code = bench.split(compile_program(checked).program, "std_math_arith")
    exported = {("std_math_arith", key.split("__", 1)[1]) for key in checked.exported}
    assert exported <= set(code.functions)
    assert all(owner is not None for owner in code.owners)
    for function in exported:
        assert code.inclusive(function) >= code.static(function) > 0


def test_harness_holds_only_the_reachable_blocks():
    code = code_of(COMPILER_STYLE)
    program = bench.harness(code, ("m", "f"))
    assert [op.text for op in program.ops[:2]] == ["call __f", "halt"]
    assert len(program.ops) == 2 + 9
    case = bench_cases.Case(arguments=())
    outcome = bench.run_case(program, case)
    assert outcome.error is None and outcome.result == () and outcome.below_intact


def test_run_case_notices_a_clobbered_stack_below_the_arguments():
    program = tasm.parse("call __f\nhalt\n__f:\n swap 1\n return\n")
    outcome = bench.run_case(program, bench_cases.Case(arguments=((5,),)))
    assert outcome.error is None and not outcome.below_intact


# --- linking -------------------------------------------------------------------------------------


def test_link_baseline_appends_called_modules_with_renamed_labels(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "top.baseline.tasm").write_text(
        "__f:\n call @a_low__g\n return\n", encoding="utf-8"
    )
    (tmp_path / "a" / "low.baseline.tasm").write_text(
        "__g: // calls its own helper\n call __g__x\n return\n__g__x:\n push 1\n return\n"
    )
    modules = bench.baseline_files(tmp_path)
    assert set(modules) == {"a.top", "a.low"}
    text = bench.link_baseline(modules["a.top"], modules)
    code = bench.split(tasm.parse(text), "a_top")
    assert ("a_low", "g") in code.functions
    assert code.inclusive(("a_top", "f")) == 2 + 2 + 2


# --- cases ---------------------------------------------------------------------------------------


def test_cases_are_deterministic_and_start_with_edges():
    params = [("a", 1, "U32"), ("b", 1, "U32")]
    first = bench_cases.cases("std.math.arith", "min", params, 50, seed=3)
    assert first == bench_cases.cases("std.math.arith", "min", params, 50, seed=3)
    assert len(first) >= 50
    words = {word for case in first for word in case.words}
    assert {0, 1, (1 << 32) - 1, bench_cases.P - 1} <= words
    assert any(case.arguments[0] == case.arguments[1] for case in first)


def test_pointer_parameters_get_ram_and_do_not_overlap():
    params = [("a", 1, "Field"), ("b", 1, "Field"), ("out", 1, "Field"), ("n", 1, "Field")]
    for case in bench_cases.cases("std.math.poly", "add", params, 20, edges=False):
        a, b, out = (argument[0] for argument in case.arguments[:3])
        assert len({address // bench_cases.REGION for address in (a, b, out)}) == 3
        assert dict(case.ram).keys() >= {a, b}


# --- the command line ----------------------------------------------------------------------------

MODULE = "module tiny\n\npub fn double(x: Field) -> Field {\n    x + x\n}\n"


def tiny(tmp_path: Path, baseline: str) -> Path:
    (tmp_path / "tiny.tri").write_text(MODULE, encoding="utf-8")
    (tmp_path / "tiny.baseline.tasm").write_text(baseline, encoding="utf-8")
    return tmp_path


def test_bench_json_schema(capsys, tmp_path):
    directory = tiny(tmp_path, "__double:\n dup 0\n add\n return\n")
    code, out, err = tri(capsys, "bench", directory, "--json", "--cases", "4")
    assert code == 0, err
    report = json.loads(out)
    assert set(report) == {"directory", "level", "optimize", "functions", "modules", "medians"}
    assert report["optimize"] is True and report["level"] == 1
    (row,) = report["functions"]
    assert (row["module"], row["function"]) == ("tiny", "double")
    for side in ("compiled", "hand"):
        assert set(row[side]) == {"static", "inclusive", "cycles", "padded_height"}
    assert row["hand"]["static"] == 3 and row["hand"]["cycles"] == 4
    assert set(row["ratios"]) == {"static", "inclusive", "cycles"}
    assert row["mismatches"] == 0 and row["cases"] >= 1
    assert report["modules"][0]["function"] == "*"
    assert set(report["medians"]) == {"functions", "modules"}
    assert set(report["medians"]["functions"]) == {"static", "inclusive", "cycles"}


@pytest.mark.parametrize("flag", ["--no-opt", "-O0"])
def test_bench_table_and_no_opt(capsys, tmp_path, flag):
    directory = tiny(tmp_path, "__double:\n push 2\n mul\n return\n")
    code, out, _ = tri(capsys, "bench", directory, flag, "--cases", "3")
    assert code == 0
    assert "tiny.double" in out and "median compiled/hand" in out and "not optimized" in out


def test_bench_exits_1_when_the_baseline_disagrees(capsys, tmp_path):
    directory = tiny(tmp_path, "__double:\n push 3\n mul\n return\n")
    code, out, _ = tri(capsys, "bench", directory, "--json", "--cases", "4")
    assert code == 1
    assert json.loads(out)["functions"][0]["mismatches"] > 0


def test_bench_notes_a_function_without_baseline(capsys, tmp_path):
    directory = tiny(tmp_path, "// omitted: double -- for the test\n")
    code, out, _ = tri(capsys, "bench", directory, "--json")
    assert code == 0
    assert json.loads(out)["functions"][0]["note"] == "no hand baseline"


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda path: path / "missing", "no such directory"),
        (lambda path: path, "no *.baseline.tasm files"),
        (lambda path: tiny(path, "__double:\n frobnicate\n return\n"), "error[A0001]"),
        (lambda path: tiny(path, "__double:\n call __nowhere\n return\n"), "error[A0003]"),
    ],
)
def test_bench_usage_errors_exit_2(capsys, tmp_path, setup, message):
    code, out, err = tri(capsys, "bench", setup(tmp_path))
    assert code == 2 and message in err and not out


def test_bench_exits_2_for_a_baseline_without_source(capsys, tmp_path):
    (tmp_path / "ghost.baseline.tasm").write_text("__f:\n return\n", encoding="utf-8")
    code, _, err = tri(capsys, "bench", tmp_path)
    assert code == 2 and "no source for module 'ghost'" in err


def test_bench_on_the_stdlib_baselines(capsys):
    code, out, _ = tri(capsys, "bench", ROOT / "benches", "--json", "--cases", "3")
    assert code == 0
    report = json.loads(out)
    assert len(report["modules"]) >= 8
    omitted = {
        (module, line.split(":", 1)[1].split()[0])
        for module, path in bench.baseline_files(ROOT / "benches").items()
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.startswith("// omitted:")
    }
    for row in report["functions"]:
        listed = (row["module"], row["function"]) in omitted
        assert row["note"] == ("no hand baseline" if listed else ""), row
        assert row["mismatches"] == 0, row
    assert all(value is not None for value in report["medians"]["functions"].values())


# --- benchmarks/codegen.py ------------------------------------------------------------------------


def test_codegen_section_is_replaced_between_markers(tmp_path):
    spec = importlib.util.spec_from_file_location("codegen", ROOT / "benchmarks" / "codegen.py")
    codegen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(codegen)
    document = tmp_path / "performance.md"
    document.write_text("# Performance\n\nintro\n", encoding="utf-8")
    codegen.write("## Code quality\nfirst\n", document)
    codegen.write("## Code quality\nsecond\n", document)
    text = document.read_text(encoding="utf-8")
    assert text.count(codegen.START) == 1 and "second" in text and "first" not in text
    assert text.startswith("# Performance\n\nintro\n")
