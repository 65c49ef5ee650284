"""Equivalence of two straight-line blocks: `check_equivalent(a, b) -> Verdict`.

Input: two blocks (`vm.tasm.Program`s or sequences of `Op`s) with no control
flow.  Output: a `Verdict` whose status is

* `equivalent`: proven.  On every entry state (stack words, stack length, input
  streams, RAM, sponge) both blocks fail, or neither fails and they leave the
  same stack, output, RAM, stream positions, sponge state and halted flag and
  perform the same Tip5 permutations (as a multiset of inputs).  The proof is by
  canonical form, or by Schwartz-Zippel at random points with `error_bound`
  the probability that the answer is wrong;
* `different`: with a `Counterexample`, an entry state on which the interpreter
  shows the difference;
* `unknown`: neither; callers must treat it as not proven.

Steps: symbolic execution of both blocks (compiler.verify.symbolic) gives the
shape of the entry state; a concrete screen (compiler.verify.concrete and
.vectorized, confirmed on the interpreter) rejects most different pairs
cheaply; then the symbolic comparison; if that does not prove equivalence, a
longer concrete search looks for a counterexample.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass

import numpy as np

from compiler.verify import concrete, guards, vectorized
from compiler.verify.concrete import Counterexample, Shape
from compiler.verify.functions import evaluate_random, substitute
from compiler.verify.symbolic import Summary, block_ops, execute
from compiler.verify.symbolic_handlers import permutation_key
from compiler.verify.terms import Poly, TermTable
from vm.field import P
from vm.tasm import Program

TARGET_ERROR_EXPONENT = 100  # Schwartz-Zippel: accept with error at most 2^-100
MAXIMUM_TRIALS = 40
SCREEN_LANES = 48  # lanes of the first concrete screen
SEARCH_LANES = 2048  # lanes of the search after a failed proof
INTERPRETER_RUNS = 1  # lanes also run on the interpreter, whatever the screen says
CONFIRMATIONS = 8  # lanes flagged by the screen that are re-run on the interpreter


@dataclass(frozen=True)
class Verdict:
    """The answer of `check_equivalent`."""

    status: str  # "equivalent", "different" or "unknown"
    reason: str
    method: str  # "canonical", "schwartz-zippel", "concrete" or "none"
    error_bound: float = 0.0  # for "equivalent": the probability that it is wrong
    counterexample: Counterexample | None = None
    entry_depth: int = 0  # entry stack words compared
    failure_kinds: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())

    @property
    def equivalent(self) -> bool:
        return self.status == "equivalent"

    def as_json(self) -> dict:
        return {
            "status": self.status,
            "reason": self.reason,
            "method": self.method,
            "error_bound": self.error_bound,
            "entry_depth": self.entry_depth,
            "failure_kinds": {"a": list(self.failure_kinds[0]), "b": list(self.failure_kinds[1])},
            "counterexample": None
            if self.counterexample is None
            else self.counterexample.as_json(),
        }


@dataclass(frozen=True)
class _Proof:
    proven: bool
    reason: str
    method: str = "canonical"
    error_bound: float = 0.0


def _program(block, isa: str) -> Program:
    if isinstance(block, Program):
        block_ops(block)
        return block
    return Program(ops=block_ops(block), isa=isa)


def failure_kinds(summary: Summary) -> tuple[str, ...]:
    """The error kinds a block can fail with."""
    kinds = set(summary.guards.values())
    if summary.depth_threshold > concrete.MINIMUM_STACK:
        kinds.add("TooShallow")
    for stream, kind in (
        ("public", "EmptyPublicInput"),
        ("secret", "EmptySecretInput"),
        ("digest", "EmptySecretDigestInput"),
    ):
        if summary.reads[stream]:
            kinds.add(kind)
    if summary.sponge_required:
        kinds.add("SpongeNotInitialized")
    return tuple(sorted(kinds))


def _constants(table: TermTable, summary: Summary) -> set[int]:
    """Words worth trying: the block's constants and where its guards flip."""
    values = set(summary.constants)
    for guard in summary.guards:
        values |= guards.interesting_values(table, guard)
    return values


def check_equivalent(
    block_a, block_b, *, inputs: int = 0, isa: str = "rel", seed: int = 0
) -> Verdict:
    """Compare two straight-line blocks; see the module docstring.

    `inputs` is the least number of entry stack words to compare; BlockError
    (a ValueError) for a block with control flow.
    """
    program_a, program_b = _program(block_a, isa), _program(block_b, isa)
    table = TermTable()
    summary_a, summary_b = execute(program_a, table), execute(program_b, table)
    depth = max(summary_a.entry_depth, summary_b.entry_depth, inputs)
    kinds = (failure_kinds(summary_a), failure_kinds(summary_b))
    shape = Shape(
        depth=max(depth, concrete.MINIMUM_STACK),
        touched=depth,
        thresholds=(summary_a.depth_threshold, summary_b.depth_threshold),
        reads=tuple(
            (summary.reads["public"], summary.reads["secret"], summary.reads["digest"])
            for summary in (summary_a, summary_b)
        ),
        sponge=summary_a.sponge is not None or summary_b.sponge is not None,
        constants=tuple(sorted(_constants(table, summary_a) | _constants(table, summary_b))),
    )
    generator = np.random.default_rng(seed)

    def different(found) -> Verdict:
        return Verdict(
            "different",
            found.difference,
            "concrete",
            counterexample=found,
            entry_depth=depth,
            failure_kinds=kinds,
        )

    found = search(program_a, program_b, shape, generator, SCREEN_LANES, INTERPRETER_RUNS)
    if found is not None:
        return different(found)
    proof = compare(table, summary_a, summary_b, depth, random.Random(seed))
    if proof.proven:
        return Verdict(
            "equivalent",
            proof.reason,
            proof.method,
            proof.error_bound,
            entry_depth=depth,
            failure_kinds=kinds,
        )
    found = search(program_a, program_b, shape, generator, SEARCH_LANES, 0)
    if found is not None:
        return different(found)
    return Verdict(
        "unknown", f"not proven: {proof.reason}", "none", entry_depth=depth, failure_kinds=kinds
    )


def search(
    program_a: Program,
    program_b: Program,
    shape: Shape,
    generator: np.random.Generator,
    lanes_count: int,
    interpreter_runs: int,
) -> Counterexample | None:
    """A counterexample among `lanes_count` sampled entry states, confirmed on the interpreter."""
    lanes = concrete.sample_lanes(generator, lanes_count, shape)
    outcomes_a = vectorized.run_lanes(program_a, lanes)
    outcomes_b = vectorized.run_lanes(program_b, lanes)
    flagged = np.flatnonzero(vectorized.differing_lanes(outcomes_a, outcomes_b, lanes))
    candidates = list(flagged[:CONFIRMATIONS]) + list(range(min(interpreter_runs, lanes_count)))
    for lane in dict.fromkeys(int(lane) for lane in candidates):
        entry = lanes.entry(lane)
        outcome_a = concrete.run_block(program_a, entry)
        outcome_b = concrete.run_block(program_b, entry)
        difference = concrete.difference(outcome_a, outcome_b, entry)
        if difference is not None:
            return Counterexample(entry, shape, outcome_a, outcome_b, difference)
    return None


# --- the symbolic comparison ---------------------------------------------------------------------


def _describe_guard(table: TermTable, guard: guards.Guard) -> str:
    text = ", ".join(table.render(poly, limit=3) for poly in guard.polys)
    return {
        "zero": f"{text} = 0",
        "nonzero": f"{text} != 0",
        "u32": f"{text} is u32",
        "nonzero_x": f"({text}) != 0",
        "never": "false",
    }[guard.kind]


def compare(
    table: TermTable, first: Summary, second: Summary, depth: int, generator: random.Random
) -> _Proof:
    """Prove that two summaries mean the same, or say why not."""
    guards_a, mapping = guards.normalize(table, first.guards)
    guards_b, _ = guards.normalize(table, second.guards)
    if guards.NEVER in guards_a and guards.NEVER in guards_b:
        return _Proof(True, "both blocks fail on every entry state")
    if first.depth_threshold != second.depth_threshold:
        return _Proof(
            False,
            f"TooShallow below {first.depth_threshold} stack words in A, "
            f"below {second.depth_threshold} in B",
        )
    if first.reads != second.reads:
        return _Proof(False, f"input tokens read differ: A {first.reads}, B {second.reads}")
    if first.sponge_required != second.sponge_required:
        return _Proof(False, "only one block needs the sponge initialized on entry")
    if set(guards_a) != set(guards_b):
        only_a = [guard for guard in guards_a if guard not in guards_b]
        only_b = [guard for guard in guards_b if guard not in guards_a]
        side, guard = ("A", only_a[0]) if only_a else ("B", only_b[0])
        return _Proof(
            False,
            f"failure conditions differ: only {side} requires {_describe_guard(table, guard)}",
        )
    if first.halted != second.halted:
        return _Proof(False, "only one block halts")
    memo: dict = {}

    def rewrite(poly: Poly) -> Poly:
        return substitute(table, poly, mapping, memo) if mapping else poly

    stack_a, stack_b = first.exit_stack(table, depth), second.exit_stack(table, depth)
    if len(stack_a) != len(stack_b):
        return _Proof(False, f"exit stack heights differ by {len(stack_a) - len(stack_b)}")
    if len(first.output) != len(second.output):
        return _Proof(False, "output lengths differ")
    pairs: list[tuple[str, Poly, Poly]] = []
    for index, (left, right) in enumerate(zip(reversed(stack_a), reversed(stack_b))):
        pairs.append((f"exit st{index}", left, right))
    for index, (left, right) in enumerate(zip(first.output, second.output)):
        pairs.append((f"output word {index}", left, right))
    writes_a = final_writes(table, [(rewrite(a), rewrite(v)) for a, v in first.writes])
    writes_b = final_writes(table, [(rewrite(a), rewrite(v)) for a, v in second.writes])
    if len(writes_a) != len(writes_b):
        return _Proof(False, "the blocks write different sets of RAM cells")
    for index, ((address_a, value_a), (address_b, value_b)) in enumerate(zip(writes_a, writes_b)):
        pairs.append((f"address of RAM write {index}", address_a, address_b))
        pairs.append((f"value of RAM write {index}", value_a, value_b))
    if (first.sponge is None) != (second.sponge is None):
        return _Proof(False, "only one block changes the sponge")
    if first.sponge is not None:
        for index, (left, right) in enumerate(zip(first.sponge, second.sponge)):
            pairs.append((f"sponge word {index}", left, right))
    permutations_a = Counter(_rewrite_key(table, key, rewrite) for key in first.permutations)
    permutations_b = Counter(_rewrite_key(table, key, rewrite) for key in second.permutations)
    if permutations_a != permutations_b:
        return _Proof(False, "the Tip5 permutations differ")
    return _compare_pairs(
        table, [(name, rewrite(a), rewrite(b)) for name, a, b in pairs], generator
    )


def _rewrite_key(table: TermTable, key: tuple, rewrite) -> tuple:
    return permutation_key(table, (key[0], *(rewrite(poly) for poly in key[1:])))


def final_writes(table: TermTable, writes: list[tuple[Poly, Poly]]) -> list[tuple[Poly, Poly]]:
    """The writes that decide the final RAM, in a canonical order.

    A write is dead when a later write has the same address; adjacent writes to
    addresses that differ by a non-zero constant commute and are sorted.
    """
    live: list[tuple[Poly, Poly]] = []
    for address, value in writes:
        live = [(old, written) for old, written in live if old is not address]
        live.append((address, value))
    changed = True
    while changed:
        changed = False
        for index in range(len(live) - 1):
            (left, _), (right, _) = live[index], live[index + 1]
            distinct = table.sub(left, right).constant not in (None, 0)
            if distinct and right.serial < left.serial:
                live[index], live[index + 1] = live[index + 1], live[index]
                changed = True
    return live


def _compare_pairs(table: TermTable, pairs, generator: random.Random) -> _Proof:
    """Equal by canonical form, or by Schwartz-Zippel for pairs with opaque atoms."""
    open_pairs = []
    for name, left, right in pairs:
        if left is right:
            continue
        if not left.opaque and not right.opaque:
            return _Proof(False, f"{name} differs: A {table.render(left)}, B {table.render(right)}")
        open_pairs.append((name, left, right))
    if not open_pairs:
        return _Proof(True, "equal canonical forms")
    degree = max(max(left.degree, right.degree) for _, left, right in open_pairs)
    if degree >= P >> 16:
        return _Proof(False, f"degree {degree} is too high for Schwartz-Zippel")
    bits_per_trial = math.log2(P / degree)
    trials = math.ceil((TARGET_ERROR_EXPONENT + math.log2(len(open_pairs))) / bits_per_trial)
    if trials > MAXIMUM_TRIALS:
        return _Proof(False, f"degree {degree} needs too many Schwartz-Zippel trials")
    polys = [poly for _, left, right in open_pairs for poly in (left, right)]
    for _ in range(trials):
        values = evaluate_random(table, polys, generator)
        for index, (name, _, _) in enumerate(open_pairs):
            if values[2 * index] != values[2 * index + 1]:
                return _Proof(False, f"{name} differs at a random point", "schwartz-zippel")
    bound = len(open_pairs) * (degree / P) ** trials
    values = f"{len(open_pairs)} value{'s' if len(open_pairs) > 1 else ''}"
    return _Proof(True, f"{values} equal at {trials} random points", "schwartz-zippel", bound)
