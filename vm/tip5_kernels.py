"""The compiled Tip5 permutation (numba), with its trace and cascade limbs.

Loaded by `vm.tip5` only once a run has asked for enough permutations to pay
for numba's start-up; `vm.tip5` holds the constants, the plain-Python
permutation and the public interface.  Field arithmetic comes from
`vm.field_kernels`.  Arrays are uint64; globals are frozen into the compiled code.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from numba import njit

from vm.field_kernels import add_u64, mul_u64, reduce128
from vm.tip5 import (
    MDS_FIRST_COLUMN,
    MONTGOMERY_R,
    MONTGOMERY_R_INVERSE,
    NUMBER_OF_ROUNDS,
    NUMBER_OF_SPLIT_AND_LOOKUP_LANES,
    ROUND_CONSTANTS,
    SBOX,
    STATE_SIZE,
    TRACE_LENGTH,
)

_U64 = np.uint64
_ZERO, _ONE = _U64(0), _U64(1)
_SHIFT32 = _U64(32)
_MASK8, _MASK16, _MASK32 = _U64(0xFF), _U64(0xFFFF), _U64(0xFFFFFFFF)
_R64 = _U64(MONTGOMERY_R)
_R_INVERSE64 = _U64(MONTGOMERY_R_INVERSE)
_SBOX_ARRAY = np.array(SBOX, dtype=np.uint64)
_ROUND_CONSTANTS_ARRAY = np.array(ROUND_CONSTANTS, dtype=np.uint64)
_MDS_MATRIX = np.array(
    [
        [MDS_FIRST_COLUMN[(i - j) % STATE_SIZE] for j in range(STATE_SIZE)]
        for i in range(STATE_SIZE)
    ],
    dtype=np.uint64,
)


@njit(cache=True, inline="always")
def _split_and_lookup(x):
    """The lookup S-box on one lane: bytes of the Montgomery form through SBOX."""
    montgomery = mul_u64(x, _R64)
    looked_up = _ZERO
    for byte_index in range(8):
        shift = _U64(8 * byte_index)
        looked_up |= _SBOX_ARRAY[(montgomery >> shift) & _MASK8] << shift
    return mul_u64(looked_up, _R_INVERSE64)


@njit(cache=True)
def _trace_into(state, trace):
    """Write the 6 trace states of the permutation of `state` into trace[0..5]."""
    after_sbox = np.empty(STATE_SIZE, dtype=np.uint64)
    trace[0, :] = state
    for round_index in range(NUMBER_OF_ROUNDS):
        current = trace[round_index]
        for i in range(NUMBER_OF_SPLIT_AND_LOOKUP_LANES):
            after_sbox[i] = _split_and_lookup(current[i])
        for i in range(NUMBER_OF_SPLIT_AND_LOOKUP_LANES, STATE_SIZE):
            square = mul_u64(current[i], current[i])
            after_sbox[i] = mul_u64(mul_u64(square, square), mul_u64(square, current[i]))
        for i in range(STATE_SIZE):  # circulant MDS on 32-bit halves: each sum < 2^52
            sum_low = _ZERO
            sum_high = _ZERO
            for j in range(STATE_SIZE):
                sum_low += _MDS_MATRIX[i, j] * (after_sbox[j] & _MASK32)
                sum_high += _MDS_MATRIX[i, j] * (after_sbox[j] >> _SHIFT32)
            low = (sum_high << _SHIFT32) + sum_low  # sum_high * 2^32 + sum_low as (high, low)
            high = sum_high >> _SHIFT32
            if low < sum_low:
                high += _ONE
            round_constant = _ROUND_CONSTANTS_ARRAY[STATE_SIZE * round_index + i]
            trace[round_index + 1, i] = add_u64(reduce128(high, low), round_constant)


@njit(cache=True)
def _trace(state):
    trace = np.empty((TRACE_LENGTH, STATE_SIZE), dtype=np.uint64)
    _trace_into(state, trace)
    return trace


@njit(cache=True, inline="always")
def _as_tuple(row):
    """A 16-word row as a tuple: numba boxes this to Python ints faster than an array."""
    return (
        row[0],
        row[1],
        row[2],
        row[3],
        row[4],
        row[5],
        row[6],
        row[7],
        row[8],
        row[9],
        row[10],
        row[11],
        row[12],
        row[13],
        row[14],
        row[15],
    )


@njit(cache=True)
def _permutation_tuple(state):
    return _as_tuple(_trace(state)[NUMBER_OF_ROUNDS])


@njit(cache=True)
def _limb_array(trace):
    """The 80 cascade limb look-ups of one permutation trace, repeats included."""
    limbs = np.empty(NUMBER_OF_ROUNDS * NUMBER_OF_SPLIT_AND_LOOKUP_LANES * 4, dtype=np.uint16)
    position = 0
    for state_index in range(NUMBER_OF_ROUNDS):
        for lane in range(NUMBER_OF_SPLIT_AND_LOOKUP_LANES):
            montgomery = mul_u64(trace[state_index, lane], _R64)
            for limb_index in range(4):
                limbs[position] = np.uint16((montgomery >> _U64(16 * limb_index)) & _MASK16)
                position += 1
    return limbs


@njit(cache=True)
def _state_limb_array(state):
    return _limb_array(_trace(state))


@njit(cache=True)
def _mark_limbs_many(states, bitmap):
    trace = np.empty((TRACE_LENGTH, STATE_SIZE), dtype=np.uint64)
    for row in range(states.shape[0]):
        _trace_into(states[row], trace)
        for limb in _limb_array(trace):
            bitmap[limb] = True


# ---------------------------------------------------------------------------
# Entry points for vm.tip5: Python ints and tuples in and out.


def _as_array(state: Sequence[int]) -> np.ndarray:
    return np.array(state, dtype=np.uint64)


def permutation(state: Sequence[int]) -> tuple[int, ...]:
    return _permutation_tuple(_as_array(state))


def permutation_trace(state: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    return tuple(map(tuple, _trace(_as_array(state)).tolist()))


def cascade_limbs(state: Sequence[int]) -> frozenset[int]:
    return frozenset(_state_limb_array(_as_array(state)).tolist())


def cascade_limbs_many(states: Iterable[Sequence[int]]) -> frozenset[int]:
    if isinstance(states, np.ndarray):
        array = np.ascontiguousarray(states, dtype=np.uint64)
    else:
        array = np.array(list(states), dtype=np.uint64).reshape(-1, STATE_SIZE)
    bitmap = np.zeros(1 << 16, dtype=np.bool_)
    _mark_limbs_many(array, bitmap)
    return frozenset(np.flatnonzero(bitmap).tolist())
