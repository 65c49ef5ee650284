"""Basic blocks of a program, and the guards that checkpoints make for them.

Input: an assembled `Program`; output: `BlockMap`, the straight-line blocks
the code generator compiles and the runtime counts.  A block starts at address
0, at a `call` target, after a control instruction (`Flow.ends_block` in
`vm.isa`) and at `skiz`'s skip address; it ends at a control instruction or
where the next block starts.  The JIT counts executions per block, not per address: every
instruction of a block runs as often as the block is entered, except in the
block where a run stops.

Only *checkpoints* -- address 0, `call` targets and the addresses after
`call`s, which is everywhere `call`, `return` and `recurse` can go -- test
anything on entry.  All other edges (fall-through, `skiz`) go forward, so
every loop passes a checkpoint, and the code from a checkpoint to the next one
is a DAG: its *region*.  A checkpoint's `Guard` holds, over every path through
its region, the most steps taken, the op-stack depth needed so that no
instruction is TooShallow (the interpreter's per-instruction
`16 - min(0, delta)`), the most the op stack grows, and bounds on what is
appended to the jump stack, RAM, output and the two effect records.  If the guard
holds, nothing in the region can run out of steps, stack or buffer space.

Not every region is worth compiling: code that runs at most once per run costs
more to compile than to interpret.  `hot_checkpoints` are the checkpoints
whose region may run more than once, by a bound on executions per block over
the program's graph (fall-through, `skiz`, a `call` to its target and to its
return address, `recurse` to every call target): a block in a cycle may run
any number of times, any other at most as often as its predecessors together,
and the block at address 0 once.  The runtime compiles the blocks of hot
regions (`compiled_blocks`) and interprets the rest (vm.jit.runtime).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import cached_property

import numpy as np

from vm.isa import OP_STACK_MINIMUM, Flow
from vm.tasm import Op, Program

MINIMUM_DEPTH = OP_STACK_MINIMUM  # the op stack always holds 16 words


def required_depth(op: Op) -> int:
    """The op-stack length this instruction needs before it runs (else TooShallow)."""
    return op.instruction.minimum_depth(op.argument)


def u32_entries(op: Op) -> int:
    """u32 entries one execution records (div_mod records two)."""
    return len(op.instruction.u32_entries)


def permutations(op: Op) -> int:
    """Tip5 permutations per execution."""
    return op.instruction.permutations


def outputs(op: Op) -> int:
    return op.instruction.public_output.at(op.argument)


@dataclass(frozen=True)
class Guard:
    """What a stretch of code needs before it runs; see the module docstring."""

    steps: int = 0
    need: int = MINIMUM_DEPTH  # op-stack length needed at entry
    growth: int = 0  # most words the op stack grows by at any point
    calls: int = 0
    ram_writes: int = 0  # RAM words written: a bound on new RAM pages
    outputs: int = 0
    u32_entries: int = 0
    permutations: int = 0

    def then(self, delta: int, later: Guard) -> Guard:
        """This stretch (net stack change `delta`) followed by `later`."""
        return Guard(
            steps=self.steps + later.steps,
            need=max(self.need, later.need - delta),
            growth=max(self.growth, delta + later.growth),
            calls=self.calls + later.calls,
            ram_writes=self.ram_writes + later.ram_writes,
            outputs=self.outputs + later.outputs,
            u32_entries=self.u32_entries + later.u32_entries,
            permutations=self.permutations + later.permutations,
        )

    def widest(self, other: Guard) -> Guard:
        """The larger requirement of two alternative stretches, field by field."""
        return Guard(*(max(getattr(self, f.name), getattr(other, f.name)) for f in fields(self)))


# (id of the instruction, argument) -> (the instruction, kept alive, and its guard): long
# straight lines repeat a few instructions, and the guard's parts are computed properties
_GUARDS: dict[tuple[int, int | None], tuple[object, Guard]] = {}


def _instruction_guard(op: Op) -> Guard:
    key = (id(op.instruction), op.argument)
    known = _GUARDS.get(key)
    if known is None:
        known = _GUARDS[key] = (op.instruction, _new_guard(op))
    return known[1]


def _new_guard(op: Op) -> Guard:
    delta = op.instruction.stack_delta(op.argument)
    return Guard(
        steps=1,
        need=required_depth(op),
        growth=max(0, delta),
        calls=int(op.instruction.flow is Flow.CALL),
        ram_writes=op.instruction.ram_writes.at(op.argument),
        outputs=outputs(op),
        u32_entries=u32_entries(op),
        permutations=permutations(op),
    )


@dataclass(frozen=True)
class Block:
    """A straight-line run of instructions, entered only at its first one."""

    index: int
    op_indices: tuple[int, ...]
    addresses: tuple[int, ...]
    delta: int  # net op-stack change of the whole block
    own: Guard  # what the block alone needs
    successors: tuple[int, ...]  # addresses reached by fall-through or skiz (forward)

    @property
    def start(self) -> int:
        return self.addresses[0]

    @property
    def length(self) -> int:
        return len(self.op_indices)


@dataclass(frozen=True)
class BlockMap:
    """The blocks of one program, its checkpoints and their guards."""

    program: Program
    blocks: tuple[Block, ...]

    @cached_property
    def by_start(self) -> dict[int, Block]:
        return {block.start: block for block in self.blocks}

    @cached_property
    def block_of_address(self) -> list[int]:
        """Block index per word address (length L + 1); -1 for L and argument words."""
        table = [-1] * (self.program.length + 1)
        for block in self.blocks:
            for address in block.addresses:
                table[address] = block.index
        return table

    @cached_property
    def block_of_address_array(self) -> np.ndarray:
        """`block_of_address` as an int64 array, for turning block counts into visits."""
        return np.array(self.block_of_address, dtype=np.int64)

    @cached_property
    def call_returns(self) -> tuple[int, ...]:
        """Addresses a `return` can go to: each `call`'s following address."""
        return tuple(sorted({following(self.program, index) for index in self._calls}))

    @cached_property
    def call_targets(self) -> tuple[int, ...]:
        """Addresses a `recurse` can go to: each `call`'s target."""
        return tuple(sorted({self.program.ops[index].argument for index in self._calls}))

    @cached_property
    def _calls(self) -> list[int]:
        ops = self.program.ops
        return [index for index, op in enumerate(ops) if op.instruction.flow is Flow.CALL]

    @cached_property
    def checkpoints(self) -> frozenset[int]:
        """Block starts where runs may enter compiled code and guards are tested."""
        candidates = {0, *self.call_targets, *self.call_returns}
        return frozenset(address for address in candidates if address in self.by_start)

    @cached_property
    def guards(self) -> dict[int, Guard]:
        """The guard of each checkpoint, over its whole region."""
        reach = self._reach
        return {address: reach[address] for address in self.checkpoints}

    @cached_property
    def hot_checkpoints(self) -> frozenset[int]:
        """Checkpoints whose region may run more than once in a run."""
        bounds = self._execution_bounds
        return frozenset(
            address for address in self.checkpoints if bounds[self.by_start[address].index] > 1
        )

    def region_blocks(self, starts) -> tuple[Block, ...]:
        """The blocks of the regions of the checkpoints `starts`, in address order."""
        seen: set[int] = set()
        pending = [self.by_start[address] for address in starts]
        while pending:
            block = pending.pop()
            if block.index in seen:
                continue
            seen.add(block.index)
            for address in block.successors:
                if address in self.by_start and address not in self.checkpoints:
                    pending.append(self.by_start[address])
        return tuple(block for block in self.blocks if block.index in seen)

    def _graph_edges(self, block: Block) -> list[int]:
        """Blocks that can run next because `block` ran, as indices (see the docstring)."""
        op = self.program.ops[block.op_indices[-1]]
        targets = list(block.successors)
        if op.instruction.flow is Flow.CALL:
            targets = [op.argument, following(self.program, block.op_indices[-1])]
        elif op.instruction.flow in (Flow.RECURSE, Flow.RECURSE_OR_RETURN):
            targets = list(self.call_targets)
        return [self.by_start[address].index for address in targets if address in self.by_start]

    @cached_property
    def _execution_bounds(self) -> list[int]:
        """Per block: 0, 1, or MANY (2) times per run, an upper bound."""
        edges = [self._graph_edges(block) for block in self.blocks]
        cyclic = _cyclic_nodes(edges)
        bounds = [0] * len(self.blocks)
        if self.blocks and self.blocks[0].start == 0:
            bounds[0] = 1
        for node in _topological_order(edges, cyclic):
            if node in cyclic:
                bounds[node] = MANY
            for target in edges[node]:
                bounds[target] = min(MANY, bounds[target] + bounds[node])
        return bounds

    @cached_property
    def _reach(self) -> dict[int, Guard]:
        """Guard of the code from each block start to the next checkpoint, bottom-up."""
        table: dict[int, Guard] = {}
        overflow = Guard(steps=1)  # running past the end fails, if a step is left

        def onward(address: int) -> Guard:
            if address == self.program.length:
                return overflow
            if address in self.checkpoints:
                return Guard()
            return table[address]

        for block in reversed(self.blocks):
            later = None
            for address in block.successors:
                later = onward(address) if later is None else later.widest(onward(address))
            table[block.start] = block.own.then(block.delta, later) if later else block.own
        return table


MANY = 2  # an execution bound that means "more than once"


def _cyclic_nodes(edges: list[list[int]]) -> set[int]:
    """Nodes on a cycle: members of a strongly connected component with more than one node,
    or with an edge to themselves (Tarjan's algorithm, iterative)."""
    index_of: dict[int, int] = {}
    low: dict[int, int] = {}
    stack: list[int] = []
    on_stack: set[int] = set()
    cyclic: set[int] = set()
    counter = 0
    for root in range(len(edges)):
        if root in index_of:
            continue
        work = [(root, 0)]
        while work:
            node, position = work.pop()
            if position == 0:
                index_of[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            if position < len(edges[node]):
                work.append((node, position + 1))
                target = edges[node][position]
                if target not in index_of:
                    work.append((target, 0))
                elif target in on_stack:
                    low[node] = min(low[node], index_of[target])
                continue
            if work and work[-1][0] != node:  # returning to the caller: pass `low` up
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index_of[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in edges[node]:
                    cyclic.update(component)
    return cyclic


def _topological_order(edges: list[list[int]], cyclic: set[int]) -> list[int]:
    """Every node, each after all its predecessors except those on a common cycle."""
    incoming = [0] * len(edges)
    for node, targets in enumerate(edges):
        for target in targets:
            if not (node in cyclic and target in cyclic):
                incoming[target] += 1
    ready = [node for node in range(len(edges)) if incoming[node] == 0]
    order = []
    while ready:
        node = ready.pop()
        order.append(node)
        for target in edges[node]:
            if not (node in cyclic and target in cyclic):
                incoming[target] -= 1
                if incoming[target] == 0:
                    ready.append(target)
    return order


def following(program: Program, index: int) -> int:
    """The address after op `index`: the next instruction, or L after the last."""
    return program.addresses[index + 1] if index + 1 < len(program.ops) else program.length


def skip_target(program: Program, index: int) -> int | None:
    """Where `skiz` at op `index` goes on 0; None if there is no next instruction to skip."""
    if index + 2 < len(program.ops):
        return program.addresses[index + 2]
    return program.length if index + 1 < len(program.ops) else None


def leaders(program: Program) -> set[int]:
    """Op indices at which a block starts."""
    starts = {0} if program.ops else set()
    index_of = program.op_index
    for index, op in enumerate(program.ops):
        flow = op.instruction.flow
        if flow is Flow.CALL and op.argument in index_of:  # a label at L is no instruction
            starts.add(index_of[op.argument])
        if flow.ends_block and index + 1 < len(program.ops):
            starts.add(index + 1)
        if flow is Flow.SKIZ and index + 2 < len(program.ops):
            starts.add(index + 2)
    return starts


def _successors(program: Program, last: int) -> tuple[int, ...]:
    """Forward successors of the block ending with op `last`."""
    flow = program.ops[last].instruction.flow
    if flow is Flow.SKIZ:
        skip = skip_target(program, last)
        return (following(program, last),) + (() if skip is None else (skip,))
    if flow.ends_block:
        return ()
    return (following(program, last),)


def _block(program: Program, number: int, op_indices: list[int]) -> Block:
    own, delta = Guard(), 0
    for index in op_indices:
        op = program.ops[index]
        own = own.then(delta, _instruction_guard(op))
        delta += op.instruction.stack_delta(op.argument)
    return Block(
        index=number,
        op_indices=tuple(op_indices),
        addresses=tuple(program.addresses[index] for index in op_indices),
        delta=delta,
        own=own,
        successors=_successors(program, op_indices[-1]),
    )


def split_blocks(program: Program) -> BlockMap:
    starts = leaders(program)
    groups: list[list[int]] = []
    for index in range(len(program.ops)):
        if index in starts:
            groups.append([])
        groups[-1].append(index)
    blocks = tuple(_block(program, number, group) for number, group in enumerate(groups))
    return BlockMap(program, blocks)
