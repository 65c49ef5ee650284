"""Differential tests: the JIT returns exactly the interpreter's `Run`.

Every comparison checks output, cycles, final stack and RAM, visits per
address, u32 entries, permutation inputs and the error (kind, ip, instruction,
cycle and message), and then all nine heights, with the default options (only
regions that may run more than once compiled, the interpreter on the native
state for the rest) and with every region compiled.  Programs: the test
programs and spec vectors, one-instruction programs on hypothesis-drawn
stacks, 1,100 generated programs from a fixed seed range (every error kind
included; a third of them in units of three instructions, so that every
transfer between native functions is exercised), runs cut off at every
possible step, interpreter-to-JIT hand-overs at every cycle, and programs that
grow every native buffer (op stack, jump stack, RAM, output, both effect
records) far past its first size.
"""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from program_generator import ERROR_KINDS, LARGE, SMALL, generate
from test_vectors import every_instruction

import vm.jit
from tri import api
from tri.cli import main
from vm import interp, tables, tip5
from vm.field import P
from vm.isa import INSTRUCTIONS, Arg, Flow, instruction_set
from vm.jit import helpers, runtime
from vm.jit.codegen import emitters
from vm.jit.runtime import Options
from vm.jit.support import support
from vm.tasm import parse

PROGRAMS = Path(__file__).parents[1] / "programs"
TIERED = Options()  # the default: regions that may run more than once compiled
EVERYTHING = Options(tiered=False)  # every region compiled
SMALL_UNITS = Options(tiered=False, unit_limit=3)  # and cut into native functions of 3
RUN_FIELDS = ("output", "cycles", "stack", "ram", "visits", "u32_entries", "permutation_inputs")
EDGES = [0, 1, 2, P - 1, P - 2, 2**32 - 1, 2**32, 2**63, 2**64 - 2**32]
U32_EDGES = [0, 1, 2, 2**31, 2**32 - 2, 2**32 - 1]
words = st.one_of(
    st.sampled_from(EDGES + U32_EDGES), st.integers(0, 2**32 - 1), st.integers(0, P - 1)
)


@pytest.fixture(scope="module", autouse=True)
def private_cache(tmp_path_factory):
    """Compiled code goes to a temporary disk cache, never the user's."""
    previous = os.environ.get("TRI_JIT_CACHE")
    os.environ["TRI_JIT_CACHE"] = str(tmp_path_factory.mktemp("jit-cache"))
    yield
    if previous is None:
        del os.environ["TRI_JIT_CACHE"]
    else:
        os.environ["TRI_JIT_CACHE"] = previous


def assert_same_run(expected, actual) -> None:
    for name in RUN_FIELDS:
        assert getattr(actual, name) == getattr(expected, name), name
    assert actual.error == expected.error
    assert tables.heights(actual) == tables.heights(expected)


def compare(program, options=(TIERED, EVERYTHING), **inputs):
    """Run `program` on the interpreter and the JIT with each of `options`, assert the runs
    agree, return the JIT's last."""
    expected = interp.execute(program, **inputs)
    for option in options:
        actual = vm.jit.execute(program, **inputs, options=option)
        assert_same_run(expected, actual)
    return actual


# --- the instruction table -----------------------------------------------------------------------


def test_every_instruction_has_exactly_one_emitter():
    assert set(emitters()) == {row.name for row in INSTRUCTIONS}


# --- test programs and spec vectors ------------------------------------------------------------


@pytest.mark.parametrize(
    "name, public",
    [
        ("countdown", []),
        ("fibonacci", [0]),
        ("fibonacci", [1]),
        ("fibonacci", [30]),
        ("fibonacci", []),
        ("gcd", [42, 56]),
        ("gcd", [2**32 - 1, 1]),
        ("gcd", [0, 5]),
        ("hello", []),
        ("pick_place", [6, 3, 7, 5, 1, 2, 4, 4, 7, 3, 6, 1, 5, 2]),
    ],
)
def test_test_programs(name, public):
    compare(parse((PROGRAMS / f"{name}.tasm").read_text()), public_input=public)


@pytest.mark.parametrize("isa", ["rel", "head"])
def test_every_instruction_program(isa):
    text, inputs = every_instruction(isa)
    del inputs["isa"]
    run = compare(parse(text, isa), **inputs)
    assert run.error is None and run.cycles == {"rel": 140, "head": 146}[isa]


ERROR_VECTORS = [
    ("push 2 assert halt", {}),
    ("push 0 pop 2 halt", {}),
    ("pop 1 halt", {}),
    ("divine 1 halt", {}),
    ("read_io 1 halt", {}),
    ("sponge_init sponge_absorb halt", {}),
    ("sponge_absorb_mem halt", {}),
    ("sponge_squeeze halt", {}),
    ("push 0 invert halt", {}),
    ("x_invert halt", {}),
    ("push 4294967296 lt halt", {}),
    ("push 4294967296 and halt", {}),
    ("push 4294967296 xor halt", {}),
    ("push 4294967296 pop_count halt", {}),
    ("push 0 log_2_floor halt", {}),
    ("push 4294967296 log_2_floor halt", {}),
    ("push 4294967296 push 0 pow halt", {}),
    ("push 4294967296 push 0 div_mod halt", {}),
    ("push 0 push 1 div_mod halt", {}),
    ("push 4294967296 swap 5 merkle_step halt", {"secret_digests": [[1] * 5]}),
    ("push 4294967295 swap 5 merkle_step halt", {}),
    ("push 4294967296 swap 5 merkle_step_mem halt", {}),
    ("push 0 push 1 push 0 push 0 push 0 assert_vector halt", {}),
    ("recurse_or_return halt", {}),
    ("call foo return halt foo: return", {}),
    ("nop", {}),
    ("", {}),
    ("push 0 skiz", {}),
    ("push 1 skiz", {}),
    ("push 0 skiz nop", {}),
    ("call end halt end:", {}),
    ("push 3 call f halt f: dup 0 push 0 eq skiz return addi -1 call f", {}),  # returns to L
    ("push 1 push 2 pop 2 halt", {"max_steps": -3}),
    ("loop: call loop", {"max_steps": 1000}),
    ("push 1 push 2 pop 2 halt", {"max_steps": 3}),
    ("push 1 push 2 pop 2 halt", {"max_steps": 4}),
    ("push 1 push 2 pop 2 halt", {"max_steps": 0}),
]


@pytest.mark.parametrize("text, extra", ERROR_VECTORS)
def test_error_vectors(text, extra):
    run = compare(parse(text), **extra)
    assert run.error is not None or text.endswith("halt")


def test_error_reports_ip_instruction_cycle_and_message():
    run = compare(parse("push 1 push 2 assert halt"))
    assert (run.error.kind, run.error.ip, run.error.instruction, run.error.cycle) == (
        "AssertionFailed",
        4,
        "assert",
        2,
    )
    assert run.error.message == "assertion failed: st0 = 2, expected 1"
    assert run.visits[:6] == [1, 0, 1, 0, 0, 0]  # the failing assert did not count


# --- one instruction on drawn stacks ----------------------------------------------------------


def _one_instruction_texts() -> list[tuple[str, str]]:
    cases = []
    for isa in ("rel", "head"):
        for row in instruction_set(isa).values():
            if row.flow not in (Flow.STRAIGHT, Flow.SKIZ):
                continue  # control flow: covered by the programs above and below
            if isa == "head" and row.isa == "both":
                continue
            if row.arg is Arg.NONE:
                cases.append((isa, row.name))
            elif row.arg is Arg.FIELD:
                cases += [(isa, f"{row.name} {value}") for value in (0, 1, P - 1, 2**32)]
            elif row.arg is Arg.COUNT:
                cases += [(isa, f"{row.name} {count}") for count in (1, 3, 5)]
            else:
                cases += [(isa, f"{row.name} {index}") for index in (0, 1, 7, 15)]
    return cases


cells = st.lists(st.tuples(st.integers(0, 15), st.integers(-3, 12), words), max_size=12)
digests = st.lists(st.lists(words, min_size=5, max_size=5), max_size=2)


@pytest.mark.parametrize("isa, text", _one_instruction_texts())
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stack=st.lists(words, min_size=16, max_size=16), cells=cells, digests=digests)
@example(stack=[0] * 16, cells=[], digests=[])
@example(stack=[P - 1] * 16, cells=[(0, 0, P - 1)], digests=[[P - 1] * 5])
@example(stack=[2**32 - 1] * 16, cells=[(0, 1, 1)], digests=[[0] * 5])
@example(stack=[1] * 16, cells=[(0, -1, 5)], digests=[])
def test_one_instruction(isa, text, stack, cells, digests):
    """`text` on 16 drawn words (read from public input) above the initial 16; RAM cells
    near the drawn words, so that pointers hit them."""
    program = parse(f"read_io 5 read_io 5 read_io 5 read_io 1 {text} halt", isa)
    ram = {(stack[15 - index] + offset) % P: value for index, offset, value in cells}
    secret = stack[:6]
    compare(program, public_input=stack, secret_input=secret, secret_digests=digests, ram=ram)


@pytest.mark.parametrize("instruction", ["xb_dot_step", "xx_dot_step"])
@settings(max_examples=25, deadline=None)
@given(
    count=st.integers(1, 9),
    pointers=st.lists(words, min_size=2, max_size=2),
    accumulator=st.lists(words, min_size=3, max_size=3),
    values=st.lists(st.one_of(st.none(), words), min_size=27, max_size=27),
)
@example(count=9, pointers=[P - 2, P - 5], accumulator=[P - 1] * 3, values=[P - 1] * 27)
@example(count=8, pointers=[4094, 4090], accumulator=[0] * 3, values=[None, 2**32] * 13 + [1])
def test_runs_of_dot_steps(instruction, count, pointers, accumulator, values):
    """A run of equal dot steps (one helper call in native code) against the interpreter:
    pointers that wrap around p and cross RAM pages, cells missing (None) or present, and
    the run cut into pieces by units of three instructions."""
    left, right = pointers
    cells = {}
    for offset, value in enumerate(values):
        if value is not None:
            cells[(right + offset) % P] = value
            cells[(left + offset) % P] = (value + 1) % P
    pushes = " ".join(f"push {word}" for word in [*reversed(accumulator), right, left])
    program = parse(f"{pushes} {' '.join([instruction] * count)} halt")
    compare(program, options=(EVERYTHING, SMALL_UNITS), ram=cells)


def test_sponge_sequence_on_drawn_words():
    program = parse(
        "sponge_init read_io 5 read_io 5 sponge_absorb push 7 sponge_absorb_mem pop 1 "
        "sponge_squeeze write_io 5 write_io 5 sponge_squeeze sponge_squeeze halt"
    )
    compare(
        program, public_input=EDGES + [3], ram={7 + k: EDGES[k % len(EDGES)] for k in range(10)}
    )


# --- generated programs ------------------------------------------------------------------------

SEEDS_PER_CHUNK = 55
GENERATED_SEEDS = range(0, 1100)  # the fixed seed range run in every CI run


@pytest.fixture
def interpreted(monkeypatch):
    """Counts the cycles the JIT leaves to the interpreter (hand-offs, failing instructions)."""
    cycles = [0]
    original = runtime.interpret

    def counting(machine, steps, ip, visits, *arguments, **keywords):
        before = sum(visits)
        stop = original(machine, steps, ip, visits, *arguments, **keywords)
        cycles[0] += sum(visits) - before
        return stop

    monkeypatch.setattr(runtime, "interpret", counting)
    return cycles


@pytest.mark.parametrize("first", GENERATED_SEEDS[::SEEDS_PER_CHUNK])
def test_generated_programs(first, interpreted):
    total = 0
    for seed in range(first, first + SEEDS_PER_CHUNK):
        case = generate(seed, size=SMALL)
        program = parse(case.text, case.isa)
        expected = interp.execute(program, **case.inputs())
        assert (expected.error.kind if expected.error else None) == case.expected_error, seed
        options = SMALL_UNITS if seed % 3 == 0 else EVERYTHING
        actual = vm.jit.execute(program, **case.inputs(), options=options)
        assert_same_run(expected, actual)
        total += actual.cycles
    assert interpreted[0] < 0.02 * total  # the JIT really ran them


@pytest.mark.parametrize("seed", range(20_000, 20_012))
def test_large_generated_programs(seed):
    case = generate(seed, size=LARGE)
    compare(parse(case.text, case.isa), (TIERED, EVERYTHING, SMALL_UNITS), **case.inputs())


def test_generated_seed_range_covers_every_error_kind():
    kinds = Counter(generate(seed, size=SMALL).expected_error for seed in GENERATED_SEEDS)
    assert set(kinds) == {None, *ERROR_KINDS}
    assert min(kinds[kind] for kind in ERROR_KINDS) >= 20
    assert kinds[None] >= 700


def test_generated_programs_are_deterministic():
    assert generate(123, size=SMALL) == generate(123, size=SMALL)
    assert generate(123).text != generate(124).text


# --- cut off at every step, handed over at every cycle ----------------------------------------

STEPPED = [
    ("fibonacci", parse((PROGRAMS / "fibonacci.tasm").read_text()), {"public_input": [6]}),
    ("gcd", parse((PROGRAMS / "gcd.tasm").read_text()), {"public_input": [42, 56]}),
    (
        "nested",
        parse(
            "push 3 call outer pop 1 push 0 assert halt "
            "outer: dup 0 push 0 eq skiz return addi -1 push 2 call inner pop 1 recurse "
            "inner: dup 0 push 0 eq skiz return addi -1 recurse"
        ),
        {},
    ),
]


@pytest.mark.parametrize("name, program, inputs", STEPPED, ids=[case[0] for case in STEPPED])
def test_step_limit_at_every_step(name, program, inputs):
    cycles = interp.execute(program, **inputs).cycles
    for max_steps in range(cycles + 2):
        run = compare(program, **inputs, max_steps=max_steps)
        if max_steps < cycles:
            assert (run.error.kind, run.error.cycle) == ("StepLimitExceeded", max_steps)


@pytest.mark.parametrize("name, program, inputs", STEPPED, ids=[case[0] for case in STEPPED])
def test_hand_over_to_the_jit_at_every_cycle(name, program, inputs):
    expected = interp.execute(program, **inputs)
    for trial in range(expected.cycles + 1):
        for options in (TIERED, SMALL_UNITS):
            run = vm.jit.execute(program, **inputs, trial_cycles=trial, options=options)
            assert_same_run(expected, run)


# --- every native buffer grows far past its first size -----------------------------------------


def test_long_runs_are_native(interpreted):
    program = parse((PROGRAMS / "fibonacci.tasm").read_text())
    run = compare(program, (EVERYTHING,), public_input=[5_000])
    assert run.cycles > 50_000 and interpreted[0] == 0
    run = compare(program, (TIERED,), public_input=[5_000])  # main runs once: interpreted
    assert interpreted[0] < 20


def test_deep_op_stack_and_underflow():
    """Push 30,000 words in a loop, then pop and add them all back: op-stack growth."""
    program = parse(
        "read_io 1 call up pop 1 read_io 1 call down pop 1 write_io 1 halt "
        "up: dup 0 push 0 eq skiz return dup 0 swap 1 addi -1 recurse "
        "down: dup 0 push 0 eq skiz return swap 2 add swap 1 addi -1 recurse"
    )
    run = compare(program, public_input=[30_000, 29_999])
    assert run.error is None and run.output == [sum(range(1, 30_001)) % P]


def test_too_shallow_deep_into_a_run():
    """Each iteration removes one word under the counter, until a pop is too shallow."""
    program = parse(
        "push 0 " * 20
        + "read_io 1 call f halt f: dup 0 push 0 eq skiz return swap 1 pop 1 addi -1 recurse"
    )
    run = compare(program, public_input=[100])
    assert run.error.kind == "TooShallow" and run.error.cycle > 150


def test_deep_jump_stack():
    program = parse(
        "read_io 1 call f pop 1 halt f: dup 0 push 0 eq skiz return addi -1 call f return"
    )
    assert compare(program, public_input=[50_000]).error is None


def test_many_ram_cells_initial_and_written():
    program = parse(
        "read_io 1 call f pop 1 halt "
        "f: dup 0 push 0 eq skiz return dup 0 dup 0 mul dup 1 push 4096 mul write_mem 1 pop 1 "
        "dup 0 push 3 mul read_mem 2 pop 1 add pop 1 addi -1 recurse"
    )
    ram = {P - 1 - 7 * index: index for index in range(5_000)}
    run = compare(program, public_input=[40_000], ram=ram)
    assert len(run.ram) == 45_000


def test_many_u32_entries_and_permutations():
    program = parse(
        "read_io 1 call f pop 1 halt "
        "f: dup 0 push 0 eq skiz return dup 0 dup 0 lt pop 1 dup 0 split pop 2 "
        "push 1000 dup 1 div_mod pop 2 dup 0 pop_count pop 1 "
        "dup 0 dup 0 dup 0 dup 0 dup 0 dup 0 dup 0 dup 0 dup 0 dup 0 hash pop 5 addi -1 recurse"
    )
    run = compare(program, public_input=[6_000])
    assert len(run.u32_entries) > 20_000 and len(run.permutation_inputs) == 6_000


def test_long_output():
    program = parse(
        "read_io 1 call f halt f: dup 0 push 0 eq skiz return dup 0 write_io 1 addi -1 recurse"
    )
    assert len(compare(program, public_input=[20_000]).output) == 20_000


# --- Tip5 in IR, engines, caches, command line ---------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.lists(words, min_size=16, max_size=16))
@example([0] * 16)
@example([P - 1] * 16)
@example([2**32 - 1] * 16)
@example([2**32] * 16)
@example([P - 1, 0, 2**32 - 1, 2**32, 1, P - 2**32, 2**63, 2**32 + 1] * 2)
def test_native_tip5_matches_the_reference(state):
    """Both native permutations (vm.jit.tip5_ir): the output, and the marking one's
    cascade limbs, against the plain-Python reference; in place, as the JIT calls them."""
    permute = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)(support().permute)
    expected = list(tip5.reference_permutation_trace(state)[-1])
    words_in = np.array(state, dtype=np.uint64)
    words_out = np.zeros(16, dtype=np.uint64)
    permute(words_in.ctypes.data, words_out.ctypes.data)
    assert words_out.tolist() == expected
    address = int(support().table[helpers.NAMES.index("tip5_permute_marking")])
    marking = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * 3)(address)
    cascade = np.zeros(1 << 10, dtype=np.uint64)  # one bit per 16-bit limb
    marking(words_in.ctypes.data, words_in.ctypes.data, cascade.ctypes.data)
    assert words_in.tolist() == expected
    bits = np.unpackbits(cascade.view(np.uint8), bitorder="little")
    assert set(np.flatnonzero(bits).tolist()) == tip5.reference_cascade_limbs(state)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(0, 2**32 - 2), min_size=16, max_size=16))
@example([0] * 16)
@example([2**32 - 2] * 16)
def test_native_tip5_takes_words_above_p_as_their_residues(state):
    """A round's output is below 2^64 but not necessarily canonical (vm.jit.tip5_ir), so
    every round must take x + p as x; only the permutation's output is canonical."""
    permute = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)(support().permute)
    words_in = np.array([word + P for word in state], dtype=np.uint64)
    words_out = np.zeros(16, dtype=np.uint64)
    permute(words_in.ctypes.data, words_out.ctypes.data)
    assert words_out.tolist() == list(tip5.reference_permutation_trace(state)[-1])


def _native_power():
    address = int(support().table[helpers.NAMES.index("field_power")])
    return ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_uint64, ctypes.c_uint64)(address)


def test_native_power_of_two_matches_python():
    """The helper's shift path for a base of 2, over two periods of 2's powers and the
    edges of the exponent."""
    power = _native_power()
    exponents = [*range(400), 2**32 - 1, 2**32, P - 2, P - 1, 2**64 - 1]
    assert [power(2, e) for e in exponents] == [pow(2, e, P) for e in exponents]


@settings(max_examples=60, deadline=None)
@given(words, st.one_of(st.integers(0, 2**32 - 1), st.sampled_from([0, 1, P - 2, P - 1])))
@example(0, 0)
@example(P - 1, 2**32 - 1)
@example(2, 191)
@example(3, P - 2)
def test_native_power_matches_python(base, exponent):
    assert _native_power()(base, exponent) == pow(base, exponent, P)


def test_auto_engine_interprets_short_runs_and_compiles_long_ones():
    short = parse("push 5 push 6 add write_io 1 halt nop nop")
    assert not vm.jit.is_cached(short)
    assert api.execute(short, engine="auto").output == [11]
    assert not vm.jit.is_cached(short)  # too short to be worth compiling
    long_loop = parse("read_io 1 call f halt f: dup 0 push 0 eq skiz return addi -1 recurse nop")
    support()  # as in any process that has used the JIT once
    threshold = vm.jit.INTERPRETER_SPEED * vm.jit.native_code_seconds(long_loop)
    assert vm.jit.FIRST_LOOK_CYCLES < threshold < 2_000_000
    inputs = api.Inputs(public=(int(threshold) // 6 + 1_000,))  # 6 cycles per iteration
    result = api.execute(long_loop, inputs, engine="auto")
    assert vm.jit.is_cached(long_loop)
    assert result == api.execute(long_loop, inputs, engine="interp")


def test_compiled_code_is_cached_in_process_and_on_disk(tmp_path):
    script = (
        "import json, sys; from vm import jit; from vm.tasm import parse;"
        "program = parse('read_io 1 push 2 mul write_io 1 halt nop nop nop');"
        "compiled = jit.compile_program(program);"
        "again = jit.compile_program(program);"
        "run = jit.execute(program, [21]);"
        "print(json.dumps([compiled.source, again.source, run.output]))"
    )
    environment = {**os.environ, "TRI_JIT_CACHE": str(tmp_path)}
    reports = [
        json.loads(
            subprocess.run(
                [sys.executable, "-c", script],
                env=environment,
                check=True,
                capture_output=True,
                text=True,
            ).stdout
        )
        for _ in range(2)
    ]
    assert reports[0] == ["compiled", "memory", [42]]
    assert reports[1] == ["disk", "memory", [42]]
    assert list(tmp_path.glob("*.o"))


# Triton VM's long sponge test: 23,631 `sponge_init`, then 2,100 squeeze/absorb pairs.
LONG_SPONGE = "sponge_init\n" * 23_631 + "sponge_squeeze sponge_absorb\n" * 2_100 + "halt\n"
# A straight line that is compiled whole: 4,000 sponge instructions in units of 200.
COMPILED_SPONGE = "sponge_init\n" * 2_000 + "sponge_squeeze sponge_absorb\n" * 1_000 + "halt\n"
MEMORY_CAP = 2**30  # bytes of address space for the process that compiles and runs them

_CAPPED_CHILD = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]), int(sys.argv[1])))
from vm import jit, tables
from vm.jit.runtime import Options, compile_program
from vm.tasm import parse
reports = []
for text, options in zip(json.loads(sys.stdin.read()), (Options(), Options(tiered=False))):
    program = parse(text)
    run = jit.execute(program, options=options)
    compiled = compile_program(program, options)
    heights = list(tables.heights(run).as_dict().values())
    reports.append([run.output, run.cycles, run.error is None, heights, len(compiled.entries)])
print(json.dumps(reports))
"""


def test_long_straight_line_sponge_programs_under_a_memory_cap():
    """Compile time and memory are bounded per instruction: a fresh process with at most
    1 GB of address space and no code cache runs the long sponge program (default options)
    and compiles and runs a 4,000-instruction straight line whole; both runs agree with the
    interpreter, all nine heights included."""
    environment = {**os.environ, "TRI_JIT_CACHE": "off"}
    child = subprocess.run(
        [sys.executable, "-c", _CAPPED_CHILD, str(MEMORY_CAP)],
        input=json.dumps([LONG_SPONGE, COMPILED_SPONGE]),
        env=environment,
        capture_output=True,
        text=True,
    )
    assert child.returncode == 0, child.stderr[-2000:]
    reports = json.loads(child.stdout)
    for text, report in zip((LONG_SPONGE, COMPILED_SPONGE), reports):
        expected = interp.execute(parse(text))
        heights = list(tables.heights(expected).as_dict().values())
        assert report[:4] == [expected.output, expected.cycles, True, heights]
    assert reports[1][4] >= 1  # the second one really was compiled


def test_cli_engines_agree(capsys):
    outputs = []
    for engine in ("interp", "jit", "auto"):
        code = main(
            ["run", str(PROGRAMS / "gcd.tasm"), "--input", "42,56", "--json", "--engine", engine]
        )
        assert code == 0
        outputs.append(json.loads(capsys.readouterr().out))
    assert outputs[0] == outputs[1] == outputs[2]


def test_cli_without_llvmlite(monkeypatch, capsys):
    monkeypatch.setattr(vm.jit, "available", lambda: False)
    code = main(["run", str(PROGRAMS / "countdown.tasm"), "--engine", "jit"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1 and "llvmlite" in captured.err
    assert main(["run", str(PROGRAMS / "countdown.tasm")]) == 0  # auto: the interpreter
    assert capsys.readouterr().out.split()[0] == "10"


def test_run_records_are_the_interpreter_types():
    run = vm.jit.execute(parse("push 3 push 4 lt pop 1 halt"))
    assert isinstance(run, interp.Run) and run.u32_entries == {("lt", 4, 3)}
    assert runtime.compile_program(parse("halt")).blocks.checkpoints == frozenset({0})
