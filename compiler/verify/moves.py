"""Handlers that only move stack words, shared by the symbolic and the vectorized runs.

Each takes a state with `constant`, `push`, `pop`, `peek`, `put` and `halted` (a
`symbolic.State` of terms or a `vectorized.Run` of lanes) and an instruction's argument.
`pick` and `place` are not here: the symbolic state materializes deep words first.
"""

from __future__ import annotations


def push(state, value) -> None:
    state.push(state.constant(value))


def pop(state, count) -> None:
    for _ in range(count):
        state.pop()


def dup(state, index) -> None:
    state.push(state.peek(index))


def swap(state, index) -> None:
    top, other = state.peek(0), state.peek(index)
    state.put(0, other)
    state.put(index, top)


def halt(state, argument) -> None:
    state.halted = True


def nop(state, argument) -> None:
    pass
