"""How much search each block gets: the same share for every block, or more for the hot ones.

Input: the blocks an `-O2`/`-O3` build will lower (compiler.lower.blocks; `program_blocks`
finds them the way lowering will), and a profile: runs of the `-O1` build of the same
program on representative inputs (`tri build --profile-input`).  Output: a `BudgetPlan`,
the factor each block's search budgets are multiplied by (the search lowerer's whole-block,
window, tail and model budgets, compiler.search.lowerer).

The total is fixed: `scale` shares per searched block (a block of two or more
instructions).  Spread evenly, every block gets `scale`.  Led by the profile
(`hot_first`), the blocks are decided before the build from the most executed down, out of
the same pool: each is reserved a quarter of its share (`FLOOR`), takes what is left up to
`CAP` shares, and gives back what its search did not use, so a hot block gets the search a
saved instruction there is worth (run a thousand times, it saves a thousand cycles), a
block proven optimal in a few states costs only those, and the blocks no run reaches share
what is left.

How often a block runs (`block_visits`) comes from the source map: every instruction of
the `-O1` program carries the origin of the construct it came from (compiler.sourcemap),
and the runs count executions per address (`vm.interp.Run.visits`).  An origin's count is
the most any of its instructions ran; a block's is the least of its ops' origins' counts:
each is an upper bound on how often the block runs (an origin may also have code in a
hotter place, such as a loop's setup and its test), so the least is the closest.  A block
none of whose origins kept an instruction at `-O1` counts as never run.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from compiler.lower.blocks import Block

FLOOR = 0.25  # the part of the total every searched block gets whatever the profile says
CAP = 16.0  # the most shares one block may get


def signature(block: Block) -> tuple:
    """A block as this build lowers it: its ops and contract, and where its ops came from
    (two blocks with the same code in different places run differently often)."""
    return (block.ops, block.contract, tuple(op.origin for op in block.ops))


@dataclass(frozen=True)
class BudgetPlan:
    """The factor per block (by `signature`), and the factor of a block not in the plan."""

    scale: float = 1.0
    factors: dict = field(default_factory=dict, compare=False)
    spread: str = "even"  # or "profile"

    def factor(self, block: Block) -> float:
        return self.factors.get(signature(block), self.scale)


def origin_visits(program, runs) -> dict:
    """Origin -> the most executions, summed over `runs`, of any instruction it has in
    `program` (an assembled program with its source map)."""
    visits: dict = {}
    for origin, address in zip(program.source_map, program.addresses):
        if origin is None:
            continue
        count = sum(run.visits[address] for run in runs)
        if count > visits.get(origin, -1):
            visits[origin] = count
    return visits


def block_visits(block: Block, visits: dict) -> int:
    """How often the runs executed `block`: the least count of its ops' origins."""
    counts = [visits[op.origin] for op in block.ops if op.origin in visits]
    return min(counts) if counts else 0


def hot_first(lowerer, blocks, visits: dict, scale: float = 1.0) -> BudgetPlan:
    """Decide `blocks` with `lowerer` (a SearchLowerer, which keeps each block's code for
    when lowering reaches it) from the most visited down, out of a pool of `scale` shares
    per block; the plan says the factor each was decided with.

    Each block is reserved `FLOOR` of a share; the rest of the pool is handed out in
    order, at most `CAP` shares to one block, and a block's search gives back what it did
    not use: the part of its factor in the proportion of the states it expanded to the
    states its budgets allowed.  A block proven optimal in a few states leaves the rest
    to the next; blocks no run reaches come last and share what is left."""
    unique = {}
    for block in blocks:
        unique.setdefault(signature(block), block)
    order = sorted(unique.values(), key=lambda block: -block_visits(block, visits))
    floor = FLOOR * scale
    pool = len(order) * (scale - floor)
    plan = lowerer.plan = BudgetPlan(scale, {}, "profile")
    for block in order:
        factor = plan.factors[signature(block)] = floor + min(pool, (CAP - FLOOR) * scale)
        expanded, allowed = lowerer.decide_first(block)
        used = factor * min(1.0, expanded / allowed) if allowed else 0.0
        pool = max(0.0, pool - max(0.0, used - floor))
    return plan


def scaled(budget: int, factor: float) -> int:
    """A budget of search states times `factor`, at least one state."""
    return max(1, round(budget * factor))


class BlockRecorder:
    """A block lowerer that lowers classically and keeps every block it is given, with its
    contract: the blocks of a build, before it (`program_blocks`) or for the -O3 training
    set (compiler.neural.dataset)."""

    name = "recorder"

    def __init__(self):
        self.blocks: list[Block] = []

    def lower_block(self, block: Block) -> list:
        from compiler.lower.classical import CLASSICAL

        self.blocks.append(block)
        return CLASSICAL.lower_block(block)


def program_blocks(tir) -> list[Block]:
    """The blocks of a TIR program (after `unroll`) that the search lowerer would search:
    those whose `-O1` code has two or more instructions, in lowering order."""
    from compiler.lower.control import lower
    from compiler.search.lowerer import SearchLowerer

    recorder = BlockRecorder()
    lower(tir, recorder)
    return [block for block in recorder.blocks if len(SearchLowerer.baseline(block)) >= 2]
