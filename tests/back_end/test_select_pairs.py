"""Select pairs (compiler/tir/select_pairs.py): two selects on one condition with their arms
swapped, operands of one operation, are one comparison and `skiz swap 1`.  Random pairs
(through inlined helpers and conversions, constants among the arms, names read again
afterwards) run on the VM against the reference evaluator; abs_diff compares once, as the
hand code does; near misses are not pairs."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_backend_differential import compare_program, inputs_for

from compiler.check.checker import check
from compiler.check.resolve import DEFAULT_LIBRARY, load_project
from compiler.driver import compile_program

NOTE = "a select pair"

HEADER = """program pair

use vm.io.io
use vm.core.convert
use vm.core.field

fn pick_less(a: U32, b: U32, x: Field, y: Field) -> Field {
    if a < b {
        x
    } else {
        y
    }
}

fn pick_more(a: U32, b: U32, x: Field, y: Field) -> Field {
    if a < b {
        y
    } else {
        x
    }
}

fn pick_equal(p: Field, q: Field, x: Field, y: Field) -> Field {
    if p == q {
        x
    } else {
        y
    }
}

fn smaller(a: U32, b: U32) -> U32 {
    if a < b {
        a
    } else {
        b
    }
}

fn larger(a: U32, b: U32) -> U32 {
    if a < b {
        b
    } else {
        a
    }
}
"""

OPERATIONS = ["field.sub({x}, {y})", "{x} + {y}", "{x} * {y}", "field.sub({y}, {x})"]
FORMS = {  # name -> (first operand, second operand) with {c0} {c1} the comparands
    "minmax": ("convert.as_field(larger({c0}, {c1}))", "convert.as_field(smaller({c0}, {c1}))"),
    "one helper": ("pick_less({c0}, {c1}, {x}, {y})", "pick_less({c0}, {c1}, {y}, {x})"),
    "two helpers": ("pick_less({c0}, {c1}, {x}, {y})", "pick_more({c0}, {c1}, {x}, {y})"),
    "equal": ("pick_equal(p, q, {x}, {y})", "pick_equal(p, q, {y}, {x})"),
}
COMPARANDS = [("a", "b"), ("b", "a"), ("a", "a")]
ARMS = [("p", "q"), ("q", "p"), ("p", "5"), ("0", "q")]


@st.composite
def pairs(draw):
    operation = draw(st.sampled_from(OPERATIONS))
    form = draw(st.sampled_from(sorted(FORMS)))
    comparands = draw(st.sampled_from(COMPARANDS))
    arms = draw(st.sampled_from(ARMS))
    again = draw(st.booleans())  # the names are read again after the pair
    return operation, form, comparands, arms, again


def _program(operation, form, comparands, arms, again) -> str:
    words = {"c0": comparands[0], "c1": comparands[1], "x": arms[0], "y": arms[1]}
    x, y = (part.format(**words) for part in FORMS[form])
    lines = [
        HEADER,
        "fn main() {",
        "    let a: U32 = convert.as_u32(io.read())",
        "    let b: U32 = convert.as_u32(io.read())",
        "    let p: Field = io.read()",
        "    let q: Field = io.read()",
        f"    io.write({operation.format(x=x, y=y)})",
    ]
    if again:
        lines.append("    io.write(p + q + convert.as_field(a) * 3 + convert.as_field(b) * 5)")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _is_pair(form, comparands, arms) -> bool:
    """A pair, unless an argument is a constant (the inliner binds it with a `let`, so the
    body is not the `if` alone) or both comparands are one name (the `if` folds away)."""
    if form == "minmax":
        return comparands[0] != comparands[1]
    if any(arm.isdigit() for arm in arms):
        return False
    return form == "equal" or comparands[0] != comparands[1]


@settings(max_examples=30, deadline=None, derandomize=True)
@given(pairs())
def test_random_pairs_agree_with_the_evaluator(tmp_path_factory, pair):
    operation, form, comparands, arms, again = pair
    path = tmp_path_factory.mktemp("pair") / "pair.tri"
    path.write_text(_program(*pair))
    checked = check(load_project(path))
    rng = random.Random(7)
    cases = inputs_for(checked, rng, 10)
    for level in (1, 2):
        compiled = compile_program(checked, level)
        assert (NOTE in compiled.report()) == _is_pair(form, comparands, arms)
        for case in cases:
            assert compare_program(checked, compiled.program, case) is None


def test_helpers_called_in_one_operation_are_a_pair(tmp_path):
    path = tmp_path / "pair.tri"
    path.write_text(_program("field.sub({x}, {y})", "minmax", ("a", "b"), ("p", "q"), False))
    compiled = compile_program(check(load_project(path)))
    assert NOTE in compiled.report()
    assert [line.strip() for line in compiled.text.splitlines()].count("lt") == 1


def test_abs_diff_compares_once_as_the_hand_code_does():
    compiled = compile_program(check(load_project(DEFAULT_LIBRARY / "math" / "arith.tri")))
    lines = [line.strip() for line in compiled.text.splitlines()]
    body = lines[lines.index("__abs_diff:") + 1 : lines.index("__abs_diff:") + 9]
    assert body == ["dup 0", "dup 2", "lt", "skiz", "swap 1", "push -1", "mul", "add"]


@pytest.mark.parametrize(
    "x, y",
    [
        # two conditions
        ("pick_less(a, b, p, q)", "pick_less(b, a, q, p)"),
        # the arms not swapped
        ("pick_less(a, b, p, q)", "pick_less(a, b, p, q)"),
        # both arms the same
        ("pick_less(a, b, p, p)", "pick_less(a, b, p, p)"),
        # a condition that is not a comparison of names
        ("pick_equal(io.read(), p, p, q)", "pick_equal(io.read(), p, q, p)"),
    ],
)
def test_near_misses_are_not_pairs(tmp_path, x, y):
    path = tmp_path / "t.tri"
    path.write_text(
        HEADER + "fn main() {\n"
        "    let a: U32 = convert.as_u32(io.read())\n"
        "    let b: U32 = convert.as_u32(io.read())\n"
        "    let p: Field = io.read()\n"
        "    let q: Field = io.read()\n"
        f"    io.write(field.sub({x}, {y}))\n}}\n"
    )
    assert NOTE not in compile_program(check(load_project(path))).report()
