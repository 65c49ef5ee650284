"""Fixed-point Goldilocks arithmetic: the pure-Python reference (optimizer.md §6).

Input and output: field elements as Python ints in [0, p).  A real r is the
field element round(r * 2^16) (negative values as p - |x|); a field element x
reads back as the signed integer `signed(x)` in (-p/2, p/2), that is the real
signed(x) / 2^16.

- Add, subtract and negate are field operations (`add`, `sub`, `neg`).
- Multiply (`mul`) takes the exact integer product of the two signed values
  and divides it by 2^16 once, rounding.  A dot product (`dot`) sums the exact
  products and divides once at the end.  Nothing is ever multiplied by the
  field inverse of 2^16.
- **Rounding**, everywhere (`round_divide`): to the nearest integer, halves
  away from zero.  It is symmetric, so mul(-a, b) = -mul(a, b), and the
  language computes it from `split` and `div_mod` without hints (std.nn.fixed).
- **Bounds**: an exact product or sum of products must stay below 2^62 in
  magnitude (`ACCUMULATOR_LIMIT`), so that the field computes it exactly.  For
  n terms whose factors are at most X and W in magnitude (as integers), that is
  n * X * W < 2^62 -- with a real bound B on both, n * B^2 * 2^32 < 2^62
  (`check_design`).  `mul` and `dot` check it on their operands and raise
  `FixedPointOverflow` otherwise; comparisons (`less_than`) take values below
  2^62 in magnitude.

`divide` (by a small positive integer), `shift_round` (by a power of two) and
`log2_floor` are the other exact operations the tensor functions
(compiler.neural.tensor) build on.  `compiler.neural.fixed_numpy` does the same
on arrays, bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

P = 2**64 - 2**32 + 1
HALF_P = (P - 1) // 2  # the largest field element that reads back as non-negative
FRACTION_BITS = 16
ONE = 1 << FRACTION_BITS
ACCUMULATOR_LIMIT = 1 << 62  # exact products and sums of products stay below this
DIVISOR_LIMIT = 1 << 16  # `divide` takes divisors below this (long division in u32 digits)


class FixedPointOverflow(ArithmeticError):
    """A fixed-point computation would leave the bounds within which it is exact."""


def signed(x: int) -> int:
    """The signed integer a field element stands for, in (-p/2, p/2)."""
    if not 0 <= x < P:
        raise ValueError(f"{x} is not a field element")
    return x if x <= HALF_P else x - P


def from_signed(n: int) -> int:
    """The field element that stands for the signed integer n."""
    if not -HALF_P <= n <= HALF_P:
        raise FixedPointOverflow(f"{n} is outside the field's signed range (-p/2, p/2)")
    return n % P


def round_divide(numerator: int, denominator: int) -> int:
    """numerator / denominator rounded to the nearest integer, halves away from zero."""
    if denominator <= 0:
        raise ValueError(f"the denominator must be positive, not {denominator}")
    quotient, remainder = divmod(abs(numerator), denominator)
    if 2 * remainder >= denominator:
        quotient += 1
    return quotient if numerator >= 0 else -quotient


def encode(real) -> int:
    """The field element of a real (an int, a Fraction, a float or a decimal string)."""
    value = Fraction(real)
    return from_signed(round_divide(value.numerator * ONE, value.denominator))


def decode(x: int) -> Fraction:
    """The real a field element stands for."""
    return Fraction(signed(x), ONE)


def add(a: int, b: int) -> int:
    return (a + b) % P


def sub(a: int, b: int) -> int:
    return (a - b) % P


def neg(a: int) -> int:
    return -a % P


def check_accumulation(terms: int, largest_x: int, largest_w: int) -> None:
    """Raise unless `terms` products of factors at most `largest_x` and `largest_w` in
    magnitude (integers) sum to less than 2^62 in magnitude."""
    if terms * largest_x * largest_w >= ACCUMULATOR_LIMIT:
        raise FixedPointOverflow(
            f"{terms} products of factors up to {largest_x} and {largest_w} may reach "
            f"2^62: scale the values down (n * X * W must stay below 2^62)"
        )


def check_design(terms: int, bound) -> None:
    """The rule of optimizer.md §6 for a design: `terms` products of values bounded by the
    real `bound` accumulate exactly when terms * bound^2 * 2^32 < 2^62."""
    largest = round_divide(Fraction(bound).numerator * ONE, Fraction(bound).denominator)
    check_accumulation(terms, abs(largest), abs(largest))


def shift_round(total: int, bits: int) -> int:
    """total / 2^bits, rounded (an exact integer, |total| < 2^62; 1 <= bits <= 32)."""
    if not 1 <= bits <= 32:
        raise ValueError(f"shift_round shifts by 1 to 32 bits, not {bits}")
    if abs(total) >= ACCUMULATOR_LIMIT:
        raise FixedPointOverflow(f"{total} is not below 2^62 in magnitude")
    return round_divide(total, 1 << bits)


def rescale(total: int) -> int:
    """An exact product (or sum of products) of fixed-point values back to the scale of
    one: total / 2^16, rounded."""
    return shift_round(total, FRACTION_BITS)


def mul(a: int, b: int) -> int:
    """a * b: the exact product of the signed values, divided by 2^16 once."""
    left, right = signed(a), signed(b)
    check_accumulation(1, abs(left), abs(right))
    return from_signed(rescale(left * right))


def dot(xs: Sequence[int], ws: Sequence[int]) -> int:
    """The sum of x_i * w_i: exact products summed, then divided by 2^16 once."""
    if len(xs) != len(ws):
        raise ValueError(f"a dot product of lengths {len(xs)} and {len(ws)}")
    left = [signed(x) for x in xs]
    right = [signed(w) for w in ws]
    largest_x = max(map(abs, left), default=0)
    largest_w = max(map(abs, right), default=0)
    check_accumulation(len(left), largest_x, largest_w)
    return from_signed(rescale(sum(x * w for x, w in zip(left, right))))


def divide(a: int, divisor: int) -> int:
    """a / divisor for an integer 1 <= divisor < 2^16, rounded; |a| < 2^62."""
    if not 1 <= divisor < DIVISOR_LIMIT:
        raise ValueError(f"divide takes a divisor in [1, 2^16), not {divisor}")
    value = signed(a)
    if abs(value) >= ACCUMULATOR_LIMIT:
        raise FixedPointOverflow(f"{value} is not below 2^62 in magnitude")
    return from_signed(round_divide(value, divisor))


def less_than(a: int, b: int) -> bool:
    """Whether a < b as signed values; both below 2^62 in magnitude."""
    left, right = signed(a), signed(b)
    if max(abs(left), abs(right)) >= ACCUMULATOR_LIMIT:
        raise FixedPointOverflow("less_than compares values below 2^62 in magnitude")
    return left < right


def log2_floor(n: int) -> int:
    """floor(log2(n)) of a positive integer below 2^64."""
    if not 0 < n < 1 << 64:
        raise ValueError(f"log2_floor takes 0 < n < 2^64, not {n}")
    return n.bit_length() - 1
