"""A block's DAG as the model's input tokens (optimizer.md §5).

Input: a `Dag` (compiler.blocks.dag) and the entry slots the block's contract knows to
be u32 (`Contract.u32_entry`, entry depths, 0 = top: the `Dag` itself does not carry
them).  Output: `encode(dag, u32_entry) -> Encoding`, small integer tuples, one entry
per token:

* **tokens**: the entry slots first (token k is the entry word st_k, value id k), then
  the DAG's nodes in block order (token `entry + i` is node i, constants included).  At
  most `MAX_ENTRY` = 16 entry slots and `MAX_NODES` = 32 nodes: a larger DAG raises
  `EncodingTooLarge`, and the model has no policy for it (the search runs unguided
  there; the search's windows (compiler.blocks.windows) keep most blocks within it).
* **op**: the node's row in the instruction table (`vm.isa.INSTRUCTIONS`, by position,
  so a new row changes nothing before it); entry slots have `ENTRY_OP`, one past the
  table.
* **value type**: `FIELD`, `U32` or `NOTHING` (a node without outputs).  An entry slot
  is u32 when the contract says so.  A node's outputs are u32 when its row records
  u32-table entries (`Instruction.u32`: split, lt, and, xor, log_2_floor, div_mod,
  pop_count), except the hashing rows (merkle steps: digests) and `pow` (a field base
  raised to a u32 exponent) -- the instruction table is the only source; no other
  fact is guessed.
* **role**: `NODE`, or for an entry slot `LIVE` (a node reads it or the exit keeps it),
  `DEAD` (neither) or `DONT_CARE` (dead, and its own depth is a don't-care exit slot).
* **operands**: per token, the tokens its operands come from, st0 first (entry slots:
  none); **arity** is their count.
* **liveness**: times along the block: 0 is the entry, node i runs at time i + 1, the
  exit is `nodes + 1`.  `live_first` is when the token's value appears (entry slots:
  0), `live_last` the latest of that, its users' times and the exit time if an exit
  slot keeps it.
* **exit slot**: the shallowest exit depth holding one of its values (clamped to 15),
  `NO_EXIT` if none.
* **immediate class**: `IMMEDIATE_NONE`, or the node's argument as 0, 1, -1, small
  (|x| < 256 read as a signed field element) or large.
* **mask**: token i attends to token j iff j is an operand or a user of i, their live
  ranges overlap (closed intervals), or i = j.  All entry slots are live at time 0, so
  they see each other.  The mask is per attention layer: through two layers a token
  hears from the tokens two steps away (tests/optimizer/test_neural_encoding.py shows both).

`value_token` maps each value id to the token that makes it (the search's moves speak of
values; the model's pointer head looks their tokens up).
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.blocks.dag import Dag
from compiler.neural.fixed import HALF_P, P
from compiler.search.moves import PolicyDeclined
from vm.isa import INSTRUCTIONS

MAX_NODES = 32
MAX_ENTRY = 16
OP_ID = {row.name: position for position, row in enumerate(INSTRUCTIONS)}
ENTRY_OP = len(INSTRUCTIONS)
OPS = ENTRY_OP + 1  # op ids

FIELD, U32, NOTHING = 0, 1, 2
VALUE_TYPES = 3
NODE, LIVE, DEAD, DONT_CARE = 0, 1, 2, 3
ROLES = 4
IMMEDIATE_NONE, IMMEDIATE_ZERO, IMMEDIATE_ONE, IMMEDIATE_MINUS_ONE = 0, 1, 2, 3
IMMEDIATE_SMALL, IMMEDIATE_LARGE = 4, 5
IMMEDIATES = 6
SMALL_LIMIT = 256
EXIT_SLOTS = 16
NO_EXIT = EXIT_SLOTS
TIMES = MAX_NODES + 2  # 0 (entry) .. nodes + 1 (exit)
ARITIES = 11  # operand counts 0 .. 10 (hash takes ten words)

U32_RESULT = frozenset(
    row.name for row in INSTRUCTIONS if row.u32 and not row.permutations and row.name != "pow"
)


class EncodingTooLarge(PolicyDeclined):
    """A DAG with more nodes or entry slots than the model takes."""


@dataclass(frozen=True)
class Encoding:
    entry: int  # entry-slot tokens: 0 .. entry - 1
    nodes: int  # node tokens: entry .. entry + nodes - 1
    op: tuple[int, ...]
    value_type: tuple[int, ...]
    role: tuple[int, ...]
    immediate: tuple[int, ...]
    exit_slot: tuple[int, ...]
    arity: tuple[int, ...]
    live_first: tuple[int, ...]
    live_last: tuple[int, ...]
    operands: tuple[tuple[int, ...], ...]
    mask: tuple[tuple[int, ...], ...]  # 1 where token i may attend to token j
    value_token: tuple[int, ...]  # per value id: the token that makes it

    @property
    def tokens(self) -> int:
        return self.entry + self.nodes


def fits(dag: Dag) -> bool:
    """Whether the model takes this DAG."""
    return len(dag.nodes) <= MAX_NODES and dag.entry <= MAX_ENTRY


def immediate_class(argument: int | None) -> int:
    if argument is None:
        return IMMEDIATE_NONE
    value = argument % P
    signed = value if value <= HALF_P else value - P
    if signed == 0:
        return IMMEDIATE_ZERO
    if signed == 1:
        return IMMEDIATE_ONE
    if signed == -1:
        return IMMEDIATE_MINUS_ONE
    return IMMEDIATE_SMALL if abs(signed) < SMALL_LIMIT else IMMEDIATE_LARGE


def encode(dag: Dag, u32_entry=()) -> Encoding:
    """The tokens of a block's DAG; see the module docstring."""
    if not fits(dag):
        raise EncodingTooLarge(
            f"the model takes at most {MAX_NODES} nodes and {MAX_ENTRY} entry slots, "
            f"not {len(dag.nodes)} and {dag.entry}"
        )
    entry, count = dag.entry, len(dag.nodes)
    tokens = entry + count
    exit_time = count + 1
    value_token = tuple(
        value if producer is None else entry + producer
        for value, producer in enumerate(dag.producer)
    )
    operands = [()] * entry + [
        tuple(value_token[value] for value in node.operands) for node in dag.nodes
    ]
    live_first = [0] * entry + [index + 1 for index in range(count)]
    live_last = list(live_first)
    for token in range(entry, tokens):
        for operand in operands[token]:
            live_last[operand] = max(live_last[operand], live_first[token])
    exit_slot = [NO_EXIT] * tokens
    for depth in reversed(range(len(dag.exit))):
        value = dag.exit[depth]
        if value is not None:
            token = value_token[value]
            exit_slot[token] = min(depth, EXIT_SLOTS - 1)
            live_last[token] = exit_time
    u32 = set(u32_entry)
    value_type = [U32 if slot in u32 else FIELD for slot in range(entry)]
    role = []
    for slot in range(entry):
        if live_last[slot] > 0 or exit_slot[slot] != NO_EXIT:
            role.append(LIVE)
        elif slot < len(dag.exit) and dag.exit[slot] is None:
            role.append(DONT_CARE)
        else:
            role.append(DEAD)
    for node in dag.nodes:
        if not node.outputs:
            value_type.append(NOTHING)
        else:
            value_type.append(U32 if node.name in U32_RESULT else FIELD)
        role.append(NODE)
    users = [set() for _ in range(tokens)]
    for token in range(tokens):
        for operand in operands[token]:
            users[operand].add(token)
    mask = tuple(
        tuple(
            int(
                i == j
                or j in operands[i]
                or j in users[i]
                or (live_first[i] <= live_last[j] and live_first[j] <= live_last[i])
            )
            for j in range(tokens)
        )
        for i in range(tokens)
    )
    return Encoding(
        entry=entry,
        nodes=count,
        op=(ENTRY_OP,) * entry + tuple(OP_ID[node.name] for node in dag.nodes),
        value_type=tuple(value_type),
        role=tuple(role),
        immediate=(IMMEDIATE_NONE,) * entry
        + tuple(immediate_class(node.argument) for node in dag.nodes),
        exit_slot=tuple(exit_slot),
        arity=tuple(min(len(operand), ARITIES - 1) for operand in operands),
        live_first=tuple(live_first),
        live_last=tuple(live_last),
        operands=tuple(operands),
        mask=mask,
        value_token=value_token,
    )
