"""Fixed-point Goldilocks arithmetic on numpy arrays, bit for bit as `compiler.neural.fixed`.

Input and output: arrays of field elements (`uint64`, canonical, in [0, p));
the signed values behind them as `int64` (`signed`, `from_signed`).  Every
function is the vectorized form of the function of the same name in
`compiler.neural.fixed` -- same rounding (halves away from zero), same bounds,
raising `FixedPointOverflow` in the same cases -- and the tests hold them to
each other on random and edge values.  Exact products fit in int64 because the
bounds keep them below 2^62.
"""

from __future__ import annotations

import numpy as np

from compiler.neural.fixed import (
    ACCUMULATOR_LIMIT,
    DIVISOR_LIMIT,
    FRACTION_BITS,
    HALF_P,
    ONE,
    FixedPointOverflow,
    P,
    check_accumulation,
)

_P = np.uint64(P)
_EPSILON = np.uint64(2**32 - 1)  # 2^64 mod p
_HALF_P = np.uint64(HALF_P)


def field(values) -> np.ndarray:
    """Canonical field elements as a uint64 array (from ints in [0, p))."""
    array = np.asarray(values, dtype=np.uint64)
    if np.any(array >= _P):
        raise ValueError("not field elements: values of p or more")
    return array


def signed(x) -> np.ndarray:
    """The signed integers (int64) that field elements stand for."""
    x = field(x)
    negative = x > _HALF_P
    return np.where(negative, x + _EPSILON, x).view(np.int64)  # x - p, wrapped through 2^64


def from_signed(n) -> np.ndarray:
    """The field elements (uint64) of signed integers in (-p/2, p/2)."""
    n = np.asarray(n, dtype=np.int64)
    if np.any(n < -HALF_P) or np.any(n > HALF_P):
        raise FixedPointOverflow("a value is outside the field's signed range (-p/2, p/2)")
    raw = n.view(np.uint64)
    with np.errstate(over="ignore"):
        return np.where(n < 0, raw - _EPSILON, raw)  # 2^64 + n - (2^32 - 1) = p + n


def add(a, b) -> np.ndarray:
    a, b = np.broadcast_arrays(field(a), field(b))
    with np.errstate(over="ignore"):  # wrapping through 2^64 is the arithmetic here
        total = a + b
        total = np.where(total < a, total + _EPSILON, total)
        return np.where(total >= _P, total - _P, total)


def sub(a, b) -> np.ndarray:
    a, b = np.broadcast_arrays(field(a), field(b))
    with np.errstate(over="ignore"):
        difference = a - b
        return np.where(a < b, difference - _EPSILON, difference)


def neg(a) -> np.ndarray:
    a = field(a)
    return np.where(a == 0, a, _P - a)


def round_divide(numerator, denominator) -> np.ndarray:
    """numerator / denominator (int64 arrays, denominator > 0), rounded, halves away from
    zero; |numerator| < 2^62."""
    numerator = np.asarray(numerator, dtype=np.int64)
    denominator = np.asarray(denominator, dtype=np.int64)
    quotient, remainder = np.divmod(np.abs(numerator), denominator)
    quotient = quotient + (2 * remainder >= denominator)
    return np.where(numerator < 0, -quotient, quotient)


def _check_below_limit(total) -> None:
    if np.any(np.abs(np.asarray(total, dtype=np.int64)) >= ACCUMULATOR_LIMIT):
        raise FixedPointOverflow("an exact total is not below 2^62 in magnitude")


def shift_round(total, bits: int) -> np.ndarray:
    _check_below_limit(total)
    magnitude = np.abs(np.asarray(total, dtype=np.int64))
    quotient = (magnitude + (1 << (bits - 1))) >> bits
    return np.where(np.asarray(total) < 0, -quotient, quotient)


def rescale(total) -> np.ndarray:
    return shift_round(total, FRACTION_BITS)


def check_products(left: np.ndarray, right: np.ndarray) -> None:
    """Raise unless every |left_i * right_i| is below 2^62 (without overflowing int64)."""
    left, right = np.broadcast_arrays(np.abs(left), np.abs(right))
    largest_left = (ACCUMULATOR_LIMIT - 1) // np.maximum(right, 1)
    if np.any((right > 0) & (left > largest_left)):
        raise FixedPointOverflow("a product of fixed-point values may reach 2^62")


def mul(a, b) -> np.ndarray:
    """Elementwise a * b: exact products of the signed values, divided by 2^16 once."""
    left, right = signed(a), signed(b)
    check_products(left, right)
    return from_signed(rescale(left * right))


def _largest(values: np.ndarray) -> int:
    return int(np.abs(values).max()) if values.size else 0


def dot(xs, ws) -> np.uint64:
    """The sum of x_i * w_i over the last axis, one rescaling per sum."""
    left, right = signed(xs), signed(ws)
    if left.shape != right.shape:
        raise ValueError(f"a dot product of shapes {left.shape} and {right.shape}")
    check_accumulation(left.shape[-1], _largest(left), _largest(right))
    return from_signed(rescale((left * right).sum(axis=-1)))


def matvec(matrix, x) -> np.ndarray:
    """matrix . x, one rescaling per row; the bound is checked on the whole matrix."""
    rows, vector = signed(matrix), signed(x)
    check_accumulation(vector.shape[0], _largest(rows), _largest(vector))
    return from_signed(rescale(rows @ vector))


def divide(a, divisor: int) -> np.ndarray:
    if not 1 <= divisor < DIVISOR_LIMIT:
        raise ValueError(f"divide takes a divisor in [1, 2^16), not {divisor}")
    value = signed(a)
    _check_below_limit(value)
    return from_signed(round_divide(value, divisor))


def less_than(a, b) -> np.ndarray:
    left, right = np.broadcast_arrays(signed(a), signed(b))
    _check_below_limit(left)
    _check_below_limit(right)
    return left < right


def log2_floor(n) -> np.ndarray:
    """floor(log2(n)) of positive int64 values (exact, for every n below 2^63)."""
    n = np.asarray(n, dtype=np.int64)
    if np.any(n <= 0):
        raise ValueError("log2_floor takes positive values")
    guess = np.floor(np.log2(n.astype(np.float64))).astype(np.int64)  # off by one at most
    guess = np.clip(guess, 0, 62)
    guess = np.where(np.left_shift(np.int64(1), guess) > n, guess - 1, guess)
    upper = np.left_shift(np.int64(1), np.minimum(guess + 1, 62))
    return np.where((guess < 62) & (upper <= n), guess + 1, guess)


__all__ = [
    "ONE",
    "FixedPointOverflow",
    "add",
    "check_products",
    "divide",
    "dot",
    "field",
    "from_signed",
    "less_than",
    "log2_floor",
    "matvec",
    "mul",
    "neg",
    "rescale",
    "round_divide",
    "shift_round",
    "signed",
    "sub",
]
