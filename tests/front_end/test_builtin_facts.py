"""Builtin facts: which builtins touch state (the ones a `#[pure]` function may not call
and no rewrite may drop or move), can fail, or hash is derived from the TASM each one emits
and vm.isa's facts about those instructions, never written by hand; the two columns the
value ranges rely on (a bound of the result, the arguments whose being u32 rules a failure
out) are checked against the reference evaluator on edge and random values."""

from __future__ import annotations

import random

import pytest

from compiler.builtins import BUILTINS, U32_MAX, Builtin
from compiler.check.types import FIELD, UNIT
from compiler.semantics import BUILTIN_SEMANTICS, Failure
from vm.field import P
from vm.isa import instruction_set

EDGES = (0, 1, 2, 31, 32, 2**31, U32_MAX, 2**32, 2**63, P - 2, P - 1)
RANGED = [name for name, builtin in BUILTINS.items() if builtin.bound or builtin.checked]

STATEFUL = {
    *(f"pub_read{n}" for n in ("", 2, 3, 4, 5)),
    *(f"pub_write{n}" for n in ("", 2, 3, 4, 5)),
    "divine", "divine3", "divine5", "merkle_step",
    "ram_read", "ram_write", "ram_read_block", "ram_write_block",
    "sponge_init", "sponge_absorb", "sponge_squeeze", "sponge_absorb_mem",
    "xx_dot_step", "xb_dot_step",
}  # fmt: skip


def test_the_builtins_that_touch_state():
    assert {name for name, builtin in BUILTINS.items() if builtin.touches_state} == STATEFUL


def test_the_builtins_that_can_fail_or_hash():
    failing = {name for name, builtin in BUILTINS.items() if builtin.can_fail}
    assert failing == {
        *(f"pub_read{n}" for n in ("", 2, 3, 4, 5)), "divine", "divine3", "divine5",
        "assert", "assert_eq", "assert_digest", "inv", "as_u32", "log2", "pow", "popcount",
        "sponge_absorb", "sponge_squeeze", "sponge_absorb_mem", "merkle_step", "xinvert",
    }  # fmt: skip
    hashing = {name for name, builtin in BUILTINS.items() if builtin.hashes}
    assert hashing == {"hash", "sponge_init", "sponge_absorb", "sponge_squeeze",
                       "sponge_absorb_mem", "merkle_step"}  # fmt: skip
    for builtin in BUILTINS.values():  # a column only where its premise holds
        assert builtin.checked is None or builtin.can_fail, builtin.name
        assert not (builtin.bound or builtin.checked) or not builtin.touches_state, builtin.name


@pytest.mark.parametrize("name", RANGED)
def test_bounds_hold_and_checked_arguments_rule_failures_out(name):
    builtin = BUILTINS[name]
    rng = random.Random(name)
    semantics = BUILTIN_SEMANTICS[name]
    for _ in range(600):
        values = [draw(rng) for _ in builtin.params]
        try:
            result = semantics(None, *((value,) for value in values))
        except Failure:
            assert builtin.can_fail
            checked = builtin.checked
            assert checked is None or any(values[i] > U32_MAX for i in checked), values
            continue
        if builtin.bound is not None:  # any argument bounds at or above the values
            above = [
                rng.choice((value, min(P - 1, value + rng.randrange(1 << 40)))) for value in values
            ]
            for given in (values, above, [P - 1] * len(values)):
                bounds = builtin.bound(given)
                assert len(bounds) == len(result)
                assert all(word <= b for word, b in zip(result, bounds)), (values, given)


def draw(rng: random.Random) -> int:
    return rng.choice(
        (rng.choice(EDGES), rng.randrange(1 << 32), rng.randrange(P), rng.randrange(40))
    )


def test_every_builtin_emits_instructions_of_the_table():
    table = instruction_set("rel")
    for builtin in BUILTINS.values():
        for line in builtin.tasm:
            assert line.split(" ")[0] in table, (builtin.name, line)


def test_the_fact_follows_the_code_not_the_name():
    assert Builtin("reads", (), FIELD, ("read_io 1",)).touches_state
    assert Builtin("stores", (FIELD, FIELD), UNIT, ("write_mem 1", "pop 1")).touches_state
    assert not Builtin("hashes", (), FIELD, ("hash", "pop 5")).touches_state  # no sponge
    assert not Builtin("pushes", (), FIELD, ("push 0",)).touches_state
