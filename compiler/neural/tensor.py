"""The model's tensor operations in fixed point: the pure-Python reference.

Input and output: fixed-point field elements (compiler.neural.fixed) as Python
ints, vectors as lists, matrices as lists of rows.  Every function is defined
by the exact sequence of fixed-point operations below, which
`compiler.neural.tensor_numpy` (vectorized) and the language's `std.nn.tensor`
and `std.nn.fixed` (on the VM) repeat bit for bit:

- `dot`, `matvec`: exact products summed, rescaled once per output.
- `layer_norm`: mean = sum / n, variance = (sum of squared deviations, rescaled)
  / n, both rounded (`fixed.divide`); then (x - mean) * inverse_sqrt(variance +
  2^-16) * gamma + beta.  `inverse_sqrt` is Newton's iteration for
  1/sqrt(v) from the power of two 2^(8 - floor(e/2) - 1), where 2^e <= v * 2^16 <
  2^(e+1), which starts within a factor of two below the root:
  `NEWTON_STEPS` steps of y <- y * (3 - v y^2) / 2, with v y^2 from the exact
  product of the three and one rounding (so that it keeps its precision when y
  is small), and one rounding for the step.
- `gelu`: x * s(1.702 x) with the clamped cubic sigmoid
  s(z) = 1/2 + (5/24) z - z^3 / (4 * 3.6^3) for |z| < 3.6, 1 above, 0 below:
  the odd cubic around 1/2 that meets 0 and 1 with slope 0 at -3.6 and 3.6, so
  s is continuous with a continuous slope; 3.6 makes its largest error against
  the sigmoid smallest (0.031; against x * sigmoid(1.702 x) gelu is off by at
  most 0.06).  The raw Taylor polynomial of the sigmoid turns back for
  |z| > 2 (optimizer.md §5).
- `exp_negative(t)` for t <= 0: 0 when t <= -12, else 2^-k * p(f) with
  t * log2(e) = -(k + f), k an integer, 0 <= f < 1, and p the cubic
  1 - 0.6917 f + 0.2314 f^2 - 0.0397 f^3 (largest error 8e-5 against 2^-f),
  divided by 2^k with one rounding.
- `reciprocal(z)` for z >= 2^-16 below 2^16: Newton's iteration
  y <- y (2 - z y) from the power of two 2^(15 - e) (2^e <= z * 2^16 < 2^(e+1)),
  `NEWTON_STEPS` steps.
- `attention`: node i attends to node j only where mask[i][j] is not 0; its
  scores are scale * (q_i . k_j), the weights exp(score - max score) times the
  reciprocal of their sum, and the output the weighted sum of the v_j (exact
  products, rescaled once per component).  A node that may attend to no node
  gets zeros.
- `argmax`: the first index of the largest signed value.
"""

from __future__ import annotations

from collections.abc import Sequence

from compiler.neural import fixed
from compiler.neural.fixed import ONE, P

NEWTON_STEPS = 5
# gelu: x * s(1.702 x)
GELU_SLOPE = 111542  # 1.702
SIGMOID_CLAMP = 235930  # 3.6
HALF = ONE // 2
SIGMOID_LINEAR = 13653  # 5/24 = 3 / (4 * 3.6)
SIGMOID_CUBIC = 351  # 1 / (4 * 3.6^3) = 0.0053584
# exp_negative
EXP_CUTOFF = 12 * ONE  # exp(-12) * 2^16 < 1/2: rounds to 0
LOG2_E = 94548  # log2(e) = 1.4426950...
EXP2_LINEAR = 45331  # 0.6917
EXP2_SQUARE = 15165  # 0.2314
EXP2_CUBIC = 2602  # 0.0397
LAYER_NORM_EPSILON = 1  # 2^-16
INVERSE_SQRT_LIMIT = 1 << 48  # inverse_sqrt takes v * 2^16 below this (v < 2^32)
RECIPROCAL_LIMIT = 1 << 32  # reciprocal takes z * 2^16 below this (z < 2^16)


def _largest(values) -> int:
    return max((abs(fixed.signed(value)) for value in values), default=0)


def dot(xs: Sequence[int], ws: Sequence[int]) -> int:
    return fixed.dot(xs, ws)


def matvec(matrix: Sequence[Sequence[int]], x: Sequence[int]) -> list[int]:
    """matrix . x, one rescaling per row; the bound is checked on the whole matrix."""
    fixed.check_accumulation(len(x), max(map(_largest, matrix), default=0), _largest(x))
    return [fixed.dot(row, x) for row in matrix]


def inverse_sqrt(v: int) -> int:
    """1 / sqrt(v) for 2^-16 <= v < 2^32 (see the module docstring)."""
    value = fixed.signed(v)
    if not 1 <= value < INVERSE_SQRT_LIMIT:
        raise ValueError(f"inverse_sqrt takes 1 <= v * 2^16 < 2^48, not {value}")
    y = 1 << (24 - (fixed.log2_floor(value) // 2 + 1))
    for _ in range(NEWTON_STEPS):
        u = fixed.shift_round(value * y * y, 32)  # v y^2, from the exact product
        y = fixed.shift_round(y * (3 * ONE - u), 17)
    return fixed.from_signed(y)


def reciprocal(z: int) -> int:
    """1 / z for 2^-16 <= z < 2^16 (see the module docstring)."""
    value = fixed.signed(z)
    if not 1 <= value < RECIPROCAL_LIMIT:
        raise ValueError(f"reciprocal takes 1 <= z * 2^16 < 2^32, not {value}")
    y = 1 << (31 - fixed.log2_floor(value))
    for _ in range(NEWTON_STEPS):
        y = fixed.mul(y, fixed.sub(2 * ONE, fixed.mul(z, y)))
    return y


def layer_norm(xs: Sequence[int], gammas: Sequence[int], betas: Sequence[int]) -> list[int]:
    """(x - mean) / sqrt(variance + 2^-16) * gamma + beta (see the module docstring)."""
    count = len(xs)
    if not 1 <= count < fixed.DIVISOR_LIMIT or len(gammas) != count or len(betas) != count:
        raise ValueError("layer_norm takes three vectors of one length n, 1 <= n < 2^16")
    fixed.check_accumulation(count, _largest(xs), 1)
    mean = fixed.divide(fixed.from_signed(sum(map(fixed.signed, xs))), count)
    deviations = [fixed.sub(x, mean) for x in xs]
    largest = _largest(deviations)
    fixed.check_accumulation(count, largest, largest)
    squares = sum(fixed.signed(d) ** 2 for d in deviations)
    variance = fixed.divide(fixed.from_signed(fixed.rescale(squares)), count)
    scale = inverse_sqrt(fixed.add(variance, LAYER_NORM_EPSILON))
    return [
        fixed.add(fixed.mul(fixed.mul(d, scale), gamma), beta)
        for d, gamma, beta in zip(deviations, gammas, betas)
    ]


def sigmoid(z: int) -> int:
    """The clamped cubic sigmoid s(z) (see the module docstring)."""
    if not fixed.less_than(z, SIGMOID_CLAMP):
        return ONE
    if not fixed.less_than(fixed.neg(SIGMOID_CLAMP), z):
        return 0
    cube = fixed.mul(fixed.mul(z, z), z)
    linear = fixed.add(HALF, fixed.mul(SIGMOID_LINEAR, z))
    return fixed.sub(linear, fixed.mul(SIGMOID_CUBIC, cube))


def gelu(x: int) -> int:
    """x * s(1.702 x)."""
    return fixed.mul(x, sigmoid(fixed.mul(GELU_SLOPE, x)))


def exp_negative(t: int) -> int:
    """exp(t) for t <= 0 (see the module docstring)."""
    if fixed.less_than(0, t):
        raise ValueError(f"exp_negative takes t <= 0, not {fixed.decode(t)}")
    v = fixed.neg(t)
    if not fixed.less_than(v, EXP_CUTOFF):
        return 0
    u = fixed.mul(LOG2_E, v)
    whole, fraction = divmod(u, ONE)
    inner = fixed.sub(EXP2_SQUARE, fixed.mul(EXP2_CUBIC, fraction))
    linear = fixed.sub(EXP2_LINEAR, fixed.mul(inner, fraction))
    power = fixed.sub(ONE, fixed.mul(linear, fraction))
    return fixed.round_divide(power, 1 << whole)


def attention(
    queries: Sequence[Sequence[int]],
    keys: Sequence[Sequence[int]],
    values: Sequence[Sequence[int]],
    mask: Sequence[Sequence[int]],
    scale: int,
) -> list[list[int]]:
    """Masked attention of n nodes with d-vectors (see the module docstring)."""
    count = len(queries)
    width = len(queries[0]) if count else 0
    shapes = [len(keys), len(values), len(mask)]
    if shapes != [count] * 3 or any(len(row) != count for row in mask):
        raise ValueError("attention takes n queries, keys, values and an n x n mask")
    fixed.check_accumulation(
        width, max(map(_largest, queries), default=0), max(map(_largest, keys), default=0)
    )
    outputs = []
    for query, allowed in zip(queries, mask):
        chosen = [j for j in range(count) if allowed[j] % P != 0]
        if not chosen:
            outputs.append([0] * width)
            continue
        scores = [fixed.mul(fixed.dot(query, keys[j]), scale) for j in chosen]
        best = scores[argmax(scores)]
        exponentials = [exp_negative(fixed.sub(score, best)) for score in scores]
        total = 0
        for exponential in exponentials:
            total = fixed.add(total, exponential)
        inverse = reciprocal(total)
        weights = [fixed.mul(exponential, inverse) for exponential in exponentials]
        outputs.append(
            [fixed.dot(weights, [values[j][column] for j in chosen]) for column in range(width)]
        )
    return outputs


def argmax(xs: Sequence[int]) -> int:
    """The index of the largest signed value, the first on ties; xs is not empty."""
    best = 0
    for index in range(1, len(xs)):
        if fixed.less_than(xs[best], xs[index]):
            best = index
    return best
