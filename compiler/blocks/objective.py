"""What a whole program costs, as the optimizer compares programs (optimizer.md §3).

Input: an assembled program (`vm.tasm.Program`) and optionally runs of it (`vm.interp.Run`,
on representative inputs).  Output: `objective(program, runs) -> Objective`, ordered
lexicographically: the padded height, then the tallest table, then processor cycles,
then program size in words.  The power-of-two cliff applies to the whole program, never
to a fragment.

For code compared piece by piece (a block, a run of moves), `strictly_cheaper` compares the
static figures one execution adds: no figure worse, at least one better.  The u32 table
is not one of them: it counts distinct entries over the whole run, so what a block adds
to it depends on what the rest of the program records.  A candidate is cheaper only if
it records no u32-table entry the baseline does not (compiler.blocks.u32_entries), so a
program made of such blocks has no taller u32 table than the baseline's on any input.

With runs, the heights are the runs' own (`vm.tables.heights`): the largest padded
height and tallest table over the runs, the cycles summed.  Without runs (a module
with no inputs) every instruction counts once: processor and jump-stack rows are the
instruction count, op-stack, RAM and hash rows the static sums (`vm.cost`), the program
table and the attestation rows of the hash and cascade tables come from the program's
words, as in a run, and there are no u32 rows.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.blocks.u32_entries import covered
from vm.cost import static_cost
from vm.tables import Heights, attestation_limbs, heights, padded_height, table_heights
from vm.tasm import Program


@dataclass(frozen=True, order=True)
class Objective:
    padded_height: int
    tallest: int
    cycles: int
    words: int


def static_heights(program: Program) -> Heights:
    """The heights of a run that executes every instruction of `program` once."""
    cost = static_cost(program.ops)
    cascade = len(attestation_limbs(program.words))
    return table_heights(program, cost, cycles=cost.processor, cascade=cascade, u32=0)


def objective(program: Program, runs=None) -> Objective:
    """The program's cost under `runs` (or, without runs, every instruction once)."""
    if not runs:
        measured = [static_heights(program)]
        cycles = measured[0].processor
    else:
        measured = [heights(run) for run in runs]
        cycles = sum(run.cycles for run in runs)
    return Objective(
        padded_height=max(padded_height(height.maximum) for height in measured),
        tallest=max(height.maximum for height in measured),
        cycles=cycles,
        words=program.length,
    )


def static_figures(instructions) -> tuple[int, int, int]:
    """(instructions, op-stack rows, program words) one execution of `instructions` adds."""
    cost = static_cost(instructions)
    return cost.processor, cost.op_stack, cost.program_words


def strictly_cheaper(candidate, baseline) -> bool:
    """No static figure worse, at least one better, and no u32-table entry the baseline
    does not record (compiler.search.cache.COST_CONTEXT)."""
    after, before = static_figures(candidate), static_figures(baseline)
    cheaper = all(a <= b for a, b in zip(after, before)) and after != before
    return cheaper and covered(candidate, baseline)
