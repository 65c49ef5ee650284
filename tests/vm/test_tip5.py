"""Tests for vm/tip5.py: the Tip5 and program-digest conformance vectors (docs/vm.md), the
cascade-limb rule, and a differential test of the compiled permutation
against the pure-Python reference on random and edge-value states."""

import pytest
from hypothesis import strategies as st

from vm import tip5
from vm.tip5 import (
    P,
    cascade_limbs,
    cascade_limbs_many,
    hash10,
    hash_varlen,
    permutation,
    permutation_trace,
)

EDGE_VALUES = (0, 1, 2, P - 1, P - 2, 2**32 - 1, 2**32, 2**64 - 2**32, 2**63, 2**63 - 1)
words = st.one_of(st.sampled_from(EDGE_VALUES), st.integers(min_value=0, max_value=P - 1))
states = st.lists(words, min_size=16, max_size=16)


@pytest.fixture(autouse=True, params=["plain", "compiled"])
def implementation(request, monkeypatch):
    """Run every test against both implementations behind the public functions."""
    monkeypatch.setattr(tip5, "COMPILE_AFTER", 0 if request.param == "compiled" else 10**18)
    return request.param


def hex_digest(digest):
    return b"".join(word.to_bytes(8, "little") for word in digest).hex()


# Opcodes (vm.isa): push 1, halt 0, add 42, write_io 19, call 49, dup 33, skiz 2,
# recurse 24, return 16, pop 3, read_io 73, swap 41.
PROGRAM_HALT = [0]
PROGRAM_PUSH_ADD_WRITE = [1, 1, 1, 2, 42, 19, 1, 0]


# --- constants -----------------------------------------------------------------------


def test_sbox_table_is_the_cube_map():
    assert len(tip5.SBOX) == 256
    assert sorted(tip5.SBOX) == list(range(256))
    assert all(tip5.SBOX[b] == ((b + 1) ** 3 - 1) % 257 for b in range(256))
    assert (tip5.SBOX[0], tip5.SBOX[1], tip5.SBOX[2], tip5.SBOX[255]) == (0, 7, 26, 255)


def test_constant_shapes():
    assert P == 18446744069414584321
    assert len(tip5.ROUND_CONSTANTS) == 80 and all(0 <= c < P for c in tip5.ROUND_CONSTANTS)
    assert len(tip5.MDS_FIRST_COLUMN) == 16 and all(0 < m < 2**16 for m in tip5.MDS_FIRST_COLUMN)
    assert tip5.MONTGOMERY_R == 2**32 - 1 and tip5.MONTGOMERY_R_INVERSE == 18446744065119617025


def test_split_and_lookup_examples():  # the S-box maps 0 -> 0, 1 -> 1, 2 -> 8
    assert [tip5.reference_split_and_lookup(x) for x in (0, 1, 2)] == [0, 1, 8]


# --- Appendix B.1 ----------------------------------------------------------------------


def test_b1_1_permutation_snapshot():
    state = [
        0x1063C4BF5D8BB0DD,
        0xDB6275D371FE05D0,
        0xDE58CAE30144CDAE,
        0xC774E64681D3622E,
        0xC4A947D10A5AA466,
        0xDA5577A00A913151,
        0xE80E978B3836DCD0,
        0x8DD161F0A3AC00C2,
        0x6857F251A9C0F693,
        0x4923A3683046178E,
        0x6E6FC54A9B81010B,
        0xCB84FA5BB9FAEC36,
        0x93CBF9DB4C5CB1EA,
        0xF215D9B92DC87266,
        0x88F09783D2AE3C57,
        0x6D29F9CE94A90B71,
    ]
    expected = (
        0xA5D32D629E60D72E,
        0x5516EF90D2773D74,
        0x65D3FA1CDE45F6CB,
        0x7BF0E725DFA5906B,
        0x67A2DB4B141B90E9,
        0x91DB162D32309083,
        0xEFEC1D00146A05C9,
        0xCCA0D6566BCA8186,
        0x405BAEB5B3F87F02,
        0xD897015870278F76,
        0xD4B2EE4810AAC7D1,
        0x27B451E706A5C2FC,
        0xE9B4177F0A0EFFE4,
        0x0C60DEF0F2C5287F,
        0x703AA06D327CCC34,
        0x536F23550EBF98F1,
    )
    assert permutation(state) == expected
    assert tip5.reference_permutation_trace(state)[-1] == expected


def test_b1_2_chained_fixed_length_hashes():
    preimage = [0] * 10
    for i in range(6):
        preimage[i : i + 5] = hash10(preimage)
    assert hex_digest(hash10(preimage)) == (
        "109cc2fe453bd9962f754b96d8f5b919b60af030940a275f5540da195fef65ee651c1b6fa19b2c6a"
    )


def test_b1_3_sum_of_varlen_digests():
    total = [0] * 5
    for i in range(20):
        total = [(a + b) % P for a, b in zip(total, hash_varlen(list(range(i))))]
    assert hex_digest(total) == (
        "efbafa86622a9c69652f8a1c4ffd734f021ad23a0a8085412a877de0f9170b18ea4ff69b6fff9a03"
    )


def test_b1_4_permutation_of_zero():
    assert permutation([0] * 16) == (
        9513097171871388188,
        3642894535466991979,
        11900176395730479649,
        2833868294984721560,
        13162030402806853734,
        7298820437337462149,
        7309960967578619849,
        5771961918525632945,
        9033987145334062528,
        17091107411642127967,
        14491063761991657932,
        921297860939203994,
        14761216787163201376,
        4658636456911727154,
        16629099993905651428,
        13073621988708012208,
    )


@pytest.mark.parametrize(
    "preimage, digest",
    [
        (
            [0] * 10,
            (
                941080798860502477,
                5295886365985465639,
                14728839126885177993,
                10358449902914633406,
                14220746792122877272,
            ),
        ),  # B.1.5
        (
            list(range(1, 11)),
            (
                10818500669765797222,
                7750847691288459381,
                17271032843874487437,
                1108553480921430050,
                6029014391627118288,
            ),
        ),  # B.1.6
        (
            [3, 2, 1, 0, 0, 0, 0, 0, 0, 0],
            (
                3955600910754912335,
                7980164814549394608,
                7567971975673849072,
                5167159854114594756,
                9327941717369272570,
            ),
        ),  # B.1.7
    ],
)
def test_b1_5_to_7_hash10(preimage, digest):
    assert hash10(preimage) == digest


def test_b1_8_hash_varlen_of_empty():
    assert hash_varlen([]) == (
        2335476311349343808,
        1307299401243390569,
        3414029282375928929,
        2141465175172981451,
        5966553798353564426,
    )


def test_b1_9_merkle_pair():
    n2 = hash10([4] * 5 + [5] * 5)
    assert n2 == (
        9936003838103828196,
        4720685508503505130,
        9853879514234145517,
        4092752592366163153,
        1510419202381013222,
    )
    assert hash10(list(n2) + [3] * 5) == (
        5778616925620397101,
        977151889104403440,
        5665740249988204958,
        12002820465748076267,
        13580803340493125858,
    )


def test_b2_1_digest_of_halt():
    expected = (
        0x4338DE79520B3949,
        0xE6A2129B28850DC9,
        0xFD3CD0986A860450,
        0x69FDBA910CEBA7BC,
        0x7E5B118C9594C062,
    )
    assert expected == (
        4843866011885844809,
        16618866032559590857,
        18247689143239181392,
        7637465675240023996,
        9104890367162237026,
    )
    assert hash_varlen(PROGRAM_HALT) == expected


# --- sponge helpers ----------------------------------------------------------------------


@pytest.mark.parametrize("length", [0, 1, 8, 9, 10, 11, 19, 20, 33])
def test_varlen_padding_and_inputs(length):
    program = list(range(100, 100 + length))
    padded = tip5.pad_varlen(program)
    assert len(padded) % 10 == 0 and len(padded) == -(-(length + 1) // 10) * 10
    assert padded[length] == 1 and set(padded[length + 1 :]) <= {0}
    inputs = tip5.varlen_permutation_inputs(program)
    assert len(inputs) == -(-(length + 1) // 10)
    assert inputs[0][10:] == (0,) * 6
    for index, state in enumerate(inputs):
        assert list(state[:10]) == padded[10 * index : 10 * index + 10]
        if index:
            assert state[10:] == permutation(inputs[index - 1])[10:]
    assert hash_varlen(program) == permutation(inputs[-1])[:5]


def test_wrong_lengths_are_rejected():
    with pytest.raises(ValueError):
        permutation([0] * 15)
    with pytest.raises(ValueError):
        hash10([0] * 9)


# --- traces and cascade limbs ---------------------------------------------------------------


def test_trace_shape_and_ends():
    state = tuple(range(16))
    trace = permutation_trace(state)
    assert len(trace) == 6 and all(len(row) == 16 for row in trace)
    assert trace[0] == state and trace[5] == permutation(state)


def test_cascade_limbs_of_one_permutation():
    limbs = cascade_limbs([0] * 16)
    assert len(limbs) <= 80 and all(0 <= limb < 2**16 for limb in limbs)
    assert 0 in limbs  # the input state's lanes are 0
    assert limbs == tip5.reference_cascade_limbs([0] * 16)


@pytest.mark.parametrize(
    "program, height",
    [
        (PROGRAM_HALT, 66),  # B.4.1
        (PROGRAM_PUSH_ADD_WRITE, 68),  # B.4.3
        (
            [
                1,
                33,
                1,
                100,
                1,
                108,
                1,
                114,
                1,
                111,
                1,
                87,
                1,
                32,
                1,
                44,
                1,
                111,
                1,
                108,
                1,
                108,
                1,
                101,
                1,
                72,
                19,
                5,
                19,
                5,
                19,
                3,
                0,
            ],
            273,
        ),  # B.4.4 hello world, 33 words
        (
            [1, 10, 49, 4, 33, 0, 19, 1, 1, P - 1, 42, 33, 0, 2, 24, 19, 1, 0],
            142,
        ),  # B.4.8 countdown
        (
            [
                1,
                0,
                1,
                1,
                73,
                1,
                33,
                0,
                2,
                49,
                16,
                3,
                1,
                19,
                1,
                0,  # B.4.9 fibonacci, fib_loop at 16
                1,
                P - 1,
                42,
                41,
                2,
                33,
                1,
                42,
                41,
                1,
                41,
                2,
                33,
                0,
                2,
                24,
                16,
            ],
            272,
        ),
    ],
)
def test_cascade_height_of_program_attestation(program, height):
    inputs = tip5.varlen_permutation_inputs(program)
    assert len(cascade_limbs_many(inputs)) == height
    union = frozenset().union(*(cascade_limbs(state) for state in inputs))
    assert union == cascade_limbs_many(inputs)


def test_no_states_have_no_limbs():
    assert cascade_limbs_many([]) == frozenset()
