"""Schedules: instruction sequences that realize a `Dag` (compiler.blocks.dag).

Input: a `Dag`.  Output: a list of `(mnemonic, argument)` instructions that computes
every needed node, keeps the chained nodes in order, and leaves exactly the exit
stack (don't-care slots may hold anything).

* `plain_schedule(dag)`: the reference scheduler -- each needed node in block order,
  its operands copied to the top with `dup` (or pushed, for constants), then the exit
  values copied up and everything below them dropped with `pick`/`pop`.  Never
  clever, never cheaper; it exists to test that a `Dag` says what its block does.
* `search_schedule(dag, budget)`: best-first search (A*) over machine states -- the
  stack as value ids, the nodes done -- for the sequence of least cost
  (instructions, then program words: every instruction in a block runs equally often).
  Moves: compute a node whose operands are on top (a commutative one in either
  order), push a constant, `dup`, `swap`, `pick`, `place`, `pop` of words nobody
  needs.  The estimate is admissible (each undone node costs an instruction, each
  missing copy a `dup` or `push`, every five surplus words a `pop`), so a schedule
  found within `budget` expanded states is optimal among the schedules of this DAG
  with its moves: `Result.optimal`.  Deterministic: ties are broken by insertion order.
  `complete=True` (`complete_schedule`, what `-O2` uses) adds the moves the default set
  leaves out (`Problem`); only then is `optimal` a proof for every schedule.  It also
  keeps the operands of `and` and `xor` in the block's order: the u32 table records
  them in that order, so the other order is a new entry (compiler.blocks.u32_entries),
  and `optimal` is a proof among the schedules that record only the block's entries.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from compiler.blocks.dag import Dag
from vm.isa import BY_NAME

WINDOW = 15  # the deepest slot dup, swap, pick and place reach
POP_LIMIT = 5
GROWTH = 8  # words a schedule may hold above the block's region


class ScheduleError(ValueError):
    """A DAG the scheduler cannot realize (a value out of reach)."""


SIZES = {name: row.size for name, row in BY_NAME.items()}


def size(name: str) -> int:
    return SIZES[name]


def cost(instructions) -> tuple[int, int]:
    """(instructions, program words): what the search minimizes, in that order."""
    return len(instructions), sum(size(name) for name, _ in instructions)


# --- the reference scheduler ----------------------------------------------------------------


def plain_schedule(dag: Dag) -> list[tuple[str, int | None]]:
    """Each needed node in block order; see the module docstring.

    An operand is moved to the top (`pick`) at its last use and copied (`dup`, or `push`
    for a constant) before; after each node every word nobody needs any more is dropped
    (`pick d` `pop 1`), so the stack stays within the 16 reachable slots.  At the end the
    exit is built from the bottom up, each value picked up (or copied when another slot
    needs it too)."""
    return _plain(dag, list(range(dag.entry - 1, -1, -1)), frozenset())


def plain_completion(problem: Problem, stack: tuple, done: int) -> list | None:
    """The plain schedule's way from a search state (`stack` bottom first, the nodes of
    `done` run) to the exit: the nodes left in block order, as `plain_schedule` does from
    the start (a second copy of a value and a constant on the stack are dropped and made again
    where used);
    None where it would need a word deeper than the 16 reachable slots."""
    finished = frozenset(node for node in problem.work if done & problem.bit[node])
    # the plain schedule keeps one copy of a value and makes the others where they are
    # used, and pushes a constant there: the other copies and the constants go first
    words, seen = [], set()
    for value in reversed(stack):
        kept = value not in problem.constant and value not in seen
        words.append(value if kept else problem.garbage)
        seen.add(value)
    words.reverse()
    try:
        return _plain(problem.dag, words, finished)
    except ScheduleError:
        return None


def _plain(dag: Dag, stack: list, finished: frozenset) -> list[tuple[str, int | None]]:
    """`plain_schedule` from `stack` (bottom first; a value id nobody uses is dropped)
    with the nodes of `finished` already run."""
    code: list[tuple[str, int | None]] = []
    needed = [index for index in sorted(dag.needed()) if index not in finished]
    uses: dict[int, int] = {}
    for value in dag.exit:
        if value is not None:
            uses[value] = uses.get(value, 0) + 1
    for index in needed:
        for operand in dag.nodes[index].operands:
            uses[operand] = uses.get(operand, 0) + 1

    floor = 0  # words below this position stay where they are (the exit's bottom)

    def depth_of(value: int, above: int = 0, lowest: int = 0) -> int | None:
        """Depth of the shallowest copy below the top `above` words and at or above
        position `lowest`, or None."""
        for position in range(len(stack) - 1 - above, lowest - 1, -1):
            if stack[position] == value:
                depth = len(stack) - 1 - position
                if depth > WINDOW:
                    raise ScheduleError(f"value {value} is at depth {depth}")
                return depth
        return None

    def bring(value: int | None, move: bool, above: int = 0) -> None:
        """Put `value` on top: moved from below the top `above` words, or copied.  (The
        exit's bottom words that are already in place are never looked at: only words
        above them are moved.)"""
        producer = None if value is None else dag.producer[value]
        if value is None:
            code.append(("push", 0))
            stack.append(value)
        elif producer is not None and dag.nodes[producer].constant:
            code.append(("push", dag.nodes[producer].argument))
            stack.append(value)
        elif move and (depth := depth_of(value, above, floor)) is not None:
            if depth:
                code.append(("pick", depth) if depth > 1 else ("swap", 1))
                stack.append(stack.pop(len(stack) - 1 - depth))
        else:
            depth = depth_of(value)
            if depth is None:
                raise ScheduleError(f"value {value} is gone")
            code.append(("dup", depth))
            stack.append(value)

    def drop_unneeded() -> None:
        seen: dict[int, int] = {}
        for position in range(len(stack) - 1, -1, -1):
            value = stack[position]
            seen[value] = seen.get(value, 0) + 1
            if seen[value] > uses.get(value, 0):  # nobody needs this copy
                depth = len(stack) - 1 - position
                if depth > WINDOW:
                    raise ScheduleError(f"a dead word at depth {depth}")
                code.extend([("pop", 1)] if depth == 0 else [("pick", depth), ("pop", 1)])
                del stack[position]
                seen[value] -= 1

    drop_unneeded()
    for index in needed:
        node = dag.nodes[index]
        if node.constant:
            continue
        for number, operand in enumerate(reversed(node.operands)):
            later = node.operands[: len(node.operands) - 1 - number].count(operand)
            bring(operand, uses[operand] == later + 1, number)  # the last use moves it
            uses[operand] -= 1
        code.append((node.name, node.argument))
        del stack[len(stack) - len(node.operands) :]
        stack.extend(reversed(node.outputs))
        drop_unneeded()
    exit_stack = list(reversed(dag.exit))  # bottom first
    kept = 0  # the bottom words already where the exit wants them stay
    while kept < min(len(stack), len(exit_stack)) and exit_stack[kept] in (None, stack[kept]):
        if exit_stack[kept] is not None:
            uses[stack[kept]] -= 1
        kept += 1
    floor = kept
    for built, value in enumerate(exit_stack[kept:]):
        if value is not None:
            uses[value] -= 1
        bring(value, value is None or uses[value] == 0, built)
    return code


def _last(stack: list, value: int) -> int:
    for position in range(len(stack) - 1, -1, -1):
        if stack[position] == value:
            return position
    raise ScheduleError(f"value {value} is not on the stack")


# --- the search -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Result:
    instructions: list[tuple[str, int | None]] | None  # None: nothing (cheaper than the bound)
    optimal: bool  # the search completed: nothing cheaper exists than what it returns
    # (or, when it returns nothing, than the bound)
    expanded: int  # states expanded


@dataclass(frozen=True)
class _Phase:
    """What a search state's estimate needs that depends only on the nodes done."""

    demand: tuple[int, ...]  # per value: uses by nodes still to run, plus exit slots
    # (value, demand less the copies the nodes still to run will make) where that is > 0
    short: tuple[tuple[int, int], ...]
    surplus: int  # outputs of the nodes still to run that nobody will use
    instructions: int  # the nodes still to run ...
    words: int  # ... and their program words
    chained: int | None  # the next chained node to run


class Problem:
    """The DAG in the shape the search reads: who uses each value, the needed nodes."""

    def __init__(self, dag: Dag, complete: bool = False):
        """`complete`: also the moves the `-O2` search (and the model trained on its
        solutions) leaves out -- a `pick` or `place` of a word equal to the top, a copy
        of any word into a don't-care slot the stack is still too short to have -- as
        compiler.optimize.shuffles uses; without them a schedule that needs one is not
        found and `optimal` can be claimed wrongly (`pop 1 swap 1 pop 1`, `pick 2 pop 2`).
        With them, `and` and `xor` take their operands only in the block's order (see the
        module docstring)."""
        self.dag = dag
        self.complete = complete
        needed = dag.needed()
        self.work = [i for i in sorted(needed) if not dag.nodes[i].constant]  # nodes to run
        self.bit = {node: 1 << position for position, node in enumerate(self.work)}
        self.all_done = (1 << len(self.work)) - 1
        self.chain = [node for node in dag.chain if node in needed]
        self.requires = {node: 0 for node in self.work}  # nodes that must run first, as bits
        for before, after in dag.order:
            if before in self.bit and after in self.bit:
                self.requires[after] |= self.bit[before]
        self.constant = {}  # value id -> its constant, for values made by `push`
        for node in dag.nodes:
            if node.constant:
                self.constant[node.outputs[0]] = node.argument
        self.garbage = dag.values  # the id every value nobody needs any more is renamed to
        self.exit_count = [0] * (dag.values + 1)
        for value in dag.exit:
            if value is not None:
                self.exit_count[value] += 1
        self.uses: list[list[tuple[int, int]]] = [[] for _ in range(dag.values + 1)]
        for node in self.work:
            counts: dict[int, int] = {}
            for operand in dag.nodes[node].operands:
                counts[operand] = counts.get(operand, 0) + 1
            for value, count in counts.items():
                self.uses[value].append((self.bit[node], count))
        self.limit = max(dag.entry, len(dag.exit)) + GROWTH
        self.free = sum(value is None for value in dag.exit)  # don't-care exit slots
        self.exit_bottom_first = tuple(reversed(dag.exit))
        self.exit_masks, self.exit_anything = match_masks(self.exit_bottom_first)
        self.sizes = {node: size(dag.nodes[node].name) for node in self.work}
        self.phases: dict[int, _Phase] = {}

    def phase(self, done: int) -> _Phase:
        """What depends only on the nodes done (cached)."""
        phase = self.phases.get(done)
        if phase is None:
            phase = self.phases[done] = self._phase(done)
        return phase

    def _phase(self, done: int) -> _Phase:
        demand = list(self.exit_count)
        coming: dict[int, int] = {}
        instructions = words = 0
        for node in self.work:
            if done & self.bit[node]:
                continue
            instructions += 1
            words += self.sizes[node]
            for value in self.dag.nodes[node].operands:
                demand[value] += 1
            for value in self.dag.nodes[node].outputs:
                coming[value] = coming.get(value, 0) + 1
        chained = next((node for node in self.chain if not done & self.bit[node]), None)
        short = tuple(
            (value, need - coming.get(value, 0))
            for value, need in enumerate(demand)
            if need > coming.get(value, 0)
        )
        surplus = sum(max(0, count - demand[value]) for value, count in coming.items())
        return _Phase(tuple(demand), short, surplus, instructions, words, chained)

    def demand(self, value: int, done: int) -> int:
        return self.phase(done).demand[value]

    def next_chained(self, done: int) -> int | None:
        return self.phase(done).chained

    def estimate(self, stack: tuple, done: int) -> tuple[int, int]:
        """A lower bound on the (instructions, words) still to come.

        Every copy a node still needs that is neither on the stack nor made by a node
        still to run takes a `dup` or a `push`; every word beyond what is needed takes a
        share of a `pop` (five at most at a time; a don't-care exit slot may keep one).
        The stack never holds an output of a node still to run, so the two are counted
        apart."""
        return self.finish(stack, done, self.counted(stack, done))

    def counted(self, stack: tuple, done: int) -> tuple[int, int]:
        """The part of `estimate` that depends only on which words the stack holds, not
        their order: (copies missing, pops needed)."""
        phase = self.phase(done)
        on_stack: dict[int, int] = {}
        for value in stack:
            on_stack[value] = on_stack.get(value, 0) + 1
        missing = 0
        for value, need in phase.short:
            count = on_stack.get(value, 0)
            if need > count:
                missing += need - count  # each a dup or a push
        demand = phase.demand
        surplus = phase.surplus
        for value, count in on_stack.items():
            if count > demand[value]:
                surplus += count - demand[value]
        return missing, -(-max(0, surplus - self.free) // POP_LIMIT)

    def finish(self, stack: tuple, done: int, counted: tuple[int, int]) -> tuple[int, int]:
        """`estimate` from its order-free part `counted` (a rearranged stack shares it)."""
        phase = self.phases.get(done) or self.phase(done)
        missing, pops = counted
        steps = missing + pops
        if not phase.instructions and not missing:
            steps += self.arrangement(stack)
        return phase.instructions + steps, phase.words + 2 * steps

    def arrangement(self, stack: tuple) -> int:
        """With every node run and every copy made: a lower bound on the moves left.

        Too short a stack needs a word pushed per missing don't-care slot.  Otherwise a
        `pick` or `place` changes the order of one word relative to the rest and a
        `swap` of two, so the words outside a longest common subsequence of the stack and
        the exit (a don't-care slot matches any word) need at least half that many moves.
        """
        exit_stack = self.exit_bottom_first
        if len(stack) < len(exit_stack):
            return len(exit_stack) - len(stack)
        if len(stack) > len(exit_stack) and not self.complete:
            return 0  # pops come first; counted above
        # (a longer stack too, with the complete move set: a `pop` never lengthens a
        # common subsequence, so the moves it needs come on top of the pops counted above)
        common = common_length(stack, self.exit_masks, self.exit_anything, len(exit_stack))
        return -(-(len(exit_stack) - common) // 2)

    def goal(self, stack: tuple, done: int) -> bool:
        if done != self.all_done or len(stack) != len(self.dag.exit):
            return False
        for value, wanted in zip(reversed(stack), self.dag.exit):
            if wanted is not None and value != wanted:
                return False
        return True

    def moves(self, stack: tuple, done: int):
        """(instruction, new stack, new done, whether the stack holds the same words) for
        every move worth trying."""
        dag = self.dag
        height = len(stack)
        copies: dict[int, int] = {}
        for value in stack:
            copies[value] = copies.get(value, 0) + 1
        # compute a node whose operands are on top
        chained = self.next_chained(done)
        for node_index in self.work:
            bit = self.bit[node_index]
            if done & bit:
                continue
            node = dag.nodes[node_index]
            if node.chained and node_index != chained:
                continue
            if done & self.requires[node_index] != self.requires[node_index]:
                continue
            taken = len(node.operands)
            if taken > height:
                continue
            top = tuple(reversed(stack[height - taken :]))
            orders = [node.operands]
            if node.commutative and taken == 2 and not (self.complete and node.u32_ordered):
                orders.append((node.operands[1], node.operands[0]))
            if top not in orders:
                continue
            rest = stack[: height - taken]
            if not self._keeps_enough(rest, done | bit, copies, top):
                continue
            new = self.forget(rest + tuple(reversed(node.outputs)), done | bit)
            if len(new) <= self.limit:
                yield (node.name, node.argument), new, done | bit, False
        demand = self.phase(done).demand
        # push a constant someone needs
        for value, constant in self.constant.items():
            if height < self.limit and demand[value] > copies.get(value, 0):
                yield ("push", constant), stack + (value,), done, False
        # copy a value someone needs, or any word into a don't-care slot the stack is
        # still too short to have (what fills it does not matter: a copy is the cheapest)
        if height < self.limit:
            filler = self.complete and self.free and height < len(self.dag.exit)
            for depth in range(min(WINDOW, height - 1) + 1):
                value = stack[height - 1 - depth]
                wanted = filler or demand[value] > copies[value]
                if wanted and _shallowest(stack, depth):
                    yield ("dup", depth), stack + (value,), done, False
        # rearrange
        for depth in range(1, min(WINDOW, height - 1) + 1):
            position = height - 1 - depth
            if stack[position] == stack[-1] and not self.complete:
                continue
            if stack[position] != stack[-1]:  # swapping equal words changes nothing ...
                swapped = list(stack)
                swapped[-1], swapped[position] = swapped[position], swapped[-1]
                yield ("swap", depth), tuple(swapped), done, True
            if depth >= 2:  # ... but moving one past others does
                picked = stack[:position] + stack[position + 1 :] + (stack[position],)
                yield ("pick", depth), picked, done, True
                placed = stack[:position] + (stack[-1],) + stack[position:-1]
                yield ("place", depth), placed, done, True
        # drop words, never the last copy of a value still needed
        left = dict(copies)
        for count in range(1, min(POP_LIMIT, height) + 1):
            value = stack[height - count]
            left[value] -= 1
            if not left[value] and value not in self.constant and demand[value]:
                break
            yield ("pop", count), stack[: height - count], done, False

    def forget(self, stack: tuple, done: int) -> tuple:
        """The stack with every value nobody needs any more renamed `garbage`: states that
        differ only in which dead value sits where are one state."""
        demand, garbage = self.phase(done).demand, self.garbage
        return tuple(value if demand[value] else garbage for value in stack)

    def _keeps_enough(self, rest: tuple, done: int, copies: dict, taken: tuple) -> bool:
        """Whether, after consuming `taken`, every non-constant value still needed keeps a
        copy (more can be made with `dup`; a lost value cannot)."""
        for value in set(taken):
            if value in self.constant:
                continue
            if copies[value] == taken.count(value) and self.demand(value, done):
                return False
        return True


def match_masks(target: tuple) -> tuple[dict[int, int], int]:
    """Per value, the bit set of the positions of `target` it matches (its own and the
    don't-care ones, None); and the set a value absent from `target` matches."""
    anything = sum(1 << position for position, wanted in enumerate(target) if wanted is None)
    masks: dict[int, int] = {}
    for position, wanted in enumerate(target):
        if wanted is not None:
            masks[wanted] = masks.get(wanted, anything) | 1 << position
    return masks, anything


def common_length(stack: tuple, masks: dict[int, int], anything: int, width: int) -> int:
    """The length of a longest common subsequence of `stack` and the `width` words whose
    `match_masks` these are: the bit-parallel form of the textbook table (a row is one
    integer whose set bits mark where the row's value does not step up)."""
    full = (1 << width) - 1
    row = full
    for value in stack:
        matches = row & masks.get(value, anything)
        row = ((row + matches) | (row - matches)) & full
    return width - row.bit_count()


def _shallowest(stack: tuple, depth: int) -> bool:
    """Whether the word at `depth` is its value's shallowest copy (dup only that one:
    any copy gives the same stack)."""
    value = stack[len(stack) - 1 - depth]
    return value not in stack[len(stack) - depth :]


def search_schedule(
    dag: Dag,
    budget: int = 20_000,
    bound: tuple[int, int] | None = None,
    complete: bool = False,
    origin: tuple[tuple, int] | None = None,
) -> Result:
    """The cheapest schedule of `dag` found by A* within `budget` expanded states, with the
    complete move set if `complete` (see `Problem`).

    With a `bound` (the cost of a schedule already known, e.g. the block's own code)
    only strictly cheaper schedules are looked for: every state whose estimate reaches
    the bound is dropped, and a search that runs out of states has proven that nothing
    cheaper than the bound exists (`optimal` with no instructions).  `origin`, a state
    `(stack, done)` of the search, starts there instead of at the block's entry: the
    schedule found is the rest of the block from that state, and the bound is on the
    rest's cost."""
    problem = Problem(dag, complete)
    if origin is None:
        origin = (problem.forget(tuple(range(dag.entry - 1, -1, -1)), 0), 0)
    start, done_at_start = origin
    counter = 0
    estimate = problem.estimate(start, done_at_start)
    if bound is not None and estimate >= bound:
        return Result(None, True, 0)
    frontier = [(estimate, 0, counter, (0, 0), estimate, start, done_at_start)]
    best_cost: dict[tuple, tuple[int, int]] = {origin: (0, 0)}
    parent: dict[tuple, tuple] = {}
    expanded = 0
    while frontier:
        _, _, _, cost_here, h_here, stack, done = heapq.heappop(frontier)
        key = (stack, done)
        if best_cost[key] < cost_here:
            continue  # a stale entry: the state was reached more cheaply since
        if problem.goal(stack, done):
            return Result(_path(parent, key), True, expanded)
        expanded += 1
        if expanded > budget:
            return Result(None, False, expanded)
        counted = None  # `Problem.counted` of this state, shared by its rearrangements
        for instruction, new_stack, new_done, same_words in problem.moves(stack, done):
            step = (cost_here[0] + 1, cost_here[1] + SIZES[instruction[0]])
            new_key = (new_stack, new_done)
            if new_key in best_cost and best_cost[new_key] <= step:
                continue
            best_cost[new_key] = step
            parent[new_key] = (key, instruction)
            reuse = same_words and (new_done != problem.all_done)  # order matters at the end
            if bound is not None and not reuse:  # the nodes left alone already reach it
                left = problem.phase(new_done)
                if (step[0] + left.instructions, step[1] + left.words) >= bound:
                    continue
            if reuse:
                h = h_here
            elif same_words:  # the same words in another order, the same nodes done
                if counted is None:
                    counted = problem.counted(stack, done)
                h = problem.finish(new_stack, new_done, counted)
            else:
                h = problem.estimate(new_stack, new_done)
            f = (step[0] + h[0], step[1] + h[1])
            if bound is not None and f >= bound:
                continue
            counter += 1
            heapq.heappush(frontier, (f, -step[0], counter, step, h, new_stack, new_done))
    return Result(None, True, expanded)  # no schedule exists (cheaper than the bound)


def _path(parent: dict, key: tuple) -> list[tuple[str, int | None]]:
    path = []
    while key in parent:
        key, instruction = parent[key]
        path.append(instruction)
    return path[::-1]


def complete_schedule(
    dag: Dag, budget: int = 20_000, bound: tuple[int, int] | None = None
) -> Result:
    """`search_schedule` with the complete move set: what `-O2` searches with, so that
    what it counts as proven optimal is (see `Problem`)."""
    return search_schedule(dag, budget, bound, complete=True)


complete_schedule.identity = "search_schedule(complete=True)"
