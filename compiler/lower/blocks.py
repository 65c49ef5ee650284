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
  sponge) -- the order of the stateful ones is observable.

`BlockLowerer` is the small interface: `lower_block(block) -> [Instr]`.  The
classical lowerer (compiler.lower.classical) implements it; a search-based or
learned one can replace it block by block, checked against the classical one
with `block_program` (any block assembles as a standalone `vm.tasm.Program`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from compiler.lower.asm import Instr, render
from compiler.tir.ops import Comment, Op
from vm import tasm

MOVES = ("Dup", "Swap", "Pick", "Place", "Pop", "Push")


@dataclass(frozen=True)
class Contract:
    entry_depth: int
    exit_depth: int
    exit_layout: tuple  # per exit slot, bottom -> top: entry depth it copies, or None
    effects: tuple  # ((op index, frozenset of kinds), ...) in op order

    @property
    def net(self) -> int:
        return self.exit_depth - self.entry_depth


@dataclass(frozen=True)
class Block:
    ops: tuple[Op, ...]
    contract: Contract


class BlockLowerer(Protocol):
    name: str

    def lower_block(self, block: Block) -> list[Instr]: ...


def is_straight(op) -> bool:
    return isinstance(op, Op) and op.name not in ("Return", "Halt", "FnStart", "FnEnd", "Entry")


def make_block(ops) -> Block:
    ops = tuple(op for op in ops if not isinstance(op, Comment))
    return Block(ops, contract(ops))


def contract(ops) -> Contract:
    """The contract of a straight-line op sequence (by abstract interpretation)."""
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
    return Contract(entry, entry + height, tuple(stack), tuple(effects))


def block_program(instructions: list[Instr], isa: str = "rel") -> tasm.Program:
    """A lowered block as a standalone program: its instructions, then `halt`."""
    return tasm.parse(render([*instructions, Instr("halt")]) + "\n", isa)
