"""The solver bridge (compiler.verify.solver): what the symbolic comparison leaves open.

The pairs of tests/adversarial_algebraic.py part or meet only at the roots of a
polynomial guard.  Each is first checked against its ground truth
(tests/adversarial_truth.py, the interpreter only); then the checker must answer
`unknown` for it without the solver and decide it with `solver=True`: `different`
with a counterexample that replays on the interpreter, or `equivalent` (method
"solver", error bound 0) in both directions.  Without cvc5 the checker answers as
it does without the solver.
"""

import pytest
from adversarial_algebraic import DIFFERENT, EQUIVALENT
from adversarial_truth import count_successes, first_difference

from compiler.verify import check_equivalent, concrete, prove_equivalent, solver
from vm.tasm import parse

STATES = 2000
# cvc5's split solver needs 10-20 s on these, near its time bound (compiler.verify.solver):
# too slow and too close to the bound for the suite; benchmarks/verify_solver.py runs them
SLOW = {"seven conditions against six", "seven conditions counted as their product"}


def _params(pairs):
    return [pytest.param(pair, id=pair.name) for pair in pairs if pair.name not in SLOW]


def _programs(pair):
    return parse(pair.first, pair.isa), parse(pair.second, pair.isa)


@pytest.mark.skipif(not solver.available(), reason="cvc5 is not installed")
@pytest.mark.parametrize("pair", _params(DIFFERENT))
def test_a_pair_that_differs_at_a_root_is_found_by_the_solver(pair):
    first, second = _programs(pair)
    assert first_difference(first, second, pair.assumptions, pair.corners, STATES) is not None
    assert check_equivalent(first, second, assumptions=pair.assumptions).status == "unknown"
    for one, other in ((first, second), (second, first)):
        verdict = check_equivalent(one, other, assumptions=pair.assumptions, solver=True)
        assert (verdict.status, verdict.method) == ("different", "solver"), verdict.reason
        entry = verdict.counterexample.entry
        replayed = concrete.difference(
            concrete.run_block(one, entry), concrete.run_block(other, entry), entry
        )
        assert replayed is not None


@pytest.mark.skipif(not solver.available(), reason="cvc5 is not installed")
@pytest.mark.parametrize("pair", _params(EQUIVALENT))
def test_an_equivalence_that_needs_the_roots_is_proven_by_the_solver(pair):
    first, second = _programs(pair)
    succeeded, found = count_successes(first, second, pair.assumptions, pair.corners, STATES)
    assert found is None and succeeded >= STATES // 10
    assert check_equivalent(first, second, assumptions=pair.assumptions).status == "unknown"
    for one, other in ((first, second), (second, first)):
        verdict = check_equivalent(one, other, assumptions=pair.assumptions, solver=True)
        assert (verdict.status, verdict.method, verdict.error_bound) == ("equivalent", "solver", 0)
        proof = prove_equivalent(one, other, assumptions=pair.assumptions, solver=True)
        assert proof.status == "equivalent"


def test_without_cvc5_the_answer_is_the_one_without_the_solver(monkeypatch):
    first, second = _programs(EQUIVALENT[0])
    monkeypatch.setattr(solver, "available", lambda: False)
    verdict = check_equivalent(first, second, solver=True)
    assert verdict.status == "unknown" and "cvc5 is not installed" in verdict.reason


def test_the_solver_is_not_asked_when_the_comparison_decides(monkeypatch):
    def refuse(*arguments):
        raise AssertionError("the solver was asked")

    monkeypatch.setattr(solver, "_run", refuse)
    for text_a, text_b in (("dup 0 add", "push 2 mul"), ("push 1 add", "push 2 add")):
        verdict = check_equivalent(parse(text_a), parse(text_b), solver=True)
        assert verdict.method in ("canonical", "concrete")


def test_a_stopped_solver_gives_unknown(monkeypatch):
    first, second = _programs(EQUIVALENT[0])
    monkeypatch.setattr(
        solver, "_run", lambda query, seconds: {"status": "unknown", "reason": "stopped"}
    )
    verdict = check_equivalent(first, second, solver=True)
    assert verdict.status == "unknown" and "solver: stopped" in verdict.reason
