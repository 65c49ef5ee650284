"""The Triton VM instruction set, as one table.

Every fact about an instruction that is static -- mnemonic, opcode, size,
argument kind, net op-stack change, RAM and hash-table rows -- is a field of
one `Instruction` row below (tasm.md §8.1).  The assembler, interpreter, table
counter, and later the JIT, cost model and symbolic executor read these rows;
none of them restates a number that is here.

Two instruction sets exist (tasm.md §1): REL (every release from v0.42 to
v7.0.0) and HEAD (master after v7.0.0).  They differ only in opcodes 80 and 88.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from functools import cache


class Arg(Enum):
    """What kind of argument an instruction takes."""

    NONE = "none"
    FIELD = "field"  # push, addi: any field element
    COUNT = "count"  # pop, divine, read_mem, write_mem, read_io, write_io: 1..5
    INDEX = "index"  # pick, place, dup, swap: 0..15
    LABEL = "label"  # call: a label, encoded as its absolute address


ARGUMENT_RANGE = {Arg.COUNT: range(1, 6), Arg.INDEX: range(0, 16)}

ISAS = ("rel", "head")


@dataclass(frozen=True)
class Instruction:
    """One row of the instruction table.

    `delta`, `ram_rows` and `op_stack_rows` are per unit of the count argument
    when `per_count` is true (pop n removes n words: delta -1, per_count).
    """

    name: str
    opcode: int
    arg: Arg = Arg.NONE
    delta: int = 0
    ram_rows: int = 0
    hash_rows: int = 0
    per_count: bool = False
    u32: bool = False
    isa: str = "both"  # "both", "rel" or "head"

    @property
    def size(self) -> int:
        return 1 if self.arg is Arg.NONE else 2

    def stack_delta(self, argument: int | None = None) -> int:
        """Net change of the op-stack length when executed with `argument`."""
        return self.delta * argument if self.per_count else self.delta

    def ram_accesses(self, argument: int | None = None) -> int:
        """RAM-table rows one execution adds (tasm.md §9.4)."""
        return self.ram_rows * argument if self.per_count else self.ram_rows

    def op_stack_rows(self, argument: int | None = None) -> int:
        """Op-stack-table rows one execution adds: |delta| (tasm.md §9.3)."""
        return abs(self.stack_delta(argument))


def _row(name, opcode, arg=Arg.NONE, delta=0, **facts) -> Instruction:
    return Instruction(name, opcode, arg, delta, **facts)


_COUNTED = dict(per_count=True)

INSTRUCTIONS: tuple[Instruction, ...] = (
    # stack manipulation
    _row("push", 1, Arg.FIELD, +1),
    _row("pop", 3, Arg.COUNT, -1, **_COUNTED),
    _row("divine", 9, Arg.COUNT, +1, **_COUNTED),
    _row("pick", 17, Arg.INDEX),
    _row("place", 25, Arg.INDEX),
    _row("dup", 33, Arg.INDEX, +1),
    _row("swap", 41, Arg.INDEX),
    # control flow
    _row("halt", 0),
    _row("nop", 8),
    _row("skiz", 2, delta=-1),
    _row("call", 49, Arg.LABEL),
    _row("return", 16),
    _row("recurse", 24),
    _row("recurse_or_return", 32),
    _row("assert", 10, delta=-1),
    # memory
    _row("read_mem", 57, Arg.COUNT, +1, ram_rows=1, **_COUNTED),
    _row("write_mem", 11, Arg.COUNT, -1, ram_rows=1, **_COUNTED),
    # hashing
    _row("hash", 18, delta=-5, hash_rows=6),
    _row("assert_vector", 26, delta=-5),
    _row("sponge_init", 40, hash_rows=1),
    _row("sponge_absorb", 34, delta=-10, hash_rows=6),
    _row("sponge_absorb_mem", 48, ram_rows=10, hash_rows=6),
    _row("sponge_squeeze", 56, delta=+10, hash_rows=6),
    # base-field arithmetic
    _row("add", 42, delta=-1),
    _row("addi", 65, Arg.FIELD),
    _row("mul", 50, delta=-1),
    _row("invert", 64),
    _row("eq", 58, delta=-1),
    # u32 arithmetic
    _row("split", 4, delta=+1, u32=True),
    _row("lt", 6, delta=-1, u32=True),
    _row("and", 14, delta=-1, u32=True),
    _row("xor", 22, delta=-1, u32=True),
    _row("log_2_floor", 12, u32=True),
    _row("pow", 30, delta=-1, u32=True),
    _row("div_mod", 20, u32=True),
    _row("pop_count", 28, u32=True),
    # extension-field arithmetic
    _row("xx_add", 66, delta=-3),
    _row("xx_mul", 74, delta=-3),
    _row("x_invert", 72),
    _row("xb_mul", 82, delta=-1),
    # input / output
    _row("read_io", 73, Arg.COUNT, +1, **_COUNTED),
    _row("write_io", 19, Arg.COUNT, -1, **_COUNTED),
    # many-in-one
    _row("merkle_step", 36, hash_rows=6, u32=True),
    _row("merkle_step_mem", 44, ram_rows=5, hash_rows=6, u32=True),
    _row("xx_dot_step", 80, ram_rows=6, isa="rel"),
    _row("xb_dot_step", 88, ram_rows=4, isa="rel"),
    _row("b_horner_step", 80, ram_rows=1, isa="head"),
    _row("x_horner_step", 88, ram_rows=3, isa="head"),
)

# Words that may not be used as label names besides the mnemonics (tasm.md §11.5).
RESERVED_WORDS = frozenset({"hint", "error_id", "error_message", "break"})


@cache
def instruction_set(isa: str = "rel") -> dict[str, Instruction]:
    """The instructions of one ISA, by mnemonic."""
    if isa not in ISAS:
        raise ValueError(f"unknown ISA {isa!r}; expected one of {', '.join(ISAS)}")
    return {row.name: row for row in INSTRUCTIONS if row.isa in ("both", isa)}


@cache
def by_opcode(isa: str = "rel") -> dict[int, Instruction]:
    """The instructions of one ISA, by opcode."""
    return {row.opcode: row for row in instruction_set(isa).values()}


ALL_MNEMONICS = frozenset(row.name for row in INSTRUCTIONS)
