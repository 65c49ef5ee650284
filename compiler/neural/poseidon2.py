"""Poseidon2 over Goldilocks, the standard width-8 instance, and a sponge hash on it.

Input: 8 field elements (`permute`), a sequence of field elements (`hash_elements`) or
bytes (`hash_bytes`).  Output: the permuted state; a digest of 4 field elements, or its
hex text.  optimizer.md §7 ("weights are code") hashes the model's weight file with it.

**The permutation** is that of the Poseidon2 paper (Grassi, Khovratovich, Schofnegger,
eprint 2023/323) as its authors' reference implementation computes it
(github.com/HorizenLabs/poseidon2, plain_implementations/src/poseidon2/poseidon2.rs, the
instance `POSEIDON2_GOLDILOCKS_8_PARAMS` of poseidon2_instance_goldilocks.rs): width 8,
S-box x^7, 8 full rounds (4 before, 4 after) and 22 partial rounds.

    state <- external(state)
    4 times:  add the round's 8 constants, x^7 on every element, external(state)
    22 times: add the round's constant to element 0, x^7 on element 0, internal(state)
    4 times:  add the round's 8 constants, x^7 on every element, external(state)

`external` applies the 4x4 matrix M4 = [[5,7,1,3],[4,6,1,1],[1,3,5,7],[1,1,4,6]] to each
half of the state, then adds to every element the sum of the elements in its position
of both halves (that is, the matrix circ(2·M4, M4)).  `internal` is 1 + diag(d): every
element becomes d_i·x_i + sum(x).

The constants below (`EXTERNAL_CONSTANTS`, `INTERNAL_CONSTANTS`, `INTERNAL_DIAGONAL`:
the diagonal minus one, "MAT_DIAG8_M_1") are facts carried over as data from that
file's current version (the same numbers Plonky3 keeps as
`HL_GOLDILOCKS_8_EXTERNAL_ROUND_CONSTANTS`, `HL_GOLDILOCKS_8_INTERNAL_ROUND_CONSTANTS`,
`MATRIX_DIAG_8_GOLDILOCKS_U64` to test against it).  tests/optimizer/test_poseidon2.py checks
the permutation against the published test vectors.

**The sponge** (`hash_elements`): rate 4, capacity 4 -- a 4-element (256-bit) digest
with a 4-element capacity, about 128 bits of collision resistance, as the instance is
built for.  Padding "10*": append the element 1, then zeros up to a multiple of 4; so
the padded sequence determines the input (strip the zeros and the final 1).  Each block
of 4 is added to state[0:4], then the state is permuted; the digest is state[0:4].
The state starts at zero.

**Bytes** (`hash_bytes`): the byte length as one element, then the bytes in chunks of
7, each read little-endian (below 2^56 < p, so every chunk is one field element), the
last chunk padded with zero bytes (`byte_elements`); the length makes the packing
injective.  Those elements are cut into leaves of `LEAF_ELEMENTS` (the last one may be
shorter), each leaf is hashed by the sponge, and the digest is the sponge of [the number
of elements, the leaves' digests in order] (`tree_digest`).  The leaves are hashed side
by side on numpy lanes (compiler.neural.poseidon2_numpy), which a single sponge over
the whole input could not be: a 1 MB file takes about a second instead of ten.  The
hex digest is the 4 elements, each as 16 hex digits, most significant first.
"""

from __future__ import annotations

import numpy as np

P = 2**64 - 2**32 + 1
WIDTH = 8
RATE = 4
DIGEST_LENGTH = 4
BYTES_PER_ELEMENT = 7
LEAF_ELEMENTS = 256  # elements per leaf of `tree_digest`: 64 absorptions

# The 4 initial full rounds, then the 4 terminal ones: 8 constants each.
EXTERNAL_CONSTANTS = (
    (0xDD5743E7F2A5A5D9, 0xCB3A864E58ADA44B, 0xFFA2449ED32F8CDC, 0x42025F65D6BD13EE,
     0x7889175E25506323, 0x34B98BB03D24B737, 0xBDCC535ECC4FAA2A, 0x5B20AD869FC0D033),
    (0xF1DDA5B9259DFCB4, 0x27515210BE112D59, 0x4227D1718C766C3F, 0x26D333161A5BD794,
     0x49B938957BF4B026, 0x4A56B5938B213669, 0x1120426B48C8353D, 0x6B323C3F10A56CAD),
    (0xCE57D6245DDCA6B2, 0xB1FC8D402BBA1EB1, 0xB5C5096CA959BD04, 0x6DB55CD306D31F7F,
     0xC49D293A81CB9641, 0x1CE55A4FE979719F, 0xA92E60A9D178A4D1, 0x002CC64973BCFD8C),
    (0xCEA721CCE82FB11B, 0xE5B55EB8098ECE81, 0x4E30525C6F1DDD66, 0x43C6702827070987,
     0xACA68430A7B5762A, 0x3674238634DF9C93, 0x88CEE1C825E33433, 0xDE99AE8D74B57176),
    (0x014EF1197D341346, 0x9725E20825D07394, 0xFDB25AEF2C5BAE3B, 0xBE5402DC598C971E,
     0x93A5711F04CDCA3D, 0xC45A9A5B2F8FB97B, 0xFE8946A924933545, 0x2AF997A27369091C),
    (0xAA62C88E0B294011, 0x058EB9D810CE9F74, 0xB3CB23ECED349AE4, 0xA3648177A77B4A84,
     0x43153D905992D95D, 0xF4E2A97CDA44AA4B, 0x5BAA2702B908682F, 0x082923BDF4F750D1),
    (0x98AE09A325893803, 0xF8A6475077968838, 0xCEB0735BF00B2C5F, 0x0A1A5D953888E072,
     0x2FCB190489F94475, 0xB5BE06270DEC69FC, 0x739CB934B09ACF8B, 0x537750B75EC7F25B),
    (0xE9DD318BAE1F3961, 0xF7462137299EFE1A, 0xB1F6B8EEE9ADB940, 0xBDEBCC8A809DFE6B,
     0x40FC1F791B178113, 0x3AC1C3362D014864, 0x9A016184BDB8AEBA, 0x95F2394459FBC25E),
)  # fmt: skip

# One constant per partial round, added to element 0.
INTERNAL_CONSTANTS = (
    0x488897D85FF51F56, 0x1140737CCB162218, 0xA7EEB9215866ED35, 0x9BD2976FEE49FCC9,
    0xC0C8F0DE580A3FCC, 0x4FB2DAE6EE8FC793, 0x343A89F35F37395B, 0x223B525A77CA72C8,
    0x56CCB62574AAA918, 0xC4D507D8027AF9ED, 0xA080673CF0B7E95C, 0xF0184884EB70DCF8,
    0x044F10B0CB3D5C69, 0xE9E3F7993938F186, 0x1B761C80E772F459, 0x606CEC607A1B5FAC,
    0x14A0C2E1D45F03CD, 0x4EACE8855398574F, 0xF905CA7103EFF3E6, 0xF8C8F8D20862C059,
    0xB524FE8BDD678E5A, 0xFBB7865901A1EC41,
)  # fmt: skip

# The internal matrix is 1 + diag(INTERNAL_DIAGONAL).
INTERNAL_DIAGONAL = (
    0xA98811A1FED4E3A5, 0x1CC48B54F377E2A0, 0xE40CD4F6C5609A26, 0x11DE79EBCA97A4A3,
    0x9177C73D8B7E929C, 0x2A6FE8085797E791, 0x3DE6E93329F8D5AD, 0x3F7AF9125DA962FE,
)  # fmt: skip

FULL_ROUNDS_BEFORE = 4
PARTIAL_ROUNDS = len(INTERNAL_CONSTANTS)


def _external(state: list[int]) -> list[int]:
    """circ(2·M4, M4) on 8 elements: M4 on each half, then each element plus the sum of
    the elements in its position of both halves.  The result is reduced below p."""
    halves = []
    for start in (0, 4):
        a, b, c, d = state[start : start + 4]
        halves.append(
            (
                5 * a + 7 * b + c + 3 * d,
                4 * a + 6 * b + c + d,
                a + 3 * b + 5 * c + 7 * d,
                a + b + 4 * c + 6 * d,
            )
        )
    low, high = halves
    sums = [low[i] + high[i] for i in range(4)]
    return [(low[i] + sums[i]) % P for i in range(4)] + [(high[i] + sums[i]) % P for i in range(4)]


def _power7(x: int) -> int:
    square = x * x % P
    cube = square * x % P
    return cube * (square * square % P) % P


def _full_round(state: list[int], constants) -> list[int]:
    return _external([_power7((x + c) % P) for x, c in zip(state, constants)])


def _partial_rounds(state: list[int]) -> list[int]:
    """The 22 partial rounds, unrolled over the 8 elements (the hot loop)."""
    s0, s1, s2, s3, s4, s5, s6, s7 = state
    d0, d1, d2, d3, d4, d5, d6, d7 = INTERNAL_DIAGONAL
    for constant in INTERNAL_CONSTANTS:
        x = (s0 + constant) % P
        square = x * x % P
        x = square * x % P * (square * square % P) % P
        total = x + s1 + s2 + s3 + s4 + s5 + s6 + s7
        s0 = (x * d0 + total) % P
        s1 = (s1 * d1 + total) % P
        s2 = (s2 * d2 + total) % P
        s3 = (s3 * d3 + total) % P
        s4 = (s4 * d4 + total) % P
        s5 = (s5 * d5 + total) % P
        s6 = (s6 * d6 + total) % P
        s7 = (s7 * d7 + total) % P
    return [s0, s1, s2, s3, s4, s5, s6, s7]


def permute(state) -> list[int]:
    """The Poseidon2 permutation of 8 field elements (ints in [0, p))."""
    if len(state) != WIDTH:
        raise ValueError(f"Poseidon2 permutes {WIDTH} elements, not {len(state)}")
    state = _external([int(x) % P for x in state])
    for constants in EXTERNAL_CONSTANTS[:FULL_ROUNDS_BEFORE]:
        state = _full_round(state, constants)
    state = _partial_rounds(state)
    for constants in EXTERNAL_CONSTANTS[FULL_ROUNDS_BEFORE:]:
        state = _full_round(state, constants)
    return state


def hash_elements(elements) -> tuple[int, ...]:
    """The sponge's digest (4 field elements) of a sequence of field elements."""
    padded = [int(x) for x in elements]
    if any(not 0 <= x < P for x in padded):
        raise ValueError("the sponge hashes field elements, in [0, p)")
    padded.append(1)
    padded.extend([0] * (-len(padded) % RATE))
    state = [0] * WIDTH
    for start in range(0, len(padded), RATE):
        block = padded[start : start + RATE]
        state = permute([(x + y) % P for x, y in zip(state[:RATE], block)] + state[RATE:])
    return tuple(state[:DIGEST_LENGTH])


def byte_words(data: bytes) -> np.ndarray:
    """The field elements `hash_bytes` absorbs, as uint64: the length, then 7-byte chunks."""
    chunks = -(-len(data) // BYTES_PER_ELEMENT)
    flat = np.zeros(chunks * BYTES_PER_ELEMENT, dtype=np.uint8)
    flat[: len(data)] = np.frombuffer(data, dtype=np.uint8)
    padded = np.zeros((chunks, 8), dtype=np.uint8)
    padded[:, :BYTES_PER_ELEMENT] = flat.reshape(chunks, BYTES_PER_ELEMENT)
    words = padded.view("<u8").reshape(-1).astype(np.uint64)
    return np.concatenate([np.array([len(data)], dtype=np.uint64), words])


def byte_elements(data: bytes) -> list[int]:
    return byte_words(data).tolist()


def tree_digest(elements) -> tuple[int, ...]:
    """The sponge of [len(elements), the digests of its leaves of LEAF_ELEMENTS]."""
    from compiler.neural.poseidon2_numpy import hash_many

    elements = np.asarray(elements, dtype=np.uint64)
    full = len(elements) // LEAF_ELEMENTS
    digests = []
    if full:
        leaves = elements[: full * LEAF_ELEMENTS].reshape(full, LEAF_ELEMENTS)
        digests = hash_many(leaves).reshape(-1).tolist()
    if len(elements) % LEAF_ELEMENTS:
        digests.extend(hash_elements(elements[full * LEAF_ELEMENTS :].tolist()))
    return hash_elements([len(elements), *digests])


def hex_digest(digest) -> str:
    return "".join(f"{element:016x}" for element in digest)


def hash_bytes(data: bytes) -> str:
    """The hex digest (64 hex digits) of a byte string."""
    return hex_digest(tree_digest(byte_words(bytes(data))))
