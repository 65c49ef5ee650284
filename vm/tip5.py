"""The Tip5 permutation and hash modes exactly as Triton VM uses them (docs/vm.md, The machine).

This file computes Tip5 permutations, their 6-state traces, the fixed-length
(`hash10`) and variable-length (`hash_varlen`) hashes, and the 16-bit cascade
limbs that each permutation adds to the cascade table (docs/vm.md, How tables are
counted).  Values at the interface are canonical Python ints in [0, P) and tuples.

Two implementations give the same results: a plain-Python one here
(`reference_*`, obviously right, about 0.3 ms a permutation), and the numba
one in `vm.tip5_kernels` (a few microseconds).  Loading the compiled one costs
numba's start-up, so the public functions use the plain one for the first
`COMPILE_AFTER` permutations of a process and the compiled one after that: a
short run starts quickly, a hash-heavy run is fast.  Tests compare the two.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache

from vm.field import P

MONTGOMERY_R = 2**64 % P  # 2^32 - 1
MONTGOMERY_R_INVERSE = pow(MONTGOMERY_R, P - 2, P)
STATE_SIZE = 16
RATE = 10
DIGEST_LENGTH = 5
NUMBER_OF_ROUNDS = 5
NUMBER_OF_SPLIT_AND_LOOKUP_LANES = 4
TRACE_LENGTH = NUMBER_OF_ROUNDS + 1

# fmt: off
SBOX = (  # Appendix A.1
    0, 7, 26, 63, 124, 215, 85, 254, 214, 228, 45, 185, 140, 173, 33, 240,
    29, 177, 176, 32, 8, 110, 87, 202, 204, 99, 150, 106, 230, 14, 235, 128,
    213, 239, 212, 138, 23, 130, 208, 6, 44, 71, 93, 116, 146, 189, 251, 81,
    199, 97, 38, 28, 73, 179, 95, 84, 152, 48, 35, 119, 49, 88, 242, 3,
    148, 169, 72, 120, 62, 161, 166, 83, 175, 191, 137, 19, 100, 129, 112, 55,
    221, 102, 218, 61, 151, 237, 68, 164, 17, 147, 46, 234, 203, 216, 22, 141,
    65, 57, 123, 12, 244, 54, 219, 231, 96, 77, 180, 154, 5, 253, 133, 165,
    98, 195, 205, 134, 245, 30, 9, 188, 59, 142, 186, 197, 181, 144, 92, 31,
    224, 163, 111, 74, 58, 69, 113, 196, 67, 246, 225, 10, 121, 50, 60, 157,
    90, 122, 2, 250, 101, 75, 178, 159, 24, 36, 201, 11, 243, 132, 198, 190,
    114, 233, 39, 52, 21, 209, 108, 238, 91, 187, 18, 104, 194, 37, 153, 34,
    200, 143, 126, 155, 236, 118, 64, 80, 172, 89, 94, 193, 135, 183, 86, 107,
    252, 13, 167, 206, 136, 220, 207, 103, 171, 160, 76, 182, 227, 217, 158, 56,
    174, 4, 66, 109, 139, 162, 184, 211, 249, 47, 125, 232, 117, 43, 16, 42,
    127, 20, 241, 25, 149, 105, 156, 51, 53, 168, 145, 247, 223, 79, 78, 226,
    15, 222, 82, 115, 70, 210, 27, 41, 1, 170, 40, 131, 192, 229, 248, 255,
)
# fmt: on
assert len(SBOX) == 256
assert all(SBOX[b] == ((b + 1) ** 3 - 1) % 257 for b in range(256)), "S-box table is wrong"

# fmt: off
ROUND_CONSTANTS = (  # Appendix A.2; round r uses ROUND_CONSTANTS[16r : 16r + 16]
    13630775303355457758, 16896927574093233874, 10379449653650130495, 1965408364413093495,
    15232538947090185111, 15892634398091747074, 3989134140024871768, 2851411912127730865,
    8709136439293758776, 3694858669662939734, 12692440244315327141, 10722316166358076749,
    12745429320441639448, 17932424223723990421, 7558102534867937463, 15551047435855531404,
    17532528648579384106, 5216785850422679555, 15418071332095031847, 11921929762955146258,
    9738718993677019874, 3464580399432997147, 13408434769117164050, 264428218649616431,
    4436247869008081381, 4063129435850804221, 2865073155741120117, 5749834437609765994,
    6804196764189408435, 17060469201292988508, 9475383556737206708, 12876344085611465020,
    13835756199368269249, 1648753455944344172, 9836124473569258483, 12867641597107932229,
    11254152636692960595, 16550832737139861108, 11861573970480733262, 1256660473588673495,
    13879506000676455136, 10564103842682358721, 16142842524796397521, 3287098591948630584,
    685911471061284805, 5285298776918878023, 18310953571768047354, 3142266350630002035,
    549990724933663297, 4901984846118077401, 11458643033696775769, 8706785264119212710,
    12521758138015724072, 11877914062416978196, 11333318251134523752, 3933899631278608623,
    16635128972021157924, 10291337173108950450, 4142107155024199350, 16973934533787743537,
    11068111539125175221, 17546769694830203606, 5315217744825068993, 4609594252909613081,
    3350107164315270407, 17715942834299349177, 9600609149219873996, 12894357635820003949,
    4597649658040514631, 7735563950920491847, 1663379455870887181, 13889298103638829706,
    7375530351220884434, 3502022433285269151, 9231805330431056952, 9252272755288523725,
    10014268662326746219, 15565031632950843234, 1209725273521819323, 6024642864597845108,
)
# fmt: on
assert len(ROUND_CONSTANTS) == STATE_SIZE * NUMBER_OF_ROUNDS
assert all(0 <= constant < P for constant in ROUND_CONSTANTS)

# fmt: off
MDS_FIRST_COLUMN = (  # the linear layer: new[i] = sum_j MDS_FIRST_COLUMN[(i - j) % 16] * s[j]
    61402, 1108, 28750, 33823, 7454, 43244, 53865, 12034,
    56951, 27521, 41351, 40901, 12021, 59689, 26798, 17845,
)
# fmt: on

# ---------------------------------------------------------------------------
# Public interface: Python ints and tuples.

COMPILE_AFTER = 64  # permutations computed in plain Python before loading the compiled kernels
_plain_permutations = [0]


@cache
def _load_kernels():
    from vm import tip5_kernels

    return tip5_kernels


def _implementation(permutations: int = 1):
    """The compiled kernels once this process has asked for enough permutations, else None."""
    if _plain_permutations[0] < COMPILE_AFTER:
        _plain_permutations[0] += permutations
        if _plain_permutations[0] <= COMPILE_AFTER:
            return None
    return _load_kernels()


def prefer_compiled() -> None:
    """Use the compiled kernels from now on (loading them now), e.g. before timing."""
    _plain_permutations[0] = COMPILE_AFTER
    _load_kernels()


def _checked(state: Sequence[int]) -> Sequence[int]:
    if len(state) != STATE_SIZE:
        raise ValueError(f"a Tip5 state has {STATE_SIZE} words, got {len(state)}")
    return state


def permutation(state: Sequence[int]) -> tuple[int, ...]:
    """The Tip5 permutation of 16 canonical words."""
    kernels = _implementation()
    if kernels is None:
        return reference_permutation_trace(_checked(state))[-1]
    return kernels.permutation(_checked(state))


def permutation_trace(state: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    """The 6 trace states: the input and the state after each of the 5 rounds."""
    kernels = _implementation()
    if kernels is None:
        return reference_permutation_trace(_checked(state))
    return kernels.permutation_trace(_checked(state))


def cascade_limbs(state: Sequence[int]) -> frozenset[int]:
    """The 16-bit cascade limbs looked up by one permutation of `state` (at most 80)."""
    return cascade_limbs_many([state])


def cascade_limbs_many(states: Iterable[Sequence[int]]) -> frozenset[int]:
    """The union of `cascade_limbs` over many permutation inputs (or a numpy array of
    them, one per row of 16 uint64 words)."""
    if hasattr(states, "shape"):  # an array: checked by its shape, passed on as it is
        if len(states.shape) != 2 or states.shape[1] != STATE_SIZE:
            raise ValueError(f"a Tip5 state has {STATE_SIZE} words, got shape {states.shape}")
    else:
        states = [_checked(state) for state in states]
    kernels = _implementation(len(states))
    if kernels is None:
        rows = states.tolist() if hasattr(states, "shape") else states
        return frozenset().union(*map(reference_cascade_limbs, rows))
    return kernels.cascade_limbs_many(states)


def hash10(words: Sequence[int]) -> tuple[int, ...]:
    """Fixed-length hash: 10 words and six 1s, one permutation, first 5 words."""
    if len(words) != RATE:
        raise ValueError(f"hash10 takes {RATE} words, got {len(words)}")
    return permutation((*words, *(1,) * (STATE_SIZE - RATE)))[:DIGEST_LENGTH]


def pad_varlen(words: Sequence[int]) -> list[int]:
    """Append 1, then zeros up to a multiple of 10."""
    padded = [*words, 1]
    padded += [0] * (-len(padded) % RATE)
    return padded


def _absorb_all(words: Sequence[int]) -> tuple[list[tuple[int, ...]], tuple[int, ...]]:
    """Sponge-hash `words`: the permutation inputs, and the final state."""
    padded = pad_varlen(words)
    state = (0,) * STATE_SIZE
    inputs = []
    for start in range(0, len(padded), RATE):
        state = (*padded[start : start + RATE], *state[RATE:])
        inputs.append(state)
        state = permutation(state)
    return inputs, state


def varlen_permutation_inputs(words: Sequence[int]) -> list[tuple[int, ...]]:
    """The 16-word states fed to the permutation while hashing `words` in varlen mode."""
    return _absorb_all(words)[0]


def hash_varlen(words: Sequence[int]) -> tuple[int, ...]:
    """Variable-length sponge hash; also the program digest."""
    return _absorb_all(words)[1][:DIGEST_LENGTH]


# ---------------------------------------------------------------------------
# Plain Python: slow and obviously right; the oracle for the compiled kernels.
def reference_split_and_lookup(x: int) -> int:
    montgomery_bytes = (x * MONTGOMERY_R % P).to_bytes(8, "little")
    looked_up = int.from_bytes(bytes(SBOX[byte] for byte in montgomery_bytes), "little")
    return looked_up * MONTGOMERY_R_INVERSE % P


def reference_round(state: Sequence[int], round_index: int) -> list[int]:
    after_sbox = [reference_split_and_lookup(x) for x in state[:4]] + [
        pow(x, 7, P) for x in state[4:]
    ]
    return [
        (
            sum(MDS_FIRST_COLUMN[(i - j) % STATE_SIZE] * after_sbox[j] for j in range(STATE_SIZE))
            + ROUND_CONSTANTS[STATE_SIZE * round_index + i]
        )
        % P
        for i in range(STATE_SIZE)
    ]


def reference_permutation_trace(state: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    trace = [tuple(state)]
    for round_index in range(NUMBER_OF_ROUNDS):
        trace.append(tuple(reference_round(trace[-1], round_index)))
    return tuple(trace)


def reference_cascade_limbs(state: Sequence[int]) -> set[int]:
    limbs = set()
    for trace_state in reference_permutation_trace(state)[:NUMBER_OF_ROUNDS]:
        for x in trace_state[:NUMBER_OF_SPLIT_AND_LOOKUP_LANES]:
            montgomery = x * MONTGOMERY_R % P
            limbs.update((montgomery >> (16 * k)) & 0xFFFF for k in range(4))
    return limbs
