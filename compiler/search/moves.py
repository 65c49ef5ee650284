"""Moves and policies: a block's schedule as a sequence of legal steps, for `-O3`.

Input: a `Dag` (compiler.blocks.dag).  Output: the machine states of the search
(compiler.blocks.schedule) and, per state, its legal `Move`s, each one TASM instruction
with what it does to the state and which DAG node or value it concerns.  Any sequence of
legal moves is valid TASM for the block's entry stack; one that ends in a goal state is a
schedule of the block.

A `Policy` ranks moves.  It is asked once per block (`Policy.block(dag)`, where a model
encodes the DAG) and then once per state (`BlockPolicy.scores`): an integer per legal
move, higher is better.  Scores are integers so that ranking by them is the same on every
machine; the neural model's fixed-point outputs are integers already.  The guided search
and greedy decoding of `-O3` read only this interface, so the model, the uniform-random
and the frequency-table controls are interchangeable.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from compiler.blocks.dag import Dag
from compiler.blocks.schedule import Problem

KINDS = ("compute", "push", "dup", "swap", "pick", "place", "pop")


@dataclass(frozen=True)
class Move:
    instruction: tuple[str, int | None]  # the TASM instruction
    kind: str  # one of KINDS
    node: int | None  # the DAG node it runs (compute) or whose constant it pushes (push)
    value: int | None  # the value it computes, pushes, copies or moves (None: pop)
    stack: tuple[int, ...]  # the stack after it, bottom first, as value ids
    done: int  # the nodes done after it, as `Problem.bit` bits


@dataclass(frozen=True)
class State:
    stack: tuple[int, ...]  # bottom first, as value ids (`Problem.garbage`: a dead value)
    done: int


def start(problem: Problem) -> State:
    """The entry state: entry values st(entry-1) .. st0, nothing done."""
    return State(problem.forget(tuple(range(problem.dag.entry - 1, -1, -1)), 0), 0)


def legal_moves(problem: Problem, state: State) -> list[Move]:
    """Every move the search would try from `state`, in the search's order."""
    producer = problem.dag.producer
    moves = []
    for instruction, stack, done, _ in problem.moves(state.stack, state.done):
        name, argument = instruction
        if done != state.done:
            node = _only_bit(problem, done ^ state.done)
            value = problem.dag.nodes[node].outputs[0] if problem.dag.nodes[node].outputs else None
            moves.append(Move(instruction, "compute", node, value, stack, done))
        elif name == "push":
            value = stack[-1]
            moves.append(Move(instruction, "push", producer[value], value, stack, done))
        elif name == "pop":
            moves.append(Move(instruction, "pop", None, None, stack, done))
        else:
            value = state.stack[len(state.stack) - 1 - argument]
            moves.append(Move(instruction, name, None, value, stack, done))
    return moves


def _only_bit(problem: Problem, bits: int) -> int:
    return problem.work[bits.bit_length() - 1]


class PolicyDeclined(ValueError):
    """A policy that does not take a block (`Policy.block`): the block is searched
    without it (the model takes blocks of at most so many nodes)."""


class BlockPolicy(Protocol):
    def scores(self, state: State, previous: Move | None, moves: Sequence[Move]) -> Sequence[int]:
        """One integer per move of `moves` (the legal moves from `state`); higher is
        better.  `previous` is the move that led to `state` (None at the start)."""


class Policy(Protocol):
    identity: str  # what the decisions depend on: a hash of the weights, or the control's name

    def block(self, dag: Dag) -> BlockPolicy:
        """The policy for one block (a model encodes the DAG here, once); raises
        `PolicyDeclined` for a block it does not take."""
