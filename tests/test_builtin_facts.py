"""Builtin facts read off the instruction table: which builtins touch state (the ones a
`#[pure]` function may not call and no rewrite may drop or move) is derived from the
TASM each one emits and vm.isa's facts about those instructions, never written by hand."""

from __future__ import annotations

from compiler.builtins import BUILTINS, Builtin
from compiler.check.types import FIELD, UNIT
from vm.isa import instruction_set

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
