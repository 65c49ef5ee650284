"""Poseidon2 (compiler.neural.poseidon2) on many states at once, with numpy.

Input: states as a uint64 array of shape (8, n), elements in [0, p); or n equally long
sequences of field elements as an (n, length) array.  Output: the n permuted states
(`permute_many`), or the n sponge digests as an (n, 4) array (`hash_many`), equal
element for element to `poseidon2.permute` and `poseidon2.hash_elements` (tests check
it).  `poseidon2.hash_bytes` hashes the leaves of a long input with it.

Goldilocks arithmetic on uint64 lanes: a product is formed from 32-bit halves as a
128-bit pair (high, low) and reduced with 2^64 = 2^32 - 1 and 2^96 = -1 (mod p); a sum
that wraps past 2^64 adds 2^32 - 1 back.  Every function returns canonical elements.
"""

from __future__ import annotations

import numpy as np

from compiler.neural.poseidon2 import (
    EXTERNAL_CONSTANTS,
    FULL_ROUNDS_BEFORE,
    INTERNAL_CONSTANTS,
    INTERNAL_DIAGONAL,
    RATE,
    WIDTH,
)

P = np.uint64(2**64 - 2**32 + 1)
EPSILON = np.uint64(2**32 - 1)  # 2^64 mod p
LOW_MASK = np.uint64(2**32 - 1)
SHIFT = np.uint64(32)
ONE = np.uint64(1)

_EXTERNAL = np.array(EXTERNAL_CONSTANTS, dtype=np.uint64)[:, :, None]  # (rounds, 8, 1)
_INTERNAL = np.array(INTERNAL_CONSTANTS, dtype=np.uint64)
_DIAGONAL = np.array(INTERNAL_DIAGONAL, dtype=np.uint64)[:, None]  # (8, 1)


def _canonical(x: np.ndarray) -> np.ndarray:
    return np.where(x >= P, x - P, x)


def add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a + b mod p, for canonical a and b."""
    total = a + b
    total = np.where(total < a, total + EPSILON, total)  # wrapped: 2^64 = 2^32 - 1
    return _canonical(total)


def multiply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a * b mod p, for a and b below 2^64."""
    a_low, a_high = a & LOW_MASK, a >> SHIFT
    b_low, b_high = b & LOW_MASK, b >> SHIFT
    low = a_low * b_low
    middle_one, middle_two = a_low * b_high, a_high * b_low
    middle = middle_one + middle_two
    middle_carry = (middle < middle_one).astype(np.uint64) << SHIFT
    product_low = low + (middle << SHIFT)
    low_carry = (product_low < low).astype(np.uint64)
    product_high = a_high * b_high + (middle >> SHIFT) + middle_carry + low_carry
    # low + 2^64 * (h0 + 2^32 * h1) = low + (2^32 - 1) * h0 - h1  (mod p)
    high_high, high_low = product_high >> SHIFT, product_high & LOW_MASK
    reduced = product_low - high_high
    reduced = np.where(product_low < high_high, reduced - EPSILON, reduced)
    scaled = high_low * EPSILON
    result = reduced + scaled
    result = np.where(result < scaled, result + EPSILON, result)
    return _canonical(result)


def _power7(x: np.ndarray) -> np.ndarray:
    square = multiply(x, x)
    return multiply(multiply(square, x), multiply(square, square))


def _external(state: np.ndarray) -> np.ndarray:
    """circ(2·M4, M4) on states of shape (8, n)."""
    halves = state.reshape(2, 4, -1)
    a, b, c, d = halves[:, 0], halves[:, 1], halves[:, 2], halves[:, 3]
    ab, cd = add(a, b), add(c, d)
    b_row = add(add(b, b), cd)  # 2b + c + d
    d_row = add(add(d, d), ab)  # a + b + 2d
    cd4 = add(add(cd, cd), add(cd, cd))
    ab4 = add(add(ab, ab), add(ab, ab))
    fourth = add(cd4, d_row)  # a + b + 4c + 6d
    second = add(ab4, b_row)  # 4a + 6b + c + d
    first = add(d_row, second)  # 5a + 7b + c + 3d
    third = add(b_row, fourth)  # a + 3b + 5c + 7d
    mixed = np.stack([first, second, third, fourth], axis=1)  # (2, 4, n)
    sums = add(mixed[0], mixed[1])
    return add(mixed, sums[None]).reshape(WIDTH, -1)


def permute_many(states: np.ndarray) -> np.ndarray:
    """The Poseidon2 permutation of each column of an (8, n) uint64 array."""
    state = _external(np.asarray(states, dtype=np.uint64))
    for constants in _EXTERNAL[:FULL_ROUNDS_BEFORE]:
        state = _external(_power7(add(state, constants)))
    for constant in _INTERNAL:
        first = _power7(add(state[0], constant))
        state = np.concatenate([first[None], state[1:]])
        total = state[0]
        for row in state[1:]:
            total = add(total, row)
        state = add(multiply(state, _DIAGONAL), total[None])
    for constants in _EXTERNAL[FULL_ROUNDS_BEFORE:]:
        state = _external(_power7(add(state, constants)))
    return state


def hash_many(sequences: np.ndarray) -> np.ndarray:
    """The sponge digest (as `poseidon2.hash_elements`) of each row of an (n, length)
    array of field elements: an (n, 4) uint64 array."""
    sequences = np.asarray(sequences, dtype=np.uint64)
    count, length = sequences.shape
    padded_length = length + 1 + (-(length + 1) % RATE)
    padded = np.zeros((count, padded_length), dtype=np.uint64)
    padded[:, :length] = sequences
    padded[:, length] = ONE
    state = np.zeros((WIDTH, count), dtype=np.uint64)
    for start in range(0, padded_length, RATE):
        block = padded[:, start : start + RATE].T
        state = np.concatenate([add(state[:RATE], block), state[RATE:]])
        state = permute_many(state)
    return state[:RATE].T.copy()
