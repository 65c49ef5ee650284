"""The assembler: encoding, disassembly round trips, and positions in errors."""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vm.field import P
from vm.isa import ARGUMENT_RANGE, Arg, instruction_set
from vm.tasm import TasmSyntaxError, disassemble, parse

PROGRAMS = Path(__file__).parents[1] / "programs"


@st.composite
def programs(draw, isa="rel"):
    """Random valid TASM text: instructions with in-range arguments, labels, calls."""
    rows = list(instruction_set(isa).values())
    labels = [f"label_{index}" for index in range(draw(st.integers(1, 4)))]
    lines = []
    for _ in range(draw(st.integers(0, 30))):
        if draw(st.integers(0, 5)) == 0 and labels:
            lines.append(f"{labels.pop()}:")
            continue
        row = draw(st.sampled_from(rows))
        if row.arg is Arg.NONE:
            lines.append(row.name)
        elif row.arg is Arg.FIELD:
            value = draw(st.one_of(st.integers(-P + 1, P - 1), st.sampled_from([0, 1, -1, P - 1])))
            lines.append(f"{row.name} {value}")
        elif row.arg is Arg.LABEL:
            lines.append(f"{row.name} target")
        else:
            lines.append(f"{row.name} {draw(st.sampled_from(ARGUMENT_RANGE[row.arg]))}")
    lines.extend(f"{name}:" for name in labels)
    lines.append("target: halt")
    return "\n".join(lines)


@pytest.mark.parametrize("path", sorted(PROGRAMS.glob("*.tasm")), ids=lambda path: path.stem)
def test_disassembly_round_trips_test_programs(path):
    isa = "head" if path.stem.endswith("_head") else "rel"
    program = parse(path.read_text(), isa)
    text = disassemble(program)
    again = parse(text, isa)
    assert again == program and again.words == program.words
    assert disassemble(again) == text


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["rel", "head"]).flatmap(lambda isa: st.tuples(st.just(isa), programs(isa))))
def test_disassembly_round_trips_random_programs(isa_and_text):
    isa, text = isa_and_text
    program = parse(text, isa)
    again = parse(disassemble(program), isa)
    assert again == program
    assert again.words == program.words and again.labels == program.labels


def test_encoding_addresses_and_labels():
    program = parse("start: push -1 call end nop end: halt")
    assert program.words == (1, P - 1, 49, 5, 8, 0)
    assert program.addresses == (0, 2, 4, 5)
    assert dict(program.labels) == {"start": 0, "end": 5}
    assert program.ops[1].text == "call end"
    assert program.ops[0].text == "push -1"


def test_error_id_is_kept_and_printed():
    program = parse("push 1 assert error_id 7 halt")
    assert program.ops[1].error_id == 7
    assert "assert error_id 7" in disassemble(program)


@pytest.mark.parametrize(
    "text, line, column",
    [
        ("push 1\n  pusj 2\n", 2, 3),
        ("halt\n\n\tpop 9", 3, 6),
        ("/* a\ncomment */ dup x", 2, 16),
        ("foo:\nfoo:", 2, 1),
        ("call a\n\n call b", 1, 6),
    ],
)
def test_error_positions(text, line, column):
    with pytest.raises(TasmSyntaxError) as caught:
        parse(text)
    assert (caught.value.line, caught.value.column) == (line, column)
