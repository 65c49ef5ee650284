"""The back end on the command line: `tri build`, `tri run PROG.tri`, `tri cost PROG.tri`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import HEIGHT_NAMES, tri

from compiler.check.resolve import DEFAULT_LIBRARY
from vm import tasm

PROGRAMS = Path(__file__).parents[1] / "programs" / "valid"
ARITHMETIC = PROGRAMS / "arithmetic.tri"


def test_build_prints_tasm_that_assembles(capsys):
    code, out, err = tri(capsys, "build", ARITHMETIC)
    assert code == 0
    program = tasm.parse(out)
    assert out.startswith("    call arithmetic__main\n    halt\n")
    assert program.ops


def test_build_writes_a_file_and_runs_it(capsys, tmp_path):
    output = tmp_path / "out.tasm"
    assert tri(capsys, "build", ARITHMETIC, "-o", output)[0] == 0
    code, out, _ = tri(capsys, "run", output, "--input", "17,5")
    assert code == 0 and out.split()[:2] == ["22", "85"]


def test_build_emits_tir(capsys):
    code, out, _ = tri(capsys, "build", ARITHMETIC, "--emit", "tir")
    assert code == 0
    assert out.startswith("Entry(arithmetic__main)")
    assert "FnStart(arithmetic__main)" in out and "Return" in out


def test_build_without_optimization_is_longer(capsys):
    _, optimized, _ = tri(capsys, "build", ARITHMETIC)
    _, plain, _ = tri(capsys, "build", ARITHMETIC, "--no-opt")
    assert len(plain.splitlines()) > len(optimized.splitlines())
    tasm.parse(plain)


def test_build_a_module_alone(capsys):
    code, out, _ = tri(capsys, "build", DEFAULT_LIBRARY / "math" / "bits.tri")
    assert code == 0
    assert "__shr:" in out and "call " not in out.splitlines()[0]
    tasm.parse(out)


def test_build_errors_exit_2(capsys, tmp_path):
    bad = tmp_path / "bad.tri"
    bad.write_text("program bad\n\nfn main() {\n    let x: U32 = 0\n}\n")
    code, _, err = tri(capsys, "build", bad)
    assert code == 2 and "E0201" in err
    assert tri(capsys, "build", tmp_path / "missing.tri")[0] == 2
    assert tri(capsys, "build", PROGRAMS.parent.parent / "programs" / "gcd.tasm")[0] == 2


def test_run_compiles_and_runs_on_the_vm(capsys):
    code, out, err = tri(capsys, "run", ARITHMETIC, "--input", "17,5")
    assert code == 0 and err == ""
    assert out.split() == "22 85 12 18446744069414584304 3 2 0 1 20".split()


def test_run_json_schema_and_failure_exit_code(capsys):
    code, out, _ = tri(capsys, "run", ARITHMETIC, "--input", "7,0", "--json")
    report = json.loads(out)
    assert code == 1
    assert list(report) == ["output", "cycles", "heights", "padded_height", "error"]
    assert list(report["heights"]) == HEIGHT_NAMES
    assert report["output"] == [7, 0, 7, 18446744069414584314]
    assert report["error"]["kind"] == "DivisionByZero"


def test_run_reference_still_works(capsys):
    code, out, _ = tri(capsys, "run", ARITHMETIC, "--input", "17,5", "--reference")
    assert code == 0 and out.split()[0] == "22"


def test_run_a_module_is_a_usage_error(capsys):
    code, _, err = tri(capsys, "run", DEFAULT_LIBRARY / "math" / "bits.tri")
    assert code == 2 and "module" in err


def test_cost_shows_heights_and_the_exact_rows_per_function(capsys):
    code, out, _ = tri(capsys, "cost", PROGRAMS / "std_fibonacci.tri", "--input", "10")
    assert code == 0
    assert "padded height" in out and "per function" in out and "exact" in out
    assert "std_math_fibonacci__pair" in out
    assert "compiler's estimate" not in out  # only with --estimate (tests/cli/test_cost_cli.py)


def test_cost_json_has_functions(capsys):
    code, out, _ = tri(capsys, "cost", ARITHMETIC, "--input", "17,5", "--json")
    report = json.loads(out)
    assert code == 0
    assert "estimate" not in report
    [main_row] = [row for row in report["functions"] if row["function"] == "arithmetic__main"]
    assert main_row["calls"] == 1 and main_row["cycles"] > 0
    assert sum(row["cycles"] for row in report["functions"]) + 2 == report["cycles"]


def test_build_names_match_the_compiler():
    """tri.commands.build repeats names to import the compiler lazily."""
    from compiler.pipeline import EMIT, STEP_NAMES
    from tri.cli import build_parser
    from tri.commands import build

    assert build.EMIT == EMIT
    commands = build_parser()._subparsers._group_actions[0].choices
    [dump] = [action for action in commands["build"]._actions if "--dump" in action.option_strings]
    assert f"({', '.join(STEP_NAMES)})" in dump.help


@pytest.mark.parametrize("command", ["build", "run", "cost", "test", "bench"])
def test_every_compiling_command_takes_the_levels(capsys, command):
    for level, message in (("-O4", "invalid choice: 4 (choose from 0, 1, 2, 3)"), ("-Ofast", "-O")):
        with pytest.raises(SystemExit) as stopped:
            tri(capsys, command, ARITHMETIC, level)
        err = capsys.readouterr().err
        assert stopped.value.code == 2 and message in err and "Traceback" not in err


def test_tri_test_at_each_level(capsys):
    arith = DEFAULT_LIBRARY / "math" / "arith.tri"
    flags = ("-O0", "-O1", "-O2")
    outputs = [tri(capsys, "test", arith, "-k", "gcd", flag) for flag in flags]
    assert [code for code, _, _ in outputs] == [0, 0, 0]
    cycles = [int(out.split("(")[1].split()[0]) for _, out, _ in outputs]
    assert "PASS" in outputs[0][1] and cycles[0] > cycles[1]  # -O1 runs fewer cycles
    assert cycles[2] <= cycles[1]  # and -O2 no more


def test_o0_is_no_opt_and_o1_the_default(capsys):
    outputs = {
        flags: tri(capsys, "build", ARITHMETIC, *flags)[1]
        for flags in [(), ("-O1",), ("-O", "1"), ("-O0",), ("--no-opt",), ("-O", "0")]
    }
    assert len(set(outputs.values())) == 2
    assert outputs[()] == outputs[("-O1",)] == outputs[("-O", "1")]
    assert outputs[("-O0",)] == outputs[("--no-opt",)] == outputs[("-O", "0")]
    assert outputs[()] != outputs[("-O0",)]
    runs = [tri(capsys, "run", ARITHMETIC, flag, "--input", "17,5")[1] for flag in ("-O0", "-O1")]
    assert runs[0] == runs[1] and runs[0].split()[:2] == ["22", "85"]


def test_dump_prints_every_step_in_pipeline_order(capsys):
    from compiler.pipeline import STEP_NAMES

    wanted = ",".join(reversed(STEP_NAMES))  # the order given does not matter
    code, out, _ = tri(capsys, "build", ARITHMETIC, "--dump", wanted, "-O0")
    assert code == 0
    headers = [line for line in out.splitlines() if line.startswith(";; --- dump: ")]
    assert headers == [f";; --- dump: {name} ---" for name in STEP_NAMES]
    # inline, tir-inline, tir-rules, tir-moves, unroll, tasm-rules, tasm-selects
    assert out.count(";; (not run at -O0: its input, unchanged)") == 7
    sections = dict(part.split(" ---\n", 1) for part in out.split(";; --- dump: ")[1:])
    assert sections["tasm"] == tri(capsys, "build", ARITHMETIC, "-O0")[1]
    assert "SourceFile kind='program' name='arithmetic'" in sections["ast"]
    assert "fn arithmetic__main() -> ()" in sections["checked"]
    assert sections["inline"].split("\n", 1)[1] == sections["checked"]  # not run at -O0
    assert sections["tir"].startswith("Entry(arithmetic__main)")
    assert sections["tasm-lowered"].startswith("arithmetic__main:")
    assert tri(capsys, "build", ARITHMETIC, "--dump", wanted, "-O0")[1] == out  # deterministic


def test_dump_and_emit(capsys, tmp_path):
    tir = tri(capsys, "build", ARITHMETIC, "--emit", "tir")[1]
    out = tri(capsys, "build", ARITHMETIC, "--dump", "tir-moves")[1]
    assert out == ";; --- dump: tir-moves ---\n" + tir
    output = tmp_path / "out.tasm"
    code, out, _ = tri(capsys, "build", ARITHMETIC, "--dump", "tir", "-o", output)
    assert code == 0 and out.startswith(";; --- dump: tir ---\n")
    assert output.read_text() == tri(capsys, "build", ARITHMETIC)[1]


@pytest.mark.parametrize("steps", ["tir,optimize", "", "TIR"])
def test_an_unknown_dump_step_is_a_usage_error(capsys, steps):
    code, out, err = tri(capsys, "build", ARITHMETIC, "--dump", steps)
    assert code == 2 and out == ""
    steps_named = (
        "ast, contracts, checked, inline, tir, tir-inline, tir-rules, tir-moves, unroll, "
        "tasm-lowered, tasm-rules, tasm-selects, tasm"
    )
    assert f"the steps are {steps_named}" in err
