"""Differential test of the back end: compiled code on the VM against the reference evaluator.

Every program of the corpus (tests/programs/valid) runs its `// run:` cases and
at least 50 random inputs; every public function of every std module of
stdlib/ is called with at least 50 random argument tuples.  Inputs always
include the edge values 0, 1, p-1, 2^32-1 and equal operands.  Compiled and
reference runs must agree on the output (and, for functions, the result and
RAM) and on failure: both fail or neither.

The helpers here (`random_word`, `inputs_for`, `compare_program`,
`call_on_vm`, ...) are shared by the other back-end tests.
"""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import pytest
from corpus import PROGRAMS, corpus, expectations

from compiler.check.checker import check
from compiler.check.resolve import DEFAULT_LIBRARY, load_project
from compiler.check.types import ArrayType, Primitive, StructType, TupleType, width
from compiler.driver import compile_program
from compiler.evaluate import call_function
from compiler.tir.effects import check_program
from compiler.tir.stack import SCRATCH_BASE, SPILL_BASE
from vm import interp, tasm
from vm.field import P

RANDOM_CASES = 50
U32_MAX = 2**32 - 1
EDGES = (0, 1, P - 1, U32_MAX)
MORE_EDGES = (2, 3, 2**32, 2**31, P - 2, 7, 10)
MAX_STEPS = 2_000_000


def random_word(rng: random.Random, kind: str = "field") -> int:
    """A word biased to small values (loops run), with edges and random ones mixed in."""
    roll = rng.random()
    if kind == "bool":
        return rng.randrange(2)
    if roll < 0.15:
        value = rng.choice(EDGES)
    elif roll < 0.25:
        value = rng.choice(MORE_EDGES)
    elif roll < 0.75:
        value = rng.randrange(12)
    elif roll < 0.88:
        value = rng.randrange(2**32)
    else:
        value = rng.randrange(P)
    if kind == "u32":
        value %= 2**32
    return value


# --- programs ------------------------------------------------------------------------------


def evaluate_state(checked, public=(), secret=(), digests=(), ram=None, key=None, args=()):
    """The evaluator on `main` (or on function `key` with `args`): an `Evaluation`."""
    return call_function(
        checked, key or checked.entry, list(args), public, secret, digests, ram, MAX_STEPS
    )


def inputs_for(checked, rng: random.Random, count: int) -> list[tuple]:
    """Random (public, secret, digests, ram) inputs: probe how much a run reads, then draw."""
    probe_public = [random_word(rng) for _ in range(64)]
    probe_secret = [random_word(rng) for _ in range(64)]
    probe_digests = [tuple(random_word(rng) for _ in range(5)) for _ in range(8)]
    unread = evaluate_state(checked, probe_public, probe_secret, probe_digests).unread
    needs = (max(1, 64 - unread[0]), max(1, 64 - unread[1]), max(1, 8 - unread[2]))
    cases = []
    for value in EDGES:  # equal operands: every word the same edge value
        cases.append(([value] * needs[0], [value] * needs[1], [(value,) * 5] * needs[2], {}))
    while len(cases) < count:
        lengths = [n if rng.random() < 0.85 else rng.randrange(n + 1) for n in needs]
        if rng.random() < 0.2:  # equal operands, a random value
            value = random_word(rng)
            public = [value] * lengths[0]
        else:
            public = [random_word(rng) for _ in range(lengths[0])]
        secret = [random_word(rng) for _ in range(lengths[1])]
        digests = [tuple(random_word(rng) for _ in range(5)) for _ in range(lengths[2])]
        ram = {rng.randrange(16): random_word(rng) for _ in range(rng.randrange(4))}
        cases.append((public, secret, digests, ram))
    return cases


def run_vm(program: tasm.Program, public, secret, digests, ram) -> interp.Run:
    return interp.execute(program, public, secret, digests, ram, MAX_STEPS)


def compare_program(checked, program: tasm.Program, case) -> str | None:
    """None when the VM run of `program` agrees with the evaluator on `case`."""
    public, secret, digests, ram = case
    state = evaluate_state(checked, public, secret, digests, ram)
    failure = state.error
    if failure is not None and failure.kind == "StepLimitExceeded":
        return None
    result = run_vm(program, public, secret, digests, ram)
    if result.error is not None and result.error.kind == "StepLimitExceeded":
        return None
    if result.output != state.output or (result.error is None) != (failure is None):
        vm_error = result.error and result.error.kind
        return (
            f"input {case}: VM {result.output} {vm_error}, "
            f"evaluator {state.output} {failure and failure.kind}"
        )
    return None


@cache
def compiled(path: Path, level: int = 1):
    checked = check(load_project(path))
    return checked, compile_program(checked, level)


PROGRAM_PATHS = [p for p in corpus("valid") if expectations(p).cases]


@pytest.mark.parametrize(
    "path", PROGRAM_PATHS, ids=lambda p: p.relative_to(PROGRAMS / "valid").as_posix()
)
def test_program_matches_the_evaluator(path):
    checked, result = compiled(path)
    assert check_program(result.tir) == []
    for case in expectations(path).cases:
        run = run_vm(result.program, case.public, case.secret, case.digests, case.ram)
        kind = None if run.error is None else run.error.kind
        assert run.output == case.output, f"run: at line {case.line}"
        assert (kind is None) == (case.error is None), f"run: at line {case.line}: {run.error}"
    rng = random.Random(path.name)
    problems = [
        problem
        for case in inputs_for(checked, rng, RANDOM_CASES)
        if (problem := compare_program(checked, result.program, case)) is not None
    ]
    assert not problems, "\n".join(problems[:5])


# --- stdlib functions ----------------------------------------------------------------------


def random_value(type_, rng: random.Random) -> tuple:
    match type_:
        case Primitive(name="U32"):
            return (random_word(rng, "u32"),)
        case Primitive(name="Bool"):
            return (random_word(rng, "bool"),)
        case Primitive():
            return tuple(random_word(rng) for _ in range(type_.width))
        case ArrayType():
            return tuple(w for _ in range(type_.length) for w in random_value(type_.element, rng))
        case TupleType():
            return tuple(w for t in type_.elements for w in random_value(t, rng))
        case StructType():
            return tuple(w for _, t in type_.fields for w in random_value(t, rng))
    raise TypeError(type_)


def edge_value(type_, value: int) -> tuple:
    if type_ == Primitive("Bool", 1):
        value = min(value, 1)
    elif type_ == Primitive("U32", 1):
        value %= 2**32
    return (value,) * width(type_)


@cache
def wrapper(module_text: str, label: str) -> tasm.Program:
    """`call label` `halt` in front of a module built alone (assembled once)."""
    return tasm.parse(f"call {label}\nhalt\n{module_text}")


def call_on_vm(
    module_text: str, label: str, arguments: list[tuple], public, secret, digests, ram
) -> interp.Run:
    """Call `label` of a module built alone with the arguments pushed on the stack."""
    machine = interp.initial_machine(wrapper(module_text, label), public, secret, digests, ram)
    machine.stack.extend(w for argument in arguments for w in argument)
    return interp.run_machine(machine, MAX_STEPS)


def stdlib_modules() -> list[Path]:
    return sorted(p for p in DEFAULT_LIBRARY.rglob("*.tri") if "vm" not in p.parts)


@cache
def compiled_module(path: Path):
    checked = check(load_project(path))
    return checked, compile_program(checked)


def compare_call(checked, module_text, key, label, arguments, rng) -> str | None:
    public = [random_word(rng) for _ in range(8)]
    secret = [random_word(rng) for _ in range(24)]
    digests = [tuple(random_word(rng) for _ in range(5)) for _ in range(6)]
    ram = {address: random_word(rng) for address in range(48) if rng.random() < 0.7}
    for word in {w for argument in arguments for w in argument}:  # an argument may be an address
        if rng.random() < 0.5:
            ram.update({(word + k) % P: random_word(rng) for k in range(96)})
    state = evaluate_state(checked, public, secret, digests, ram, key=key, args=arguments)
    result, failure = state.result, state.error
    if failure is not None and failure.kind == "StepLimitExceeded":
        return None
    run = call_on_vm(module_text, label, arguments, public, secret, digests, ram)
    if run.error is not None and run.error.kind == "StepLimitExceeded":
        return None
    where = f"{key}{tuple(arguments)}"
    if (run.error is None) != (failure is None):
        return f"{where}: VM {run.error}, evaluator {failure and failure.kind}"
    if run.output != state.output:
        return f"{where}: output {run.output} != {state.output}"
    if failure is None:
        returned = run.stack[16:]
        if returned != list(result):
            return f"{where}: result {returned} != {list(result)}"
        user_ram = {a: v for a, v in run.ram.items() if not reserved(a) and v != ram.get(a, 0)}
        expected_ram = {a: v for a, v in state.ram.items() if v != ram.get(a, 0)}
        if {a: v for a, v in user_ram.items() if v} != {a: v for a, v in expected_ram.items() if v}:
            return f"{where}: RAM {user_ram} != {expected_ram}"
    return None


def reserved(address: int) -> bool:
    """The compiler's RAM: spill slots from 2^30 and scratch from 2^29."""
    scratch = SCRATCH_BASE <= address < SCRATCH_BASE + 2**20
    return scratch or SPILL_BASE <= address < SPILL_BASE + 2**20


def public_functions():
    for path in stdlib_modules():
        checked, _ = compiled_module(path)
        for key in checked.exported:
            yield path, key


@pytest.mark.parametrize(
    "path,key", list(public_functions()), ids=lambda x: x if isinstance(x, str) else x.stem
)
def test_stdlib_function_matches_the_evaluator(path, key):
    checked, result = compiled_module(path)
    assert check_program(result.tir) == []
    problems = function_problems(checked, result.text, key, RANDOM_CASES)
    assert not problems, "\n".join(problems[:5])


def function_problems(checked, module_text: str, key: str, count: int) -> list[str]:
    """Calls of the function `key` in the built module on edge arguments, then random ones
    up to `count`, where the VM and the evaluator disagree."""
    instance = checked.instances[key]
    label = "__" + key[len(key) - len(instance.function.name) :]
    types = [t for _, t in instance.params]
    rng = random.Random(key)
    tuples = [[edge_value(t, value) for t in types] for value in EDGES]
    while len(tuples) < count:
        tuples.append([random_value(t, rng) for t in types])
    return [
        problem
        for arguments in tuples
        if (problem := compare_call(checked, module_text, key, label, arguments, rng)) is not None
    ]
