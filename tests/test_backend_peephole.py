"""Every peephole rule and both passes, checked by running random inputs before and after.

A rule is instantiated with arguments that satisfy its condition; both sides
run from the same random entry states (stack words biased to edge values,
input streams, RAM).  They must agree: both fail or neither, and when
neither does, the same stack, output and RAM.  The passes are checked on
compiled corpus programs: with and without the pass, the same outputs and
failures on random inputs.
"""

from __future__ import annotations

import random

import pytest
from test_backend_differential import PROGRAM_PATHS, compare_program, inputs_for, random_word

from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.lower.control import lower
from compiler.lower.link import link
from compiler.optimize.engine import Rule, match, replacement, rewrite
from compiler.optimize.passes import optimize_items, optimize_tasm, optimize_tir
from compiler.optimize.rules import SELECT_RULES, SKIZ_RULES, TASM_RULES, TIR_RULES
from compiler.tir.builder import build_tir
from compiler.tir.ops import Op, tasm_of
from vm import interp, tasm
from vm.field import P

STATES = 40
ARGUMENT_VALUES = {
    "count": range(1, 6),
    "index": range(0, 16),
    "field": (0, 1, 2, 3, P - 1, P - 2, 2**32 - 1, 2**32, 7, 12345),
}
COUNTED = {
    "pop",
    "divine",
    "write_io",
    "read_io",
    "read_mem",
    "write_mem",
    "Pop",
    "Hint",
    "WriteIo",
    "ReadIo",
    "ReadMem",
    "WriteMem",
}
INDEXED = {"dup", "swap", "pick", "place", "Dup", "Swap", "Pick", "Place"}


def argument_kind(name: str) -> str:
    if name in COUNTED:
        return "count"
    if name in INDEXED:
        return "index"
    return "field"


def instances(rule: Rule, rng: random.Random, wanted: int = 6) -> list[dict]:
    """Argument bindings for the rule's variables that satisfy its condition."""
    variables: dict[str, str] = {}
    strictness = {"count": 0, "index": 1, "field": 2}
    for name, argument in rule.parsed_pattern:
        if isinstance(argument, str) and argument.isidentifier():
            kind = argument_kind(name)
            if strictness[kind] < strictness[variables.get(argument, "field")]:
                variables[argument] = kind
            variables.setdefault(argument, kind)
    found: list[dict] = []
    for _ in range(500):
        bindings = {v: rng.choice(list(ARGUMENT_VALUES[k])) for v, k in variables.items()}
        items = [
            (name, bindings[a] if isinstance(a, str) else a) for name, a in rule.parsed_pattern
        ]
        if match(rule, items, 0) is not None and bindings not in found:
            found.append(bindings)
        if len(found) == wanted:
            break
    return found


def tasm_text(pairs: list[tuple], tir: bool, suffix: tuple = ()) -> str:
    if tir:
        pairs = [pair for name, arg in pairs for pair in tasm_of(Op(name, arg))]
    lines = []
    for name, arg in pairs:
        if arg is None:
            lines.append(name)
        elif name in ("push", "addi"):
            lines.append(f"{name} {arg if arg <= P // 2 else arg - P}")
        else:
            lines.append(f"{name} {arg}")
    return "\n".join([*lines, *suffix, "halt"]) + "\n"


def run_from(program: tasm.Program, state: dict) -> tuple:
    machine = interp.initial_machine(
        program, state["public"], state["secret"], state["digests"], state["ram"]
    )
    machine.stack = list(state["stack"])
    run = interp.run_machine(machine, 10_000)
    if run.error is not None:
        return ("failed",)
    return (run.stack, run.output, run.ram)


def random_state(rng: random.Random) -> dict:
    if rng.random() < 0.5:
        words = [
            rng.randrange(2**32) if rng.random() < 0.8 else random_word(rng) for _ in range(32)
        ]
    else:
        words = [random_word(rng) for _ in range(32)]
    if rng.random() < 0.3:
        words[-2] = words[-1]  # equal operands
    return {
        "stack": words,
        "public": [random_word(rng) for _ in range(rng.randrange(8))],
        "secret": [random_word(rng) for _ in range(rng.randrange(8))],
        "digests": [],
        "ram": {rng.randrange(8): random_word(rng) for _ in range(4)},
    }


def check_rule(rule: Rule, tir: bool, suffix: tuple = ()) -> None:
    rng = random.Random(str(rule))
    bindings_list = instances(rule, rng)
    assert bindings_list, f"no argument satisfies {rule}"
    for bindings in bindings_list:
        before = [
            (name, bindings[a] if isinstance(a, str) and a.isidentifier() else a)
            for name, a in rule.parsed_pattern
        ]
        after = replacement(rule, bindings)
        before_program = tasm.parse(tasm_text(before, tir, suffix))
        after_program = tasm.parse(tasm_text(after, tir, suffix))
        for _ in range(STATES):
            state = random_state(rng)
            assert run_from(before_program, state) == run_from(after_program, state), (
                f"{rule} with {bindings} differs on {state}"
            )


@pytest.mark.parametrize("rule", TASM_RULES, ids=str)
def test_tasm_rule_is_sound(rule):
    check_rule(rule, tir=False)


@pytest.mark.parametrize("rule", SELECT_RULES, ids=str)
def test_select_rule_is_sound(rule):
    check_rule(rule, tir=False)


def test_select_rules_never_start_at_a_guarded_instruction():
    from compiler.lower.asm import Instr

    guarded = [Instr("skiz", None), Instr("push", 0), Instr("eq", None), Instr("skiz", None)]
    guarded += [Instr("swap", 1), Instr("swap", 1), Instr("pop", 1)]
    assert optimize_items(guarded) == guarded


@pytest.mark.parametrize("rule", SKIZ_RULES, ids=str)
def test_rule_before_skiz_is_sound(rule):
    """These rules only apply right before `skiz`: run them with `skiz` `push 7` after."""
    check_rule(rule, tir=False, suffix=("skiz", "push 7"))


@pytest.mark.parametrize("rule", TIR_RULES, ids=str)
def test_tir_rule_is_sound(rule):
    check_rule(rule, tir=True)


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
        Rule("swap 1; lt", "lt", "operand order matters (language.md C1)"),
        Rule("swap 2; pop 1; swap 2; pop 1", "swap 3; pop 2", "RC's collapse (b): not sound"),
        Rule("dup 0; pop_count; pop 1", "", "drops the u32 check"),
    ],
    ids=str,
)
def test_an_unsound_rule_is_caught(rule):
    with pytest.raises(AssertionError):
        check_rule(rule, tir=False)
