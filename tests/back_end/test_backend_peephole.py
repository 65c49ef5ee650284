"""Every peephole rule is proven for every argument; both passes keep programs' behaviour.

Each rule of compiler.optimize.rules is proven by the equivalence checker
(compiler.optimize.proofs): count and index variables take every value, field
variables are symbolic, so a proof covers every instance.  Rules known to be
unsound are refused and a concrete instance of each gets an interpreter-
confirmed counterexample.  The passes are checked on compiled corpus programs:
with and without the pass, the same outputs and failures on random inputs.
"""

from __future__ import annotations

import random

import pytest
from test_backend_differential import PROGRAM_PATHS, compare_program, inputs_for

from compiler.blocks.rule_engine import Rule, rewrite
from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.lower.control import lower
from compiler.lower.link import link
from compiler.optimize.passes import optimize_items, optimize_tasm, optimize_tir
from compiler.optimize.proofs import RULE_TABLES, instance_blocks, prove_rule
from compiler.optimize.rules import SKIZ_RULES, TASM_RULES, TIR_RULES
from compiler.tir.builder import build_tir
from compiler.verify import check_equivalent
from vm import tasm


def _proof_report(proof) -> str:
    shown = [f"{bindings}: {verdict.reason}" for bindings, verdict in proof.failures[:3]]
    return f"{proof.rule} ({proof.kind}): {len(proof.failures)} of {proof.instances} " + "; ".join(
        shown
    )


RULES = [(kind, rule) for kind, rules in RULE_TABLES.items() for rule in rules]


@pytest.mark.parametrize(("kind", "rule"), RULES, ids=[f"{k}: {r}" for k, r in RULES])
def test_rule_is_proven_for_every_argument(kind, rule):
    proof = prove_rule(rule, kind)
    assert proof.proven, _proof_report(proof)


def test_rules_with_variables_are_proven_for_many_instances():
    counts = {str(rule): prove_rule(rule, kind).instances for kind, rule in RULES}
    assert counts["dup {d}; pop 1 -> (nothing)"] == 16  # every index
    assert counts["pop {a}; pop {b} -> pop {a + b}  if a + b <= 5"] == 10  # every pair that fits
    assert counts["push {a}; push {b}; mul -> push {a * b}"] == 1  # a and b symbolic


def test_select_rules_never_start_at_a_guarded_instruction():
    from compiler.lower.asm import Instr

    guarded = [Instr("skiz", None), Instr("push", 0), Instr("eq", None), Instr("skiz", None)]
    guarded += [Instr("swap", 1), Instr("swap", 1), Instr("pop", 1)]
    assert optimize_items(guarded) == guarded


def test_every_rule_has_a_comment():
    for rule in (*TASM_RULES, *TIR_RULES, *SKIZ_RULES):
        assert rule.comment and "\n" not in rule.comment


def test_engine_reaches_a_fixpoint():
    items = [("push", 1), ("push", 2), ("add", None), ("addi", 3), ("pop", 1)]
    assert rewrite(items, TASM_RULES)[0] == []
    items = [("pop", 2), ("pop", 2), ("pop", 2)]
    assert rewrite(items, TASM_RULES)[0] == [("pop", 4), ("pop", 2)]


def test_the_instruction_after_skiz_is_never_rewritten():
    from compiler.lower.asm import Instr

    items = [Instr("skiz"), Instr("pick", 1), Instr("swap", 1), Instr("swap", 1)]
    assert [i.text for i in optimize_items(items)] == ["skiz", "pick 1"]


# --- the passes, on compiled programs --------------------------------------------------------

PASS_PROGRAMS = PROGRAM_PATHS[:: max(1, len(PROGRAM_PATHS) // 14)]


def _program(checked, tir_pass: bool, tasm_pass: bool) -> tasm.Program:
    tir = build_tir(checked)
    if tir_pass:
        tir = optimize_tir(tir)
    asm = lower(tir)
    if tasm_pass:
        asm = optimize_tasm(asm)
    return tasm.parse(link(asm))


@pytest.mark.parametrize("which", ["optimize_tir", "optimize_tasm"])
@pytest.mark.parametrize("path", PASS_PROGRAMS, ids=lambda p: p.stem)
def test_pass_preserves_behaviour(path, which):
    checked = check(load_project(path))
    before = _program(checked, False, False)
    after = _program(checked, which == "optimize_tir", which == "optimize_tasm")
    rng = random.Random(path.stem + which)
    for case in inputs_for(checked, rng, 50):
        assert compare_program(checked, before, case) is None
        assert compare_program(checked, after, case) is None
    assert len(after.ops) <= len(before.ops)


def test_passes_shrink_code():
    path = next(p for p in PROGRAM_PATHS if "arithmetic" in p.name)
    checked = check(load_project(path))
    plain = _program(checked, False, False)
    optimized = _program(checked, True, True)
    assert len(optimized.ops) < len(plain.ops)


@pytest.mark.parametrize(
    "rule",
    [
        Rule("swap 1; lt", "lt", "operand order matters (docs/backend.md C1)"),
        Rule("swap 2; pop 1; swap 2; pop 1", "swap 3; pop 2", "RC's collapse (b): not sound"),
        Rule("dup 0; pop_count; pop 1", "", "drops the u32 check"),
        Rule("push {a}; push {b}; add", "push {a * b}", "a wrong fold"),
        Rule("swap {n}; pop 1", "pop 1", "drops the wrong word", "n > 0"),
    ],
    ids=str,
)
def test_an_unsound_rule_is_caught(rule):
    proof = prove_rule(rule, "tasm")
    assert not proof.proven
    bindings = {name: 3 for name in ("a", "b", "n")}  # a concrete instance that runs
    before, after = instance_blocks(rule, "tasm", bindings)
    assert check_equivalent(before, after).status == "different"
