"""Numba kernels for the Goldilocks field: scalar uint64 kernels and numpy ufuncs.

The compiled half of `vm.field`, imported only when vectorized arithmetic or
compiled Tip5 is first needed, so that short runs do not pay numba's start-up.
`mul_u64` builds the 64x64 -> 128-bit product from 32-bit halves (numba has no
128-bit integers) and `reduce128` reduces it with 2^64 = 2^32 - 1 and
2^96 = -1 (mod p).  Every literal is an np.uint64: mixing uint64 with a signed
integer makes numba promote to float64.
"""

from __future__ import annotations

import numpy as np
from numba import njit, vectorize

from vm.field import P, R

# ---- scalar kernels on uint64 ----

_P64 = np.uint64(P)
_EPSILON = np.uint64(R)  # 2^64 mod p, also the low-32-bit mask
_SHIFT = np.uint64(32)
_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_TWO = np.uint64(2)


@njit(cache=True)
def add_u64(a, b):
    """(a + b) mod p for canonical uint64 a, b."""
    total = a + b  # wraps on overflow
    if total < a:  # overflowed: drop 2^64, add back 2^64 mod p
        return total + _EPSILON
    if total >= _P64:
        return total - _P64
    return total


@njit(cache=True)
def sub_u64(a, b):
    """(a - b) mod p for canonical uint64 a, b."""
    difference = a - b  # wraps on underflow to a - b + 2^64
    if a < b:  # a - b + 2^64 - (2^32 - 1) = a - b + p
        return difference - _EPSILON
    return difference


@njit(cache=True)
def neg_u64(a):
    """-a mod p for canonical uint64 a."""
    if a == _ZERO:
        return a
    return _P64 - a


@njit(cache=True)
def mul_u64(a, b):
    """(a * b) mod p for canonical uint64 a, b."""
    a_low = a & _EPSILON
    a_high = a >> _SHIFT
    b_low = b & _EPSILON
    b_high = b >> _SHIFT
    low_low = a_low * b_low
    low_high = a_low * b_high
    high_low = a_high * b_low
    high_high = a_high * b_high
    # 128-bit product = high * 2^64 + low
    middle = (low_low >> _SHIFT) + (low_high & _EPSILON) + (high_low & _EPSILON)
    low = (middle << _SHIFT) | (low_low & _EPSILON)
    high = high_high + (low_high >> _SHIFT) + (high_low >> _SHIFT) + (middle >> _SHIFT)
    return reduce128(high, low)


@njit(cache=True)
def reduce128(high, low):
    """(high * 2^64 + low) mod p, canonical, for any uint64 high and low."""
    # high = high_top * 2^32 + high_bottom; high * 2^64 = -high_top + high_bottom * R
    high_top = high >> _SHIFT
    high_bottom = high & _EPSILON
    result = low - high_top
    if low < high_top:  # borrowed 2^64: take away 2^64 mod p instead
        result -= _EPSILON
    product = high_bottom * _EPSILON  # < 2^64
    total = result + product
    if total < product:  # overflowed 2^64: add 2^64 mod p instead
        total += _EPSILON
    if total >= _P64:
        total -= _P64
    return total


@njit(cache=True)
def power_u64(base, exponent):
    """base^exponent mod p by square-and-multiply; 0^0 = 1."""
    result = _ONE
    while exponent != _ZERO:
        if exponent & _ONE:
            result = mul_u64(result, base)
        base = mul_u64(base, base)
        exponent >>= _ONE
    return result


# ---- ufuncs over numpy uint64 arrays ----

_SIGNATURE_2 = ["uint64(uint64, uint64)"]


@vectorize(_SIGNATURE_2, cache=True)
def add_ufunc(a, b):
    return add_u64(a, b)


@vectorize(_SIGNATURE_2, cache=True)
def sub_ufunc(a, b):
    return sub_u64(a, b)


@vectorize(_SIGNATURE_2, cache=True)
def mul_ufunc(a, b):
    return mul_u64(a, b)


@vectorize(["uint64(uint64)"], cache=True)
def neg_ufunc(a):
    return neg_u64(a)


@vectorize(_SIGNATURE_2, cache=True)
def power_ufunc(base, exponent):
    return power_u64(base, exponent)


@njit(cache=True)
def batch_inverse(values):
    """Montgomery's trick: n inverses for 3(n-1) products and one power."""
    count = values.shape[0]
    result = np.empty_like(values)
    if count == 0:
        return result
    running = values[0]
    result[0] = running
    for index in range(1, count):
        running = mul_u64(running, values[index])
        result[index] = running  # prefix product of values[0..index]
    running = power_u64(running, _P64 - _TWO)  # inverse of the full product
    for index in range(count - 1, 0, -1):
        prefix_before = result[index - 1]
        result[index] = mul_u64(running, prefix_before)
        running = mul_u64(running, values[index])
    result[0] = running
    return result
