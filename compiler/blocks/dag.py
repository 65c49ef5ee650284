"""A straight-line TASM block as a DAG: the values it computes and what it must leave.

Input: a block's instructions, `(mnemonic, argument)` pairs (any straight-line TASM:
no control flow but a final `halt`), and optionally the exit slots nobody reads
again (`dont_care`, from the block's contract, compiler.lower.blocks).
Output: `build_dag(instructions, dont_care) -> Dag`, by running the block once on a
stack of value ids (optimizer.md §2):

* entry values 0 .. entry-1 are the entry words st0 .. st(entry-1) the block touches;
* every instruction that is not a stack move (`push` of a constant, `dup`, `swap`,
  `pick`, `place`, `pop`, `nop`) is a `Node`: it takes the words it touches
  (`vm.isa`: reads/changes) as its operands, st0 first, and leaves new values, st0
  first, in their place.  A word an instruction rewrites is a new value even when
  it happens to equal the old one: conservative, never wrong;
* a constant is a node too (`push c`, no operands), and the scheduler may push it
  again wherever it is needed;
* pure nodes that compute the same thing from the same operands are one node (common
  subexpressions); a node with an effect or a Tip5 permutation never merges;
* `chain`: the nodes with a stateful effect (input, secret input, output, RAM, sponge,
  the digest stream, `halt`), in block order -- the only order a schedule must keep.
  A node that may fail (u32 operands, assertions, ...) or hashes is `mandatory`: it
  must run even if nothing uses its outputs, but anywhere between the outputs
  around it (two blocks that fail on the same entry states are equal, whichever
  check fails first; but what a failing run printed stays what it printed);
* `order`: those (before, after) pairs -- a node that may fail and the output
  nodes after it, an output node and the nodes that may fail after it;
* `exit`: the exit stack, st0 first, as value ids; `None` where the contract says
  the slot is don't-care.

A `Dag` says what any correct schedule must do; `compiler.blocks.schedule` finds the
cheapest one, and compiler/verify proves the result equal to the original block.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.failure_kinds import Kind
from vm.isa import BY_NAME, COMMUTATIVE, MOVES, Flow

# The stateful effects: a schedule keeps their order (RAM reads too: they may alias writes).
STATEFUL = ("public_input", "public_output", "secret_input", "secret_digests")


class DagError(ValueError):
    """A block the DAG builder does not take (control flow in the middle)."""


@dataclass(frozen=True)
class Node:
    name: str
    argument: int | None
    operands: tuple[int, ...]  # value ids, st0 first
    outputs: tuple[int, ...]  # value ids, st0 first
    chained: bool  # a stateful effect: keeps its place in `Dag.chain`
    mandatory: bool  # runs even if no output is used (an effect, a failure, a hash)

    @property
    def constant(self) -> bool:
        return self.name == "push"

    @property
    def commutative(self) -> bool:
        return self.name in COMMUTATIVE

    @property
    def u32_ordered(self) -> bool:
        """Commutative in value, but the u32 table records its operands in order."""
        return self.name in COMMUTATIVE and BY_NAME[self.name].u32


@dataclass(frozen=True)
class Dag:
    entry: int  # entry words the block touches: values 0 .. entry - 1 are st0 ..
    nodes: tuple[Node, ...]
    producer: tuple[int | None, ...]  # per value id: the node that makes it (None: entry)
    exit: tuple[int | None, ...]  # the exit stack, st0 first; None: don't care
    chain: tuple[int, ...]  # indices of the chained nodes, in block order
    # (before, after) node pairs a schedule keeps in order besides the chain: a node that
    # may fail and an output around it
    order: tuple[tuple[int, int], ...] = ()

    @property
    def values(self) -> int:
        return len(self.producer)

    def needed(self) -> frozenset[int]:
        """The nodes a schedule must run: mandatory ones and every node a needed node or
        the exit uses (the others are dead code)."""
        wanted = [value for value in self.exit if value is not None]
        for node in self.nodes:
            if node.mandatory:
                wanted.extend(node.operands)
        needed = {index for index, node in enumerate(self.nodes) if node.mandatory}
        while wanted:
            producer = self.producer[wanted.pop()]
            if producer is not None and producer not in needed:
                needed.add(producer)
                wanted.extend(self.nodes[producer].operands)
        return frozenset(needed)


def _touched(name: str, argument: int | None) -> tuple[int, int]:
    """(words taken, words left) for a non-move instruction."""
    row = BY_NAME[name]
    taken = row.stack_touched(argument)
    return taken, taken + row.stack_delta(argument)


def _entry_words(instructions) -> int:
    """How many entry words the block touches."""
    height = lowest = 0
    for name, argument in instructions:
        row = BY_NAME[name]
        lowest = min(lowest, height - row.stack_touched(argument))
        height += row.stack_delta(argument)
    return -lowest


def _chained(name: str, argument: int | None) -> bool:
    row = BY_NAME[name]
    return (
        row.sponge
        or row.flow is Flow.HALT
        or bool(row.ram_accesses(argument))
        or any(getattr(row, amount).at(argument) for amount in STATEFUL)
    )


def build_dag(instructions, dont_care=frozenset()) -> Dag:
    """The DAG of a straight-line block; see the module docstring."""
    instructions = [(name, argument) for name, argument in instructions]
    entry = _entry_words(instructions)
    stack = list(range(entry - 1, -1, -1))  # bottom first; value k is entry st_k
    producer: list[int | None] = [None] * entry
    nodes: list[Node] = []
    chain: list[int] = []
    known: dict[tuple, int] = {}  # pure nodes by (name, argument, operands)
    order: list[tuple[int, int]] = []
    last_output: int | None = None
    failing_since: list[int] = []  # nodes that may fail since the last output

    def new_node(name, argument, operands, count, chained, mandatory) -> Node:
        outputs = tuple(range(len(producer), len(producer) + count))
        producer.extend([len(nodes)] * count)
        node = Node(name, argument, operands, outputs, chained, mandatory)
        nodes.append(node)
        return node

    for position, (name, argument) in enumerate(instructions):
        row = BY_NAME[name]
        if row.flow not in (Flow.STRAIGHT, Flow.HALT):
            raise DagError(f"'{name}' is control flow; a DAG is made of straight-line code")
        if name in MOVES:
            _move(stack, name, argument)
            continue
        taken, left = _touched(name, argument)
        operands = tuple(reversed(stack[len(stack) - taken :])) if taken else ()
        del stack[len(stack) - taken :]
        chained = _chained(name, argument)
        mandatory = chained or bool(row.failures - {Kind.TOO_SHALLOW}) or bool(row.permutations)
        key = (name, argument, _canonical(name, operands))
        if not chained and not row.permutations and key in known:
            node = nodes[known[key]]
        else:
            node = new_node(name, argument, operands, left, chained, mandatory)
            index = len(nodes) - 1
            if chained:
                chain.append(index)
            elif not row.permutations:
                known[key] = index
            if row.public_output.at(argument):
                order.extend((failing, index) for failing in failing_since)
                last_output, failing_since = index, []
            elif row.failures - {Kind.TOO_SHALLOW} and not chained:
                failing_since.append(index)
                if last_output is not None:
                    order.append((last_output, index))
        stack.extend(reversed(node.outputs))
        if row.flow is Flow.HALT:
            if position != len(instructions) - 1:
                raise DagError("'halt' ends a block: nothing may follow it")
    exit_values = tuple(reversed(stack))
    exit_stack = tuple(None if depth in dont_care else v for depth, v in enumerate(exit_values))
    return Dag(entry, tuple(nodes), tuple(producer), exit_stack, tuple(chain), tuple(order))


def _canonical(name: str, operands: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sorted(operands)) if name in COMMUTATIVE else operands


def _move(stack: list, name: str, argument: int | None) -> None:
    """A stack move on a list of value ids (bottom first)."""
    match name:
        case "dup":
            stack.append(stack[-1 - argument])
        case "swap":
            stack[-1], stack[-1 - argument] = stack[-1 - argument], stack[-1]
        case "pick":
            stack.append(stack.pop(-1 - argument))
        case "place":
            top = stack.pop()
            stack.insert(len(stack) - argument, top)
        case "pop":
            del stack[len(stack) - argument :]
        case "nop":
            pass
