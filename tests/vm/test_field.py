"""Tests for vm/field.py: field laws, literal conversion, and scalar/vector agreement."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies
from hypothesis.extra import numpy as numpy_strategies

from vm import field, field_kernels
from vm.field import P

EDGES = [0, 1, 2, P - 1, P - 2, 2**32 - 1, 2**32, 2**32 + 1, 2**64 - 2**32, 2**63, 256, P - 256]
NONZERO_EDGES = [value for value in EDGES if value != 0]

elements = strategies.one_of(strategies.sampled_from(EDGES), strategies.integers(0, P - 1))
nonzero = strategies.one_of(strategies.sampled_from(NONZERO_EDGES), strategies.integers(1, P - 1))
exponents = strategies.one_of(
    strategies.sampled_from([0, 1, 2, P - 2, P - 1, P, 2**64 - 1]), strategies.integers(0, 2**70)
)


# ---------------------------------------------------------------- scalar laws


@given(elements, elements, elements)
def test_associativity(a, b, c):
    assert field.add(field.add(a, b), c) == field.add(a, field.add(b, c))
    assert field.mul(field.mul(a, b), c) == field.mul(a, field.mul(b, c))


@given(elements, elements)
def test_commutativity(a, b):
    assert field.add(a, b) == field.add(b, a)
    assert field.mul(a, b) == field.mul(b, a)


@given(elements, elements, elements)
def test_distributivity(a, b, c):
    assert field.mul(a, field.add(b, c)) == field.add(field.mul(a, b), field.mul(a, c))


@given(elements)
def test_identities_and_negation(a):
    assert field.add(a, 0) == a
    assert field.mul(a, 1) == a
    assert field.mul(a, 0) == 0
    assert field.add(a, field.neg(a)) == 0
    assert field.sub(a, a) == 0
    assert field.sub(0, a) == field.neg(a)


@given(elements, elements)
def test_results_are_canonical(a, b):
    for result in (field.add(a, b), field.sub(a, b), field.mul(a, b), field.neg(a)):
        assert 0 <= result < P
    assert field.sub(field.add(a, b), b) == a


@given(nonzero)
def test_inverse(a):
    inverse = field.inverse(a)
    assert 0 < inverse < P
    assert field.mul(a, inverse) == 1
    assert inverse == pow(a, P - 2, P)  # Fermat's little theorem
    assert field.inverse(inverse) == a


def test_inverse_of_zero_raises():
    with pytest.raises(ZeroDivisionError):
        field.inverse(0)
    with pytest.raises(ZeroDivisionError):
        field.inverse(P)


@given(elements, exponents, exponents)
def test_power_laws(a, m, n):
    assert field.power(a, m + n) == field.mul(field.power(a, m), field.power(a, n))
    assert field.power(a, m * n) == field.power(field.power(a, m), n)


@given(elements, elements, exponents)
def test_power_of_product(a, b, n):
    assert field.power(field.mul(a, b), n) == field.mul(field.power(a, n), field.power(b, n))


@given(nonzero)
def test_fermat(a):
    assert field.power(a, P - 1) == 1
    assert field.power(a, -1) == field.inverse(a)


def test_power_edge_cases():
    assert field.power(0, 0) == 1
    assert field.power(0, 1) == 0
    assert field.power(0, P - 1) == 0
    assert field.power(5, 0) == 1
    assert field.power(P - 1, 2) == 1
    assert field.power(2, 64) == field.R
    with pytest.raises(ZeroDivisionError):
        field.power(0, -1)


def test_constants():
    assert P == 18446744069414584321
    assert field.R == 2**64 % P == 4294967295
    assert field.R_INVERSE == pow(field.R, -1, P)
    assert field.mul(field.R, field.R_INVERSE) == 1
    assert pow(2, 96, P) == P - 1  # 2^96 = -1, used by mul_u64


# ------------------------------------------------------- literal conversion


def test_canonical():
    assert field.canonical(0) == 0
    assert field.canonical(P) == 0
    assert field.canonical(-1) == P - 1
    assert field.canonical(2**64) == field.R
    assert field.canonical(-P - 1) == P - 1
    assert field.canonical(3 * P + 7) == 7


def test_from_signed_edges():
    assert field.from_signed(0) == 0
    assert field.from_signed(P - 1) == P - 1
    assert field.from_signed(-1) == P - 1
    assert field.from_signed(-P + 1) == 1
    for out_of_range in (P, -P, P + 1, -P - 1, 2**64):
        with pytest.raises(ValueError):
            field.from_signed(out_of_range)


@given(strategies.integers(-P + 1, P - 1))
def test_from_signed_agrees_with_canonical(n):
    assert field.from_signed(n) == field.canonical(n)


def test_pretty():
    assert field.pretty(0) == "0"
    assert field.pretty(256) == "256"
    assert field.pretty(257) == "257"
    assert field.pretty(P - 1) == "-1"
    assert field.pretty(P - 256) == "-256"
    assert field.pretty(P - 257) == str(P - 257)
    assert field.pretty(2**32) == "4294967296"


# ------------------------------------------------- vectorized vs scalar


def word_arrays(size=64):
    """Arrays that always contain every edge value, plus random words."""
    random_part = numpy_strategies.arrays(np.uint64, size, elements=elements)
    return random_part.map(lambda words: np.concatenate([np.array(EDGES, dtype=np.uint64), words]))


def all_pairs_of_edges():
    left, right = np.meshgrid(np.array(EDGES, dtype=np.uint64), np.array(EDGES, dtype=np.uint64))
    return left.ravel(), right.ravel()


def assert_agrees(vector_function, scalar_function, *arrays):
    result = vector_function(*arrays)
    assert result.dtype == np.uint64
    expected = [scalar_function(*(int(value) for value in values)) for values in zip(*arrays)]
    assert [int(value) for value in result] == expected


BINARY = [
    (field.add_vec, field.add),
    (field.sub_vec, field.sub),
    (field.mul_vec, field.mul),
]


@pytest.mark.parametrize("vector_function, scalar_function", BINARY)
def test_binary_vec_on_all_edge_pairs(vector_function, scalar_function):
    assert_agrees(vector_function, scalar_function, *all_pairs_of_edges())


@pytest.mark.parametrize("vector_function, scalar_function", BINARY)
@settings(deadline=None)
@given(data=strategies.data())
def test_binary_vec_agrees_with_scalar(vector_function, scalar_function, data):
    left = data.draw(word_arrays())
    right = np.array(data.draw(strategies.permutations(list(left))), dtype=np.uint64)
    assert_agrees(vector_function, scalar_function, left, right)
    assert_agrees(vector_function, scalar_function, left, left)  # equal operands


@settings(max_examples=50, deadline=None)
@given(word_arrays())
def test_neg_vec(words):
    assert_agrees(field.neg_vec, field.neg, words)


@settings(max_examples=50, deadline=None)
@given(word_arrays(16), exponents)
def test_power_vec_with_int_exponent(words, exponent):
    assert_agrees(
        lambda base: field.power_vec(base, exponent),
        lambda base: field.power(base, exponent),
        words,
    )


@settings(max_examples=50, deadline=None)
@given(word_arrays(16), strategies.data())
def test_power_vec_with_array_exponent(words, data):
    exponent_values = data.draw(
        strategies.lists(
            strategies.one_of(
                strategies.sampled_from([0, 1, P - 1, 2**64 - 1]), strategies.integers(0, 2**64 - 1)
            ),
            min_size=len(words),
            max_size=len(words),
        )
    )
    exponent_array = np.array(exponent_values, dtype=np.uint64)
    assert_agrees(field.power_vec, field.power, words, exponent_array)


def test_power_vec_zero_to_the_zero_and_negative():
    assert list(field.power_vec(np.array([0, 0, 7], dtype=np.uint64), 0)) == [1, 1, 1]
    assert list(field.power_vec(np.array([0], dtype=np.uint64), (P - 1) * 2**70)) == [0]
    with pytest.raises(ValueError):
        field.power_vec(np.array([2], dtype=np.uint64), -1)


@settings(max_examples=50, deadline=None)
@given(word_arrays())
def test_inverse_vec(words):
    words = words[words != 0]
    assert_agrees(field.inverse_vec, field.inverse, words)


def test_inverse_vec_shapes_and_zero():
    assert field.inverse_vec(np.array([], dtype=np.uint64)).shape == (0,)
    matrix = np.array([[1, 2], [P - 1, 2**32]], dtype=np.uint64)
    assert field.mul_vec(matrix, field.inverse_vec(matrix)).tolist() == [[1, 1], [1, 1]]
    with pytest.raises(ZeroDivisionError):
        field.inverse_vec(np.array([3, 0, 5], dtype=np.uint64))


def test_numba_kernel_is_callable_from_python():
    assert int(field_kernels.mul_u64(np.uint64(P - 1), np.uint64(P - 1))) == 1
    assert int(field_kernels.power_u64(np.uint64(0), np.uint64(0))) == 1
