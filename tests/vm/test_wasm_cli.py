"""`tri run --target wasm` and `tri build --target wasm` as a user runs them, at every level.

A WebAssembly run must give what `tri run` on the VM gives: the output, the exit code and
the failure (kind, ip, instruction, cycle, source location and call chain), on corpus
programs that read every kind of input and fail in several ways and on generated source
programs with edge words; its report has no table heights.  The module `tri build --target
wasm` writes, as text or binary, is the program `tri build` makes.  Options that belong to
the VM are usage errors."""

from __future__ import annotations

import json
import shlex

import pytest
from cli_helpers import tri
from corpus import PROGRAMS, expectations

wasmtime = pytest.importorskip("wasmtime", reason="the wasm target needs wasmtime")

from source_generator import generate as generate_source  # noqa: E402

from vm.tasm import parse  # noqa: E402
from vm.wasm.translate import translate  # noqa: E402

LEVELS = ("-O0", "-O1", "-O2", "-O3")
# RAM, secret words, digests and the sponge; failures of assertions, division, u32
# conversion, bounds and indexing, some inside calls
PROGRAM_NAMES = (
    "ram", "sponge", "merkle_step", "divine", "asserts", "arithmetic", "arrays",
    "deep_calls", "for_bounded",
)  # fmt: skip
CORPUS = [PROGRAMS / "valid" / f"{name}.tri" for name in PROGRAM_NAMES]


def run_json(capsys, *arguments) -> tuple[int, dict]:
    code, out, err = tri(capsys, "run", *arguments, "--json")
    assert code in (0, 1), err
    return code, json.loads(out)


def assert_same_as_the_vm(capsys, path, flags: list[str], level: str) -> dict:
    """Run on the VM and on the wasm target, as JSON and as text; the wasm report."""
    vm_code, vm = run_json(capsys, path, *flags, level)
    code, wasm = run_json(capsys, path, *flags, level, "--target", "wasm")
    assert code == vm_code
    assert set(wasm) == {"target", "output", "cycles", "fuel", "error"}
    assert wasm["target"] == "wasm" and wasm["fuel"] > 0
    assert (wasm["output"], wasm["cycles"]) == (vm["output"], vm["cycles"])
    if vm["error"] is None:
        assert wasm["error"] is None
    else:
        assert wasm["error"] == vm["error"]
    vm_text = tri(capsys, "run", path, *flags, level)
    text = tri(capsys, "run", path, *flags, level, "--target", "wasm")
    assert text[:2] == vm_text[:2]  # exit code and output
    assert text[2] == vm_text[2].replace("the VM stopped", "the wasm run stopped")
    return wasm


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("path", CORPUS, ids=lambda path: path.stem)
def test_corpus_runs_as_on_the_vm(capsys, path, level):
    cases = expectations(path).cases
    assert cases
    for case in cases:
        wasm = assert_same_as_the_vm(capsys, path, shlex.split(case.flags), level)
        assert wasm["output"] == case.output
        assert (wasm["error"] is None) == (case.error is None)  # the VM's kind may differ


@pytest.mark.parametrize("level", LEVELS)
def test_generated_programs_run_as_on_the_vm(capsys, tmp_path, level):
    for seed in range(3):
        generated = generate_source(100 + seed, kind="program", cases=3, size=0.4)
        path = tmp_path / f"{generated.name}.tri"
        path.write_text(generated.text)
        for case in generated.cases:  # edge words among them (source_generator.EDGE_WORDS)
            assert_same_as_the_vm(capsys, path, case.flags(), level)


def test_the_step_limit_stops_the_wasm_run_where_it_stops_the_vm(capsys):
    path = PROGRAMS / "valid" / "fib.tri"
    for limit in ("1", "57", "200"):
        wasm = assert_same_as_the_vm(capsys, path, ["--input", "30", "--max-steps", limit], "-O1")
        assert wasm["error"]["kind"] == "StepLimitExceeded"
        assert wasm["cycles"] == int(limit)
        message = f"the run did not halt within {limit} steps (--max-steps)"
        assert wasm["error"]["message"] == message


def test_a_tasm_program_runs_on_the_wasm_target(capsys):
    run = tri(capsys, "run", PROGRAMS / "gcd.tasm", "--input", "42,56", "--target", "wasm")
    assert run[:2] == (0, "14\n")


@pytest.mark.parametrize(
    "options, complaint",
    [
        (["--engine", "jit"], "--engine is the VM's"),
        (["--function-profile"], "--function-profile is the VM's"),
        (["--speedscope", "out.json"], "--speedscope is the VM's"),
        (["--reference"], "--reference runs the evaluator"),
    ],
)
def test_options_of_the_vm_are_usage_errors(capsys, options, complaint):
    path = PROGRAMS / "valid" / "fib.tri"
    code, out, err = tri(capsys, "run", path, "--input", "3", "--target", "wasm", *options)
    assert (code, out) == (2, "")
    assert complaint in err


def test_cost_has_no_wasm_target(capsys):
    """`tri cost` measures the VM's tables, which a wasm run does not count."""
    with pytest.raises(SystemExit) as stopped:
        tri(capsys, "cost", PROGRAMS / "valid" / "fib.tri", "--target", "wasm")
    assert stopped.value.code == 2
    assert "unrecognized arguments: --target wasm" in capsys.readouterr().err


def test_without_wasmtime_the_target_says_how_to_install_it(capsys, monkeypatch, tmp_path):
    monkeypatch.setitem(__import__("sys").modules, "wasmtime", None)
    path = PROGRAMS / "valid" / "fib.tri"
    code, _, err = tri(capsys, "run", path, "--input", "3", "--target", "wasm")
    assert code == 2 and "pip install 'tri[wasm]'" in err
    code, _, err = tri(capsys, "build", path, "--target", "wasm", "-o", tmp_path / "fib.wasm")
    assert code == 2 and "pip install 'tri[wasm]'" in err
    assert not (tmp_path / "fib.wasm").exists()


@pytest.mark.parametrize("level", LEVELS)
def test_build_writes_the_module_of_the_program_it_builds(capsys, tmp_path, level):
    path = PROGRAMS / "valid" / "sponge.tri"
    code, tasm, err = tri(capsys, "build", path, level)
    assert code == 0, err
    expected = translate(parse(tasm))
    code, text, err = tri(capsys, "build", path, level, "--target", "wasm")
    assert (code, text) == (0, expected), err
    assert tri(capsys, "build", path, level, "--emit", "wat")[1] == expected
    binary, text_file = tmp_path / "sponge.wasm", tmp_path / "sponge.wat"
    assert tri(capsys, "build", path, level, "--target", "wasm", "-o", binary)[0] == 0
    assert tri(capsys, "build", path, level, "--target", "wasm", "-o", text_file)[0] == 0
    assert text_file.read_text() == expected
    data = binary.read_bytes()
    assert data[:4] == b"\0asm" and data == bytes(wasmtime.wat2wasm(expected))
    wasmtime.Module(wasmtime.Engine(), data)  # a module wasmtime accepts as it is


@pytest.mark.parametrize(
    "options, complaint",
    [
        (["-o", "out.wasm"], "a .wasm file holds a WebAssembly module; add --target wasm"),
        (["--target", "wasm", "--emit", "tir"], "--emit tir is an output of the VM target"),
        (["--target", "wasm", "--emit", "tasm"], "--emit tasm is an output of the VM target"),
    ],
)
def test_build_refuses_outputs_of_the_other_target(capsys, tmp_path, options, complaint):
    options = [str(tmp_path / word) if word.endswith(".wasm") else word for word in options]
    code, out, err = tri(capsys, "build", PROGRAMS / "valid" / "fib.tri", *options)
    assert (code, out) == (2, "")
    assert complaint in err
