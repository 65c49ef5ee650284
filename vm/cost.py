"""The exact static cost of TASM code: an instruction list -> `StaticCost` (optimizer.md §3).

Input: instructions in any of three shapes -- `vm.tasm.Op`s of an assembled
program, lowered `compiler.lower.asm.Instr`s (anything with `name` and `arg`),
or `(mnemonic, argument)` pairs.  Output: the rows one execution of them adds
to the six tables whose height is a fixed number per instruction (docs/vm.md, How
tables are counted), all read from the rows of `vm.isa`:

* processor: 1 per instruction, and jump_stack the same;
* op_stack: |delta| per instruction;
* ram: RAM words read and written;
* hash: 6 per Tip5 permutation, 1 per `sponge_init`;
* program_words: 1, or 2 for an instruction with an argument.  The
  program table and the attestation part of the hash table follow from the
  whole program's words (`program_height`, `attestation_rows`), never from a
  fragment.

u32 rows are never static: a run records a set of entries, and a repeated
entry adds nothing, so they come only from runs (`vm.tables`), as do the
cascade and lookup tables.  `vm.tables.heights` counts a run's heights with
`instruction_cost`, so a run's measured heights are exactly its executed
instructions' costs plus the program's fixed parts.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, fields
from functools import lru_cache

from vm.isa import HASH_ROWS_PER_PERMUTATION, Instruction, instruction_set

PROGRAM_CHUNK = 10  # words absorbed per Tip5 permutation of program attestation


@dataclass(frozen=True)
class StaticCost:
    """Rows added to each table with a static height, and the program words."""

    processor: int = 0
    op_stack: int = 0
    ram: int = 0
    hash: int = 0
    jump_stack: int = 0
    program_words: int = 0

    def __add__(self, other: StaticCost) -> StaticCost:
        return StaticCost(*(a + b for a, b in zip(self.vector, other.vector, strict=True)))

    def __mul__(self, times: int) -> StaticCost:
        return StaticCost(*(value * times for value in self.vector))

    __rmul__ = __mul__

    @property
    def vector(self) -> tuple[int, ...]:
        return tuple(getattr(self, name) for name in TABLES)

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


TABLES = tuple(field.name for field in fields(StaticCost))
ZERO = StaticCost()


@lru_cache(maxsize=4096)
def instruction_cost(row: Instruction, argument: int | None = None) -> StaticCost:
    """What one execution of `row` with `argument` adds (see the module docstring)."""
    return StaticCost(
        processor=1,
        op_stack=row.op_stack_rows(argument),
        ram=row.ram_accesses(argument),
        hash=row.hash_rows,
        jump_stack=1,
        program_words=row.size,
    )


def static_cost(instructions: Iterable, isa: str = "rel") -> StaticCost:
    """The cost of running `instructions` once, in order: the sum of their rows' costs.

    Each item is a `vm.tasm.Op`, an object with `name` and `arg` (a lowered
    `Instr`; a `call`'s label argument is fine), or a `(mnemonic, argument)`
    pair.  Labels are not instructions: leave them out.
    """
    rows = instruction_set(isa)
    total = ZERO
    for item in instructions:
        row, argument = _row_and_argument(item, rows)
        total = total + instruction_cost(row, argument)
    return total


def _row_and_argument(item, rows: dict[str, Instruction]) -> tuple[Instruction, int | None]:
    if isinstance(item, tuple) and len(item) == 2:
        mnemonic, argument = item
    elif hasattr(item, "instruction"):
        return item.instruction, item.argument
    elif hasattr(item, "name") and hasattr(item, "arg"):
        mnemonic, argument = item.name, item.arg
    else:
        raise TypeError(f"not an instruction: {item!r}")
    if mnemonic not in rows:
        raise ValueError(f"unknown instruction {mnemonic!r}")
    row = rows[mnemonic]
    return row, None if isinstance(argument, str) else argument


def attestation_chunks(program_words: int) -> int:
    """C = ceil((L + 1) / 10): the permutations that hash a program of L words."""
    return (program_words + 1 + PROGRAM_CHUNK - 1) // PROGRAM_CHUNK


def program_height(program_words: int) -> int:
    """The program table: L + 1 rounded up to a multiple of 10."""
    return PROGRAM_CHUNK * attestation_chunks(program_words)


def attestation_rows(program_words: int) -> int:
    """The hash-table rows of program attestation: 6 per absorbed chunk."""
    return HASH_ROWS_PER_PERMUTATION * attestation_chunks(program_words)
