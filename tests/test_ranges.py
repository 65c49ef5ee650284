"""Value ranges (compiler/tir/ranges.py) and what the builder does with them: checks that
cannot fail are dropped, speculable arms become selects, `x /% 2^k` for the remainder alone
is an `and`.  tests/programs/valid/speculation.tri runs them against the evaluator."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.pipeline import compile_program
from compiler.syntax import ast
from compiler.tir import ranges
from compiler.tir.ops import Facts, Op

SPECULATION = Path(__file__).parent / "programs" / "valid" / "speculation.tri"


@pytest.fixture(scope="module")
def built():
    checked = check(load_project(SPECULATION))
    return checked, compile_program(checked, 0)


def body_text(compiled, label: str) -> list[str]:
    function = next(f for f in compiled.tir.functions if f.label == label)
    return [
        str(op) if isinstance(op, Op) else op.name
        for op in function.body
        if not isinstance(op, Facts)
    ]


def instance_expr(checked, key: str):
    """The last statement's expression of a function (its value)."""
    instance = checked.instances[key]
    return instance, instance.body.statements[-1]


def no_names(var):
    return None


def test_bounds_of_what_operations_guarantee(built):
    checked, _ = built
    instance, last = instance_expr(checked, "speculation__nested")
    inner = last.else_block.statements[0]
    condition = inner.condition  # hi == 5
    assert ranges.bounds(condition, instance, no_names) == [1]
    less = inner.then_block.statements[0].expr  # as_u32(7) < lo
    assert ranges.bounds(less, instance, no_names) == [1]
    # lo is a parameter: a U32 by type only, so `<` on it may fail
    assert ranges.can_fail(less, instance, no_names)
    assert not ranges.can_fail(less, instance, lambda var: [ranges.U32_MAX])
    assert ranges.speculable(less, instance, lambda var: [ranges.U32_MAX])
    assert not ranges.speculable(less, instance, no_names)


def test_an_unbounded_value_can_fail_a_u32_check():
    instance = type("I", (), {"calls": {}, "types": {}, "variables": {}})
    big = ast.Binary("<", ast.IntLiteral(2**32), ast.IntLiteral(1))
    small = ast.Binary("<", ast.IntLiteral(2**32 - 1), ast.IntLiteral(1))
    assert ranges.can_fail(big, instance, no_names)
    assert not ranges.can_fail(small, instance, no_names)
    product = ast.Binary("*", ast.IntLiteral(2**40), ast.IntLiteral(2**40))
    assert ranges.bounds(product, instance, no_names) == [ranges.UNKNOWN]  # wraps


def test_a_check_that_cannot_fail_is_dropped(built):
    _, compiled = built
    # as_u32(log2(x) + 1): log2 <= 31, so the sum is a u32; only log_2_floor itself checks
    assert body_text(compiled, "speculation__ceil_log") == ["Log2", "AddI(1)", "Return"]


def test_a_remainder_by_a_power_of_two_is_an_and(built):
    _, compiled = built
    assert body_text(compiled, "speculation__even")[:2] == ["Push(1)", "And"]
    assert body_text(compiled, "speculation__low_bits") == ["Push(7)", "And", "Return"]


def test_speculable_arms_become_a_select_and_failing_ones_do_not(built):
    _, compiled = built
    pick = body_text(compiled, "speculation__pick")
    assert "IfElse" not in pick  # both arms computed, one kept
    guarded = body_text(compiled, "speculation__guarded")
    assert "IfElse" in guarded  # as_u32(y) may fail: only when its arm is taken


def test_a_select_with_a_zero_arm_is_a_product(built):
    _, compiled = built
    # if c {0} else {x}: (c == 0) * x, whatever c holds (x is above c on entry)
    unless = body_text(compiled, "speculation__unless")
    assert unless == ["Swap(1)", "Push(0)", "Eq", "Mul", "Return"]
    # if a == b {x} else {0}: the condition is 0 or 1, so (a == b) * x
    when_equal = body_text(compiled, "speculation__when_equal")
    assert "Mul" in when_equal and "IfOnly" not in when_equal
    # if c {x} else {0} on a Bool parameter: c may be any value a caller puts there, so
    # c * x could differ from x; it stays a select
    when = body_text(compiled, "speculation__when")
    assert "IfOnly" in when and "Mul" not in when
