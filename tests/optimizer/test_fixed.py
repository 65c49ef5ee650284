"""Fixed-point Goldilocks (compiler/neural/fixed.py, fixed_numpy.py; optimizer.md §6).

Against exact rationals: every operation on random non-dyadic values is the
exact rational result rounded once, halves away from zero.  Bounds: at 2^62 an
accumulation raises, just below it does not.  The numpy implementation equals
the reference bit for bit on random arrays with edge values mixed in, and
raises where it raises.
"""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from compiler.neural import fixed
from compiler.neural import fixed_numpy as fx
from compiler.neural.fixed import ONE, FixedPointOverflow, P

LIMIT = 1 << 62


def exact_round(value: Fraction) -> int:
    """The integer nearest to value, halves away from zero, from the rational itself."""
    floor = value.numerator // value.denominator
    below, above = value - floor, floor + 1 - value
    if below < above or (below == above and value < 0):
        return floor
    return floor + 1


def non_dyadic(bound: int = 1000):
    """Rationals in (-bound, bound) whose denominator is not a power of two."""
    denominators = st.sampled_from([3, 7, 10, 1000, 999_983, 10**6 + 3])
    return denominators.flatmap(
        lambda denominator: st.builds(
            Fraction,
            st.integers(-bound * denominator + 1, bound * denominator - 1),
            st.just(denominator),
        )
    ).filter(lambda value: value.denominator & (value.denominator - 1))


@given(non_dyadic())
@example(Fraction(1, 3))
@example(Fraction(-1, 3))
@example(Fraction(-3, 2 * ONE))  # exactly -1.5 units: rounds to -2
def test_encode_rounds_the_exact_value_once(real):
    encoded = fixed.encode(real)
    assert fixed.signed(encoded) == exact_round(real * ONE)
    assert abs(fixed.decode(encoded) - real) <= Fraction(1, 2 * ONE)
    assert fixed.encode(-real) == fixed.neg(encoded)  # symmetric rounding


@given(non_dyadic(), non_dyadic())
@example(Fraction(3, ONE), Fraction(1, 2))  # 1.5 units: 2
@example(Fraction(-3, ONE), Fraction(1, 2))  # -1.5 units: -2
def test_mul_is_the_exact_product_rounded_once(a, b):
    x, y = fixed.encode(a), fixed.encode(b)
    product = fixed.decode(x) * fixed.decode(y)
    assert fixed.signed(fixed.mul(x, y)) == exact_round(product * ONE)
    assert fixed.mul(fixed.neg(x), y) == fixed.neg(fixed.mul(x, y))


@given(st.lists(st.tuples(non_dyadic(100), non_dyadic(100)), min_size=1, max_size=40))
def test_dot_sums_exact_products_and_rounds_once(pairs):
    xs = [fixed.encode(a) for a, _ in pairs]
    ws = [fixed.encode(b) for _, b in pairs]
    exact = sum(fixed.decode(x) * fixed.decode(w) for x, w in zip(xs, ws))
    assert fixed.signed(fixed.dot(xs, ws)) == exact_round(exact * ONE)


@given(non_dyadic(10**6), st.integers(1, 2**16 - 1))
@example(Fraction(7, ONE), 2)
@example(Fraction(-7, ONE), 2)
def test_divide_rounds_the_exact_quotient(a, divisor):
    x = fixed.encode(a)
    assert fixed.signed(fixed.divide(x, divisor)) == exact_round(Fraction(fixed.signed(x), divisor))


@given(st.integers(-(LIMIT - 1), LIMIT - 1), st.integers(1, 32))
def test_shift_round_rounds_the_exact_quotient(total, bits):
    assert fixed.shift_round(total, bits) == exact_round(Fraction(total, 2**bits))


def test_accumulation_bounds_are_enforced_at_2_to_the_62():
    fixed.check_accumulation(4, 2**30, 2**30 - 1)  # 2^62 - 2^32: fine
    with pytest.raises(FixedPointOverflow, match="2\\^62"):
        fixed.check_accumulation(4, 2**30, 2**30)
    big = fixed.from_signed(2**31)
    assert fixed.signed(fixed.mul(big, fixed.from_signed(2**31 - 1))) == (2**62 - 2**31) >> 16
    with pytest.raises(FixedPointOverflow):
        fixed.mul(big, big)
    with pytest.raises(FixedPointOverflow):
        fixed.dot([big] * 2, [fixed.from_signed(2**30)] * 2)
    with pytest.raises(FixedPointOverflow):
        fx.dot([big] * 2, [fixed.from_signed(2**30)] * 2)
    with pytest.raises(FixedPointOverflow):
        fx.mul([big], [big])
    fixed.check_design(64, 16)  # the spec's rule: 64 * 16^2 * 2^32 = 2^46
    with pytest.raises(FixedPointOverflow):
        fixed.check_design(2**14, 2**8)  # 2^14 * 2^16 * 2^32 = 2^62


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="field element"):
        fixed.signed(P)
    with pytest.raises(ValueError, match="divisor"):
        fixed.divide(ONE, 0)
    with pytest.raises(ValueError, match="divisor"):
        fx.divide([ONE], 2**16)
    with pytest.raises(FixedPointOverflow):
        fixed.less_than(fixed.from_signed(LIMIT), 0)
    with pytest.raises(ValueError, match="lengths"):
        fixed.dot([1], [1, 2])


def test_less_than_and_log2_floor():
    values = [fixed.from_signed(n) for n in (-(LIMIT - 1), -ONE, -1, 0, 1, ONE, LIMIT - 1)]
    for a in values:
        for b in values:
            assert fixed.less_than(a, b) == (fixed.signed(a) < fixed.signed(b))
    assert [fixed.log2_floor(n) for n in (1, 2, 3, 2**32, 2**64 - 1)] == [0, 1, 1, 32, 63]


# --- numpy against the reference ------------------------------------------------------------

EDGES = [0, 1, 2, ONE - 1, ONE, ONE + 1, 2**31 - 1, 2**31, 3 * ONE // 2]
EDGES += [fixed.neg(edge) for edge in EDGES if edge]


def random_values(rng: random.Random, count: int, magnitude: int) -> list[int]:
    drawn = [fixed.from_signed(rng.randint(-magnitude, magnitude)) for _ in range(count)]
    return drawn + EDGES


@pytest.mark.parametrize("seed", range(5))
def test_numpy_equals_the_reference_elementwise(seed):
    rng = random.Random(seed)
    a = random_values(rng, 300, 2**31 - 1)
    b = list(reversed(random_values(rng, 300, 2**31 - 1)))
    assert fx.add(a, b).tolist() == [fixed.add(x, y) for x, y in zip(a, b)]
    assert fx.sub(a, b).tolist() == [fixed.sub(x, y) for x, y in zip(a, b)]
    assert fx.neg(a).tolist() == [fixed.neg(x) for x in a]
    assert fx.mul(a, b).tolist() == [fixed.mul(x, y) for x, y in zip(a, b)]
    assert fx.signed(a).tolist() == [fixed.signed(x) for x in a]
    assert fx.from_signed(fx.signed(a)).tolist() == a
    assert fx.less_than(a, b).tolist() == [fixed.less_than(x, y) for x, y in zip(a, b)]
    divisor = rng.randint(1, 2**16 - 1)
    assert fx.divide(a, divisor).tolist() == [fixed.divide(x, divisor) for x in a]
    totals = [rng.randint(-(LIMIT - 1), LIMIT - 1) for _ in range(300)] + [
        0,
        1,
        -1,
        2**15,
        -(2**15),
    ]
    bits = rng.randint(1, 32)
    assert fx.shift_round(totals, bits).tolist() == [fixed.shift_round(t, bits) for t in totals]
    positive = [rng.randint(1, 2**62) for _ in range(300)] + [1, 2, 2**61, 2**62 - 1]
    assert fx.log2_floor(positive).tolist() == [fixed.log2_floor(n) for n in positive]


@pytest.mark.parametrize("seed", range(5))
def test_numpy_dot_and_matvec_equal_the_reference(seed):
    rng = random.Random(100 + seed)
    rows, columns = rng.randint(1, 20), rng.randint(1, 64)
    matrix = [random_values(rng, columns, 2**22)[:columns] for _ in range(rows)]
    vector = random_values(rng, columns, 2**22)[:columns]
    assert int(fx.dot(matrix[0], vector)) == fixed.dot(matrix[0], vector)
    expected = [fixed.dot(row, vector) for row in matrix]
    assert fx.matvec(matrix, vector).tolist() == expected


def test_encode_of_floats_and_strings_is_exact():
    assert fixed.encode(0.1) == fixed.encode(Fraction(0.1))
    assert fixed.encode("-2.5") == fixed.neg(5 * ONE // 2)
    assert fixed.decode(fixed.encode("1.75")) == Fraction(7, 4)
    assert np.array_equal(fx.field([1, 2]), np.array([1, 2], dtype=np.uint64))


@settings(max_examples=50)
@given(st.lists(st.integers(-(2**40), 2**40), min_size=1, max_size=8))
def test_numpy_mul_matches_on_drawn_values(values):
    field = [fixed.from_signed(value) for value in values]
    other = list(reversed(field))
    try:
        expected = [fixed.mul(x, y) for x, y in zip(field, other)]
    except FixedPointOverflow:
        with pytest.raises(FixedPointOverflow):
            fx.mul(field, other)
        return
    assert fx.mul(field, other).tolist() == expected
