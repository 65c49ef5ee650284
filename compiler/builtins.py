"""The builtin functions (docs/reference.md, Builtins), as one table.

Each row gives a builtin's signature and the TASM a correct lowering emits
with the arguments pushed left to right (first argument deepest), and what the builder's
value ranges (compiler.tir.ranges) may assume of it: an upper bound of each word of its
result from the bounds of its arguments (`bound`), and for a builtin that can fail, the
arguments whose being below 2^32 rules the failure out (`checked`).  The checker reads the
signatures, the reference evaluator implements each row (with a coverage test), and the
back end emits the instructions.

Three facts are not written in the table but read off the TASM through the instruction
table's facts (vm.isa), so they cannot disagree with what the code does: `touches_state`
(an instruction reads or writes the public or secret input or output, RAM or the sponge:
`#[pure]` functions may not call it and no rewrite may drop or move it), `can_fail` (an
instruction can raise an error the structure of compiled code does not rule out) and
`hashes` (it uses the hash co-processor: evaluating it where the program would not have
costs hash-table rows).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from compiler.check.types import BOOL, DIGEST, FIELD, U32, UNIT, XFIELD, ArrayType, TupleType, Type
from vm.field import P
from vm.isa import EFFECT_AMOUNTS, Failure, instruction_set

_INSTRUCTIONS = instruction_set("rel")
# What compiled code's structure rules out: every builtin runs on a deep enough stack.
_STRUCTURAL = frozenset({Failure.TOO_SHALLOW})
U32_MAX = 2**32 - 1
UNKNOWN = P - 1  # a bound that says nothing
HIGH_MAX = (P - 1) >> 32  # the high word of a field element (split)

Bound = Callable[[list[int]], list[int]]  # argument bounds -> result word bounds


@dataclass(frozen=True)
class Builtin:
    name: str
    params: tuple[Type, ...]
    result: Type
    tasm: tuple[str, ...]
    # what value ranges may assume (see above; not part of the builtin's identity)
    bound: Bound | None = field(default=None, compare=False, repr=False)  # None: unknown
    checked: tuple[int, ...] | None = field(default=None, compare=False)  # None: none
    # read off the TASM (see above)
    touches_state: bool = field(init=False)
    can_fail: bool = field(init=False)
    hashes: bool = field(init=False)

    def __post_init__(self) -> None:
        lines = [_instruction(line) for line in self.tasm]
        facts = {
            "touches_state": any(_touches_state(row, number) for row, number in lines),
            "can_fail": any(row.failures - _STRUCTURAL for row, _ in lines),
            "hashes": any(row.hash_rows for row, _ in lines),
        }
        for name, value in facts.items():
            object.__setattr__(self, name, value)


def _instruction(line: str) -> tuple:
    name, _, argument = line.partition(" ")
    number = int(argument) if argument.strip().lstrip("-").isdigit() else None
    return _INSTRUCTIONS[name], number


def _touches_state(instruction, number: int | None) -> bool:
    amounts = (getattr(instruction, fact).at(number) for fact in EFFECT_AMOUNTS)
    return instruction.sponge or any(amounts)


def _fields(count: int) -> tuple[Type, ...]:
    return (FIELD,) * count


def bounded_sum(a: int, b: int) -> int:
    return a + b if a + b < P else UNKNOWN


def bounded_product(a: int, b: int) -> int:
    return a * b if a * b < P else UNKNOWN


def _row(name, params, result, tasm, bound=None, checked=None) -> Builtin:
    code = tuple(tasm.split(";")) if tasm else ()
    return Builtin(name, tuple(params), result, code, bound, checked)


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
    _row("field_add", _fields(2), FIELD, "add", lambda a: [bounded_sum(a[0], a[1])]),
    _row("field_mul", _fields(2), FIELD, "mul", lambda a: [bounded_product(a[0], a[1])]),
    _row("sub", _fields(2), FIELD, "push -1;mul;add", lambda a: [UNKNOWN]),
    _row("neg", _fields(1), FIELD, "push -1;mul", lambda a: [UNKNOWN]),
    _row("inv", _fields(1), FIELD, "invert"),
    # conversions and u32 operations
    _row(
        "as_u32",
        _fields(1),
        U32,
        "split;swap 1;push 0;eq;assert",
        lambda a: [min(a[0], U32_MAX)],
        checked=(0,),
    ),
    _row("as_field", (U32,), FIELD, "", lambda a: [a[0]]),
    _row("split", _fields(1), TupleType((U32, U32)), "split", lambda a: [HIGH_MAX, U32_MAX]),
    _row("log2", (U32,), U32, "log_2_floor", lambda a: [31]),
    _row("pow", (U32, U32), U32, "swap 1;pow", lambda a: [UNKNOWN], checked=(1,)),
    _row("popcount", (U32,), U32, "pop_count", lambda a: [32], checked=(0,)),
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
    tasm = (*builtin.tasm, *drop.split(";"))
    return Builtin(builtin.name, params, result, tasm, builtin.bound, builtin.checked)
