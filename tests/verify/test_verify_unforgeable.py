"""The block verifier cannot be fooled by a pair built against its evaluation points.

A Schwartz-Zippel proof is only as good as the secrecy of its points before the pair
is fixed.  With a fixed seed the points are public: `A` against
`A + (x - r1)(x - r2)(x - r3)`, for the seed's first three points, was "equivalent" with
a bound of 4.5e-44 although the two differ almost everywhere.  The points are now drawn
from a hash of the pair (compiler.verify.random_points.points_for), so a pair made with
full knowledge of the scheme -- vanishing exactly at the points of the pair before it --
is a new pair with new points.  These tests build such pairs and check that none is
proven, by the symbolic comparison alone (`prove_equivalent`, which rule proofs use) or
by the whole check (`check_equivalent`, which finds them different).
"""

import random

import pytest

from compiler.verify import check_equivalent, equivalence, prove_equivalent
from compiler.verify.assumptions import Assumptions
from compiler.verify.random_points import points_for
from vm.field import P
from vm.tasm import parse

TRIALS = 3  # the points Schwartz-Zippel takes for one pair of degree 2^16 (bound < 2^-100)


def _power(exponent: int) -> str:
    """(x + 1)^exponent over the entry word x, kept under it: [x, y] -> an opaque atom y."""
    return f"dup 0 addi 1 push {exponent} swap 1 pow "


def original(exponent: int) -> str:
    return _power(exponent) + "swap 1 pop 1"


def forged(exponent: int, points: list[int]) -> str:
    """`original` plus (x - r1)(x - r2)(x - r3): equal to it at x = r1, r2, r3 only."""
    first, second, third = points
    e1 = (first + second + third) % P
    e2 = (first * second + first * third + second * third) % P
    e3 = first * second * third % P
    cubic = f"dup 1 addi {(P - e1) % P} dup 2 mul addi {e2} dup 2 mul addi {(P - e3) % P} "
    return _power(exponent) + cubic + "add swap 1 pop 1"


def _points(text_a: str, text_b: str) -> list[int]:
    generator = points_for(parse(text_a), parse(text_b), Assumptions())
    return [generator.randrange(P) for _ in range(TRIALS)]


def test_a_pair_built_against_a_fixed_seed_is_not_proven():
    generator = random.Random(0)  # the seed the verifier used to draw its points from
    points = [generator.randrange(P) for _ in range(TRIALS)]
    text_a, text_b = original(65536), forged(65536, points)
    verdict = prove_equivalent(parse(text_a).ops, parse(text_b).ops)
    assert verdict.status == "unknown" and "differs at a random point" in verdict.reason
    assert check_equivalent(parse(text_a).ops, parse(text_b).ops).status == "different"


@pytest.mark.parametrize("exponent", [65536, 65537, 1 << 15, 40000])
def test_pairs_built_with_full_knowledge_of_the_points_are_not_proven(exponent):
    """Each pair vanishes at the points the verifier draws for the pair before it (the
    best an attacker who knows the scheme can do without solving for a fixed point of
    the hash): six rounds per exponent, 24 pairs, none accepted."""
    text_a = original(exponent)
    text_b = forged(exponent, [1, 2, 3])
    for _ in range(6):
        text_b = forged(exponent, _points(text_a, text_b))
        verdict = prove_equivalent(parse(text_a).ops, parse(text_b).ops)
        assert verdict.status == "unknown", verdict.reason
        assert check_equivalent(parse(text_a).ops, parse(text_b).ops).status == "different"


def test_the_points_are_the_pairs_own_and_the_same_on_every_run():
    text_a, text_b = original(65536), forged(65536, [1, 2, 3])
    assert _points(text_a, text_b) == _points(text_a, text_b)
    assert _points(text_a, text_b) != _points(text_a, forged(65536, [1, 2, 4]))
    assert _points(text_a, text_b) != _points(text_b, text_a)
    assert all(0 <= point < P for point in _points(text_a, text_b))


def test_a_true_identity_is_still_proven_and_says_how_its_points_were_chosen():
    # (a + b)^48 as six squarings and a cube against one pow: opaque, equal everywhere
    text_a = "add dup 0 mul dup 0 mul dup 0 mul dup 0 mul dup 0 dup 0 mul mul"
    text_b = "add push 48 swap 1 pow"
    for verdict in (
        check_equivalent(parse(text_a).ops, parse(text_b).ops),
        prove_equivalent(parse(text_a).ops, parse(text_b).ops),
    ):
        assert (verdict.status, verdict.method) == ("equivalent", "schwartz-zippel")
        assert "random points (BLAKE2b of both blocks)" in verdict.reason
        assert 0 < verdict.error_bound < 2**-90


@pytest.mark.parametrize("repeats", [8, 22, 60])
def test_a_reason_stays_short_however_deep_the_terms(repeats):
    """`x -> 1/(x*(x+1))` repeated nests the term tree without bound: the reason of an
    undecided pair is cut at a fixed depth (it grew 16-fold per 2 repeats: 134 MB at
    22), so its length does not grow with the block."""
    body = "dup 0 addi 1 mul invert " * repeats
    verdict = prove_equivalent(parse(body).ops, parse(body + "dup 0 mul").ops)
    assert verdict.status == "unknown"
    assert len(verdict.reason) < 1000 and "(...)" in verdict.reason


@pytest.mark.parametrize("exponent", [65536, 65537, 1 << 15, 40000])
@pytest.mark.parametrize("seed", range(6))
def test_a_pair_aimed_at_a_fixed_seed_would_be_accepted_and_is_rejected(
    exponent, seed, monkeypatch
):
    """24 pairs, each vanishing exactly at the three points a fixed-seed checker would
    draw for it.  Under such a checker (points_for replaced by `random.Random(seed)`)
    the pair is accepted with a bound below 2^-90, although the two blocks differ at
    all but three values of x; the current checker keys its points by the pair and
    rejects every one (the full check finds a counterexample)."""
    generator = random.Random(seed)
    points = [generator.randrange(P) for _ in range(TRIALS)]
    text_a, text_b = original(exponent), forged(exponent, points)
    with monkeypatch.context() as patched:
        patched.setattr(equivalence, "points_for", lambda *arguments: random.Random(seed))
        fooled = prove_equivalent(parse(text_a).ops, parse(text_b).ops)
    assert fooled.status == "equivalent" and fooled.error_bound < 2**-90
    assert prove_equivalent(parse(text_a).ops, parse(text_b).ops).status == "unknown"
    assert check_equivalent(parse(text_a).ops, parse(text_b).ops).status == "different"
