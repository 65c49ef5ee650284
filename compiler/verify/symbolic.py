"""Symbolic execution of one straight-line TASM block.

Input: a block (a `vm.tasm.Program` or a sequence of `Op`s, with no `skiz`,
`call`, `return`, `recurse` or `recurse_or_return`) and a `TermTable`.
Output: a `Summary` -- what the block does to every entry state at once:

* the exit stack as polynomials in the entry words `s0, s1, ...` (s0 = entry
  st0) and in atoms for everything that is not a polynomial (as vm.handlers defines them);
* the failure conditions: canonical guards (compiler.verify.guards) with the
  error kind of their first occurrence, the entry stack length below which the
  block fails with TooShallow, the input tokens it consumes (a stream that runs
  dry fails), and whether it needs the sponge initialized on entry;
* its effects: public output, the final RAM writes, the Tip5 permutation inputs
  and the exit sponge state; whether it halts.

The entry stack is materialized lazily: the symbolic stack holds the top of the
real stack, and every word below it is an untouched entry word.  The stack
depth facts (net change per instruction) come from `vm.isa`; a handler that
changes the stack by anything else trips an internal assertion.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from compiler.verify import guards
from compiler.verify.assumptions import MINIMUM_STACK
from compiler.verify.functions import apply, leaf
from compiler.verify.guards import Guard
from compiler.verify.symbolic_handlers import HANDLERS
from compiler.verify.terms import Expression, Poly, TermTable
from vm.isa import INSTRUCTIONS, Arg, Flow
from vm.tasm import Op, Program

# The control instructions (vm.isa) but `halt`, which a block may end with.
CONTROL_FLOW = frozenset(
    row.name for row in INSTRUCTIONS if row.flow not in (Flow.STRAIGHT, Flow.HALT)
)
# A `skiz` is taken in a block only before one of these: they keep the stack height and
# have no effect or failure, so the block's result is a select between two stacks (swap,
# pick, place, nop, addi).
SELECTABLE = frozenset(row.name for row in INSTRUCTIONS if row.effect_free and not row.delta)


class BlockError(ValueError):
    """A block the checker does not take: it contains control flow."""

    def __init__(self, op: Op, index: int):
        where = f"line {op.line}" if op.line else f"instruction {index}"
        problem = f"'{op.text}' is control flow; only straight-line blocks can be compared"
        if op.instruction.name == "skiz":
            problem += " (a skiz only before swap, pick, place, nop or addi)"
        super().__init__(f"{problem} (at {where})")
        self.op = op
        self.index = index


@dataclass
class Summary:
    """The symbolic meaning of one block (see the module docstring)."""

    stack: list[Poly]  # the exit stack above the untouched entry words, bottom first
    entry_depth: int  # entry words s0 .. s(entry_depth - 1) were read or removed
    depth_threshold: int  # the smallest entry stack length without TooShallow (>= 16)
    guards: dict[Guard, str]  # canonical guard -> error kind, in order of first occurrence
    output: list[Poly]
    writes: list[tuple[Poly, Poly]]  # (address, value), in order
    read_addresses: list[Poly]  # the address of every RAM word read, in order
    permutations: list[tuple]  # one key per Tip5 permutation
    reads: dict[str, int]  # tokens consumed: public, secret, digest
    sponge_required: bool  # uses the sponge before any sponge_init
    sponge: tuple[Poly, ...] | None  # the exit sponge state; None when never touched
    halted: bool
    constants: set[int] = field(default_factory=set)  # push/addi arguments

    @property
    def always_fails(self) -> bool:
        return guards.NEVER in self.guards

    def exit_stack(self, table: TermTable, entry_depth: int) -> list[Poly]:
        """The exit stack down to entry word `entry_depth - 1`, bottom first."""
        below = [leaf(table, "stack", index) for index in range(entry_depth - 1, -1, -1)]
        untouched = below[: max(0, entry_depth - self.entry_depth)]
        return untouched + self.stack


class State:
    """The symbolic machine while one block runs."""

    def __init__(self, table: TermTable):
        self.table = table
        self.stack: list[Poly] = []  # bottom first
        self.materialized = 0
        self.guards: dict[Guard, str] = {}
        self.output: list[Poly] = []
        self.writes: list[tuple[Poly, Poly]] = []
        self.read_addresses: list[Poly] = []
        self.permutations: list[tuple] = []
        self.reads = {"public": 0, "secret": 0, "digest": 0}
        self.sponge: tuple[Poly, ...] | None = None
        self.sponge_required = False
        self.halted = False
        self.required: list[Guard] = []  # the guards the current op requires

    # --- the op stack ---------------------------------------------------------------------

    def ensure(self, count: int) -> None:
        while len(self.stack) < count:
            self.stack.insert(0, leaf(self.table, "stack", self.materialized))
            self.materialized += 1

    def peek(self, index: int) -> Poly:
        self.ensure(index + 1)
        return self.stack[-1 - index]

    def put(self, index: int, value: Poly) -> None:
        self.ensure(index + 1)
        self.stack[-1 - index] = value

    def pop(self) -> Poly:
        self.ensure(1)
        return self.stack.pop()

    def push(self, value: Poly) -> None:
        self.stack.append(value)

    def top_xfield(self, depth: int = 0) -> tuple:
        """The X-field element whose c0 is st_depth, as (c0, c1, c2) expressions."""
        return tuple(Expression(self.table, self.peek(depth + k)) for k in range(3))

    def put_xfield(self, depth: int, element) -> None:
        for k in range(3):
            self.put(depth + k, element[k].poly)

    # --- guards, memory, Tip5 -------------------------------------------------------------

    def require(self, conditions: tuple[Guard, ...], kind: str) -> None:
        self.required.extend(conditions)
        for guard in conditions:
            self.guards.setdefault(guard, kind)

    def read(self, address: Poly) -> Poly:
        """RAM[address]: read-over-write through the block's writes.

        Walking from the newest write: a write to a provably different address
        (a non-zero constant apart) is skipped; a write to the same address
        answers the read unless a newer write may alias; writes that may alias
        make the read an uninterpreted `select` over them, oldest first, ending
        with the same-address write when there is one (it is the value when no
        newer write aliases) or else falling back to the initial RAM.
        """
        table = self.table
        self.read_addresses.append(address)
        aliasing: list[tuple[Poly, Poly]] = []  # newest first
        for written_address, value in reversed(self.writes):
            difference = table.sub(written_address, address)
            if difference is table.zero:
                if not aliasing:
                    return value
                aliasing.append((written_address, value))
                break
            if difference.constant is None:
                aliasing.append((written_address, value))
        if not aliasing:
            return apply(table, "memory", (), (address,))
        arguments = [poly for pair in reversed(aliasing) for poly in pair]
        return apply(table, "select", (), (*arguments, address))

    def read_xfield(self, address: Poly) -> tuple:
        table = self.table
        return tuple(Expression(table, self.read(table.add_constant(address, k))) for k in range(3))

    def permute(self, words: Sequence[Poly]) -> list[Poly]:
        """The 16 output words of one Tip5 permutation, recorded as an effect."""
        self.permutations.append(("tip5", *words))
        return [apply(self.table, "permutation", (k,), words) for k in range(16)]

    def require_sponge(self) -> tuple[Poly, ...]:
        if self.sponge is None:
            self.sponge_required = True
            self.sponge = tuple(leaf(self.table, "sponge", k) for k in range(16))
        return self.sponge

    def constant(self, value: int | Poly) -> Poly:
        """A push or addi argument: a field element, or a symbolic rule parameter."""
        return value if isinstance(value, Poly) else self.table.constant(value)


def block_ops(block) -> tuple[Op, ...]:
    """The ops of a `Program` or a sequence of `Op`s; BlockError for control flow
    (a `skiz` is allowed before a stack move of `SELECTABLE`)."""
    ops = tuple(block.ops if isinstance(block, Program) else block)
    for index, op in enumerate(ops):
        if op.instruction.name not in CONTROL_FLOW:
            continue
        guarded = ops[index + 1] if index + 1 < len(ops) else None
        if op.instruction.name != "skiz" or guarded is None:
            raise BlockError(op, index)
        if guarded.instruction.name not in SELECTABLE:
            raise BlockError(op, index)
    return ops


def _select(state: State, condition: Poly, op: Op) -> None:
    """`skiz` then `op`: each stack word is the moved one where the condition is non-zero."""
    table = state.table
    words = {Arg.INDEX: (op.argument or 0) + 1, Arg.FIELD: 1}  # addi: the top word
    state.ensure(words.get(op.instruction.arg, 0))
    skipped = list(state.stack)
    HANDLERS[op.instruction.name](state, op.argument)
    taken = table.sub(table.one, apply(table, "is_zero", (), (condition,)))
    otherwise = table.sub(table.one, taken)
    state.stack = [
        moved if moved is kept else table.add(table.mul(taken, moved), table.mul(otherwise, kept))
        for moved, kept in zip(state.stack, skipped)
    ]


def execute(block, table: TermTable, trace: list | None = None) -> Summary:
    """Run `block` on a symbolic entry state; see the module docstring.  With a `trace`
    list, append to it, per op, the tuple of guards that op requires."""
    state = State(table)
    height = 0  # stack length relative to the entry length
    lowest = 0  # the lowest relative length any step needs
    constants: set[int] = set()
    condition: Poly | None = None  # popped by a `skiz`: the next op is a select
    for op in block_ops(block):
        instruction, argument = op.instruction, op.argument
        if instruction.arg is Arg.FIELD and isinstance(argument, int):
            constants.add(argument)
        delta = instruction.stack_delta(argument)
        lowest = min(lowest, height + delta)
        before = len(state.stack) - state.materialized
        state.required = []
        if instruction.name == "skiz":
            condition = state.pop()
        elif condition is not None:
            _select(state, condition, op)
            condition = None
        else:
            HANDLERS[instruction.name](state, argument)
        height += delta
        if len(state.stack) - state.materialized != before + delta:
            raise AssertionError(f"symbolic '{op.text}' changed the stack by the wrong amount")
        if trace is not None:
            trace.append(tuple(state.required))
        if state.halted:
            break
    return Summary(
        stack=state.stack,
        entry_depth=state.materialized,
        depth_threshold=MINIMUM_STACK - lowest,
        guards=state.guards,
        output=state.output,
        writes=state.writes,
        read_addresses=state.read_addresses,
        permutations=state.permutations,
        reads=state.reads,
        sponge_required=state.sponge_required,
        sponge=state.sponge,
        halted=state.halted,
        constants=constants,
    )
