"""Entry states at the corners two blocks care about: guards that pass, addresses that alias.

Input: the `TermTable` and `Summary`s of two blocks (compiler.verify.symbolic) and
`Lanes` sampled by compiler.verify.concrete.  Output: `Steering(...)(lanes)`
changes some lanes in place so that

* every `zero` guard of one of the blocks holds (an `assert_vector` passes, an
  `eq ... assert` on computed values passes), so a difference hidden behind an
  assertion that random words almost never pass is reached; or all of them but
  one that only one block has, so that block alone fails;
* two RAM addresses the blocks use are equal (a write and a read, or two
  writes, through addresses that may alias), so read-over-write mistakes show.

Each equation P = 0 is solved for one entry word that occurs in P only as a
linear term c*x (not inside another atom, not fixed by an earlier equation):
x := -(P - c*x) / c, evaluated on the lane.  Equations are solved in order
(the block's guards in check order, then a random subset of the aliasing
equations), so an earlier one stays true unless a later one moves a word it
reads; lanes are only candidates, and the interpreter still decides.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from compiler.verify.concrete import Entry, Lanes
from compiler.verify.functions import evaluate
from compiler.verify.symbolic import Summary
from compiler.verify.terms import Poly, TermTable
from vm.field import P

LEAVES = ("stack", "public", "secret", "digest", "sponge")
STEERED_SHARE = 4  # one lane in this many is steered


def _leaves(table: TermTable, poly: Poly) -> set[int]:
    """The serials of the entry values `poly` depends on, at any depth (an explicit
    stack: a term is as deep as its block is long)."""
    seen: set[int] = set()
    pending = [poly]
    while pending:
        for serial in table.atoms_in(pending.pop()):
            table.spend()
            if serial not in seen:
                seen.add(serial)
                pending.extend(table.atoms[serial].arguments)
    return {serial for serial in seen if table.atoms[serial].kind in LEAVES}


def _solvable(table: TermTable, equation: Poly, fixed: set[int]):
    """(leaf atom, coefficient, rest) with equation = c*leaf + rest, rest free of the leaf."""
    for monomial, coefficient in sorted(equation.terms.items(), reverse=True):
        if len(monomial) != 1 or monomial[0][1] != 1:
            continue
        serial = monomial[0][0]
        atom = table.atoms[serial]
        if atom.kind not in LEAVES or serial in fixed:
            continue
        rest = table.sub(equation, table.poly({monomial: coefficient}))
        if serial not in _leaves(table, rest):
            return atom, coefficient, rest
    return None


class _Lane:
    """One lane's entry values as mutable lists, written back when done."""

    def __init__(self, lanes: Lanes, lane: int):
        self.lanes, self.lane = lanes, lane
        entry: Entry = lanes.entry(lane)
        self.stack = list(entry.stack)
        self.public = list(lanes.streams["public"][:, lane].tolist())
        self.secret = list(lanes.streams["secret"][:, lane].tolist())
        self.digests = [list(row) for row in lanes.streams["digest"][:, :, lane].tolist()]
        self.sponge = list(lanes.sponge[:, lane].tolist())
        self.entry = entry

    def values(self):
        entry = replace(
            self.entry,
            stack=self.stack,
            public=self.public[: len(self.entry.public)],
            secret=self.secret[: len(self.entry.secret)],
            digests=self.digests[: len(self.entry.digests)],
            sponge=self.sponge if self.entry.sponge is not None else None,
        )
        return entry.values()

    def set(self, kind: str, parameters: tuple[int, ...], value: int) -> bool:
        """Write one entry value; False where the lane has no such word."""
        lanes, lane = self.lanes, self.lane
        index = parameters[0]
        if kind == "stack" and index < min(lanes.stack.shape[0], len(self.stack)):
            self.stack[index] = value
            lanes.stack[index, lane] = value
        elif kind in ("public", "secret") and index < lanes.streams[kind].shape[0]:
            (self.public if kind == "public" else self.secret)[index] = value
            lanes.streams[kind][index, lane] = value
        elif kind == "digest" and index < lanes.streams["digest"].shape[0]:
            self.digests[index][parameters[1]] = value
            lanes.streams["digest"][index, parameters[1], lane] = value
        elif kind == "sponge":
            self.sponge[index] = value
            lanes.sponge[index, lane] = value
        else:
            return False
        return True


class Steering:
    """Moves one lane in `STEERED_SHARE` of a sample to a corner of two blocks."""

    def __init__(self, table: TermTable, summaries: tuple[Summary, Summary]):
        self.table = table
        self.guards = [
            [guard.polys[0] for guard in summary.guards if guard.kind == "zero"]
            for summary in summaries
        ]
        # Ways to steer a lane: every zero guard of one block, then the other's; or all of
        # them but one that only one block has (left to chance, so usually false): the
        # states where only that block fails.
        shared = {poly.serial for poly in self.guards[0]} & {poly.serial for poly in self.guards[1]}
        both = self.guards[0] + [poly for poly in self.guards[1] if poly.serial not in shared]
        self.plans = [self.guards[0] + self.guards[1], self.guards[1] + self.guards[0]]
        self.plans += [
            [poly for poly in both if poly is not left_out]
            for left_out in both
            if left_out.serial not in shared
        ]
        addresses: dict[int, Poly] = {}
        for summary in summaries:
            for address in [address for address, _ in summary.writes] + summary.read_addresses:
                addresses.setdefault(address.serial, address)
        ordered = list(addresses.values())
        self.aliasing = [
            table.sub(first, second)
            for index, first in enumerate(ordered)
            for second in ordered[index + 1 :]
            if table.sub(first, second).constant is None
        ]

    def __call__(
        self, lanes: Lanes, generator: np.random.Generator, share: int = STEERED_SHARE
    ) -> None:
        """Steer one lane in `share`."""
        if not (self.guards[0] or self.guards[1] or self.aliasing):
            return
        for lane in range(share - 1, lanes.count, share):
            plan = self.plans[(lane // share) % len(self.plans)]
            chosen = generator.random(len(self.aliasing)) < 0.5
            equations = plan + [poly for poly, keep in zip(self.aliasing, chosen) if keep]
            self._steer(_Lane(lanes, lane), equations)

    def _steer(self, lane: _Lane, equations: list[Poly]) -> None:
        fixed: set[int] = set()
        for equation in equations:
            solution = _solvable(self.table, equation, fixed)
            if solution is None:
                continue
            atom, coefficient, rest = solution
            (value,) = evaluate(self.table, [rest], lane.values())
            target = (P - value) * pow(coefficient, P - 2, P) % P
            if atom.bound is not None and target > atom.bound:
                continue  # an entry word assumed u32 (compiler.verify.assumptions) stays so
            if lane.set(atom.kind, atom.parameters, target):
                fixed.add(atom.serial)
