"""Blocks of 100,000 instructions: a verdict or a stated refusal, never a RecursionError.

Terms are as deep as their block is long (`dup 0 addi 1 mul` nests a product per
few instructions), so every walk over terms in compiler/verify keeps its own
stack, and the work of one comparison is bounded in steps (terms.MAXIMUM_STEPS,
vectorized.MAXIMUM_WRITES_WALKED): past the bound the answer is the concrete
search's, or `unknown` with the bound in its reason.
"""

import subprocess
import sys

import pytest

from compiler.verify import check_equivalent, terms, vectorized
from vm.tasm import parse

SQUARES = "dup 0 addi 1 mul " * 25000  # 100,000 instructions, a product every few
DEEP_IDENTITIES = "split swap 1 pop 1 " + "dup 0 addi 1 mul " * 6000  # rewritten at depth
MOVES = "swap 3 dup 2 pop 1 pick 4 place 2 swap 1 dup 0 pop 1 nop swap 5 " * 10000


@pytest.mark.parametrize(
    "text, variant, status",
    [
        (SQUARES, SQUARES, "equivalent"),
        (DEEP_IDENTITIES, DEEP_IDENTITIES + " push 0 add", "equivalent"),
        ("push 1 add " * 50000, "push 1 add " * 49999 + "push 2 add", "different"),
        (MOVES, MOVES + "push 0 add", "equivalent"),
        (MOVES, MOVES + "swap 1", "different"),
    ],
    ids=["squares", "identities", "additions", "moves", "moves-swapped"],
)
def test_a_long_block_gets_a_verdict(text, variant, status):
    assert check_equivalent(parse(text), parse(variant)).status == status


def test_past_the_step_bound_the_answer_is_concrete_or_a_stated_refusal(monkeypatch):
    monkeypatch.setattr(terms, "MAXIMUM_STEPS", 20_000)
    block = "dup 0 addi 1 mul " * 5000
    same = check_equivalent(parse(block), parse(block))
    assert same.status == "unknown" and "20,000 steps" in same.reason
    changed = check_equivalent(parse(block), parse(block + "addi 1"))
    assert (changed.status, changed.method) == ("different", "concrete")


def test_reads_past_the_write_bound_are_refused(monkeypatch):
    monkeypatch.setattr(vectorized, "MAXIMUM_WRITES_WALKED", 1000)
    block = "push 7 dup 1 addi 1 write_mem 1 pop 1 dup 0 read_mem 1 pop 2 " * 300
    verdict = check_equivalent(parse(block), parse(block))
    assert verdict.status == "unknown" and "1,000 earlier writes" in verdict.reason


def test_the_command_line_answers_for_a_long_block(tmp_path):
    first, second = tmp_path / "a.tasm", tmp_path / "b.tasm"
    first.write_text("push 1 add\n" * 50000)
    second.write_text("push 1 add\n" * 49999 + "push 2 add\n")
    run = subprocess.run(
        [sys.executable, "-m", "tri", "equiv", str(first), str(second)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert run.stdout.startswith("different")
