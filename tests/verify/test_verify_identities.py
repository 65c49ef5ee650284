"""The comparison's rewriting is sound: identities and normalized guards hold on real runs.

`compare` does not look at a block's raw summary: it normalizes the guards
(compiler.verify.guards), eliminates the atoms that identities define
(compiler.verify.identities: split, div_mod, xor, lt) and rewrites the results
with the equalities the guards establish.  Here the rewritten summary of random
blocks rich in those instructions is evaluated at sampled entry states and must
predict exactly what the interpreter does: the block fails where a normalized
guard is false, and otherwise every rewritten value is the real one.  Then the
identities the issue lists are accepted as equivalences (and checked on many
entry states), and formal differences with inverses are not.
"""

import random

import numpy as np
import pytest
from test_verify_symbolic import assert_agrees, symbolic_prediction

from compiler.verify import check_equivalent, concrete, guards, vectorized
from compiler.verify.functions import leaf, substitute
from compiler.verify.generate import compiled_block, make_op, random_block
from compiler.verify.identities import Canonical
from compiler.verify.random_points import equal_at_random_points
from compiler.verify.terms import TermTable
from vm.tasm import parse

RICH = ("split", "div_mod", "xor", "and", "lt", "invert", "eq", "pop_count", "log_2_floor")


def _rich_block(generator: random.Random, length: int) -> tuple:
    """Operands made u32 with `split`, then the instructions the identities are about."""
    ops = []
    while len(ops) < length:
        roll = generator.random()
        if roll < 0.4:
            ops += [make_op("dup", generator.randrange(6)), make_op("split")]
            ops.append(make_op("pop", 1) if generator.random() < 0.5 else make_op("swap", 1))
        elif roll < 0.8:
            ops.append(make_op(generator.choice(RICH)))
        else:
            ops += list(random_block(generator, 2))
    return tuple(ops[:length])


def _rewritten_prediction(table, summary, entry, depth):
    """What the *rewritten* summary says happens from `entry`: None if it fails."""
    canonical = Canonical(table)
    normalized, mapping = guards.normalize(table, summary.guards, canonical.eliminate)
    memo: dict = {}

    def rewrite(poly):
        poly = canonical(poly)
        return substitute(table, poly, mapping, memo, canonical.eliminate) if mapping else poly

    return symbolic_prediction(table, summary, entry, depth, normalized, rewrite)


@pytest.mark.parametrize("seed", range(4))
def test_rewritten_summaries_predict_the_interpreter(seed):
    generator = random.Random(seed)
    succeeded = 0
    for index in range(60):
        length = generator.randint(2, 24)
        maker = (_rich_block, compiled_block, random_block)[index % 3]
        succeeded += assert_agrees(
            maker(generator, length), seed * 1000 + index, 32, _rewritten_prediction
        )
    assert succeeded > 150


# The identities, each as two blocks that differ only through it.  Both fail exactly where
# their shared instructions fail (an inverse of 0, a u32 operand that is not, a zero divisor).
IDENTITIES = {
    "x * x^-1 = 1": ("dup 0 invert mul", "push 1 swap 1 invert pop 1"),
    "x * x^-1 = 1 for a sum": (
        "dup 1 dup 1 add dup 0 invert mul",
        "dup 1 dup 1 add invert pop 1 push 1",
    ),
    "an assert that x * x^-1 = 1": (
        "dup 0 dup 0 invert mul push 1 eq assert",
        "dup 0 invert pop 1",
    ),
    "hi * 2^32 + lo of a split": ("split swap 1 push 4294967296 mul add", ""),
    "q * d + r of a div_mod": (
        "dup 1 dup 1 div_mod swap 1 dup 3 mul add",
        "dup 1 dup 1 div_mod pop 2 dup 0",
    ),
    "lt(a, b) + lt(b, a) + eq(a, b) = 1": (
        "dup 1 dup 1 lt dup 2 dup 2 swap 1 lt add dup 2 dup 2 eq add",
        "dup 1 dup 1 lt dup 2 dup 2 swap 1 lt pop 2 push 1",
    ),
    "a xor b = a + b - 2 (a and b)": (
        "dup 1 dup 1 xor",
        "dup 1 dup 1 and push -2 mul dup 2 dup 2 add add",
    ),
    "a or b = a + b - (a and b) = (a xor b) + (a and b)": (
        "dup 1 dup 1 and push -1 mul dup 2 dup 2 add add",
        "dup 1 dup 1 xor dup 2 dup 2 and add",
    ),
    "r < d after div_mod": (
        "dup 1 dup 1 div_mod dup 3 swap 1 lt",
        "dup 1 dup 1 div_mod dup 3 dup 1 lt pop 2 push 1",
    ),
}


@pytest.mark.parametrize("name", list(IDENTITIES))
def test_identities_are_proven(name):
    first, second = (parse(text) for text in IDENTITIES[name])
    verdict = check_equivalent(first, second)
    assert verdict.equivalent, verdict.reason
    assert check_equivalent(second, first).equivalent
    shape = concrete.generous_shape([first, second])
    lanes = concrete.sample_lanes(np.random.default_rng(5), 3000, shape)
    outcomes = [vectorized.run_lanes(program, lanes) for program in (first, second)]
    assert not vectorized.differing_lanes(*outcomes, lanes).any()
    assert (~outcomes[0].failed).sum() > 500  # compared on runs that succeed


def test_formal_differences_with_inverses_are_not_proven():
    table = TermTable()
    x, y = leaf(table, "stack", 0), leaf(table, "stack", 1)
    inverse_x = table.atom("inverse", (), (x,))
    inverse_y = table.atom("inverse", (), (y,))
    inverse_sum = table.atom("inverse", (), (table.add(x, y),))
    generator = random.Random(0)
    wrong = [
        ("x/x = 2", table.mul(x, inverse_x), table.constant(2)),
        ("1/x + 1/y = 1/(x+y)", table.add(inverse_x, inverse_y), inverse_sum),
        ("x^2/x = 1", table.mul(table.mul(x, x), inverse_x), table.one),
    ]
    for name, left, right in wrong:
        assert not equal_at_random_points(table, [(name, left, right)], generator).proven, name
    right = [
        ("x^2/x = x", table.mul(table.mul(x, x), inverse_x), x),
        (
            "1/x + 1/y = (x+y)/(xy)",
            table.add(inverse_x, inverse_y),
            table.mul(table.add(x, y), table.mul(inverse_x, inverse_y)),
        ),
    ]
    for name, left, right_side in right:
        proof = equal_at_random_points(table, [(name, left, right_side)], generator)
        assert proof.proven and 0 < proof.error_bound < 2**-100, name
