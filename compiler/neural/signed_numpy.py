"""The model's tensor operations on numpy arrays of signed values: its hot path.

Input and output: int64 arrays of the signed integers fixed-point field elements stand
for (`fixed_numpy.signed`), instead of uint64 field elements.  Within the model every
value stays far inside (-p/2, p/2), so a field addition is the integer addition of the
signed values, and each function below is the same sequence of roundings as its
namesake in compiler.neural.tensor (whose docstring defines them) -- without the
conversion to and from field elements around every operation (compiler.neural.
tensor_numpy is these functions with field elements in and out).  Bounds are still
checked: every exact product (`fixed_numpy.check_products`) and every total
(`ACCUMULATOR_LIMIT`) before it is rounded.  tests/optimizer/test_neural_model.py holds these,
and the model built on them, to the pure-Python reference bit for bit.
"""

from __future__ import annotations

import numpy as np

from compiler.neural import fixed, tensor
from compiler.neural import fixed_numpy as fx
from compiler.neural.fixed import ACCUMULATOR_LIMIT, FRACTION_BITS, ONE, FixedPointOverflow
from compiler.neural.tensor import (
    EXP2_CUBIC,
    EXP2_LINEAR,
    EXP2_SQUARE,
    EXP_CUTOFF,
    GELU_SLOPE,
    HALF,
    INVERSE_SQRT_LIMIT,
    LAYER_NORM_EPSILON,
    LOG2_E,
    NEWTON_STEPS,
    RECIPROCAL_LIMIT,
    SIGMOID_CLAMP,
    SIGMOID_CUBIC,
    SIGMOID_LINEAR,
)

SCALAR_LIMIT = 4  # inverse_sqrt of at most this many values runs on Python ints


def shift_round(total: np.ndarray, bits: int) -> np.ndarray:
    """total / 2^bits, rounded, halves away from zero (|total| < 2^62)."""
    magnitude = np.abs(total)
    if magnitude.size and int(magnitude.max()) >= ACCUMULATOR_LIMIT:
        raise FixedPointOverflow("an exact total is not below 2^62 in magnitude")
    quotient = (magnitude + (1 << (bits - 1))) >> bits
    return np.where(total < 0, -quotient, quotient)


def rescale(total: np.ndarray) -> np.ndarray:
    return shift_round(total, FRACTION_BITS)


def check_products(a: np.ndarray, b: np.ndarray) -> None:
    """Raise unless every |a_i * b_i| is below 2^62: at once when the largest factors
    allow it, else product by product (fixed_numpy.check_products)."""
    if a.size and b.size and _largest(a) * _largest(b) >= ACCUMULATOR_LIMIT:
        fx.check_products(a, b)


def _largest(values: np.ndarray) -> int:
    return int(np.abs(values).max())


def mul(a, b) -> np.ndarray:
    """Elementwise fixed-point a * b: the exact product, divided by 2^16 once."""
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    check_products(a, b)
    return rescale(a * b)


def round_divide(numerator: np.ndarray, divisor) -> np.ndarray:
    return fx.round_divide(numerator, divisor)


def sigmoid(z: np.ndarray) -> np.ndarray:
    above = z >= SIGMOID_CLAMP
    below = z <= -SIGMOID_CLAMP
    z = np.where(above | below, 0, z)
    cube = mul(mul(z, z), z)
    middle = HALF + mul(SIGMOID_LINEAR, z) - mul(SIGMOID_CUBIC, cube)
    return np.where(above, ONE, np.where(below, 0, middle))


def gelu(x: np.ndarray) -> np.ndarray:
    return mul(x, sigmoid(mul(GELU_SLOPE, x)))


def exp_negative(t: np.ndarray) -> np.ndarray:
    """exp(t) for t <= 0."""
    if np.any(t > 0):
        raise ValueError("exp_negative takes t <= 0")
    v = -t
    kept = v < EXP_CUTOFF
    v = np.where(kept, v, 0)
    whole, fraction = np.divmod(mul(LOG2_E, v), ONE)
    inner = EXP2_SQUARE - mul(EXP2_CUBIC, fraction)
    linear = EXP2_LINEAR - mul(inner, fraction)
    power = ONE - mul(linear, fraction)
    return np.where(kept, round_divide(power, np.left_shift(np.int64(1), whole)), 0)


def reciprocal(z: np.ndarray) -> np.ndarray:
    """1 / z for 2^-16 <= z < 2^16."""
    if np.any(z < 1) or np.any(z >= RECIPROCAL_LIMIT):
        raise ValueError("reciprocal takes 1 <= z * 2^16 < 2^32")
    y = np.left_shift(np.int64(1), 31 - fx.log2_floor(z))
    for _ in range(NEWTON_STEPS):
        y = mul(y, 2 * ONE - mul(z, y))
    return y


def inverse_sqrt(v: np.ndarray) -> np.ndarray:
    """1 / sqrt(v) for 2^-16 <= v < 2^32."""
    if np.any(v < 1) or np.any(v >= INVERSE_SQRT_LIMIT):
        raise ValueError("inverse_sqrt takes 1 <= v * 2^16 < 2^48")
    if v.size <= SCALAR_LIMIT:  # a few values (a decoder state's one row): the reference's
        # own function on Python ints is the same sequence and costs less than numpy's calls
        results = [fixed.signed(tensor.inverse_sqrt(value)) for value in v.ravel().tolist()]
        return np.array(results, dtype=np.int64).reshape(v.shape)
    y = np.left_shift(np.int64(1), 24 - (fx.log2_floor(v) // 2 + 1))
    for _ in range(NEWTON_STEPS):
        check_products(v * y, y)
        u = shift_round(v * y * y, 32)
        y = shift_round(y * (3 * ONE - u), 17)
    return y


def layer_norm(x: np.ndarray, gain: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """Over the last axis (each row of a batch)."""
    count = x.shape[-1]
    largest = np.abs(x).max(axis=-1)
    if np.any(count * largest >= ACCUMULATOR_LIMIT):
        raise FixedPointOverflow("a layer norm's sum may reach 2^62")
    mean = round_divide(x.sum(axis=-1), count)
    deviations = x - mean[..., None]
    spread = np.abs(deviations).max(axis=-1)
    if np.any(count * spread * spread >= ACCUMULATOR_LIMIT):
        raise FixedPointOverflow("a layer norm's sum of squares may reach 2^62")
    variance = round_divide(rescale((deviations * deviations).sum(axis=-1)), count)
    scale = inverse_sqrt(variance + LAYER_NORM_EPSILON)
    return mul(mul(deviations, scale[..., None]), gain) + bias
