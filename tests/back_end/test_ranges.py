"""Value ranges (compiler/tir/ranges.py) and what the builder does with them: checks that
cannot fail are dropped, speculable arms become selects, `x /% 2^k` for the remainder alone
is an `and`.  tests/programs/valid/speculation.tri runs them against the evaluator."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.driver import compile_program
from compiler.syntax import ast
from compiler.tir import ranges
from compiler.tir.ops import Facts, Op

SPECULATION = Path(__file__).parents[1] / "programs" / "valid" / "speculation.tri"


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


LOOP_RANGES = Path(__file__).parents[1] / "programs" / "valid" / "loop_ranges.tri"


def all_ops(ops) -> list[str]:
    """Every op's text, in the blocks of branches and loops too."""
    found = []
    for op in ops:
        if isinstance(op, Facts):
            continue
        found.append(str(op) if isinstance(op, Op) else type(op).__name__)
        for part in vars(op).values() if not isinstance(op, Op) else ():
            if isinstance(part, tuple) and part and not isinstance(part[0], (str, int)):
                found.extend(all_ops(part))
    return found


@pytest.fixture(scope="module")
def loop_built():
    checked = check(load_project(LOOP_RANGES))
    compiled = compile_program(checked, 0)
    return {f.label: all_ops(f.body) for f in compiled.tir.functions}


def test_bounds_follow_mutable_names_through_a_constant_loop(loop_built):
    # isqrt: root and bit halve and grow round by round; candidate < 2^16 in every round,
    # so neither as_u32(candidate * candidate) nor the final as_u32(root) checks
    isqrt = loop_built["loop_ranges__isqrt"]
    assert "Loop" in isqrt and "Split" not in isqrt and "PopCount" not in isqrt
    # the argument's own check, as_u32(a) in main, stays: `a` comes from the input
    assert "Split" in loop_built["loop_ranges__main"]


def test_checks_that_may_fail_are_kept(loop_built):
    # 2^40 after 40 rounds, an input assigned in a round, an input in the other arm
    assert loop_built["loop_ranges__doubled"].count("Split") == 1
    assert loop_built["loop_ranges__rounds"].count("Split") == 2
    assert loop_built["loop_ranges__arms"].count("Split") == 2


def test_flow_bounds_join_arms_and_stop_at_the_trip_count():
    from compiler.tir.flow_ranges import loop_bounds
    from compiler.tir.liveness import analyze

    checked = check(load_project(LOOP_RANGES))
    instance = checked.instances["loop_ranges__isqrt"]
    analysis = analyze(instance, frozenset())
    root, bit = (analysis.lets[s][0] for s in instance.body.statements[:2])
    loop = instance.body.statements[2]
    found = loop_bounds(loop, 16, {root: [0], bit: [32768]}, analysis, instance, no_names)
    by_name = {binding.name: bound for binding, bound in found.items()}
    # the largest bound each had in any round: candidate = root + bit stays below 2^16
    assert by_name == {"root": [65535], "bit": [32768], "candidate": [65535], "half": [16384]}
    # nothing known of root on entry: nothing known of what is computed from it
    unknown = loop_bounds(loop, 16, {bit: [32768]}, analysis, instance, no_names)
    assert {binding.name: bound for binding, bound in unknown.items()}["candidate"] == [
        ranges.UNKNOWN
    ]
    assert loop_bounds(loop, 65, {}, analysis, instance, no_names) is None  # too long to run
