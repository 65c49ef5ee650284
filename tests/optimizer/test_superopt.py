"""The superoptimizer's rule database: intact, proven, reproducible, and used at -O2.

* The file's sha256 matches its rules, and the loader refuses a file that was changed.
* Every rule is strictly cheaper, minimal (no shorter rule and no hand rule rewrites
  a part of its pattern), and proven again by the equivalence checker; a fixed sample is
  also run on the interpreter from random and edge entry stacks (16 words and deeper),
  with the same result (both fail, or the same exit stack).
* Enumerating up to length 2 gives exactly the committed rules of length <= 2.
* A known rule is in the database and rewrites a block at -O2.
"""

from __future__ import annotations

import json
import random

import pytest

from compiler.blocks.rule_engine import rewrite
from compiler.lower.blocks import Block, Contract
from compiler.optimize.rules import TASM_RULES
from compiler.search.lowerer import SearchLowerer, o2_rules
from compiler.superopt import database
from compiler.superopt.enumerate import cost, u32_uses
from compiler.superopt.generate import generate, prove
from compiler.verify import check_equivalent
from compiler.verify.concrete import Entry, run_block
from compiler.verify.functions import TWO_TO_32
from vm.field import P
from vm.tasm import parse

DATABASE = database.load()
RULES = database.rules()
SAMPLE = RULES[:: max(1, len(RULES) // 40)]
EDGES = (0, 1, 2, TWO_TO_32 - 1, TWO_TO_32, P - 1)


def program(text: str):
    """A rule side (`dup 0; add`) as a TASM program."""
    return parse(text.replace(";", "\n"))


def pairs(text: str) -> tuple:
    return tuple((op.instruction.name, op.argument) for op in program(text).ops)


def test_the_hash_matches_the_rules_and_a_changed_file_is_refused(tmp_path):
    header = DATABASE.header
    assert header["sha256"] == database.content_hash(DATABASE.rules)
    assert header["count"] == len(DATABASE.rules) == len(RULES) >= 200
    content = json.loads(database.PATH.read_text())
    content["rules"][0]["replacement"] = "push 0"
    changed = tmp_path / "rules.json"
    changed.write_text(json.dumps(content))
    with pytest.raises(database.DatabaseError, match="sha256"):
        database.load(changed)


def test_every_rule_is_cheaper_and_minimal():
    patterns = {rule.pattern for rule in RULES}
    for rule in RULES:
        before, after = pairs(rule.pattern), pairs(rule.replacement)
        assert cost(after) < cost(before) and u32_uses(after) <= u32_uses(before), rule
        assert rewrite(list(before), TASM_RULES)[1] == 0, rule
        for start in range(len(before)):
            for stop in range(start + 1, len(before) + 1):
                if (start, stop) != (0, len(before)):
                    part = "; ".join(rule.pattern.split("; ")[start:stop])
                    assert part not in patterns, (rule, part)


def test_every_rule_is_proven_again():
    unproven = [
        rule
        for rule in RULES
        if prove(pairs(rule.pattern), pairs(rule.replacement)) != "equivalent"
    ]
    assert not unproven


def _entries(count: int) -> list[Entry]:
    generator = random.Random(12)
    entries = []
    for index in range(count):
        length = 16 + index % 4 if index % 3 == 0 else 24
        words = []
        for _ in range(length):
            kind = generator.randrange(4)
            words.append(
                (generator.choice(EDGES), generator.randrange(TWO_TO_32), generator.randrange(P),
                 generator.randrange(4))[kind]
            )  # fmt: skip
        entries.append(Entry(tuple(words), (), (), (), None, 0, 0, 0))
    return entries


def test_a_sample_of_rules_is_proven_by_the_checker_and_runs_the_same_on_the_interpreter():
    entries = _entries(60)
    failures = 0
    for rule in SAMPLE:
        before, after = program(rule.pattern), program(rule.replacement)
        assert check_equivalent(before.ops, after.ops).equivalent, rule
        for entry in entries:
            first, second = run_block(before, entry), run_block(after, entry)
            assert (first.failure is None) == (second.failure is None), (rule, entry)
            if first.failure is None:
                assert first.stack == second.stack, (rule, entry)
            else:
                failures += 1
    assert failures  # the edge entries make some rules fail, on both sides


def test_enumerating_to_length_two_gives_the_committed_short_rules():
    short = [rule for rule in DATABASE.rules if rule["pattern"].count(";") < 2]
    assert [rule.as_json() for rule in generate(2).rules] == short


def test_a_known_rule_is_present_and_rewrites_a_block_at_o2():
    known = {(rule.pattern, rule.replacement) for rule in RULES}
    assert ("swap 1; swap 2", "pick 2") in known
    baseline = [("dup", 3), ("swap", 1), ("swap", 2), ("add", None)]
    assert rewrite(baseline, TASM_RULES)[0] == baseline  # the hand rules leave it alone
    rewritten = [("dup", 3), ("pick", 2), ("add", None)]
    assert rewrite(baseline, o2_rules())[0] == rewritten
    lowerer = SearchLowerer()
    contract = Contract(entry_depth=4, exit_depth=4, exit_layout=(None,) * 4, effects=())
    chosen = lowerer.choose(Block((), contract), baseline)
    assert lowerer.funnel.superopt == 1 and lowerer.funnel.applied == 1
    assert cost(chosen) <= cost(rewritten) < cost(baseline)
