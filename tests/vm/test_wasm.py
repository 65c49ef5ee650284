"""The WebAssembly target (vm.wasm) against the interpreter: the same output, error (kind,
ip, instruction, cycle, jump stack, message), cycles, visits, final stack and RAM, on the
whole corpus at levels 0-3, the .tasm programs, random TASM programs
(tests/program_generator.py), random source programs (tests/source_generator.py), and
one-instruction programs on edge values.
Instructions outside the slice are refused by name."""

from __future__ import annotations

import random
import re
from functools import cache
from pathlib import Path

import pytest
from corpus import PROGRAMS, corpus, expectations

pytest.importorskip("wasmtime", reason="the wasm target needs wasmtime (pip install tri[wasm])")

from program_generator import SMALL  # noqa: E402
from program_generator import generate as generate_tasm  # noqa: E402
from source_generator import generate as generate_source  # noqa: E402

from compiler.check.checker import check  # noqa: E402
from compiler.check.resolve import load_project  # noqa: E402
from compiler.driver import compile_program  # noqa: E402
from vm import interp, xfield  # noqa: E402
from vm.field import P  # noqa: E402
from vm.isa import BY_NAME  # noqa: E402
from vm.tasm import parse  # noqa: E402
from vm.wasm import runtime  # noqa: E402
from vm.wasm.runtime import execute_wasm  # noqa: E402
from vm.wasm.translate import TRANSLATIONS, WasmUnsupported, supported, translate  # noqa: E402

MAX_STEPS = 1 << 20
EDGES = (0, 1, 2, P - 1, P - 2, (1 << 32) - 1, 1 << 32, (1 << 32) + 1, (1 << 63), 12345678910)


def assert_same_run(program, public=(), secret=(), digests=(), ram=None, max_steps=MAX_STEPS):
    """Run both engines and compare every result they share."""
    reference = interp.execute(program, public, secret, digests, ram, max_steps)
    result = execute_wasm(program, public, secret, digests, ram, max_steps)
    assert result.output == reference.output
    assert result.cycles == reference.cycles
    assert result.stack == reference.stack
    assert result.visits == reference.visits
    assert result.ram == reference.ram
    if reference.error is None:
        assert result.error is None, result.error
    else:
        assert result.error is not None, reference.error
        assert type(result.error.kind) is type(reference.error.kind)
        for name in ("kind", "ip", "instruction", "cycle", "calls", "message"):
            assert getattr(result.error, name) == getattr(reference.error, name), name
    return reference


# --- the corpus ------------------------------------------------------------------------------

CORPUS = [path for path in corpus("valid") if expectations(path).cases]
# The corpus at every level is read from the golden TASM (tests/golden_tasm.py), which
# tests/whole/test_golden.py holds byte-identical to what `tri build` makes: every program at every
# level, without the -O2 and -O3 searches.  A regression in coverage fails.
GOLDEN = Path(__file__).parents[1] / "golden"
LEVELS = (0, 1, 2, 3)
SUPPORTED_AT_LEAST = len(CORPUS)


@cache
def checked(path: Path):
    return check(load_project(path))


@cache
def compiled(path: Path, level: int):
    return compile_program(checked(path), level).program


def golden_program(path: Path, level: int):
    """The corpus program `path` as `tri build -O<level>` builds it (its golden TASM)."""
    golden = GOLDEN / f"O{level}" / "programs" / f"{path.stem}.tasm"
    return parse(golden.read_text(encoding="utf-8"))


@pytest.mark.parametrize("level", LEVELS)
def test_corpus_agrees_with_the_interpreter(level):
    agreeing = 0
    for path in CORPUS:
        program = golden_program(path, level)
        if not supported(program):
            continue
        for case in expectations(path).cases:
            assert_same_run(program, case.public, case.secret, case.digests, case.ram)
        agreeing += 1
    print(f"level {level}: {agreeing} of {len(CORPUS)} corpus programs agree")
    assert agreeing >= SUPPORTED_AT_LEAST


TASM_FILES = sorted(PROGRAMS.glob("*.tasm"))


@pytest.mark.parametrize("path", TASM_FILES, ids=lambda path: path.name)
def test_tasm_programs(path):
    isa = "head" if path.stem.endswith("head") else "rel"
    program = parse(path.read_text(), isa)
    if not supported(program):
        with pytest.raises(WasmUnsupported):
            translate(program)
        return
    rng = random.Random(path.name)
    for _ in range(4):
        public = [rng.choice((rng.randrange(1, 100), rng.randrange(1 << 32))) for _ in range(4)]
        assert_same_run(program, public, max_steps=100_000)


# --- random programs -------------------------------------------------------------------------

TASM_SEEDS = range(400)  # 377 runs a long stretch of Tip5 permutations
SUPPORTED_TASM_SEEDS_AT_LEAST = 400


def test_random_tasm_programs():
    agreeing = 0
    for seed in TASM_SEEDS:
        case = generate_tasm(seed, size=SMALL)
        program = parse(case.text, case.isa)
        if not supported(program):
            continue
        assert_same_run(
            program,
            case.public_input,
            case.secret_input,
            case.secret_digests,
            case.ram,
            case.max_steps,
        )
        agreeing += 1
    print(f"{agreeing} of {len(TASM_SEEDS)} generated TASM programs agree")
    assert agreeing >= SUPPORTED_TASM_SEEDS_AT_LEAST


SOURCE_SEEDS = range(12)
SUPPORTED_SOURCE_SEEDS_AT_LEAST = 12


def test_random_source_programs(tmp_path):
    agreeing = 0
    for seed in SOURCE_SEEDS:
        generated = generate_source(seed, kind="program", cases=4, size=0.5)
        path = tmp_path / f"{generated.name}.tri"
        path.write_text(generated.text)
        program = compile_program(check(load_project(path)), 1).program
        if not supported(program):
            continue
        for case in generated.cases:
            assert_same_run(program, case.public, case.secret, case.digests, dict(case.ram))
        agreeing += 1
    print(f"{agreeing} of {len(SOURCE_SEEDS)} generated source programs agree")
    assert agreeing >= SUPPORTED_SOURCE_SEEDS_AT_LEAST


# --- one instruction on edge values ----------------------------------------------------------

ONE_INSTRUCTION = (
    "add", "mul", "eq", "invert", "addi 18446744069414584320", "addi 7",
    "split", "lt", "and", "xor", "log_2_floor", "pow", "div_mod", "pop_count",
    "assert", "assert_vector", "skiz push 5", "pick 3", "place 4", "dup 7", "swap 9",
    "xx_add", "xx_mul", "xb_mul", "x_invert", "push 0 x_invert",
    "hash", "sponge_init sponge_absorb", "sponge_init sponge_squeeze sponge_squeeze",
    "sponge_init sponge_absorb_mem", "sponge_absorb", "sponge_squeeze", "sponge_absorb_mem",
    "xx_dot_step", "xb_dot_step", "swap 2 xx_dot_step",
    "merkle_step", "merkle_step_mem", "swap 5 merkle_step", "swap 5 merkle_step_mem",
    "read_mem 3", "write_mem 2", "write_io 2", "pop 5", "recurse_or_return",
)  # fmt: skip


@pytest.mark.parametrize(
    "instruction, isa",
    [*((instruction, "rel") for instruction in ONE_INSTRUCTION)]
    + [("b_horner_step", "head"), ("x_horner_step", "head"), ("swap 5 x_horner_step", "head")],
)
def test_one_instruction_on_edge_values(instruction, isa):
    rng = random.Random(instruction)
    pairs = [(a, b) for a in EDGES for b in EDGES] + [
        (rng.randrange(P), rng.randrange(P)) for _ in range(12)
    ]
    for below, top in pairs:
        text = f"push {below} push {top} {instruction} halt"
        ram = {top: below, (top - 1) % P: 3, (top + 1) % P: 4}
        digests = [[top, below, 1, 2, 3]] if top % 3 else []
        assert_same_run(parse(text, isa), ram=ram, digests=digests)


def test_field_multiplication_is_exact():
    """Products, inverses and powers of random and edge values, checked against Python."""
    rng = random.Random(7)
    values = [*EDGES[:5], *(rng.randrange(P) for _ in range(40))]
    text = "".join(f"push {a} push {b} mul write_io 1 " for a in values for b in values[:8])
    run = execute_wasm(parse(text + "halt"))
    assert run.output == [a * b % P for a in values for b in values[:8]]
    inverses = execute_wasm(parse("".join(f"push {a} invert write_io 1 " for a in values[1:])))
    assert inverses.output == [pow(a, P - 2, P) for a in values[1:]]


def test_extension_field_arithmetic_is_exact():
    rng = random.Random(11)
    elements = [(0, 0, 1), (1, 0, 0), (P - 1, P - 1, P - 1)]
    elements += [tuple(rng.choice((rng.randrange(P), *EDGES)) for _ in range(3)) for _ in range(20)]
    for a, b in zip(elements, elements[1:] + elements[:1]):
        pushes = " ".join(f"push {word}" for word in (*xfield.to_stack(b), *xfield.to_stack(a)))
        text = f"{pushes} dup 5 dup 5 dup 5 dup 5 dup 5 dup 5 xx_mul write_io 3 xx_add write_io 3"
        text += f" {pushes} pop 3 x_invert write_io 3 {pushes} pop 3 push {a[0]} xb_mul write_io 3"
        run = execute_wasm(parse(text + " halt"))
        assert run.error is None
        expected = [*xfield.mul(a, b), *xfield.add(a, b), *xfield.inverse(b)]
        assert run.output == expected + list(xfield.scalar_mul(a[0], b))


# --- control flow, failures and limits -------------------------------------------------------


def test_failures_keep_the_interpreter_kinds():
    cases = {
        "push 0 assert halt": "AssertionFailed",
        "push 4294967296 push 1 lt halt": "FailedU32Conversion",
        "push 0 invert halt": "InverseOfZero",
        "push 0 push 1 div_mod halt": "DivisionByZero",
        "push 0 log_2_floor halt": "LogarithmOfZero",
        "return": "JumpStackIsEmpty",
        "read_io 1 halt": "EmptyPublicInput",
        "divine 2 halt": "EmptySecretInput",
        "pop 1 halt": "TooShallow",
        "push 1 push 0 skiz": "InstructionPointerOverflow",
        "push 1": "InstructionPointerOverflow",
        "": "InstructionPointerOverflow",
        "skiz": "TooShallow",
        "push 0 push 1 push 2 push 3 push 4 assert_vector halt": "VectorAssertionFailed",
    }
    for text, kind in cases.items():
        reference = assert_same_run(parse(text))
        assert reference.error.kind == kind


def test_calls_and_recursion():
    text = """
        push 10 call countdown push 3 push 0 push 0 push 0 push 0 push 0 push 0
        call loop write_io 1 halt
        countdown: dup 0 write_io 1 push -1 add dup 0 skiz recurse return
        loop: swap 6 push 1 add swap 6 recurse_or_return
    """
    reference = assert_same_run(parse(text))
    assert reference.output[:10] == list(range(10, 0, -1))


def test_step_limit():
    program = parse("spin: call spin")
    for limit in (0, 1, 7, 100_000):
        reference = assert_same_run(program, max_steps=limit)
        assert reference.error.kind == "StepLimitExceeded"
        assert reference.cycles == limit
    halting = parse("push 1 pop 1 halt")
    assert assert_same_run(halting, max_steps=3).error is None
    assert assert_same_run(halting, max_steps=2).error.kind == "StepLimitExceeded"


def test_running_out_of_fuel_is_an_internal_error(monkeypatch):
    """Fuel is only a safety bound: the step counter decides, and a trap is never a result."""
    monkeypatch.setattr(runtime, "FUEL_PER_STEP", 1)
    monkeypatch.setattr(runtime, "FUEL_FLOOR", 10)
    with pytest.raises(RuntimeError, match="trapped"):
        execute_wasm(parse("spin: call spin"), max_steps=1000)


def test_deep_stacks_grow_the_memories():
    """More than one page (8192 words) on both stacks."""
    text = "push 20000 call deep halt deep: push 1 swap 1 push -1 add dup 0 skiz recurse return"
    assert_same_run(parse(text), max_steps=1_000_000)


def test_every_instruction_has_one_translation():
    assert set(TRANSLATIONS) == set(BY_NAME)


@pytest.mark.parametrize("name, text, address", [("hash", "push 1 push 2 hash halt", 4)])
def test_an_instruction_without_a_translation_is_refused(monkeypatch, name, text, address):
    """The refusal a future instruction meets: named, with its address, before any code."""
    monkeypatch.delitem(TRANSLATIONS, name)
    program = parse(text)
    assert not supported(program)
    message = f"the wasm target does not yet support '{name}' (address {address})"
    with pytest.raises(WasmUnsupported, match=re.escape(message)):
        translate(program)


def test_tri_build_emits_the_module(capsys, tmp_path):
    """`tri build --emit wat` writes the translation of the program `tri build` builds."""
    from cli_helpers import tri

    source = PROGRAMS / "valid" / "fib.tri"
    output = tmp_path / "fib.wat"
    code, _, err = tri(capsys, "build", source, "--emit", "wat", "-o", output)
    assert code == 0, err
    text = output.read_text()
    assert text == translate(compiled(source, 1))
    import wasmtime

    wasmtime.Module(runtime._engine(), text)  # valid WebAssembly
