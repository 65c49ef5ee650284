"""Poseidon2 over Goldilocks (compiler.neural.poseidon2): the permutation against the
published test vectors, the sponge's padding, the byte packing and the leaf tree; the
numpy lanes (compiler.neural.poseidon2_numpy) equal to the pure-Python functions."""

from __future__ import annotations

import random

import numpy as np
import pytest

from compiler.neural import poseidon2
from compiler.neural.poseidon2 import (
    LEAF_ELEMENTS,
    P,
    byte_elements,
    hash_bytes,
    hash_elements,
    permute,
    tree_digest,
)
from compiler.neural.poseidon2_numpy import add, hash_many, multiply, permute_many

EDGES = [0, 1, 2, P - 1, P - 2, 2**32 - 1, 2**32, 2**32 + 1, 2**63, 2**64 - 2**32, P // 2]

# Published outputs of the width-8 instance (HorizenLabs' constants, external matrix
# circ(2·M4, M4), internal diagonal MAT_DIAG8_M_1).  Source: Plonky3/Plonky3,
# goldilocks/src/poseidon2.rs, module `tests`, function `hl_poseidon2_goldilocks_width_8`
# ("recreates the poseidon2 implementation in https://github.com/HorizenLabs/poseidon2")
# and its tests `test_poseidon2_width_8_zeroes`, `test_poseidon2_width_8_range` and
# `test_poseidon2_width_8_random` (the 2024 version whose internal layer is
# DiffusionMatrixGoldilocks over MATRIX_DIAG_8_GOLDILOCKS_U64 = HorizenLabs' diagonal;
# later versions of that file switched to a different diagonal and changed the vectors).
VECTORS = {
    "zeroes": (
        [0] * 8,
        [4214787979728720400, 12324939279576102560, 10353596058419792404,
         15456793487362310586, 10065219879212154722, 16227496357546636742,
         2959271128466640042, 14285409611125725709],
    ),
    "range 0..7": (
        list(range(8)),
        [14266028122062624699, 5353147180106052723, 15203350112844181434,
         17630919042639565165, 16601551015858213987, 10184091939013874068,
         16774100645754596496, 12047415603622314780],
    ),
    "random (sage, seed 2468)": (
        [5116996373749832116, 8931548647907683339, 17132360229780760684,
         11280040044015983889, 11957737519043010992, 15695650327991256125,
         17604752143022812942, 543194415197607509],
        [1831346684315917658, 13497752062035433374, 12149460647271516589,
         15656333994315312197, 4671534937670455565, 3140092508031220630,
         4251208148861706881, 6973971209430822232],
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", VECTORS)
def test_permutation_matches_published_vectors(name):
    given, expected = VECTORS[name]
    assert permute(given) == expected


def test_instance_shape():
    assert len(poseidon2.EXTERNAL_CONSTANTS) == 8
    assert all(len(row) == 8 for row in poseidon2.EXTERNAL_CONSTANTS)
    assert len(poseidon2.INTERNAL_CONSTANTS) == 22
    assert all(0 <= c < P for row in poseidon2.EXTERNAL_CONSTANTS for c in row)
    assert all(0 <= c < P for c in poseidon2.INTERNAL_CONSTANTS + poseidon2.INTERNAL_DIAGONAL)


def test_permutation_rejects_wrong_width():
    with pytest.raises(ValueError, match="8 elements"):
        permute([0] * 7)


def test_sponge_is_the_padded_absorption():
    """Rate 4, "10*" padding: the digest of [a, b, c] is one permutation of
    [a, b, c, 1, 0, 0, 0, 0]; of four elements, two permutations."""
    assert hash_elements([5, 6, 7]) == tuple(permute([5, 6, 7, 1, 0, 0, 0, 0])[:4])
    first = permute([1, 2, 3, 4, 0, 0, 0, 0])
    second = permute([(first[0] + 1) % P] + first[1:])
    assert hash_elements([1, 2, 3, 4]) == tuple(second[:4])


def test_sponge_padding_separates_lengths():
    inputs = [[], [0], [0, 0], [1], [0, 1], [0, 0, 0, 0], [0, 0, 0, 0, 0], [P - 1]]
    digests = {hash_elements(sequence) for sequence in inputs}
    assert len(digests) == len(inputs)


def test_sponge_rejects_non_field_elements():
    with pytest.raises(ValueError, match="field elements"):
        hash_elements([P])


def test_byte_packing_is_length_aware():
    assert byte_elements(b"") == [0]
    assert byte_elements(b"\x01") == [1, 1]
    assert byte_elements(bytes(range(1, 9))) == [8, 0x07060504030201, 0x08]
    samples = [b"", b"\x00", b"\x00" * 7, b"\x00" * 8, b"\x01", b"\x01\x00", b"\xff" * 7]
    assert len({hash_bytes(sample) for sample in samples}) == len(samples)


def test_hash_bytes_is_hex_of_the_tree_digest():
    digest = hash_bytes(b"weights")
    assert len(digest) == 64 and digest == hash_bytes(bytearray(b"weights"))
    elements = byte_elements(b"weights")
    expected = hash_elements([len(elements), *hash_elements(elements)])  # one short leaf
    assert digest == "".join(f"{element:016x}" for element in expected)


def test_tree_digest_composes_leaf_sponges():
    rng = random.Random(3)
    elements = [rng.randrange(P) for _ in range(2 * LEAF_ELEMENTS + 37)] + EDGES[:4]
    leaves = [elements[i : i + LEAF_ELEMENTS] for i in range(0, len(elements), LEAF_ELEMENTS)]
    digests = [x for leaf in leaves for x in hash_elements(leaf)]
    assert tree_digest(elements) == hash_elements([len(elements), *digests])
    exact = elements[: 2 * LEAF_ELEMENTS]  # no short leaf
    digests = [x for i in (0, LEAF_ELEMENTS) for x in hash_elements(exact[i : i + LEAF_ELEMENTS])]
    assert tree_digest(exact) == hash_elements([len(exact), *digests])


def lanes(count: int, seed: int) -> list[int]:
    rng = random.Random(seed)
    return EDGES + [rng.randrange(P) for _ in range(count)]


def test_numpy_field_operations_equal_integers():
    left = lanes(3000, 1)
    right = lanes(3000, 2)[::-1]
    a, b = np.array(left, dtype=np.uint64), np.array(right, dtype=np.uint64)
    assert multiply(a, b).tolist() == [x * y % P for x, y in zip(left, right)]
    assert add(a, b).tolist() == [(x + y) % P for x, y in zip(left, right)]
    squares = np.array(EDGES, dtype=np.uint64)
    assert multiply(squares, squares).tolist() == [x * x % P for x in EDGES]


def test_numpy_permutation_equals_the_reference():
    states = [given for given, _ in VECTORS.values()]
    values = lanes(8 * 20, 4)
    states += [values[i : i + 8] for i in range(0, 8 * 20, 8)]
    states.append([P - 1] * 8)
    result = permute_many(np.array(states, dtype=np.uint64).T).T.tolist()
    assert result == [permute(state) for state in states]
    assert result[: len(VECTORS)] == [expected for _, expected in VECTORS.values()]


@pytest.mark.parametrize("length", [0, 1, 3, 4, 5, 8, 13])
def test_numpy_sponge_equals_the_reference(length):
    rng = random.Random(length)
    rows = [[rng.choice(EDGES + [rng.randrange(P)]) for _ in range(length)] for _ in range(6)]
    digests = hash_many(np.array(rows, dtype=np.uint64).reshape(6, length)).tolist()
    assert digests == [list(hash_elements(row)) for row in rows]
