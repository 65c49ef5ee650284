"""Adversarial pairs for the block equivalence checker, with ground truth of their own.

The pairs (tests/adversarial_pairs.py and tests/adversarial_equivalent.py)
are candidates an optimizer could produce: `DIFFERENT` ones are
miscompilations hidden in a corner (an aliasing address, equal operands, a
constant near p, an exact stack depth, a check that is not implied, ...),
`EQUIVALENT` ones are legal rewrites, some only under the pair's assumptions.  For each pair

* the ground truth (tests/adversarial_truth.py: the interpreter, entry states
  aimed at the pair's corner, nothing from compiler/verify) must find a
  difference for a `DIFFERENT` pair and none for an `EQUIVALENT` one, so the
  pair is what it claims to be;
* the checker must answer `different` with a counterexample that satisfies the
  assumptions and replays on the interpreter, or `equivalent` in both directions.

An equivalent pair that needs a fact the checker does not know says so
(`incompleteness`): the checker must answer `unknown` for it, never `different`.
The suite found four defects, all fixed: steering that broke u32 assumptions or
wrote past a short stack, steering that never isolated a guard only one block
has, and permutation inputs compared as a set.
"""

import pytest
from adversarial_equivalent import EQUIVALENT
from adversarial_pairs import DIFFERENT, Pair
from adversarial_truth import count_successes, difference, first_difference, run, satisfies
from test_verify_redteam import PAIRS as REDTEAM_PAIRS

from compiler.verify import check_equivalent, concrete
from vm.tasm import Program, parse

STATES = 2000  # entry states of the ground truth per pair
REQUIRED_CATEGORIES = {
    "u32", "division", "failure order", "xfield", "ram", "sponge", "merkle", "io", "stack",
    "constants", "equal operands", "halt", "assert_vector", "hash", "assumptions",
    "u32 identity", "strength reduction",
}  # fmt: skip


def _programs(pair: Pair) -> tuple[Program, Program]:
    return parse(pair.first, pair.isa), parse(pair.second, pair.isa)


def _params(pairs: list[Pair]) -> list:
    return [pytest.param(pair, id=pair.name) for pair in pairs]


def test_the_pairs_are_many_new_and_cover_the_categories():
    assert len(DIFFERENT) >= 60 and len(EQUIVALENT) >= 20
    names = [pair.name for pair in DIFFERENT + EQUIVALENT]
    assert len(names) == len(set(names))
    known = {tuple(" ".join(text.split()) for text in texts) for texts in REDTEAM_PAIRS.values()}
    for pair in DIFFERENT:
        assert (pair.first, pair.second) not in known and (pair.second, pair.first) not in known
    assert REQUIRED_CATEGORIES <= {pair.category for pair in DIFFERENT}


# --- pairs that differ ----------------------------------------------------------------------------


@pytest.mark.parametrize("pair", _params(DIFFERENT))
def test_ground_truth_shows_the_difference(pair):
    first, second = _programs(pair)
    found = first_difference(first, second, pair.assumptions, pair.corners, STATES)
    assert found is not None, "the pair is not different on any sampled entry state"
    state, _ = found
    assert satisfies(state.stack, pair.assumptions)


@pytest.mark.parametrize("pair", _params(DIFFERENT))
def test_checker_rejects_with_a_counterexample(pair):
    first, second = _programs(pair)
    verdict = check_equivalent(first, second, assumptions=pair.assumptions, isa=pair.isa)
    assert verdict.status == "different", verdict.reason
    entry = verdict.counterexample.entry
    assert satisfies(entry.stack, pair.assumptions), "the counterexample breaks the assumptions"
    ignore = pair.assumptions.dont_care
    replayed = concrete.difference(
        concrete.run_block(first, entry), concrete.run_block(second, entry), entry, ignore
    )
    assert replayed is not None
    assert difference(run(first, entry), run(second, entry), entry, ignore) is not None


# --- pairs that are equivalent --------------------------------------------------------------------


@pytest.mark.parametrize("pair", _params(EQUIVALENT))
def test_ground_truth_shows_no_difference(pair):
    first, second = _programs(pair)
    succeeded, found = count_successes(first, second, pair.assumptions, pair.corners, STATES)
    assert found is None, f"differs: {found[1]} from {found[0].describe()}"
    assert succeeded >= STATES // 10, "too few entry states on which both blocks succeed"


@pytest.mark.parametrize("pair", _params(EQUIVALENT))
def test_checker_accepts_in_both_directions(pair):
    """Equivalent pairs are proven, but for the facts the checker is known not to know
    (`pair.incompleteness`): those must be `unknown`, never `different`."""
    first, second = _programs(pair)
    for one, other in ((first, second), (second, first)):
        verdict = check_equivalent(one, other, assumptions=pair.assumptions, isa=pair.isa)
        if pair.incompleteness is not None:
            assert verdict.status == "unknown", verdict.reason
            continue
        assert verdict.status == "equivalent", verdict.reason
        assert verdict.error_bound < 2**-90
