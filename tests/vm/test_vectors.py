"""Conformance vectors (docs/vm.md, Conformance): digests, outputs, heights, errors, parser."""

from pathlib import Path

import pytest

from tri.api import run_tasm
from vm.field import P
from vm.tasm import TasmSyntaxError, parse

PROGRAMS = Path(__file__).parents[1] / "programs"

N4, N3 = [4] * 5, [3] * 5
N1 = [
    5778616925620397101,
    977151889104403440,
    5665740249988204958,
    12002820465748076267,
    13580803340493125858,
]


def every_instruction(isa: str):
    text = (PROGRAMS / f"every_instruction_{isa}.tasm").read_text()
    ram = {address: 42 + address for address in range(1000)}
    ram.update({address: 3 for address in range(100000, 100005)})
    return text, dict(
        public_input=[5] * 5,
        secret_input=list(reversed(N1)) + [1337] * 10,
        secret_digests=[N4],
        ram=ram,
        isa=isa,
    )


# --- B.2 program digests --------------------------------------------------------------------


def test_digest_of_halt():
    program = parse("halt")
    assert program.words == (0,)
    assert program.digest == (
        4843866011885844809,
        16618866032559590857,
        18247689143239181392,
        7637465675240023996,
        9104890367162237026,
    )


def test_halt_digest_is_on_the_initial_stack():
    result = run_tasm("halt")
    st = list(reversed(result.stack))
    assert st[11:16] == list(parse("halt").digest)
    assert st[:11] == [0] * 11


@pytest.mark.parametrize(
    "isa, length, digest",
    [
        (
            "head",
            216,
            (
                16104359835754349618,
                14381287807966156775,
                14760563195542097310,
                2080121037799184588,
                13105746022149139394,
            ),
        ),
        (
            "rel",
            204,
            (
                16249222752446630867,
                9491561388146595314,
                17212103075750520093,
                13456916676490887543,
                3342244920869747600,
            ),
        ),
    ],
)
def test_every_instruction_digest(isa, length, digest):
    program = parse(every_instruction(isa)[0], isa)
    assert program.length == length
    assert program.digest == digest


# --- B.3 the every-instruction program ------------------------------------------------------


@pytest.mark.parametrize(
    "isa, output, heights, padded",
    [
        (
            "head",
            [496, 0, 1081, 1082, 1083],
            dict(
                program=220,
                processor=146,
                op_stack=192,
                ram=29,
                jump_stack=146,
                hash=169,
                cascade=1868,
                lookup=256,
                u32=80,
            ),
            2048,
        ),
        (
            "rel",
            [804, 506, 18446744069414577082, 1838287, 2302733],
            dict(
                program=210,
                processor=140,
                op_stack=182,
                ram=35,
                jump_stack=140,
                hash=163,
                cascade=1812,
                lookup=256,
                u32=80,
            ),
            2048,
        ),
    ],
)
def test_every_instruction_run(isa, output, heights, padded):
    text, inputs = every_instruction(isa)
    result = run_tasm(text, **inputs)
    assert result.error is None
    assert result.output == output
    assert result.heights.as_dict() == heights
    assert result.padded_height == padded


def test_isa_specific_instructions_are_rejected_by_the_other_isa():
    with pytest.raises(TasmSyntaxError, match="not an instruction of the REL"):
        parse("b_horner_step", "rel")
    with pytest.raises(TasmSyntaxError, match="not an instruction of the HEAD"):
        parse("xx_dot_step", "head")


# --- B.4 small programs ---------------------------------------------------------------------


def summary(result):
    """processor / op_stack / ram / hash / u32 / cascade / program, then padded height."""
    h = result.heights
    return (
        h.processor,
        h.op_stack,
        h.ram,
        h.hash,
        h.u32,
        h.cascade,
        h.program,
    ), result.padded_height


def test_halt_alone():
    assert summary(run_tasm("halt")) == ((1, 0, 0, 6, 0, 66, 10), 256)
    assert run_tasm("halt push 1 push 2 add invert write_io 5").heights.processor == 1


def test_read_mem_then_halt():
    heights = run_tasm("read_mem 3 halt").heights
    assert (heights.processor, heights.op_stack, heights.ram) == (2, 3, 3)


def test_add_and_write():
    result = run_tasm("push 1 push 2 add write_io 1 halt")
    assert result.output == [3]
    assert summary(result) == ((5, 4, 0, 6, 0, 68, 10), 256)


def test_hello_world():
    result = run_tasm((PROGRAMS / "hello.tasm").read_text())
    assert bytes(result.output).decode() == "Hello, World!"
    assert summary(result) == ((17, 26, 0, 24, 0, 273, 40), 512)


def test_swap():
    assert run_tasm("push 1 push 2 swap 1 assert write_io 1 halt").output == [2]
    assert run_tasm("push 42 swap 0 write_io 1 halt").output == [42]


def test_ram():
    result = run_tasm("""
        push 8 push 5 write_mem 1 pop 1   push 18 push 15 write_mem 1 pop 1
        push 5 read_mem 1 pop 2           push 15 read_mem 1 pop 2
        push 7 push 5 write_mem 1 pop 1   push 15 read_mem 1   push 5 read_mem 1   halt""")
    assert list(reversed(result.stack))[:4] == [4, 7, 14, 18]
    assert summary(result) == ((23, 24, 7, 30, 0, 336, 50), 512)


def test_ram_edge_case():
    result = run_tasm(
        "push 0 write_mem 1 push 5 swap 1 push 3 swap 1 pop 1 write_mem 1 push -1 add "
        "read_mem 1 swap 2 pop 1 swap 1 push 1 add read_mem 1 halt"
    )
    assert list(reversed(result.stack))[:3] == [2, 5, 5]


def test_countdown():
    result = run_tasm((PROGRAMS / "countdown.tasm").read_text())
    assert result.output == list(range(10, -1, -1))
    assert summary(result) == ((73, 62, 0, 12, 0, 142, 20), 256)


@pytest.mark.parametrize(
    "n, output, heights",
    [
        (7, [21], (79, 49, 0, 24, 0, 272, 40)),
        (11, [144], (119, 73, 0, 24, 0, 272, 40)),
    ],
)
def test_fibonacci(n, output, heights):
    result = run_tasm((PROGRAMS / "fibonacci.tasm").read_text(), public_input=[n])
    assert result.output == output
    assert summary(result) == (heights, 512)


def test_fibonacci_of_zero():
    result = run_tasm((PROGRAMS / "fibonacci.tasm").read_text(), public_input=[0])
    assert result.output == [1]
    assert (result.heights.processor, result.heights.op_stack) == (8, 7)
    assert result.padded_height == 512
    assert result.heights.dominant == ["cascade"]


def test_gcd():
    result = run_tasm((PROGRAMS / "gcd.tasm").read_text(), public_input=[42, 56])
    assert result.output == [14]
    assert summary(result) == ((34, 27, 0, 24, 33, 271, 40), 512)


def test_pick_place():
    result = run_tasm(
        (PROGRAMS / "pick_place.tasm").read_text(),
        public_input=[6, 3, 7, 5, 1, 2, 4, 4, 7, 3, 6, 1, 5, 2],
    )
    assert result.output == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7]


def test_call_recurse_return():
    result = run_tasm("push 2 call label pop 1 halt label: push -1 add dup 0 skiz recurse return")
    assert result.error is None and result.heights.processor == 14
    assert run_tasm("call foo halt foo: return").heights.processor == 3


@pytest.mark.parametrize(
    "program, u32_rows",
    [
        ("push 5 push 3 lt pop 1 push 5 push 3 lt pop 1 halt", 4),
        ("push 5 push 3 lt pop 1 push 3 push 5 lt pop 1 halt", 8),
        ("push 7 push 9 and pop 1 push 7 push 9 xor pop 1 halt", 5),
        ("push 4294967295 push 4294967295 div_mod pop 2 halt", 66),
    ],
)
def test_u32_deduplication(program, u32_rows):
    assert run_tasm(program).heights.u32 == u32_rows


def test_sponge_rows():
    heights = run_tasm("sponge_init sponge_squeeze pop 5 pop 5 halt").heights
    assert (heights.hash, heights.op_stack) == (13, 20)


SPIN = (
    "read_io 1 addi -3 push 2 pow place 5 call spin halt "
    "spin: pick 5 addi -1 place 5 recurse_or_return"
)


@pytest.mark.parametrize("k", [8, 9, 10, 12])
def test_spin_reaches_its_padded_height(k):
    result = run_tasm(SPIN, public_input=[k])
    assert result.heights.processor == 2 ** (k - 1) + 7
    assert result.padded_height == 2**k


def test_spin_below_eight_is_256():
    assert run_tasm(SPIN, public_input=[5]).padded_height == 256


def test_memory_io_benchmark():
    program = (
        "dup 15 dup 15 dup 15 dup 15 dup 15 push 63 call write_then_read_digest_loop halt "
        "write_then_read_digest_loop: dup 0 push 0 eq skiz return write_mem 5 read_mem 5 "
        "addi -1 recurse"
    )
    heights = run_tasm(program).heights
    assert (heights.op_stack, heights.processor, heights.ram) == (892, 517, 630)
    assert heights.padded_height == 1024


# --- B.5 error vectors ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "program, kind, extra",
    [
        ("push 2 assert halt", "AssertionFailed", {}),
        ("push 0 pop 2 halt", "TooShallow", {}),
        ("pop 1 halt", "TooShallow", {}),
        ("divine 1 halt", "EmptySecretInput", {}),
        ("read_io 1 halt", "EmptyPublicInput", {}),
        ("sponge_init sponge_absorb halt", "TooShallow", {}),
        ("sponge_absorb_mem halt", "SpongeNotInitialized", {}),
        ("sponge_squeeze halt", "SpongeNotInitialized", {}),
        ("push 0 invert halt", "InverseOfZero", {}),
        ("x_invert halt", "InverseOfZero", {}),
        ("push 4294967296 lt halt", "FailedU32Conversion", {}),
        ("push 4294967296 and halt", "FailedU32Conversion", {}),
        ("push 4294967296 xor halt", "FailedU32Conversion", {}),
        ("push 4294967296 pop_count halt", "FailedU32Conversion", {}),
        ("push 0 log_2_floor halt", "LogarithmOfZero", {}),
        ("push 4294967296 log_2_floor halt", "FailedU32Conversion", {}),
        ("push 4294967296 push 0 pow halt", "FailedU32Conversion", {}),
        ("push 4294967296 push 0 div_mod halt", "FailedU32Conversion", {}),
        ("push 0 push 1 div_mod halt", "DivisionByZero", {}),
        (
            "push 4294967296 swap 5 merkle_step halt",
            "FailedU32Conversion",
            {"secret_digests": [[1] * 5]},
        ),
        ("push 4294967295 swap 5 merkle_step halt", "EmptySecretDigestInput", {}),
        ("push 4294967296 swap 5 merkle_step_mem halt", "FailedU32Conversion", {}),
        ("push 0 push 1 push 0 push 0 push 0 assert_vector halt", "VectorAssertionFailed", {}),
        ("recurse_or_return halt", "JumpStackIsEmpty", {}),
        ("call foo return halt foo: return", "JumpStackIsEmpty", {}),
        ("nop", "InstructionPointerOverflow", {}),
        ("", "InstructionPointerOverflow", {}),
    ],
)
def test_error_vectors(program, kind, extra):
    result = run_tasm(program, **extra)
    assert result.error is not None and result.error.kind == kind


def test_error_reports_ip_instruction_and_cycle():
    error = run_tasm("push 1 push 2 assert halt").error
    assert (error.kind, error.ip, error.instruction, error.cycle) == (
        "AssertionFailed",
        4,
        "assert",
        2,
    )
    second_return = run_tasm("call foo return halt foo: return").error
    assert (second_return.ip, second_return.cycle) == (2, 2)


def test_skiz_with_nothing_to_skip_overflows():
    error = run_tasm("push 0 skiz").error
    assert (error.kind, error.ip, error.cycle) == ("InstructionPointerOverflow", 2, 1)


def test_step_limit():
    error = run_tasm("loop: call loop", max_steps=1000).error
    assert (error.kind, error.cycle) == ("StepLimitExceeded", 1000)


# --- B.6 parser vectors ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, words",
    [
        ("", ()),
        ("// c", ()),
        ("halt", (0,)),
        ("push -1 push 0 push 1", (1, P - 1, 1, 0, 1, 1)),
        ("foo: call foo", (49, 0)),
        ("foo:call foo", (49, 0)),
        ("pops: call pops", (49, 0)),
        ("_call: call _call", (49, 0)),
        ("_foo: call _foo", (49, 0)),
        ("assert error_id 42 nop", (10, 8)),
        ("assert_vector error_id -42", (26,)),
        ("loop-1: call loop-1", (49, 0)),
        ("foo : halt", (0,)),
        ("halt// trailing comment", (0,)),
        ("halt/* block */halt", (0, 0)),
        ("hint x = stack[0] hint y: *Foo<T> = stack[1..3] break nop", (8,)),
        ("push 0018446744069414584320", (1, P - 1)),
        ("push +5", (1, 5)),
        ("end: halt last:", (0,)),
    ],
)
def test_parser_accepts(text, words):
    assert parse(text).words == words


@pytest.mark.parametrize(
    "text, code",
    [
        ("poppop", "A0001"),
        ("dup 0dup 0", "A0002"),
        ("push10", "A0001"),
        ("push 10pop", "A0002"),
        ("hello: callhello", "A0001"),
        ("pop 0", "A0002"),
        ("pop 6", "A0002"),
        ("pop 01", "A0002"),
        ("swap 16", "A0002"),
        ("dup 16", "A0002"),
        ("dup 00", "A0002"),
        ("pop: call pop", "A0005"),
        ("foo: halt foo: halt", "A0004"),
        ("call bar", "A0003"),
        ("1foo:", "A0005"),
        ("-foo:", "A0005"),
        ("foo: [foo]", "A0001"),
        ("hint foo: Type = stack[0..0]", "A0007"),
        ("nop error_id 3", "A0006"),
        ("error_id 3", "A0006"),
        ("push 18446744069414584321", "A0002"),
        ("push -18446744069414584321", "A0002"),
        ("push 0x10", "A0002"),
        ("push", "A0002"),
        ("halt /* open", "A0008"),
        ("hint: halt", "A0005"),
    ],
)
def test_parser_rejects(text, code):
    with pytest.raises(TasmSyntaxError) as caught:
        parse(text)
    assert caught.value.code == code


def test_parse_error_position():
    with pytest.raises(TasmSyntaxError) as caught:
        parse("push 1\n  pusj 2\n")
    assert (caught.value.line, caught.value.column) == (2, 3)
