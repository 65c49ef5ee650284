"""Counted conjunctions (compiler/optimize/conjunctions.py): a count of 0/1 conditions
compared with their number becomes the product of the conditions, only where the
equivalence checker proves the window.  The corpus program counted_conjunctions.tri shows
which counts become products and which stay sums; std.crypto.digest.equal is the hand
code's shape; random counts agree with the reference evaluator on operands that are and
are not equal; a compiler that rewrites without the proof is caught by the same tests."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_backend_differential import compare_program

from compiler.check.checker import check
from compiler.check.resolve import DEFAULT_LIBRARY, load_project
from compiler.driver import compile_program
from compiler.optimize import conjunctions
from compiler.optimize.conjunctions import conjoin
from compiler.verify import check_equivalent
from vm.field import P
from vm.isa import BY_NAME
from vm.tasm import Op

CORPUS = Path(__file__).parents[1] / "programs" / "valid" / "counted_conjunctions.tri"


def _pairs(text: str) -> list:
    return [
        (words[0], int(words[1]) if len(words) > 1 else None)
        for words in (line.split() for line in text.strip().splitlines())
    ]


def _ops(pairs) -> list:
    return [Op(BY_NAME[name], argument) for name, argument in pairs]


# digest.equal after the select rule: five equalities added to a count compared with 5
COUNTED = _pairs(
    """
    push 0
    pick 10
    pick 6
    eq
    add
    pick 8
    pick 5
    eq
    add
    pick 6
    pick 4
    eq
    add
    pick 4
    pick 3
    eq
    add
    place 2
    eq
    add
    push 5
    eq
    """
)


def test_the_corpus_program_makes_exactly_the_conjunctions_products():
    compiled = compile_program(check(load_project(CORPUS)), 1)
    lines = {int(n) for n in re.findall(r"count compared at line (\d+)", compiled.report())}
    assert lines == {23, 34}  # all_equal's and ascending's comparisons
    main = compiled.text.split("counted_conjunctions__main:\n")[1].split("return")[0].split()
    # two_of_three keeps `push 2 eq` after three adds, written keeps its sum for the output
    assert main.count("mul") == 3 and main.count("add") == 5
    assert "skiz" not in main  # every counted condition is added, none laid out with skiz


def test_digest_equal_is_the_hand_codes_product_of_equalities():
    compiled = compile_program(check(load_project(DEFAULT_LIBRARY / "crypto" / "digest.tri")), 1)
    body = compiled.text.split("__equal:\n")[1].split("return")[0].split("\n")
    names = [line.split()[0] for line in body if line.strip()]
    assert names.count("eq") == 5 and names.count("mul") == 4 and len(names) == 18
    assert "push" not in names and "add" not in names


def test_the_rewrite_is_the_product_and_is_noted():
    notes: list = []
    product = conjoin(COUNTED, notes)
    assert [name for name, _ in product].count("mul") == 4
    assert len(product) == len(COUNTED) - 4 and product[:2] == [("pick", 9), ("pick", 5)]
    assert check_equivalent(_ops(COUNTED), _ops(product)).equivalent
    assert notes == [
        (conjunctions.NOTE, "count compared: a product of its conditions, 4 instructions fewer")
    ]


@pytest.mark.parametrize(
    "change",
    [
        lambda run: run[:-2] + [("push", 4), ("eq", None)],  # compared with fewer
        lambda run: run[:3] + [("mul", None)] + run[4:],  # a product, not a condition, added
        lambda run: run[:-2] + [("dup", 0), ("write_io", 1), ("push", 5), ("eq", None)],
        lambda run: run[:1] + [("dup", 0)] + run[1:],  # the count is copied
        lambda run: run[:-1] + [("lt", None)],  # not an equality with the number
    ],
)
def test_a_count_that_is_not_a_conjunction_stays(change):
    run = change(list(COUNTED))
    assert conjoin(run) == run


def test_the_checker_tells_a_conjunction_from_a_count_compared_with_less():
    product = _ops(conjoin(COUNTED))
    assert check_equivalent(_ops(COUNTED), product).equivalent
    fewer = _ops(COUNTED[:-2] + [("push", 4), ("eq", None)])
    assert not check_equivalent(fewer, product).equivalent


def _program(conditions: list[str]) -> str:
    lines = ["program t", "", "use vm.io.io", "use vm.core.convert", "", "fn main() {"]
    lines += [f"    let x{i}: Field = io.read()" for i in range(6)]
    lines.append("    let mut count: Field = 0")
    for condition in conditions:
        lines += [f"    if {condition} {{", "        count = count + 1", "    }"]
    lines += [f"    if count == {len(conditions)} {{", "        io.write(1)", "    }"]
    lines += ["    io.write(count)", "}", ""]
    return "\n".join(lines)


CONDITIONS = [f"x{i} == x{j}" for i in range(6) for j in range(6) if i < j] + [
    "convert.as_u32(x0) < convert.as_u32(x1)",
    "x2 == 0",
]


@settings(max_examples=15, deadline=None, derandomize=True)
@given(conditions=st.lists(st.sampled_from(CONDITIONS), min_size=2, max_size=5))
def test_random_counts_agree_with_the_evaluator(tmp_path_factory, conditions):
    path = tmp_path_factory.mktemp("counts") / "t.tri"
    path.write_text(_program(conditions))
    checked = check(load_project(path))
    compiled = compile_program(checked, 1)
    rng = random.Random(3)
    edges = (0, 1, 2**32 - 1, 2**32, P - 1)
    cases = [[rng.choice(edges) for _ in range(6)] for _ in range(12)]
    cases += [[e] * 6 for e in edges] + [[1, 2, 1, 1, 1, 1], [5, 5, 5, 5, 5, 6]]
    for case in cases:
        assert compare_program(checked, compiled.program, (case, [], [], {})) is None, case


def test_a_compiler_that_rewrites_without_the_proof_is_caught(monkeypatch):
    checked = check(load_project(CORPUS))
    two_of_two = ([7, 7, 7, 7, 1, 2, 3, 1, 1, 0, 0, 0], [], [], {})  # two_of_three: 1
    assert compare_program(checked, compile_program(checked, 1).program, two_of_two) is None
    conjunctions.forget()
    # a count compared with fewer than it counts taken for a conjunction, and not proven
    monkeypatch.setattr(conjunctions, "_proven", lambda window, product: True)
    original = conjunctions._count

    def any_count(items, start):
        found = original(items, start)
        if found is None and tuple(items[start]) == ("push", 0):
            for end in range(start + 2, len(items)):
                adds = [p for p in range(start + 2, end) if items[p][0] == "add"]
                if tuple(items[end]) == ("push", len(adds) - 1) and len(adds) >= 3:
                    items = list(items)
                    items[end] = ("push", len(adds))
                    return original(items, start)
        return found

    monkeypatch.setattr(conjunctions, "_count", any_count)
    compiled = compile_program(checked, 1)
    assert compare_program(checked, compiled.program, two_of_two) is not None
    conjunctions.forget()
