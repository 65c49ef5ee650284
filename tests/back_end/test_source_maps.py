"""Source maps: every instruction that can fail knows the source construct it came from, at
every level, and run failures are reported there in the language's terms -- on the
interpreter, the JIT and the reference evaluator alike (issue 14, problem 1)."""

import json
from pathlib import Path

import pytest
from cli_helpers import tri

from compiler.driver import compile_program
from compiler.levels import LEVELS
from compiler.pipeline import Options, check_source
from compiler.sourcemap import origin_at
from compiler.tir.ops import FAILS, instruction_effects

PROGRAMS = Path(__file__).parents[1] / "programs" / "valid"

CHECKED = """program checked

use vm.io.io
use vm.core.assert
use vm.core.convert

fn main() {
    let n: Field = io.read()
    let small: U32 = convert.as_u32(io.read())
    assert.eq(io.read(), 3)
    let mut total: Field = 0
    for i in 0..n bounded 8 {
        total = total + convert.as_field(i)
    }
    let values: [Field; 3] = [1, 2, 3]
    io.write(values[small])
    io.write(total)
}
"""

# (inputs, the construct's line and column, the message, the evaluator's kind)
FAILURES = [
    ("0,0,4", (10, 5), "assert.eq failed: 4 != 3", "AssertionFailed"),
    ("0,4294967296", (9, 22), "convert.as_u32: 4294967296 is not a u32", "FailedU32Conversion"),
    ("0,7,3", (16, 14), "index 7 is out of bounds for [Field; 3] (length 3)", "IndexOutOfBounds"),
]


@pytest.mark.parametrize("level", sorted(LEVELS))
@pytest.mark.parametrize("path", sorted(PROGRAMS.glob("*.tri"))[:25], ids=lambda p: p.stem)
def test_every_instruction_that_can_fail_has_its_source_line(path, level):
    checked = check_source(path, Options())
    program = compile_program(checked, level).program
    assert len(program.source_map) == len(program.ops)
    for op, address in zip(program.ops, program.addresses, strict=True):
        if FAILS not in instruction_effects(op.instruction.name):
            continue
        origin = origin_at(program, address)
        assert origin is not None, f"{op.text} at {address} has no origin"
        lines = Path(origin.path).read_text().splitlines()
        assert 1 <= origin.span.line <= len(lines)


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_a_rewritten_instruction_keeps_its_construct(tmp_path, level):
    path = tmp_path / "checked.tri"
    path.write_text(CHECKED)
    program = compile_program(check_source(path), level).program
    found = {}
    for op, address in zip(program.ops, program.addresses, strict=True):
        origin = origin_at(program, address)
        if origin is not None and FAILS in instruction_effects(op.instruction.name):
            found.setdefault((origin.span.line, origin.construct), []).append(op.text)
    # as_u32 is `split ... assert` at -O0 and `dup 0 pop_count pop 2` after the peephole
    assert ("assert" in found[(9, "builtin")]) == (level == 0)
    assert ("pop_count" in found[(9, "builtin")]) == (level > 0)
    assert found[(10, "builtin")] == ["read_io 1", "assert"]  # io.read, assert.eq
    assert "assert" in found[(12, "bounded")]  # the loop's bound check
    assert "assert" in found[(16, "index")]


def _write(tmp_path) -> Path:
    path = tmp_path / "checked.tri"
    path.write_text(CHECKED)
    return path


@pytest.mark.parametrize("engine", ["interp", "jit", "reference"])
@pytest.mark.parametrize("inputs, place, message, kind", FAILURES)
def test_failures_name_the_source_line_in_language_terms(
    tmp_path, capsys, engine, inputs, place, message, kind
):
    path = _write(tmp_path)
    mode = ["--reference"] if engine == "reference" else ["--engine", engine]
    code, out, err = tri(capsys, "run", path, "--input", inputs, *mode)
    line, column = place
    assert code == 1
    headline, source, caret = err.splitlines()[:3]
    shown_kind = kind if engine == "reference" else headline.split("[")[1].split("]")[0]
    assert headline == f"{path}:{line}:{column}: error[{shown_kind}]: {message}"
    assert source == f" {line} | {CHECKED.splitlines()[line - 1]}"
    assert caret.index("^") == source.index("|") + 1 + column
    if engine != "reference":
        assert "= note: the VM stopped at ip " in err


@pytest.mark.parametrize("level", ["-O0", "-O1"])
@pytest.mark.parametrize("engine", ["interp", "jit"])
def test_an_assert_eq_with_1_quotes_both_values(tmp_path, capsys, level, engine):
    """At -O1 `assert.eq(x, 1)` is the lone `assert` (`push 1 eq assert` -> `assert`):
    the message still quotes x and 1, as the two-instruction form does at -O0."""
    path = tmp_path / "one.tri"
    path.write_text(
        "program one\n\nuse vm.io.io\nuse vm.core.assert\n\n"
        "fn main() {\n    io.write(7)\n    assert.eq(io.read(), 1)\n}\n"
    )
    code, out, _ = tri(capsys, "build", path, level)
    assert ("push 1\n    eq\n    assert" in out) == (level == "-O0")
    code, _, err = tri(capsys, "run", path, "--input", "5", "--engine", engine, level)
    assert code == 1
    assert err.startswith(f"{path}:8:5: error[AssertionFailed]: assert.eq failed: 5 != 1")


INLINED = """program inlined

use vm.io.io
use vm.core.assert

fn check_small(x: Field) {
    assert.eq(x, 3)
}

fn main() {
    let x: Field = io.read()
    check_small(x)
    io.write(x)
}
"""


@pytest.mark.parametrize("level", ["-O0", "-O1"])
@pytest.mark.parametrize("engine", ["interp", "jit", "reference"])
def test_a_failure_in_inlined_code_is_reported_where_it_is_written(tmp_path, capsys, level, engine):
    """At -O1 check_small is inlined into main: its failing assert.eq is still reported at
    line 7, where it is written, as the evaluator and -O0 (a real call) report it."""
    path = tmp_path / "inlined.tri"
    path.write_text(INLINED)
    code, out, _ = tri(capsys, "build", path, level, "--report")
    assert ("inlined: inlined__check_small" in out) == (level == "-O1")
    mode = ["--reference"] if engine == "reference" else ["--engine", engine, level]
    code, _, err = tri(capsys, "run", path, "--input", "5", *mode)
    assert code == 1
    assert err.startswith(f"{path}:7:5: error[AssertionFailed]: assert.eq failed: 5 != 3")
    assert " 7 |     assert.eq(x, 3)" in err


@pytest.mark.parametrize("level", ["-O0", "-O1"])
@pytest.mark.parametrize("engine", ["interp", "jit", "reference"])
def test_a_bounded_overrun_is_reported_at_its_loop(tmp_path, capsys, level, engine):
    path = _write(tmp_path)
    mode = ["--reference"] if engine == "reference" else ["--engine", engine, level]
    code, _, err = tri(capsys, "run", path, "--input", "9,0,3", *mode)
    assert code == 1
    assert f"{path}:12:5: error[" in err
    assert "]: bounded loop ran past 8 iterations" in err
    assert "    for i in 0..n bounded 8 {" in err


@pytest.mark.parametrize("level", ["-O0", "-O1", "-O2"])
@pytest.mark.parametrize("engine", ["interp", "jit", "reference"])
def test_a_count_past_u32_is_a_bounded_overrun_too(tmp_path, capsys, level, engine):
    """n = 2^32 and n = p - 1: the VM's u32 test of the count fails, the evaluator's bound;
    both are the same overrun of the loop in the language's terms."""
    path = _write(tmp_path)
    mode = ["--reference"] if engine == "reference" else ["--engine", engine, level]
    for count in (2**32, 2**64 - 2**32):
        code, _, err = tri(capsys, "run", path, "--input", f"{count},0,3", *mode)
        assert code == 1
        assert f"{path}:12:5: error[" in err
        assert "]: bounded loop ran past 8 iterations" in err


def test_json_errors_carry_the_location(tmp_path, capsys):
    path = _write(tmp_path)
    code, out, _ = tri(capsys, "run", path, "--input", "0,0,4", "--json")
    location = json.loads(out)["error"]["location"]
    assert code == 1
    assert location == {
        "file": str(path),
        "line": 10,
        "column": 5,
        "end_line": 10,
        "end_column": 27,
        "message": "assert.eq failed: 4 != 3",
        "calls": [],
    }
    code, out, _ = tri(capsys, "run", path, "--input", "0,0,4", "--json", "--reference")
    assert json.loads(out)["error"]["location"] == location


def test_tri_test_says_which_assert_fired(tmp_path, capsys):
    path = tmp_path / "tested.tri"
    path.write_text(
        "module tested\n\nuse vm.core.assert\n\n#[test]\nfn two_checks() {\n"
        "    assert.eq(1, 1)\n    assert.eq(2 + 2, 5)\n}\n"
    )
    code, out, _ = tri(capsys, "test", path)
    assert code == 1
    assert f"FAIL {path}::two_checks: {path}:8:5: assert.eq failed: 4 != 5" in out
    assert " 8 |     assert.eq(2 + 2, 5)" in out
    code, out, _ = tri(capsys, "test", path, "--json")
    (entry,) = json.loads(out)["tests"]
    assert entry["location"]["line"] == 8 and entry["error"].startswith("AssertionFailed")


CHAIN = """program chain

use vm.io.io
use vm.core.convert

fn narrow(x: Field) -> U32 {
    convert.as_u32(x)
}

fn widen(x: Field) -> U32 {
    narrow(x * 2)
}

fn main() {
    let a: U32 = widen(io.read())
    io.write(convert.as_field(a))
    let b: U32 = widen(io.read())
    io.write(convert.as_field(b))
}
"""


@pytest.mark.parametrize(
    "mode",
    [["--reference"]]
    + [["--engine", engine, f"-O{level}"] for engine in ("interp", "jit") for level in LEVELS],
    ids=" ".join,
)
def test_a_failure_names_the_calls_it_ran_inside(tmp_path, capsys, mode):
    """A library check failing two user calls deep names both calls, innermost first, the
    same at every level (inlined or not), on every engine and in JSON; the first call,
    which passed, is not in the chain."""
    path = tmp_path / "chain.tri"
    path.write_text(CHAIN)
    code, out, err = tri(capsys, "run", path, "--input", "1,4294967295", *mode)
    assert code == 1 and out.split() == ["2"]
    assert f"{path}:7:5: error[" in err
    assert "convert.as_u32: 8589934590 is not a u32" in err
    notes = [line.strip() for line in err.splitlines() if "called from" in line]
    assert notes == [f"= note: called from {path}:11:5", f"= note: called from {path}:17:18"]
    code, out, _ = tri(capsys, "run", path, "--input", "1,4294967295", "--json", *mode)
    calls = json.loads(out)["error"]["location"]["calls"]
    assert calls == [
        {"file": str(path), "line": 11, "column": 5},
        {"file": str(path), "line": 17, "column": 18},
    ]


NESTED = """program nested

use vm.io.io
use vm.core.convert

fn inner(a: U32) -> Field {
    convert.as_field(a) + 1
}

fn mid(x: Field) -> Field {
    inner(convert.as_u32(x))
}

fn main() {
    io.write(mid(io.read()))
}
"""


@pytest.mark.parametrize(
    "mode",
    [["--reference"]]
    + [["--engine", engine, f"-O{level}"] for engine in ("interp", "jit") for level in LEVELS],
    ids=" ".join,
)
def test_a_failing_argument_is_the_callers_own_code(tmp_path, capsys, mode):
    """An argument runs before its call, in the caller: a failure in it is at the
    argument's own place (not the call's, which inlining gives its code) and the call
    it is an argument of is not in the chain."""
    path = tmp_path / "nested.tri"
    path.write_text(NESTED)
    code, _, err = tri(capsys, "run", path, "--input", "4294967296", *mode)
    assert code == 1 and f"{path}:11:11: error[" in err
    notes = [line.strip() for line in err.splitlines() if "called from" in line]
    assert notes == [f"= note: called from {path}:15:14"]
    code, _, err = tri(capsys, "run", path, *mode)  # no input: io.read() in main's call
    assert code == 1 and f"{path}:15:18: error[" in err and "called from" not in err


ARGUMENT_CALL = """program dc

use vm.io.io
use vm.core.assert

fn check(x: Field) -> Field {
    assert.eq(x, 5)
    x
}

fn double(x: Field) -> Field {
    x + x
}

fn main() {
    let x: Field = io.read()
    io.write(double(check(x)))
}
"""


@pytest.mark.parametrize(
    "mode",
    [["--reference"]]
    + [["--engine", engine, f"-O{level}"] for engine in ("interp", "jit") for level in LEVELS],
    ids=" ".join,
)
def test_a_call_that_is_an_argument_is_named_at_its_own_place(tmp_path, capsys, mode):
    """In `double(check(x))` a failure inside `check` was called from `check(x)`, not from
    `double(...)`, whichever of the two the inliner copies first."""
    path = tmp_path / "dc.tri"
    path.write_text(ARGUMENT_CALL)
    code, _, err = tri(capsys, "run", path, "--input", "4", *mode)
    assert code == 1 and f"{path}:7:5: error[AssertionFailed]: assert.eq failed: 4 != 5" in err
    notes = [line.strip() for line in err.splitlines() if "called from" in line]
    assert notes == [f"= note: called from {path}:17:21"]
