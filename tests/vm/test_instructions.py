"""A property test per instruction: random stacks, one instruction, compared with a model.

Each test runs `INSTRUCTION halt` from a drawn stack and checks, independently of
`vm.isa` where it can: the resulting stack against a plain-Python model of Triton VM's
semantics, the measured stack-length change against the row's delta, RAM accesses
counted by an instrumented RAM against the row's RAM rows, Tip5 permutations
counted by a wrapper against the hash rows, and the u32 entries it records.
"""

from contextlib import contextmanager
from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from vm import tables, tip5, xfield
from vm.field import P
from vm.handlers import HANDLERS
from vm.interp import initial_machine, run_machine
from vm.isa import INSTRUCTIONS, Arg, by_opcode, instruction_set
from vm.tasm import parse

EDGES = [0, 1, 2, P - 1, P - 2, 2**32 - 1, 2**32, 2**63, 2**64 - 2**32]
U32_EDGES = [0, 1, 2, 3, 2**31, 2**32 - 2, 2**32 - 1]
words = st.one_of(st.integers(0, P - 1), st.sampled_from(EDGES))
u32_words = st.one_of(st.integers(0, 2**32 - 1), st.sampled_from(U32_EDGES))
mostly_u32 = st.one_of(u32_words, u32_words, u32_words, words)
U32 = 1 << 32


class CountingRam(dict):
    """RAM that counts every word read and written."""

    accesses = 0

    def get(self, address, default=None):
        self.accesses += 1
        return super().get(address, default)

    def __setitem__(self, address, value):
        self.accesses += 1
        super().__setitem__(address, value)


@contextmanager
def counting_permutations():
    calls = []
    original = tip5.permutation

    def counted(state):
        calls.append(tuple(state))
        return original(state)

    with mock.patch.object(tip5, "permutation", counted):
        yield calls


def run_one(text, stack_top_first, isa="rel", ram=None, public=(), secret=(), digests=()):
    program = parse(text, isa)
    machine = initial_machine(program, public, secret, digests)
    machine.stack[:] = list(reversed(stack_top_first))
    machine.ram = CountingRam(ram or {})
    with counting_permutations() as permutations:
        run = run_machine(machine, max_steps=100)
    return run, machine, len(permutations)


# --- the table itself -------------------------------------------------------------------------


def test_every_instruction_has_exactly_one_handler():
    assert set(HANDLERS) == {row.name for row in INSTRUCTIONS}


@pytest.mark.parametrize("isa", ["rel", "head"])
def test_opcodes_are_unique_and_their_bits_match_the_rows(isa):
    rows = instruction_set(isa)
    assert len(by_opcode(isa)) == len(rows) == 46
    for row in rows.values():
        assert (row.opcode & 1 == 1) == (row.arg is not Arg.NONE), row.name
        assert (row.opcode & 2 == 2) == (row.stack_delta(1) < 0), row.name
        assert (row.opcode & 4 == 4) == row.u32, row.name


# --- models of the instructions -------------------------------------------------------------
# A model takes the stack top-first and returns (stack top-first, u32 entries) or an error kind.


def xfield_at(stack, index):
    return (stack[index], stack[index + 1], stack[index + 2])


def model(name, argument, s):
    a, b = s[0], s[1]
    match name:
        case "push":
            return [argument, *s], []
        case "pop":
            return s[argument:], []
        case "pick":
            rest = s[:argument] + s[argument + 1 :]
            return [s[argument], *rest], []
        case "place":
            rest = s[1:]
            return rest[:argument] + [a] + rest[argument:], []
        case "dup":
            return [s[argument], *s], []
        case "swap":
            t = list(s)
            t[0], t[argument] = t[argument], t[0]
            return t, []
        case "nop":
            return s, []
        case "assert":
            return (s[1:], []) if a == 1 else "AssertionFailed"
        case "add":
            return [(a + b) % P, *s[2:]], []
        case "addi":
            return [(a + argument) % P, *s[1:]], []
        case "mul":
            return [(a * b) % P, *s[2:]], []
        case "invert":
            return ([pow(a, P - 2, P), *s[1:]], []) if a else "InverseOfZero"
        case "eq":
            return [int(a == b), *s[2:]], []
        case "split":
            return [a % U32, a // U32, *s[1:]], [("split", a % U32, a // U32)]
        case "lt" | "and" | "xor" if a >= U32 or b >= U32:
            return "FailedU32Conversion"
        case "lt":
            return [int(a < b), *s[2:]], [("lt", a, b)]
        case "and":
            return [a & b, *s[2:]], [("and", a, b)]
        case "xor":
            return [a ^ b, *s[2:]], [("and", a, b)]
        case "log_2_floor":
            if a >= U32:
                return "FailedU32Conversion"
            return ([a.bit_length() - 1, *s[1:]], [("log2", a, 0)]) if a else "LogarithmOfZero"
        case "pow":
            return ([pow(a, b, P), *s[2:]], [("pow", a, b)]) if b < U32 else "FailedU32Conversion"
        case "div_mod":
            if a >= U32 or b >= U32:
                return "FailedU32Conversion"
            if b == 0:
                return "DivisionByZero"
            q, r = divmod(a, b)
            return [r, q, *s[2:]], [("lt", r, b), ("split", a, q)]
        case "pop_count":
            return (
                ([bin(a).count("1"), *s[1:]], [("popcount", a, 0)])
                if a < U32
                else "FailedU32Conversion"
            )
        case "xx_add" | "xx_mul":
            combine = xfield.add if name == "xx_add" else xfield.mul
            return [*combine(xfield_at(s, 0), xfield_at(s, 3)), *s[6:]], []
        case "x_invert":
            top = xfield_at(s, 0)
            return ([*xfield.inverse(top), *s[3:]], []) if top != xfield.ZERO else "InverseOfZero"
        case "xb_mul":
            return [*xfield.scalar_mul(a, xfield_at(s, 1)), *s[4:]], []
        case "write_io":
            return s[argument:], []
    raise AssertionError(f"no model for {name}")


MODELLED = [
    "push",
    "pop",
    "pick",
    "place",
    "dup",
    "swap",
    "nop",
    "assert",
    "add",
    "addi",
    "mul",
    "invert",
    "eq",
    "split",
    "lt",
    "and",
    "xor",
    "log_2_floor",
    "pow",
    "div_mod",
    "pop_count",
    "xx_add",
    "xx_mul",
    "x_invert",
    "xb_mul",
    "write_io",
]
OPERANDS = {
    "lt": mostly_u32,
    "and": mostly_u32,
    "xor": mostly_u32,
    "log_2_floor": mostly_u32,
    "pow": mostly_u32,
    "div_mod": mostly_u32,
    "pop_count": mostly_u32,
    "assert": st.one_of(st.just(1), words),
}


def argument_strategy(row):
    if row.arg is Arg.FIELD:
        return words
    if row.arg is Arg.COUNT:
        return st.integers(1, 5)
    if row.arg is Arg.INDEX:
        return st.integers(0, 15)
    return st.none()


def check_tables(
    run, row, argument, length_before, length_after, ram_accesses, permutations, entries
):
    heights = tables.heights(run)
    assert length_after - length_before == row.stack_delta(argument)
    assert heights.processor == heights.jump_stack == 2
    assert heights.op_stack == abs(length_after - length_before)
    assert heights.ram == ram_accesses == row.ram_accesses(argument)
    attestation = 6 * tables.attestation_chunks(run.program.length)
    assert heights.hash - attestation == 6 * permutations + (1 if row.name == "sponge_init" else 0)
    assert heights.hash - attestation == row.hash_rows
    assert run.u32_entries == set(entries)
    assert heights.u32 == sum(map(tables.u32_entry_rows, set(entries)))


@pytest.mark.parametrize("name", MODELLED)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_instruction_against_model(name, data):
    row = instruction_set("rel")[name]
    argument = data.draw(argument_strategy(row), label="argument")
    operand = OPERANDS.get(name, words)
    stack = data.draw(st.lists(operand, min_size=2, max_size=2), label="operands")
    stack += data.draw(st.lists(words, min_size=14, max_size=24), label="rest")
    text = row.name if argument is None else f"{row.name} {argument}"
    run, machine, permutations = run_one(f"{text} halt", stack)
    shallow = len(stack) + row.stack_delta(argument) < 16
    expected = "TooShallow" if shallow else model(name, argument, stack)
    if isinstance(expected, str):
        assert run.error is not None and run.error.kind == expected and run.error.cycle == 0
        return
    assert run.error is None, run.error
    new_stack, entries = expected
    assert list(reversed(machine.stack)) == new_stack
    if name == "write_io":
        assert run.output == stack[:argument]
    check_tables(
        run,
        row,
        argument,
        len(stack),
        len(machine.stack),
        machine.ram.accesses,
        permutations,
        entries,
    )


@pytest.mark.parametrize(
    "name",
    [
        "pop",
        "write_io",
        "add",
        "mul",
        "eq",
        "assert",
        "skiz",
        "hash",
        "assert_vector",
        "sponge_absorb",
        "xx_add",
        "xx_mul",
        "xb_mul",
        "lt",
    ],
)
def test_too_shallow_is_checked_before_anything_else(name):
    row = instruction_set("rel")[name]
    text = f"{name} 5" if row.arg is Arg.COUNT else name
    run, _, permutations = run_one(f"sponge_init {text} halt", [0] * 16)
    assert run.error.kind == "TooShallow" and run.error.cycle == 1 and permutations == 0


# --- instructions whose effects are streams, memory, hashing or control -----------------------


@settings(max_examples=40, deadline=None)
@given(
    count=st.integers(1, 5),
    tokens=st.lists(words, max_size=7),
    stack=st.lists(words, min_size=16, max_size=20),
)
def test_read_io_and_divine(count, tokens, stack):
    for name, stream in (("read_io", "public"), ("divine", "secret")):
        run, machine, _ = run_one(f"{name} {count} halt", stack, **{stream: tokens})
        if len(tokens) < count:
            expected_kind = "EmptyPublicInput" if name == "read_io" else "EmptySecretInput"
            assert run.error.kind == expected_kind
            continue
        assert list(reversed(machine.stack)) == list(reversed(tokens[:count])) + stack
        check_tables(run, instruction_set()[name], count, len(stack), len(machine.stack), 0, 0, [])


@settings(max_examples=40, deadline=None)
@given(
    count=st.integers(1, 5),
    pointer=words,
    values=st.lists(words, min_size=5, max_size=5),
    rest=st.lists(words, min_size=16, max_size=20),
)
@example(count=3, pointer=0, values=[7, 8, 9, 10, 11], rest=[0] * 16)
@example(count=5, pointer=P - 2, values=[7, 8, 9, 10, 11], rest=[0] * 16)
def test_write_mem_then_read_mem(count, pointer, values, rest):
    stack = [pointer, *values, *rest]
    run, machine, _ = run_one(f"write_mem {count} halt", stack)
    assert run.error is None
    assert {(pointer + k) % P: values[k] for k in range(count)} == dict(machine.ram)
    after_write = list(reversed(machine.stack))
    assert after_write == [(pointer + count) % P, *values[count:], *rest]
    check_tables(
        run, instruction_set()["write_mem"], count, len(stack), len(machine.stack), count, 0, []
    )
    read_pointer = (pointer + count - 1) % P
    run, machine, _ = run_one(
        f"read_mem {count} halt", [read_pointer, *rest], ram=dict(machine.ram)
    )
    assert list(reversed(machine.stack)) == [(read_pointer - count) % P, *values[:count], *rest]
    check_tables(
        run, instruction_set()["read_mem"], count, len(rest) + 1, len(machine.stack), count, 0, []
    )


@settings(max_examples=25, deadline=None)
@given(stack=st.lists(words, min_size=21, max_size=24))
def test_hash(stack):
    run, machine, permutations = run_one("hash halt", stack)
    assert list(reversed(machine.stack)) == list(tip5.hash10(stack[:10])) + stack[10:]
    check_tables(
        run, instruction_set()["hash"], None, len(stack), len(machine.stack), 0, permutations, []
    )


@settings(max_examples=25, deadline=None)
@given(
    stack=st.lists(words, min_size=26, max_size=28),
    memory=st.lists(words, min_size=10, max_size=10),
    pointer=words,
)
def test_sponge_instructions(stack, memory, pointer):
    ram = {(pointer + k) % P: memory[k] for k in range(10)}
    for text, rows in (
        ("sponge_init", 1),
        ("sponge_init sponge_absorb", 7),
        ("sponge_init sponge_squeeze", 7),
    ):
        run, machine, permutations = run_one(f"{text} halt", stack)
        assert run.error is None and permutations == rows // 6
        assert tables.heights(run).hash - 6 * tables.attestation_chunks(run.program.length) == rows
    run, machine, permutations = run_one(
        "sponge_init sponge_absorb_mem halt", [pointer, *stack], ram=ram
    )
    expected = [(pointer + 10) % P, *memory[:4], *stack[4:]]
    assert list(reversed(machine.stack)) == expected
    assert machine.ram.accesses == 10 == tables.heights(run).ram and permutations == 1
    assert machine.sponge == tip5.permutation(tuple(memory) + (0,) * 6)


@settings(max_examples=25, deadline=None)
@given(
    index=mostly_u32,
    digest=st.lists(words, min_size=5, max_size=5),
    sibling=st.lists(words, min_size=5, max_size=5),
    pointer=words,
    rest=st.lists(words, min_size=10, max_size=12),
)
def test_merkle_steps(index, digest, sibling, pointer, rest):
    stack = [*digest, index, 77, pointer, *rest]
    for name in ("merkle_step", "merkle_step_mem"):
        ram = {(pointer + k) % P: sibling[k] for k in range(5)}
        run, machine, permutations = run_one(f"{name} halt", stack, ram=ram, digests=[sibling])
        if index >= U32:
            assert run.error.kind == "FailedU32Conversion" and permutations == 0
            continue
        pair = digest + sibling if index % 2 == 0 else sibling + digest
        new_pointer = (pointer + 5) % P if name == "merkle_step_mem" else pointer
        expected = [*tip5.hash10(pair), index // 2, 77, new_pointer, *rest]
        assert list(reversed(machine.stack)) == expected
        row = instruction_set()[name]
        check_tables(
            run,
            row,
            None,
            len(stack),
            len(machine.stack),
            machine.ram.accesses,
            permutations,
            [("split", index, index // 2)],
        )


@settings(max_examples=25, deadline=None)
@given(
    stack=st.lists(words, min_size=16, max_size=20),
    memory=st.lists(words, min_size=6, max_size=6),
    a=st.integers(0, 2**20),
    b=st.integers(0, 2**20),
)
def test_dot_and_horner_steps(stack, memory, a, b):
    ram = {**{a + k: memory[k] for k in range(3)}, **{b + k: memory[3 + k] for k in range(3)}}
    left, right = (ram.get(a + k, 0) for k in range(3)), (ram.get(b + k, 0) for k in range(3))
    s = [a, b, *stack]
    accumulator = xfield_at(s, 2)
    cases = {
        "xx_dot_step": (
            "rel",
            [
                (a + 3) % P,
                (b + 3) % P,
                *xfield.add(accumulator, xfield.mul(tuple(left), tuple(right))),
                *s[5:],
            ],
        ),
        "xb_dot_step": (
            "rel",
            [
                (a + 1) % P,
                (b + 3) % P,
                *xfield.add(
                    accumulator,
                    xfield.scalar_mul(
                        ram.get(a, 0), xfield_at([ram.get(b + k, 0) for k in range(3)], 0)
                    ),
                ),
                *s[5:],
            ],
        ),
    }
    horner = [*stack[:5], a + 2, *stack[6:]]
    x, e = xfield_at(horner, 0), xfield_at(horner, 7)
    cases["b_horner_step"] = (
        "head",
        horner[:5]
        + [a + 1]
        + horner[6:7]
        + list(xfield.add(xfield.mul(e, x), (ram.get(a + 2, 0), 0, 0)))
        + horner[10:],
    )
    c = (ram.get(a, 0), ram.get(a + 1, 0), ram.get(a + 2, 0))
    cases["x_horner_step"] = (
        "head",
        horner[:5]
        + [a - 1 if a else P - 1]
        + horner[6:7]
        + list(xfield.add(xfield.mul(e, x), c))
        + horner[10:],
    )
    for name, (isa, expected) in cases.items():
        start = s if "dot" in name else horner
        run, machine, _ = run_one(f"{name} halt", start, isa=isa, ram=ram)
        assert run.error is None
        assert list(reversed(machine.stack)) == expected, name
        check_tables(
            run,
            instruction_set(isa)[name],
            None,
            len(start),
            len(machine.stack),
            machine.ram.accesses,
            0,
            [],
        )


@settings(max_examples=40, deadline=None)
@given(top=words, stack=st.lists(words, min_size=16, max_size=18))
@example(top=0, stack=[0] * 16)
def test_skiz(top, stack):
    run, machine, _ = run_one("skiz push 7 halt", [top, *stack])
    assert list(reversed(machine.stack)) == ([7] if top else []) + stack
    assert run.cycles == (3 if top else 2)
    assert tables.heights(run).op_stack == (2 if top else 1)


@settings(max_examples=40, deadline=None)
@given(equal=st.booleans(), stack=st.lists(words, min_size=16, max_size=18))
def test_recurse_or_return(equal, stack):
    stack[6] = stack[5] if equal else (stack[5] + 1) % P
    run, machine, _ = run_one("call f halt f: recurse_or_return", stack)
    # unequal: recurse forever at the same address until the step limit
    assert (run.error is None) == equal
    assert list(reversed(machine.stack)) == stack
