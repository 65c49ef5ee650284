"""Compilation units: a program's blocks cut into native functions of bounded size.

Input: a `BlockMap`, the checkpoints whose regions are to be compiled (vm.jit.blocks:
`hot_checkpoints`, or all of them) and a size limit in instructions; output:
`UnitMap`, the units the code generator emits as separate LLVM functions.  LLVM's passes and
its instruction selection cost more than linear time in the size of a
function (and of a basic block): one function of 25,000 straight-line
instructions does not compile in reasonable time or memory.  So a program is
cut, in address order, into units of at most `limit` instructions each, and a
block longer than the limit into *pieces* of at most `limit` instructions:
compilation then costs a bounded amount per instruction.

Within a unit, control flow is native branches as before.  An edge to an
address in another unit leaves the unit's function with `Status.CONTINUE` and
`control[IP]` set to that address; the program's main function (vm.jit.codegen)
calls the unit that holds it, or hands the run to the interpreter if no unit
does (the address is in a region that is not compiled).  A unit's *entries* are the addresses where
control can arrive from outside it: its checkpoints (where the runtime and
`call`, `return` and `recurse` arrive), block starts whose fall-through or
`skiz` predecessor is in another unit, and pieces that continue a block begun
in another unit.  Address L (past the last instruction) belongs to the last
unit and is always one of its entries.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from vm.jit.blocks import Block, BlockMap

DEFAULT_LIMIT = 200  # instructions per unit: see docs/performance.md (JIT compile time)


@dataclass(frozen=True)
class Piece:
    """Instructions `start` to `end` (exclusive) of a block, positions within it."""

    block: Block
    start: int
    end: int

    @property
    def address(self) -> int:
        return self.block.addresses[self.start]

    @property
    def first(self) -> bool:
        """This piece begins its block: it counts the block and checks the guard."""
        return self.start == 0

    @property
    def last(self) -> bool:
        """This piece ends its block: its last instruction decides where control goes."""
        return self.end == self.block.length

    @property
    def following(self) -> int:
        """The address of the next piece of the block (only for a piece that is not last)."""
        return self.block.addresses[self.end]


@dataclass(frozen=True)
class Unit:
    index: int
    pieces: tuple[Piece, ...]
    entries: tuple[int, ...]  # addresses where control arrives from outside, sorted

    @property
    def size(self) -> int:
        return sum(piece.end - piece.start for piece in self.pieces)


@dataclass(frozen=True)
class UnitMap:
    blocks: BlockMap
    units: tuple[Unit, ...]
    checkpoints: frozenset[int]  # the checkpoints whose regions are compiled

    @cached_property
    def unit_of(self) -> dict[int, int]:
        """The unit of each piece's address, and of L (the last unit)."""
        table = {piece.address: unit.index for unit in self.units for piece in unit.pieces}
        table[self.blocks.program.length] = len(self.units) - 1
        return table


def _pieces(block: Block, limit: int) -> list[Piece]:
    return [
        Piece(block, start, min(start + limit, block.length))
        for start in range(0, block.length, limit)
    ]


def partition(
    blocks: BlockMap, checkpoints: frozenset[int] | None = None, limit: int = DEFAULT_LIMIT
) -> UnitMap:
    """Cut the regions of `checkpoints` (default: every checkpoint) into units of at most
    `limit` instructions, in address order."""
    if limit < 1:
        raise ValueError(f"a unit holds at least one instruction, not {limit}")
    checkpoints = blocks.checkpoints if checkpoints is None else frozenset(checkpoints)
    groups: list[list[Piece]] = [[]]
    size = 0
    for block in blocks.region_blocks(sorted(checkpoints)):
        for piece in _pieces(block, limit):
            length = piece.end - piece.start
            if groups[-1] and size + length > limit:
                groups.append([])
                size = 0
            groups[-1].append(piece)
            size += length
    owner = {piece.address: number for number, group in enumerate(groups) for piece in group}
    length = blocks.program.length
    owner[length] = len(groups) - 1
    arrivals: dict[int, set[int]] = {number: set() for number in range(len(groups))}
    for address in checkpoints:
        arrivals[owner[address]].add(address)
    arrivals[len(groups) - 1].add(length)
    for number, group in enumerate(groups):
        for piece in group:
            targets = piece.block.successors if piece.last else (piece.following,)
            for target in targets:
                if owner.get(target, number) != number:
                    arrivals[owner[target]].add(target)
    units = tuple(
        Unit(number, tuple(group), tuple(sorted(arrivals[number])))
        for number, group in enumerate(groups)
    )
    return UnitMap(blocks, units, checkpoints)
