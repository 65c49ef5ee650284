"""Tests for vm/xfield.py: the field laws of F_p[X]/(X^3 - X + 1) and the stack layout."""

import pytest
from hypothesis import given, settings, strategies

from vm import field, xfield
from vm.field import P

EDGES = [0, 1, 2, P - 1, P - 2, 2**32 - 1, 2**32, 2**64 - 2**32, 2**63]

words = strategies.one_of(strategies.sampled_from(EDGES), strategies.integers(0, P - 1))
elements = strategies.one_of(
    strategies.sampled_from([xfield.ZERO, xfield.ONE, xfield.X, (0, 0, 1), (P - 1, P - 1, P - 1)]),
    strategies.tuples(words, words, words),
)
nonzero = elements.filter(lambda a: a != xfield.ZERO)
exponents = strategies.one_of(
    strategies.sampled_from([0, 1, 2, 3, P - 1, P, P**3 - 1]), strategies.integers(0, 2**200)
)


def schoolbook(a, b):
    """Reference product: multiply as polynomials, then reduce by X^3 = X - 1."""
    product = [0] * 5
    for i in range(3):
        for j in range(3):
            product[i + j] += a[i] * b[j]
    for degree in (4, 3):  # X^d = X^(d-2) - X^(d-3)
        coefficient = product.pop(degree)
        product[degree - 2] += coefficient
        product[degree - 3] -= coefficient
    return tuple(value % P for value in product)


def power_by_fermat_inverse(a):
    """a^(p^3 - 2), the other inverse formula."""
    return xfield.power(a, P**3 - 2)


# ------------------------------------------------------------------- laws


@given(elements, elements, elements)
def test_associativity(a, b, c):
    assert xfield.add(xfield.add(a, b), c) == xfield.add(a, xfield.add(b, c))
    assert xfield.mul(xfield.mul(a, b), c) == xfield.mul(a, xfield.mul(b, c))


@given(elements, elements)
def test_commutativity(a, b):
    assert xfield.add(a, b) == xfield.add(b, a)
    assert xfield.mul(a, b) == xfield.mul(b, a)


@given(elements, elements, elements)
def test_distributivity(a, b, c):
    left = xfield.mul(a, xfield.add(b, c))
    assert left == xfield.add(xfield.mul(a, b), xfield.mul(a, c))


@given(elements)
def test_identities_and_negation(a):
    assert xfield.add(a, xfield.ZERO) == a
    assert xfield.mul(a, xfield.ONE) == a
    assert xfield.mul(a, xfield.ZERO) == xfield.ZERO
    assert xfield.add(a, xfield.neg(a)) == xfield.ZERO
    assert xfield.sub(a, a) == xfield.ZERO


@given(elements, elements)
def test_product_matches_schoolbook_and_is_canonical(a, b):
    product = xfield.mul(a, b)
    assert product == schoolbook(a, b)
    assert all(0 <= coefficient < P for coefficient in product)
    assert xfield.sub(xfield.add(a, b), b) == a


def test_reduction_rules():
    x_squared = (0, 0, 1)
    assert xfield.mul(xfield.X, xfield.X) == x_squared
    assert xfield.mul(xfield.X, x_squared) == (P - 1, 1, 0)  # X^3 = X - 1
    assert xfield.mul(x_squared, x_squared) == (0, P - 1, 1)  # X^4 = X^2 - X
    assert xfield.power(xfield.X, 3) == (P - 1, 1, 0)


@given(words, elements)
def test_scalar_mul_is_mul_by_lifted_scalar(scalar, a):
    assert xfield.scalar_mul(scalar, a) == xfield.mul(xfield.lift(scalar), a)


@given(words, words, elements)
def test_scalar_mul_laws(s, t, a):
    both = xfield.scalar_mul(field.mul(s, t), a)
    assert both == xfield.scalar_mul(s, xfield.scalar_mul(t, a))
    assert xfield.scalar_mul(field.add(s, t), a) == xfield.add(
        xfield.scalar_mul(s, a), xfield.scalar_mul(t, a)
    )


@given(words, words)
def test_base_field_embeds(a, b):
    assert xfield.mul(xfield.lift(a), xfield.lift(b)) == xfield.lift(field.mul(a, b))
    assert xfield.add(xfield.lift(a), xfield.lift(b)) == xfield.lift(field.add(a, b))


# ---------------------------------------------------------------- inverse


@given(nonzero)
def test_inverse(a):
    inverse = xfield.inverse(a)
    assert xfield.mul(a, inverse) == xfield.ONE
    assert all(0 <= coefficient < P for coefficient in inverse)
    assert xfield.inverse(inverse) == a


@settings(max_examples=30)
@given(nonzero)
def test_inverse_matches_fermat(a):
    assert xfield.inverse(a) == power_by_fermat_inverse(a)


@given(words)
def test_inverse_of_base_field_element(a):
    if a != 0:
        assert xfield.inverse(xfield.lift(a)) == xfield.lift(field.inverse(a))


def test_inverse_of_zero_raises():
    with pytest.raises(ZeroDivisionError):
        xfield.inverse(xfield.ZERO)
    with pytest.raises(ZeroDivisionError):
        xfield.power(xfield.ZERO, -1)


# ------------------------------------------------------------------ power


@settings(max_examples=50)
@given(elements, exponents, exponents)
def test_power_laws(a, m, n):
    assert xfield.power(a, m + n) == xfield.mul(xfield.power(a, m), xfield.power(a, n))


@settings(max_examples=30)
@given(elements, strategies.integers(0, 2**40), strategies.integers(0, 2**40))
def test_power_of_power(a, m, n):
    assert xfield.power(a, m * n) == xfield.power(xfield.power(a, m), n)


@settings(max_examples=30)
@given(nonzero)
def test_fermat(a):
    assert xfield.power(a, P**3 - 1) == xfield.ONE
    assert xfield.power(a, -1) == xfield.inverse(a)


def test_power_edge_cases():
    assert xfield.power(xfield.ZERO, 0) == xfield.ONE
    assert xfield.power(xfield.ZERO, 5) == xfield.ZERO
    assert xfield.power((3, 4, 5), 0) == xfield.ONE
    assert xfield.power((3, 4, 5), 1) == (3, 4, 5)


# ------------------------------------------------------------ stack layout


@given(elements)
def test_stack_round_trip(a):
    pushed = xfield.to_stack(a)
    assert pushed == [a[2], a[1], a[0]]
    assert xfield.from_stack(pushed) == a


def test_stack_layout_top_is_constant_coefficient():
    stack = [7] * 16
    stack.extend(xfield.to_stack((10, 20, 30)))  # pushes c2, c1, c0
    assert stack[-1] == 10 and stack[-2] == 20 and stack[-3] == 30  # st0, st1, st2
    assert xfield.from_stack(stack[-3:]) == (10, 20, 30)
    with pytest.raises(ValueError):
        xfield.from_stack([1, 2])


def test_element_reduces_coefficients():
    assert xfield.element(-1, P, 2 * P + 3) == (P - 1, 0, 3)
