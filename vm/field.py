"""The Goldilocks base field F_p, p = 2^64 - 2^32 + 1.

Every word of Triton VM is an element of this field.  This module is the single
place that knows how to add, multiply and invert words, in two forms:

* a scalar API on Python ints (`add`, `mul`, `inverse`, ...), for the
  interpreter and anything else that handles one word at a time;
* a vectorized API on numpy uint64 arrays (`add_vec`, `mul_vec`, ...), backed by
  the numba kernels of `vm.field_kernels`, for bulk work.  Those are loaded on
  first use, so that a short run does not pay numba's start-up time.

Values are canonical, i.e. in [0, p), on input and on output.  The vectorized
functions trust that their inputs are canonical; they do not check.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


P = 2**64 - 2**32 + 1
R = 2**32 - 1  # 2^64 mod p
R_INVERSE = 18446744065119617025  # R^-1 mod p

_PRETTY_LIMIT = 256

# ---- Scalar API on Python ints ---------------------------------------------


def canonical(n: int) -> int:
    """Any integer -> its representative in [0, p)."""
    return n % P


def from_signed(n: int) -> int:
    """A TASM literal with -p < n < p -> a word: n if n >= 0, else n + p."""
    if not -P < n < P:
        raise ValueError(f"literal {n} is outside the range (-p, p)")
    return n + P if n < 0 else n


def add(a: int, b: int) -> int:
    return (a + b) % P


def sub(a: int, b: int) -> int:
    return (a - b) % P


def mul(a: int, b: int) -> int:
    return (a * b) % P


def neg(a: int) -> int:
    return -a % P


def inverse(a: int) -> int:
    """The multiplicative inverse; ZeroDivisionError for 0."""
    a %= P
    if a == 0:
        raise ZeroDivisionError("inverse of zero in F_p")
    return pow(a, -1, P)


def power(base: int, exponent: int) -> int:
    """base^exponent in F_p, with 0^0 = 1.  A negative exponent inverts."""
    if exponent < 0:
        return pow(inverse(base), -exponent, P)
    return pow(base, exponent, P)


def pretty(value: int) -> str:
    """Triton's pretty printer: small values as is, values near p as -(p - v)."""
    if value <= _PRETTY_LIMIT:
        return str(value)
    if value >= P - _PRETTY_LIMIT:
        return f"-{P - value}"
    return str(value)


# ---- Vectorized API on numpy uint64 arrays ---------------------------------


@cache
def kernels():
    """The numba kernels (`vm.field_kernels`), compiled or loaded on first use."""
    from vm import field_kernels

    return field_kernels


def _words(values) -> np.ndarray:
    import numpy as np  # imported on first use: a short run never needs numpy

    return np.asarray(values, dtype=np.uint64)


def add_vec(a, b) -> np.ndarray:
    return kernels().add_ufunc(_words(a), _words(b))


def sub_vec(a, b) -> np.ndarray:
    return kernels().sub_ufunc(_words(a), _words(b))


def mul_vec(a, b) -> np.ndarray:
    return kernels().mul_ufunc(_words(a), _words(b))


def neg_vec(a) -> np.ndarray:
    return kernels().neg_ufunc(_words(a))


def power_vec(base, exponent) -> np.ndarray:
    """Element-wise base^exponent; `exponent` is an int or an array (broadcast).

    0^0 = 1.  An int exponent may exceed 2^64; it is reduced without changing
    any result, 0^e with e > 0 included.  Negative exponents are rejected.
    """
    import numpy as np

    if isinstance(exponent, (int, np.integer)):
        exponent = int(exponent)
        if exponent < 0:
            raise ValueError("power_vec: negative exponent")
        if exponent >= 2**64:  # a^e = a^(((e - 1) mod (p - 1)) + 1) for e > 0
            exponent = (exponent - 1) % (P - 1) + 1
        exponent = np.uint64(exponent)
    else:
        exponent = np.asarray(exponent)
        if exponent.dtype.kind == "i" and (exponent < 0).any():
            raise ValueError("power_vec: negative exponent")
        exponent = exponent.astype(np.uint64)
    return kernels().power_ufunc(_words(base), exponent)


def inverse_vec(a) -> np.ndarray:
    """Element-wise inverse; ZeroDivisionError if any element is 0."""
    import numpy as np

    values = _words(a)
    if (values == 0).any():
        raise ZeroDivisionError("inverse of zero in F_p")
    flat = np.ascontiguousarray(values).reshape(-1)
    return kernels().batch_inverse(flat).reshape(values.shape)
