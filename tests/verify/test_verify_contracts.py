"""Block contracts reach the equivalence checker: candidates that rely on a fact are
accepted with the contract's assumptions and rejected without them.

Every block of the compiled corpus is collected with its contract (a recording block
lowerer).  For each fact a candidate is made from the classical lowering that is right
only because of it:

* a don't-care exit slot d: junk written there afterwards (`push 7 swap d+1 pop 1`);
* a u32 entry slot d: a range check of it first (`dup d pop_count pop 1`), which fails
  only on values the fact excludes.

With `Contract.assumptions()` the checker must prove each candidate equivalent; with
no assumptions it must reject it with an interpreter-confirmed counterexample, unless
the block itself already implies the fact (a u32 slot the block range-checks anyway, or
asserts; where the checker cannot tell, runs of the block off the fact must fail):
most must be rejected.  (The
minimum entry length reaches the checker the same way; tests/back_end/test_block_facts.py
shows it true on every run.)
"""

from __future__ import annotations

from functools import cache

import pytest
from corpus_blocks import SOURCES

from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.driver import compile_program
from compiler.lower.asm import Instr
from compiler.lower.blocks import block_program
from compiler.lower.classical import CLASSICAL
from compiler.verify import check_equivalent, concrete

WINDOW = 15
PER_KIND = 40  # candidates checked per kind of fact


class Recorder:
    """The classical lowering, keeping every block it lowers."""

    name = "recorder"

    def __init__(self):
        self.blocks = []

    def lower_block(self, block) -> list[Instr]:
        instructions = CLASSICAL.lower_block(block)
        self.blocks.append((block, instructions))
        return instructions


@cache
def blocks_with_facts():
    recorder = Recorder()
    for path in SOURCES:
        compile_program(check(load_project(path)), 1, lowerer=recorder)
    seen, result = set(), []
    for block, instructions in recorder.blocks:
        key = (tuple(instructions), block.contract)
        if instructions and key not in seen:
            seen.add(key)
            result.append((block.contract, instructions))
    return result


def candidates(kind: str):
    found = []
    for contract, code in blocks_with_facts():
        if kind == "dont_care":
            for depth in contract.dont_care:
                if depth + 1 <= WINDOW:
                    junk = [Instr("push", 7), Instr("swap", depth + 1), Instr("pop", 1)]
                    found.append((contract, code, code + junk))
        elif kind == "u32":
            for depth in contract.u32_entry:
                if depth <= WINDOW:
                    check_first = [Instr("dup", depth), Instr("pop_count"), Instr("pop", 1)]
                    found.append((contract, code, check_first + code))
    return found[:PER_KIND]


def fails_off_the_fact(program, depth: int) -> bool:
    """The block fails on entries whose slot `depth` is not a u32 (other slots 0, 1, 7)."""
    for filler in (0, 1, 7):
        for value in (2**32, 2**32 + 1, 2**64 - 2**32):
            stack = [filler] * 24
            stack[depth] = value
            entry = concrete.Entry(tuple(stack), (filler,) * 16, (), (), None, 0, 0, 0)
            if concrete.run_block(program, entry).failure is None:
                return False
    return True


@pytest.mark.parametrize("kind", ["dont_care", "u32"])
def test_a_candidate_that_relies_on_a_fact_needs_the_contract(kind):
    found = candidates(kind)
    assert len(found) >= 10, f"only {len(found)} blocks with {kind} facts"
    rejected = 0
    for contract, code, candidate in found:
        original, changed = block_program(code), block_program(candidate)  # each ends in halt
        context = f"{kind}: {contract}\n{[i.text for i in code]}\n{[i.text for i in candidate]}"
        assumptions = contract.assumptions()
        assert assumptions.minimum_depth == contract.minimum_entry_length
        verdict = check_equivalent(original, changed, assumptions=assumptions)
        assert verdict.equivalent, context + "\n" + verdict.reason
        plain = check_equivalent(original, changed)
        if plain.status == "unknown" and kind == "u32":
            # the checker may not see that the block fails anyway where the check would
            # (an `assert` of the slot): accepted only when runs show that it does
            depth = next(i.arg for i in candidate if i.name == "dup")
            assert fails_off_the_fact(original, int(depth)), context + "\n" + plain.reason
            continue
        assert plain.status != "unknown", context
        if plain.status == "different":
            rejected += 1
            example = plain.counterexample
            outcomes = [concrete.run_block(p, example.entry) for p in (original, changed)]
            assert concrete.difference(*outcomes, example.entry) is not None
    assert rejected >= len(found) // 2, f"{rejected} of {len(found)} rely on the {kind} fact"
