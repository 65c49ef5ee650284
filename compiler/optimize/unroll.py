"""Loop unrolling: which loops may run their body twice per test, and a program with the
chosen ones unrolled (`Loop.unroll`; compiler/lower/control.py lowers them).

A loop qualifies when its iterations can be paired without a test in between:
- a "down" loop under its guard (`IfOnly` holding the loop alone) whose count is below
  2^32 (`Loop.count_u32`): the lowering peels one iteration when the count is odd (one
  `and` on the guard's copy) and runs the pairs unless none are left;
- a loop with a constant trip count of 2 or more (`Loop.trips`): the peel is decided at
  compile time.
A loop that a `return` may end early has neither fact and never qualifies.

Unrolling trades program size for cycles, so whether it pays depends on how many times
the loop runs: `compiler.pipeline` keeps a loop unrolled only where a profile's runs say
the whole program is strictly cheaper (optimizer.md §3).
"""

from __future__ import annotations

from dataclasses import replace

from compiler.tir.ops import IfElse, IfOnly, Loop, Program, ProofBlock


def unrollable(program: Program) -> list[str]:
    """The labels of the loops that qualify, in program order."""
    found: list[str] = []
    for function in program.functions:
        _find(function.body, found)
    return found


def unroll(program: Program, labels) -> Program:
    """`program` with the qualifying loops named in `labels` unrolled by two."""
    chosen = frozenset(labels) & frozenset(unrollable(program))
    if not chosen:
        return program
    functions = [replace(f, body=_unrolled(f.body, chosen)) for f in program.functions]
    return Program(functions, program.entry, program.name, program.roots)


def unrolled_loops(ops) -> list[Loop]:
    """The unrolled loops in `ops`, at any depth, in order."""
    found: list[Loop] = []
    for op in ops:
        match op:
            case IfOnly() | ProofBlock():
                found += unrolled_loops(op.then if isinstance(op, IfOnly) else op.body)
            case IfElse():
                found += unrolled_loops(op.then) + unrolled_loops(op.otherwise)
            case Loop():
                found += [op] * (op.unroll > 1) + unrolled_loops(op.body)
    return found


def _qualifies(loop: Loop, guarded: bool) -> bool:
    if guarded:  # the builder's guard: a count known only at run time
        return loop.kind == "down" and loop.count_u32 and loop.trips is None
    return loop.trips is not None and loop.trips >= 2


def _find(ops, found: list[str]) -> None:
    for op in ops:
        match op:
            case IfOnly(then=(Loop() as loop,)):
                if _qualifies(loop, guarded=True):
                    found.append(loop.label)
                _find(loop.body, found)
            case IfOnly() | ProofBlock():
                _find(op.then if isinstance(op, IfOnly) else op.body, found)
            case IfElse():
                _find(op.then, found)
                _find(op.otherwise, found)
            case Loop():
                if _qualifies(op, guarded=False):
                    found.append(op.label)
                _find(op.body, found)


def _unrolled(ops, chosen: frozenset) -> list:
    result = []
    for op in ops:
        match op:
            case IfOnly():
                op = IfOnly(tuple(_unrolled(op.then, chosen)))
            case IfElse():
                op = IfElse(
                    tuple(_unrolled(op.then, chosen)), tuple(_unrolled(op.otherwise, chosen))
                )
            case ProofBlock():
                op = ProofBlock(tuple(_unrolled(op.body, chosen)))
            case Loop():
                body = tuple(_unrolled(op.body, chosen))
                op = replace(op, body=body, unroll=2 if op.label in chosen else op.unroll)
        result.append(op)
    return result
