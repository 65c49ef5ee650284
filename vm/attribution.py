"""A run's table heights, attributed to the blocks of its program (optimizer.md §3).

Input: a `Run` (vm.interp or vm.jit) of an assembled program.  Output: an
`Attribution`: the program's straight-line blocks (`program_blocks`), each with
its static cost vector (`vm.cost.static_cost`) and how often the run executed
it, and the measured heights (`vm.tables.heights`).

A block is a maximal straight-line run of the program between labels and
control instructions (those whose `vm.isa` flow class ends a block: skiz,
call, return, recurse, recurse_or_return, halt): a block starts at address 0,
at every label, after every control instruction and at the instruction after
the one a `skiz` guards; it ends with a control instruction or just before the
next start.  Control enters a block only at its start and leaves only after
its last instruction, so in a run that halts every instruction of a block runs
as often as the first: its *visits*.

A block's contribution is visits times its static vector (in a run stopped by
an error, the block where it stopped contributes the instructions that did
run), without program words: a block's words count once, however often it
runs.  The sum of the contributions, plus the fixed parts -- the program table
(the program's words, `vm.cost.program_height`) and the program-attestation
rows of the hash table -- reproduces the measured processor, op-stack, RAM,
jump-stack, hash and program heights exactly (`Attribution.attributed`).  The
u32, cascade and lookup heights are whole-run figures: a u32 entry or a
permutation that repeats adds nothing, so no block owns them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

from vm import tables
from vm.cost import ZERO, StaticCost, attestation_rows, instruction_cost, program_height
from vm.isa import Flow
from vm.tables import Heights
from vm.tasm import Program

EXECUTED = ("processor", "op_stack", "ram", "jump_stack", "hash")  # rows added per visit
ATTRIBUTED = (*EXECUTED, "program")
WHOLE_RUN = ("u32", "cascade", "lookup")


@dataclass(frozen=True)
class Block:
    """A straight-line block of a program (see the module docstring)."""

    index: int
    start: int  # the word address of its first instruction
    op_indices: range  # indices into `program.ops`
    labels: tuple[str, ...]  # the labels at its start
    label: str | None  # the nearest label at or before its start
    offset: int  # words from that label (or from address 0) to its start
    cost: StaticCost  # one execution of all its instructions

    @property
    def name(self) -> str:
        """Its first label, else `label+offset` (in words), else `@address`."""
        if self.labels:
            return self.labels[0]
        return f"@{self.start}" if self.label is None else f"{self.label}+{self.offset}"


def block_starts(program: Program) -> set[int]:
    """Op indices at which a block starts."""
    ops = program.ops
    starts = {0} if ops else set()
    labelled = {address for _, address in program.labels}
    for index, (op, address) in enumerate(zip(ops, program.addresses)):
        if address in labelled:
            starts.add(index)
        flow = op.instruction.flow
        if flow.ends_block and index + 1 < len(ops):
            starts.add(index + 1)
        if flow is Flow.SKIZ and index + 2 < len(ops):
            starts.add(index + 2)
    return starts


def program_blocks(program: Program) -> tuple[Block, ...]:
    """The straight-line blocks of `program`, in address order."""
    starts = sorted(block_starts(program))
    labels_at = program.label_at()
    label_starts = sorted((address, names[0]) for address, names in labels_at.items())
    blocks, position = [], 0
    for number, first in enumerate(starts):
        last = starts[number + 1] if number + 1 < len(starts) else len(program.ops)
        start = program.addresses[first]
        while position < len(label_starts) and label_starts[position][0] <= start:
            position += 1
        anchor, nearest = label_starts[position - 1] if position else (0, None)
        cost = ZERO
        for op in program.ops[first:last]:
            cost = cost + instruction_cost(op.instruction, op.argument)
        here = tuple(labels_at.get(start, ()))
        block = Block(number, start, range(first, last), here, nearest, start - anchor, cost)
        blocks.append(block)
    return tuple(blocks)


@dataclass(frozen=True)
class BlockCost:
    """One block in one run (or summed over runs of the same program layout)."""

    block: Block
    visits: int  # executions of its first instruction
    contribution: StaticCost  # the rows its executed instructions added (no program words)

    def __add__(self, other: BlockCost) -> BlockCost:
        return BlockCost(
            self.block, self.visits + other.visits, self.contribution + other.contribution
        )


@dataclass(frozen=True)
class Attribution:
    """A run's heights and the blocks they come from (see the module docstring)."""

    program: Program
    blocks: tuple[BlockCost, ...]
    heights: Heights  # measured
    halted: bool

    @cached_property
    def executed(self) -> StaticCost:
        """The sum of the blocks' contributions."""
        total = ZERO
        for entry in self.blocks:
            total = total + entry.contribution
        return total

    @cached_property
    def attributed(self) -> dict[str, int]:
        """The six attributable heights rebuilt from the blocks and the fixed parts."""
        executed = self.executed
        words = sum(entry.block.cost.program_words for entry in self.blocks)
        return {
            "processor": executed.processor,
            "op_stack": executed.op_stack,
            "ram": executed.ram,
            "jump_stack": executed.jump_stack,
            "hash": executed.hash + attestation_rows(words),
            "program": program_height(words),
        }

    @property
    def fixed(self) -> dict[str, int]:
        """The parts no block owns: the program table, the attestation rows of the hash table."""
        return {
            "program": program_height(self.program.length),
            "hash": attestation_rows(self.program.length),
        }

    def mismatches(self) -> dict[str, tuple[int, int]]:
        """Tables whose rebuilt height differs from the measured one: (rebuilt, measured).
        Empty unless something is wrong."""
        measured = self.heights.as_dict()
        return {
            name: (value, measured[name])
            for name, value in self.attributed.items()
            if value != measured[name]
        }

    @property
    def tallest_attributable(self) -> str:
        return tallest_attributable(self.heights.as_dict())


def tallest_attributable(heights: dict[str, int], candidates=ATTRIBUTED) -> str:
    """The tallest of the `candidates` tables, by which blocks can be ranked (in report
    order among equals, the program table last)."""
    order = [name for name in tables.REPORT_ORDER if name in candidates]
    return max(order, key=lambda name: (heights[name], name != "program"))


def share(entry: BlockCost, table: str) -> int:
    """The block's part of `table`: its contribution, or for `program` its words."""
    if table == "program":
        return entry.block.cost.program_words
    return getattr(entry.contribution, table)


def ranking(entries, table: str) -> list[BlockCost]:
    """The executed blocks, the largest share of `table` first (then in address order)."""
    executed = [entry for entry in entries if entry.visits or entry.contribution.processor]
    return sorted(executed, key=lambda entry: (-share(entry, table), entry.block.start))


def attribute(run) -> Attribution:
    """The attribution of one run (complete or stopped by an error)."""
    program = run.program
    entries = []
    for block in program_blocks(program):
        contribution = ZERO
        for index in block.op_indices:
            op = program.ops[index]
            count = run.visits[program.addresses[index]]
            if count:
                contribution = contribution + instruction_cost(op.instruction, op.argument) * count
        executed = replace(contribution, program_words=0)  # a block's words count once
        entries.append(BlockCost(block, run.visits[block.start], executed))
    return Attribution(program, tuple(entries), tables.heights(run), run.error is None)


def combine(attributions: list[Attribution]) -> list[BlockCost]:
    """Visits and contributions summed block by block over runs of programs with the same
    blocks (a module's functions, each run from its own entry stub)."""
    total: dict[int, BlockCost] = {}
    for attribution in attributions:
        for entry in attribution.blocks:
            key = entry.block.start
            total[key] = total[key] + entry if key in total else entry
    return list(total.values())
