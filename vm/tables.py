"""Table heights and padded height: `Run` -> `Heights` (docs/vm.md, How tables are counted).

All nine heights are computed here and nowhere else, from what a run
recorded: how often each address executed (times each instruction's static
cost, `vm.cost.instruction_cost`, from the rows of `vm.isa`), the set of u32
entries, and the set of Tip5 permutation inputs (for the cascade table), plus
the program itself (program table and the program-attestation part of the
hash and cascade tables).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import lru_cache

import numpy as np

from vm import effects, tip5
from vm.cost import ZERO, attestation_chunks, attestation_rows, instruction_cost, program_height
from vm.isa import HASH_ROWS_PER_PERMUTATION
from vm.tasm import Program

LOOKUP_HEIGHT = 256  # the full 8-bit S-box table, whatever the program does

__all__ = [
    "HASH_ROWS_PER_PERMUTATION",
    "LOOKUP_HEIGHT",
    "REPORT_ORDER",
    "Heights",
    "attestation_chunks",
    "attestation_limbs",
    "heights",
    "padded_height",
    "u32_entry_rows",
]

# The order of reports: the six processor-side tables first, then the three that
# depend only on the program or on hashing (issue 2).
REPORT_ORDER = (
    "processor",
    "op_stack",
    "ram",
    "jump_stack",
    "hash",
    "u32",
    "program",
    "cascade",
    "lookup",
)


@dataclass(frozen=True)
class Heights:
    """The nine table heights of one run, in the JSON order of `tri run --json`."""

    program: int
    processor: int
    op_stack: int
    ram: int
    jump_stack: int
    hash: int
    cascade: int
    lookup: int
    u32: int

    def as_dict(self) -> dict[str, int]:
        return asdict(self)

    @property
    def maximum(self) -> int:
        return max(self.as_dict().values())

    @property
    def dominant(self) -> list[str]:
        """The tables whose height is the maximum, in report order."""
        heights = self.as_dict()
        return [name for name in REPORT_ORDER if heights[name] == self.maximum]

    @property
    def padded_height(self) -> int:
        return padded_height(self.maximum)

    @property
    def growing(self) -> dict[str, int]:
        """The tables a run can make taller: all but lookup, always LOOKUP_HEIGHT rows."""
        return {name: value for name, value in self.as_dict().items() if name != "lookup"}

    @property
    def tallest_growing(self) -> str:
        """The growing table nearest the cliff (the first in report order on a tie)."""
        growing = self.growing
        names = [name for name in REPORT_ORDER if name in growing]
        return max(names, key=lambda name: (growing[name], -names.index(name)))

    @property
    def slack(self) -> int:
        """Rows the tallest growing table can add before the padded height doubles."""
        return self.padded_height - max(self.growing.values())


def padded_height(height: int) -> int:
    """The smallest power of two >= height."""
    return 1 << max(0, height - 1).bit_length()


def u32_entry_rows(entry: tuple[str, int, int]) -> int:
    """Rows one distinct u32 entry adds (docs/vm.md, How tables are counted);
    `effects.u32_table_rows` sums them over many entries at once."""
    kind, left, right = entry
    dominant = right if kind == "pow" else max(left, right)
    return 1 if dominant == 0 else dominant.bit_length() + 1


@lru_cache(maxsize=256)
def attestation_limbs(words: tuple[int, ...]) -> frozenset[int]:
    """The cascade limbs of program attestation: hashing the program's own words."""
    return frozenset(tip5.cascade_limbs_many(tip5.varlen_permutation_inputs(words)))


@lru_cache(maxsize=256)
def _attestation_limb_array(words: tuple[int, ...]) -> np.ndarray:
    return np.array(sorted(attestation_limbs(words)), dtype=np.int64)


def _cascade_height(program: Program, inputs) -> int:
    """Distinct 16-bit limbs looked up by the program attestation and by every permutation:
    from the limb bitmap native code marked, else from the permutation inputs."""
    marked = effects.cascade_bitmap(inputs)
    if marked is None:
        permutations = effects.permutation_array(inputs)
        return len(attestation_limbs(program.words) | tip5.cascade_limbs_many(permutations))
    marked = marked.copy()
    marked[_attestation_limb_array(program.words)] = True
    return int(np.count_nonzero(marked))


def heights(run) -> Heights:
    """The nine table heights of a run (complete or stopped by an error)."""
    program: Program = run.program
    executed = ZERO
    for op, address in zip(program.ops, program.addresses):
        count = run.visits[address]
        if count:
            executed = executed + instruction_cost(op.instruction, op.argument) * count
    return table_heights(
        program,
        executed,
        cycles=run.cycles,
        cascade=_cascade_height(program, run.permutation_inputs),
        u32=effects.u32_table_rows(run.u32_entries),
    )


def table_heights(program: Program, executed, cycles: int, cascade: int, u32: int) -> Heights:
    """The nine heights, from the program, the summed cost of the instructions executed
    (`vm.cost`), the cycles, and the cascade and u32 rows counted elsewhere."""
    return Heights(
        program=program_height(program.length),
        processor=cycles,
        op_stack=executed.op_stack,
        ram=executed.ram,
        jump_stack=cycles,
        hash=attestation_rows(program.length) + executed.hash,
        cascade=cascade,
        lookup=LOOKUP_HEIGHT,
        u32=u32,
    )
