"""The builtin functions (docs/reference.md, Builtins), as one table.

Each row gives a builtin's signature and the TASM a correct lowering emits
with the arguments pushed left to right (first argument deepest).  The
checker reads the signatures, the reference evaluator implements each row
(with a coverage test), and the back end emits the instructions.
`touches_state` marks builtins that `#[pure]` functions may not call and that no
rewrite may drop or move: it is not written in the table but read off the TASM, from the
instruction table's facts (vm.isa: an instruction that reads or writes the public or
secret input or output, RAM or the sponge), so it cannot disagree with what the code does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from compiler.check.types import BOOL, DIGEST, FIELD, U32, UNIT, XFIELD, ArrayType, TupleType, Type
from vm.isa import EFFECT_AMOUNTS, instruction_set

_INSTRUCTIONS = instruction_set("rel")


@dataclass(frozen=True)
class Builtin:
    name: str
    params: tuple[Type, ...]
    result: Type
    tasm: tuple[str, ...]
    # whether its TASM reads or changes anything but the op stack (see above)
    touches_state: bool = field(init=False)

    def __post_init__(self) -> None:
        touches = any(_touches_state(line) for line in self.tasm)
        object.__setattr__(self, "touches_state", touches)


def _touches_state(line: str) -> bool:
    name, _, argument = line.partition(" ")
    instruction = _INSTRUCTIONS[name]
    number = int(argument) if argument.strip().lstrip("-").isdigit() else None
    amounts = (getattr(instruction, fact).at(number) for fact in EFFECT_AMOUNTS)
    return instruction.sponge or any(amounts)


def _fields(count: int) -> tuple[Type, ...]:
    return (FIELD,) * count


def _row(name, params, result, tasm) -> Builtin:
    return Builtin(name, tuple(params), result, tuple(tasm.split(";")) if tasm else ())


_ROWS = [
    # I/O and non-determinism
    _row("pub_read", (), FIELD, "read_io 1"),
    _row("pub_read2", (), TupleType(_fields(2)), "read_io 2"),
    _row("pub_read3", (), TupleType(_fields(3)), "read_io 3"),
    _row("pub_read4", (), TupleType(_fields(4)), "read_io 4"),
    _row("pub_read5", (), DIGEST, "read_io 5"),
    _row("pub_write", _fields(1), UNIT, "write_io 1"),
    _row("pub_write2", _fields(2), UNIT, "write_io 2"),
    _row("pub_write3", _fields(3), UNIT, "write_io 3"),
    _row("pub_write4", _fields(4), UNIT, "write_io 4"),
    _row("pub_write5", _fields(5), UNIT, "write_io 5"),
    _row("divine", (), FIELD, "divine 1"),
    _row("divine3", (), TupleType(_fields(3)), "divine 3"),
    _row("divine5", (), DIGEST, "divine 5"),
    # assertions
    _row("assert", (BOOL,), UNIT, "assert"),
    _row("assert_eq", _fields(2), UNIT, "eq;assert"),
    _row("assert_digest", (DIGEST, DIGEST), UNIT, "assert_vector;pop 5"),
    # field arithmetic
    _row("field_add", _fields(2), FIELD, "add"),
    _row("field_mul", _fields(2), FIELD, "mul"),
    _row("sub", _fields(2), FIELD, "push -1;mul;add"),
    _row("neg", _fields(1), FIELD, "push -1;mul"),
    _row("inv", _fields(1), FIELD, "invert"),
    # conversions and u32 operations
    _row("as_u32", _fields(1), U32, "split;swap 1;push 0;eq;assert"),
    _row("as_field", (U32,), FIELD, ""),
    _row("split", _fields(1), TupleType((U32, U32)), "split"),
    _row("log2", (U32,), U32, "log_2_floor"),
    _row("pow", (U32, U32), U32, "swap 1;pow"),
    _row("popcount", (U32,), U32, "pop_count"),
    # hashing
    _row("hash", _fields(10), DIGEST, "hash"),
    _row("sponge_init", (), UNIT, "sponge_init"),
    _row("sponge_absorb", _fields(10), UNIT, "sponge_absorb"),
    _row("sponge_squeeze", (), ArrayType(FIELD, 10), "sponge_squeeze"),
    _row(
        "sponge_absorb_mem",
        _fields(1),
        UNIT,
        "push 0;push 0;push 0;push 0;swap 4;sponge_absorb_mem;pop 5",
    ),
    # Merkle
    _row("merkle_step", (U32, *_fields(5)), TupleType((U32, DIGEST)), "merkle_step"),
    # RAM: block element d_i lives at addr + 4 - i
    _row("ram_read", _fields(1), FIELD, "read_mem 1;pop 1"),
    _row("ram_write", _fields(2), UNIT, "swap 1;write_mem 1;pop 1"),
    _row("ram_read_block", _fields(1), DIGEST, "addi 4;read_mem 5;pop 1"),
    _row("ram_write_block", (FIELD, DIGEST), UNIT, "pick 5;write_mem 5;pop 1"),
    # extension field; the dot steps read two X-field elements (or a word and one)
    # from RAM at the pointers and add their product to the accumulator
    _row("xfield", _fields(3), XFIELD, ""),
    _row("xinvert", (XFIELD,), XFIELD, "x_invert"),
    _row("xx_dot_step", _fields(5), DIGEST, "xx_dot_step"),
    _row("xb_dot_step", _fields(5), DIGEST, "xb_dot_step"),
]

BUILTINS: dict[str, Builtin] = {row.name: row for row in _ROWS}

# Intrinsic declarations that narrow a builtin's result, and the TASM that drops what the
# declared result leaves out.  Trident's own vm.crypto.hash declares `sponge_squeeze() ->
# Digest`: the instruction pushes ten words, and the declaration keeps the top five (the
# rate's first five elements, as `hash` keeps the permutation's first five).
NARROWINGS: dict[tuple[str, Type], str] = {
    ("sponge_squeeze", DIGEST): ";".join(["swap 5", "pop 1"] * 5),
}


def narrowed(builtin: Builtin, params: tuple, result: Type) -> Builtin | None:
    """The builtin as a declaration with these `params` and `result` narrows it, or None
    if that is not a narrowing this table allows."""
    drop = NARROWINGS.get((builtin.name, result))
    if drop is None or params != builtin.params:
        return None
    return Builtin(builtin.name, params, result, (*builtin.tasm, *drop.split(";")))
