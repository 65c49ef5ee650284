"""Straight-line blocks, their contracts, and the block-lowerer interface.

A block is a maximal run of straight-line TIR ops (no call, no branch, no
loop, no return).  Its `Contract` says everything a replacement lowering must
preserve:

* `entry_depth`: how many stack elements it reads below its start;
* `exit_depth` (= entry depth + net change) and `exit_layout`: for each exit
  slot (bottom -> top), the entry slot it is a copy of (0 = the entry top,
  1 = the one below, ...) or None when it is computed;
* `effects`: its ordered side effects, (op index, kinds) for each op that has
  any (input, secret, output, RAM reads and writes, possible failure, hash,
  sponge) -- the order of the stateful ones is observable;
* what the stack manager knew at the block's ends (the `Facts` annotations the
  builder puts at both ends of every straight-line run, optimizer.md §2):
  `dont_care`, the exit slots (depths from the exit top, 0 = st0) that nobody
  reads again, so a replacement may leave anything there; `u32_entry`, the entry
  slots (depths from the entry top) that hold a value below 2^32; and
  `minimum_entry_length`, the op-stack length the block may assume: 16 (the words
  below `main`'s, which every function runs above) plus the words of the current
  function's part of the stack at the block's entry.  Without annotations (a block
  made from bare ops) nothing is don't-care or u32 and the length is 16 plus the
  block's entry depth: the effect checker guarantees that no block reads below
  its function's part.

`Contract.assumptions()` hands the facts to the equivalence checker
(compiler.verify.Assumptions): a replacement is compared with the classical
lowering only on the entry states the facts allow and only on the exit slots
that matter.

`BlockLowerer` is the small interface: `lower_block(block) -> [Instr]`.  The
classical lowerer (compiler.lower.classical) implements it; a search-based or
learned one can replace it block by block, checked against the classical one
with `block_program` (any block assembles as a standalone `vm.tasm.Program`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from compiler.lower.asm import Instr, render
from compiler.tir.ops import Comment, Facts, Op
from compiler.verify.assumptions import Assumptions
from vm import tasm

BELOW_MAIN = 16  # op-stack words under main's own: the VM starts with 16


@dataclass(frozen=True)
class Contract:
    entry_depth: int
    exit_depth: int
    exit_layout: tuple  # per exit slot, bottom -> top: entry depth it copies, or None
    effects: tuple  # ((op index, frozenset of kinds), ...) in op order
    dont_care: tuple = ()  # exit depths (0 = top) whose values nobody reads again
    u32_entry: tuple = ()  # entry depths (0 = top) that hold a value below 2^32
    minimum_entry_length: int = BELOW_MAIN  # op-stack words the block may assume at entry

    @property
    def net(self) -> int:
        return self.exit_depth - self.entry_depth

    def assumptions(self) -> Assumptions:
        """What the equivalence checker may assume where this block runs: its facts."""
        return Assumptions(self.minimum_entry_length, self.u32_entry, self.dont_care)


@dataclass(frozen=True)
class Block:
    ops: tuple[Op, ...]
    contract: Contract


class BlockLowerer(Protocol):
    name: str

    def lower_block(self, block: Block) -> list[Instr]: ...


def is_straight(op) -> bool:
    return isinstance(op, Op) and op.name not in ("Return", "Halt", "FnStart", "FnEnd", "Entry")


def make_block(run) -> Block:
    """A block from a straight-line run: its ops, and its contract with the facts of the
    annotations at its two ends (any other annotation or comment is dropped)."""
    run = [op for op in run if not isinstance(op, Comment)]
    first = run[0] if run and isinstance(run[0], Facts) else None
    last = run[-1] if len(run) > 1 and isinstance(run[-1], Facts) else None
    ops = tuple(op for op in run if not isinstance(op, Facts))
    return Block(ops, contract(ops, first, last))


def has_ops(run) -> bool:
    """Whether a run holds an op that lowers to something (not only annotations)."""
    return any(not isinstance(op, Comment | Facts) for op in run)


def contract(ops, entry_facts: Facts | None = None, exit_facts: Facts | None = None) -> Contract:
    """The contract of a straight-line op sequence (by abstract interpretation), with the
    stack manager's facts at its entry and exit when known."""
    height = low = 0
    for op in ops:
        consumes, produces = op.effect()
        low = min(low, height - consumes)
        height += produces - consumes
    entry = -low
    # symbolic stack: entry element at depth d is labelled d
    stack: list = list(range(entry - 1, -1, -1))
    effects = []
    for index, op in enumerate(ops):
        kinds = op.info.effects
        if kinds:
            effects.append((index, kinds))
        match op.name:
            case "Dup":
                stack.append(stack[-1 - op.arg])
            case "Swap":
                stack[-1], stack[-1 - op.arg] = stack[-1 - op.arg], stack[-1]
            case "Pick":
                stack.append(stack.pop(len(stack) - 1 - op.arg))
            case "Place":
                top = stack.pop()
                stack.insert(len(stack) - op.arg, top)
            case _:
                consumes, produces = op.effect()
                del stack[len(stack) - consumes :]
                stack.extend([None] * produces)
    facts = {}
    if entry_facts is not None:
        facts.update(
            u32_entry=entry_facts.u32, minimum_entry_length=BELOW_MAIN + entry_facts.height
        )
    else:
        facts.update(minimum_entry_length=BELOW_MAIN + entry)
    if exit_facts is not None:
        facts.update(dont_care=exit_facts.garbage)
    return Contract(entry, entry + height, tuple(stack), tuple(effects), **facts)


def block_program(instructions: list[Instr], isa: str = "rel") -> tasm.Program:
    """A lowered block as a standalone program: its instructions, then `halt`."""
    return tasm.parse(render([*instructions, Instr("halt")]) + "\n", isa)
