"""The model's tensor operations on numpy arrays, bit for bit as `compiler.neural.tensor`.

Input and output: arrays of fixed-point field elements (`uint64`,
compiler.neural.fixed_numpy).  Each function computes the same sequence of
fixed-point operations as its namesake in `compiler.neural.tensor` (whose
docstring defines them), vectorized: `gelu`, `sigmoid`, `exp_negative`,
`reciprocal` and `inverse_sqrt` elementwise on any shape, `layer_norm` over the
last axis (a vector or a batch of rows), `matvec` on a matrix, `attention` one
node at a time with that node's work vectorized.  For the future model
(`compiler/neural`) these are the building blocks; the tests hold them to the
reference and to the language's `std.nn.tensor` on the VM.
"""

from __future__ import annotations

import numpy as np

from compiler.neural import fixed_numpy as fx
from compiler.neural.fixed import DIVISOR_LIMIT, ONE, FixedPointOverflow, check_accumulation
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

__all__ = [
    "FixedPointOverflow",
    "argmax",
    "attention",
    "dot",
    "exp_negative",
    "gelu",
    "inverse_sqrt",
    "layer_norm",
    "matvec",
    "reciprocal",
    "sigmoid",
]

dot = fx.dot
matvec = fx.matvec


def _constant(value: int, like: np.ndarray) -> np.ndarray:
    return np.full(like.shape, fx.from_signed(value), dtype=np.uint64)


def _power_of_two(exponent: np.ndarray) -> np.ndarray:
    return fx.from_signed(np.left_shift(np.int64(1), exponent))


def inverse_sqrt(v) -> np.ndarray:
    v = fx.field(v)
    value = fx.signed(v)
    if np.any(value < 1) or np.any(value >= INVERSE_SQRT_LIMIT):
        raise ValueError("inverse_sqrt takes 1 <= v * 2^16 < 2^48")
    y = np.left_shift(np.int64(1), 24 - (fx.log2_floor(value) // 2 + 1))
    for _ in range(NEWTON_STEPS):
        fx.check_products(value * y, y)
        u = fx.shift_round(value * y * y, 32)
        y = fx.shift_round(y * (3 * ONE - u), 17)
    return fx.from_signed(y)


def reciprocal(z) -> np.ndarray:
    z = fx.field(z)
    value = fx.signed(z)
    if np.any(value < 1) or np.any(value >= RECIPROCAL_LIMIT):
        raise ValueError("reciprocal takes 1 <= z * 2^16 < 2^32")
    y = _power_of_two(31 - fx.log2_floor(value))
    two = _constant(2 * ONE, z)
    for _ in range(NEWTON_STEPS):
        y = fx.mul(y, fx.sub(two, fx.mul(z, y)))
    return y


def layer_norm(xs, gammas, betas) -> np.ndarray:
    """Over the last axis: a vector, or each row of a batch."""
    xs, gammas, betas = fx.field(xs), fx.field(gammas), fx.field(betas)
    count = xs.shape[-1]
    if not 1 <= count < DIVISOR_LIMIT or gammas.shape != xs.shape or betas.shape != xs.shape:
        raise ValueError("layer_norm takes three arrays of one shape, rows of 1 <= n < 2^16")
    values = fx.signed(xs)
    for row in np.abs(values).reshape(-1, count):
        check_accumulation(count, int(row.max()), 1)
    mean = fx.divide(fx.from_signed(values.sum(axis=-1)), count)
    deviations = fx.sub(xs, mean[..., None])
    spread = fx.signed(deviations)
    for row in np.abs(spread).reshape(-1, count):
        check_accumulation(count, int(row.max()), int(row.max()))
    squares = (spread * spread).sum(axis=-1)
    variance = fx.divide(fx.from_signed(fx.rescale(squares)), count)
    scale = inverse_sqrt(fx.add(variance, _constant(LAYER_NORM_EPSILON, variance)))
    return fx.add(fx.mul(fx.mul(deviations, scale[..., None]), gammas), betas)


def sigmoid(z) -> np.ndarray:
    z = fx.field(z)
    above = ~fx.less_than(z, _constant(SIGMOID_CLAMP, z))
    below = ~fx.less_than(_constant(-SIGMOID_CLAMP, z), z)
    z = np.where(above | below, _constant(0, z), z)  # clamped: the cubic is not computed
    cube = fx.mul(fx.mul(z, z), z)
    linear = fx.add(_constant(HALF, z), fx.mul(_constant(SIGMOID_LINEAR, z), z))
    middle = fx.sub(linear, fx.mul(_constant(SIGMOID_CUBIC, z), cube))
    return np.where(above, _constant(ONE, z), np.where(below, _constant(0, z), middle))


def gelu(x) -> np.ndarray:
    x = fx.field(x)
    return fx.mul(x, sigmoid(fx.mul(_constant(GELU_SLOPE, x), x)))


def exp_negative(t) -> np.ndarray:
    t = fx.field(t)
    if np.any(fx.less_than(_constant(0, t), t)):
        raise ValueError("exp_negative takes t <= 0")
    v = fx.neg(t)
    kept = fx.less_than(v, _constant(EXP_CUTOFF, v))
    v = np.where(kept, v, _constant(0, v))  # cut off: the result is 0 below
    u = fx.mul(_constant(LOG2_E, v), v)
    whole, fraction = np.divmod(u, np.uint64(ONE))
    inner = fx.sub(_constant(EXP2_SQUARE, v), fx.mul(_constant(EXP2_CUBIC, v), fraction))
    linear = fx.sub(_constant(EXP2_LINEAR, v), fx.mul(inner, fraction))
    power = fx.sub(_constant(ONE, v), fx.mul(linear, fraction))
    divisor = np.left_shift(np.int64(1), whole.astype(np.int64))
    result = fx.from_signed(fx.round_divide(power.astype(np.int64), divisor))
    return np.where(kept, result, _constant(0, v))


def attention(queries, keys, values, mask, scale: int) -> np.ndarray:
    """Masked attention of n nodes with d-vectors: an n x d array."""
    queries, keys, values = fx.field(queries), fx.field(keys), fx.field(values)
    mask = fx.field(mask)
    count, width = queries.shape
    if keys.shape != queries.shape or values.shape != queries.shape or mask.shape != (count,) * 2:
        raise ValueError("attention takes n x d queries, keys and values and an n x n mask")
    left, right = fx.signed(queries), fx.signed(keys)
    check_accumulation(width, int(np.abs(left).max(initial=0)), int(np.abs(right).max(initial=0)))
    outputs = np.zeros((count, width), dtype=np.uint64)
    scale_vector = np.full(count, fx.from_signed(scale), dtype=np.uint64)
    for node in range(count):
        chosen = np.flatnonzero(mask[node] != 0)
        if not len(chosen):
            continue
        products = fx.from_signed(fx.rescale(right[chosen] @ left[node]))
        scores = fx.mul(products, scale_vector[: len(chosen)])
        best = scores[argmax(scores)]
        exponentials = exp_negative(fx.sub(scores, best))
        total = fx.from_signed(fx.signed(exponentials).sum())
        inverse = reciprocal(total)
        weights = fx.signed(fx.mul(exponentials, np.full(len(chosen), inverse, dtype=np.uint64)))
        columns = fx.signed(values[chosen])
        largest_weight = int(np.abs(weights).max())
        for largest in np.abs(columns).max(axis=0).tolist():  # one dot product per column
            check_accumulation(len(chosen), largest_weight, largest)
        outputs[node] = fx.from_signed(fx.rescale(weights @ columns))
    return outputs


def argmax(xs) -> int:
    """The index of the largest signed value, the first on ties."""
    xs = fx.field(xs)
    if len(xs) > 1:
        fx.less_than(xs, xs)  # the bound check of the reference's comparisons
    return int(np.argmax(fx.signed(xs)))
