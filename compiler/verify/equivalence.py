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

from collections import Counter
from dataclasses import dataclass, replace

import numpy as np

from compiler.verify import concrete, guards, vectorized
from compiler.verify.assumptions import NOTHING, Assumptions
from compiler.verify.concrete import Counterexample, Shape
from compiler.verify.corners import Steering
from compiler.verify.functions import substitute
from compiler.verify.identities import Canonical
from compiler.verify.random_points import HashPoints, Proof, equal_at_random_points, points_for
from compiler.verify.solver import Decision, Residual, decide
from compiler.verify.symbolic import Summary, block_ops, execute
from compiler.verify.symbolic_handlers import permutation_key
from compiler.verify.terms import MAXIMUM_STEPS, Poly, TermTable, WorkLimit
from vm.isa import Arg, Failure
from vm.tasm import Program

SCREEN_LANES = 48  # lanes of the first concrete screen
SEARCH_LANES = 2048  # lanes of the search after a failed proof
INTERPRETER_RUNS = 1  # lanes also run on the interpreter, whatever the screen says
CONFIRMATIONS = 8  # lanes flagged by the screen that are re-run on the interpreter
LANE_WORDS = 1 << 22  # stack words of one sample at most: deep blocks get fewer lanes


@dataclass(frozen=True)
class Verdict:
    """The answer of `check_equivalent`."""

    status: str  # "equivalent", "different" or "unknown"
    reason: str
    method: str  # "canonical", "schwartz-zippel", "solver", "concrete" or "none"
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


def _program(block, isa: str) -> Program:
    if isinstance(block, Program):
        block_ops(block)
        return block
    return Program(ops=block_ops(block), isa=isa)


def failure_kinds(summary: Summary, assumptions: Assumptions = NOTHING) -> tuple[str, ...]:
    """The error kinds a block can fail with (on entry states that satisfy `assumptions`)."""
    kinds = set(summary.guards.values())
    if summary.depth_threshold > assumptions.minimum_depth:
        kinds.add(Failure.TOO_SHALLOW)
    for stream, kind in (
        ("public", Failure.EMPTY_PUBLIC_INPUT),
        ("secret", Failure.EMPTY_SECRET_INPUT),
        ("digest", Failure.EMPTY_SECRET_DIGEST_INPUT),
    ):
        if summary.reads[stream]:
            kinds.add(kind)
    if summary.sponge_required:
        kinds.add(Failure.SPONGE_NOT_INITIALIZED)
    return tuple(sorted(kinds))


def _constants(table: TermTable, summary: Summary) -> set[int]:
    """Words worth trying: the block's constants and where its guards flip."""
    values = set(summary.constants)
    for guard in summary.guards:
        values |= guards.interesting_values(table, guard)
    return values


def shape_of(
    table: TermTable, summaries: tuple[Summary, Summary], assumptions: Assumptions, depth: int
) -> Shape:
    """The entry states two blocks need, from their summaries: `depth` stack words compared."""
    first, second = summaries
    return Shape(
        depth=max(depth, concrete.MINIMUM_STACK, *(slot + 1 for slot in assumptions.u32_entry)),
        touched=depth,
        thresholds=(first.depth_threshold, second.depth_threshold),
        reads=tuple(
            (summary.reads["public"], summary.reads["secret"], summary.reads["digest"])
            for summary in summaries
        ),
        sponge=first.sponge is not None or second.sponge is not None,
        constants=tuple(sorted(_constants(table, first) | _constants(table, second))),
        minimum_length=assumptions.minimum_depth,
        u32_entry=assumptions.u32_entry,
    )


def check_equivalent(
    block_a,
    block_b,
    *,
    assumptions: Assumptions = NOTHING,
    inputs: int = 0,
    isa: str = "rel",
    seed: int = 0,
    solver: bool = False,
) -> Verdict:
    """Compare two straight-line blocks; see the module docstring.

    Only entry states that satisfy `assumptions` are considered, and the exit
    slots it marks don't-care are not compared (compiler.verify.assumptions).
    `inputs` is the least number of entry stack words to compare; BlockError
    (a ValueError) for a block with control flow.  `solver=True` asks an SMT
    solver (compiler.verify.solver, when cvc5 is installed) about what would
    otherwise be `unknown`; off by default, so that the optimizer's many checks
    cost what they did.  Blocks too large for the symbolic layer (more than
    `terms.MAXIMUM_STEPS` steps) are only searched concretely.
    """
    program_a, program_b = _program(block_a, isa), _program(block_b, isa)
    try:
        return _check(program_a, program_b, assumptions, inputs, seed, solver)
    except WorkLimit as limit:
        return _check_concretely(program_a, program_b, assumptions, seed, str(limit))


def _check(
    program_a: Program,
    program_b: Program,
    assumptions: Assumptions,
    inputs: int,
    seed: int,
    use_solver: bool,
) -> Verdict:
    table = TermTable(assumptions.u32_entry)
    summary_a, summary_b = execute(program_a, table), execute(program_b, table)
    depth = max(summary_a.entry_depth, summary_b.entry_depth, inputs)
    kinds = (failure_kinds(summary_a, assumptions), failure_kinds(summary_b, assumptions))
    shape = shape_of(table, (summary_a, summary_b), assumptions, depth)
    generator = np.random.default_rng(seed)

    def different(found, method: str = "concrete") -> Verdict:
        return Verdict(
            "different",
            found.difference,
            method,
            counterexample=found,
            entry_depth=depth,
            failure_kinds=kinds,
        )

    ignore = assumptions.dont_care
    steering = Steering(table, (summary_a, summary_b))
    found = search(
        program_a, program_b, shape, generator, SCREEN_LANES, INTERPRETER_RUNS, ignore, steering
    )
    if found is not None:
        return different(found)
    points = points_for(program_a, program_b, assumptions, seed)
    proof = compare(table, summary_a, summary_b, depth, points, assumptions, residual=use_solver)
    if proof.proven:
        return Verdict(
            "equivalent",
            proof.reason,
            proof.method,
            proof.error_bound,
            entry_depth=depth,
            failure_kinds=kinds,
        )
    found = search(program_a, program_b, shape, generator, SEARCH_LANES, 0, ignore, steering)
    if found is not None:
        return different(found)
    reason = f"not proven: {proof.reason}"
    if use_solver and proof.residual is not None:
        decision = decide(table, proof.residual)
        if decision.status == "unsat":
            return Verdict(
                "equivalent",
                f"{SOLVER_PROOF} ({proof.reason} symbolically)",
                "solver",
                entry_depth=depth,
                failure_kinds=kinds,
            )
        if decision.status == "sat":
            entry = candidate_entry(decision, shape, (summary_a, summary_b))
            found = _confirmed(program_a, program_b, entry, shape, ignore)
            if found is not None:
                return different(found, "solver")
            reason += "; the solver's candidate counterexample does not replay"
        else:
            reason += f"; solver: {decision.reason}"
    return Verdict("unknown", reason, "none", entry_depth=depth, failure_kinds=kinds)


SOLVER_PROOF = "no entry state makes them differ (cvc5, finite fields)"


def candidate_entry(
    decision: Decision, shape: Shape, summaries: tuple[Summary, Summary]
) -> concrete.Entry:
    """The entry state of a solver model: its words, zero where the model names none."""
    leaves = decision.leaves
    length = max(shape.minimum_length, concrete.MINIMUM_STACK, shape.depth, *shape.thresholds)
    public, secret, digests = (max(reads[k] for reads in shape.reads) for k in range(3))
    initialized = any(summary.sponge_required for summary in summaries)
    return concrete.Entry(
        stack=tuple(leaves.get(("stack", (i,)), 0) for i in range(length)),
        public=tuple(leaves.get(("public", (i,)), 0) for i in range(public)),
        secret=tuple(leaves.get(("secret", (i,)), 0) for i in range(secret)),
        digests=tuple(
            tuple(leaves.get(("digest", (i, k)), 0) for k in range(5)) for i in range(digests)
        ),
        sponge=tuple(leaves.get(("sponge", (k,)), 0) for k in range(16)) if initialized else None,
        memory_mode=0,
        memory_multiplier=0,
        memory_offset=0,
        cells=tuple(sorted(decision.cells.items())),
    )


def _confirmed(program_a, program_b, entry, shape, ignore) -> Counterexample | None:
    """The counterexample at `entry` if the interpreter shows a difference there."""
    outcome_a = concrete.run_block(program_a, entry)
    outcome_b = concrete.run_block(program_b, entry)
    found = concrete.difference(outcome_a, outcome_b, entry, ignore)
    return None if found is None else Counterexample(entry, shape, outcome_a, outcome_b, found)


def _check_concretely(
    program_a: Program, program_b: Program, assumptions: Assumptions, seed: int, reason: str
) -> Verdict:
    """For blocks too large for the symbolic layer: the concrete search alone."""
    shape = _instruction_shape((program_a, program_b), assumptions)
    generator = np.random.default_rng(seed)
    for lanes, runs in ((SCREEN_LANES, INTERPRETER_RUNS), (SEARCH_LANES, 0)):
        try:
            found = search(
                program_a, program_b, shape, generator, lanes, runs, assumptions.dont_care
            )
        except WorkLimit as limit:
            reason = f"{reason}; {limit}"
            break
        if found is not None:
            return Verdict(
                "different",
                found.difference,
                "concrete",
                counterexample=found,
                entry_depth=shape.touched,
            )
    return Verdict("unknown", f"not proven: {reason}", "none", entry_depth=shape.touched)


def _instruction_shape(programs, assumptions: Assumptions) -> Shape:
    """The entry states blocks need, from their instructions alone (vm.isa's deltas)."""
    lowest, reads = 0, [0, 0, 0]
    for program in programs:
        height = 0
        counts = [0, 0, 0]
        for op in program.ops:
            height += op.instruction.stack_delta(op.argument)
            lowest = min(lowest, height)
            name = op.instruction.name
            if name in ("read_io", "divine") and op.instruction.arg is Arg.COUNT:
                counts[0 if name == "read_io" else 1] += op.argument
            elif name.startswith("merkle_step"):
                counts[2] += 1
        reads = [max(old, new) for old, new in zip(reads, counts)]
    threshold = concrete.MINIMUM_STACK - lowest
    constants = {
        op.argument
        for program in programs
        for op in program.ops
        if op.instruction.arg is Arg.FIELD and isinstance(op.argument, int)
    }
    return Shape(
        depth=threshold + concrete.MINIMUM_STACK,
        touched=threshold + concrete.MINIMUM_STACK,
        thresholds=(threshold,),
        reads=(tuple(reads),),
        sponge=True,
        constants=tuple(sorted(constants)),
        minimum_length=assumptions.minimum_depth,
        u32_entry=assumptions.u32_entry,
    )


def prove_equivalent(
    block_a,
    block_b,
    *,
    assumptions: Assumptions = NOTHING,
    table: TermTable | None = None,
    isa: str = "rel",
    seed: int = 0,
    solver: bool = False,
) -> Verdict:
    """The symbolic comparison alone: `equivalent` (proven) or `unknown`, never `different`.

    For blocks that cannot run: their `push`/`addi` arguments may be symbolic
    parameters of `table` (compiler.verify.functions.parameter), so that one
    proof covers every value (compiler.optimize.proofs proves the peephole
    rules this way).  `solver=True`: an `unsat` of compiler.verify.solver also
    proves (a model is not confirmed here, so it leaves the answer `unknown`).
    """
    program_a, program_b = _program(block_a, isa), _program(block_b, isa)
    if table is None:
        table = TermTable(assumptions.u32_entry)
    elif table.u32_entry != assumptions.u32_entry:
        raise ValueError("the table's u32 entry slots differ from the assumptions'")
    table.step_limit = table.steps + MAXIMUM_STEPS
    try:
        summary_a, summary_b = execute(program_a, table), execute(program_b, table)
        depth = max(summary_a.entry_depth, summary_b.entry_depth)
        kinds = (failure_kinds(summary_a, assumptions), failure_kinds(summary_b, assumptions))
        points = points_for(program_a, program_b, assumptions, seed)
        proof = compare(table, summary_a, summary_b, depth, points, assumptions, residual=solver)
    except WorkLimit as limit:
        return Verdict("unknown", f"not proven: {limit}", "none")
    if not proof.proven and solver and proof.residual is not None:
        decision = decide(table, proof.residual)
        if decision.status == "unsat":
            reason = f"{SOLVER_PROOF} ({proof.reason} symbolically)"
            return Verdict("equivalent", reason, "solver", 0.0, None, depth, kinds)
        proof = replace(proof, reason=f"{proof.reason}; solver: {decision.reason}")
    status = "equivalent" if proof.proven else "unknown"
    reason = proof.reason if proof.proven else f"not proven: {proof.reason}"
    method = proof.method if proof.proven else "none"
    return Verdict(status, reason, method, proof.error_bound, None, depth, kinds)


def search(
    program_a: Program,
    program_b: Program,
    shape: Shape,
    generator: np.random.Generator,
    lanes_count: int,
    interpreter_runs: int,
    ignore: frozenset[int] = frozenset(),
    steering: Steering | None = None,
) -> Counterexample | None:
    """A counterexample among `lanes_count` sampled entry states, confirmed on the interpreter.

    `ignore`: exit stack slots whose values do not matter; `steering` moves some
    lanes to the blocks' corners (compiler.verify.corners).
    """
    lanes_count = max(8, min(lanes_count, LANE_WORDS // max(shape.depth, 1)))
    lanes = concrete.sample_lanes(generator, lanes_count, shape)
    if steering is not None:
        steering(lanes, generator)
    outcomes_a = vectorized.run_lanes(program_a, lanes)
    outcomes_b = vectorized.run_lanes(program_b, lanes)
    flagged = np.flatnonzero(vectorized.differing_lanes(outcomes_a, outcomes_b, lanes, ignore))
    candidates = list(flagged[:CONFIRMATIONS]) + list(range(min(interpreter_runs, lanes_count)))
    for lane in dict.fromkeys(int(lane) for lane in candidates):
        entry = lanes.entry(lane)
        outcome_a = concrete.run_block(program_a, entry)
        outcome_b = concrete.run_block(program_b, entry)
        difference = concrete.difference(outcome_a, outcome_b, entry, ignore)
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
    table: TermTable,
    first: Summary,
    second: Summary,
    depth: int,
    generator: HashPoints,
    assumptions: Assumptions = NOTHING,
    residual: bool = False,
) -> Proof:
    """Prove that two summaries mean the same, or say why not (under `assumptions`).

    With `residual`, a proof that fails only at the failure conditions or the
    values carries what is left open (`solver.Residual`), for the solver."""
    canonical = Canonical(table)
    guards_a, mapping = guards.normalize(table, first.guards, canonical.eliminator)
    guards_b, _ = guards.normalize(table, second.guards, canonical.eliminator)
    if guards.NEVER in guards_a and guards.NEVER in guards_b:
        return Proof(True, "both blocks fail on every entry state")
    shallow_a = max(first.depth_threshold, assumptions.minimum_depth)
    shallow_b = max(second.depth_threshold, assumptions.minimum_depth)
    if shallow_a != shallow_b:
        return Proof(
            False,
            f"TooShallow below {first.depth_threshold} stack words in A, "
            f"below {second.depth_threshold} in B",
        )
    if first.reads != second.reads:
        return Proof(False, f"input tokens read differ: A {first.reads}, B {second.reads}")
    if first.sponge_required != second.sponge_required:
        return Proof(False, "only one block needs the sponge initialized on entry")
    always = _extra_guards_hold(table, guards_a, guards_b, canonical, generator)
    if not always.proven and not residual:
        return always
    if first.halted != second.halted:
        return Proof(False, "only one block halts")
    memo: dict = {}

    def rewrite(poly: Poly) -> Poly:
        poly = canonical(poly)
        return substitute(table, poly, mapping, memo, canonical.eliminator) if mapping else poly

    stack_a, stack_b = first.exit_stack(table, depth), second.exit_stack(table, depth)
    if len(stack_a) != len(stack_b):
        return Proof(False, f"exit stack heights differ by {len(stack_a) - len(stack_b)}")
    if len(first.output) != len(second.output):
        return Proof(False, "output lengths differ")
    pairs: list[tuple[str, Poly, Poly]] = []
    for index, (left, right) in enumerate(zip(reversed(stack_a), reversed(stack_b))):
        if index not in assumptions.dont_care:
            pairs.append((f"exit st{index}", left, right))
    for index, (left, right) in enumerate(zip(first.output, second.output)):
        pairs.append((f"output word {index}", left, right))
    writes_a = final_writes(table, [(rewrite(a), rewrite(v)) for a, v in first.writes])
    writes_b = final_writes(table, [(rewrite(a), rewrite(v)) for a, v in second.writes])
    if len(writes_a) != len(writes_b):
        return Proof(False, "the blocks write different sets of RAM cells")
    for index, ((address_a, value_a), (address_b, value_b)) in enumerate(zip(writes_a, writes_b)):
        pairs.append((f"address of RAM write {index}", address_a, address_b))
        pairs.append((f"value of RAM write {index}", value_a, value_b))
    if (first.sponge is None) != (second.sponge is None):
        return Proof(False, "only one block changes the sponge")
    if first.sponge is not None:
        for index, (left, right) in enumerate(zip(first.sponge, second.sponge)):
            pairs.append((f"sponge word {index}", left, right))
    permutations_a = Counter(_rewrite_key(table, key, rewrite) for key in first.permutations)
    permutations_b = Counter(_rewrite_key(table, key, rewrite) for key in second.permutations)
    if permutations_a != permutations_b:
        return Proof(False, "the Tip5 permutations differ")
    rewritten = [(name, rewrite(a), rewrite(b)) for name, a, b in pairs]
    unequal = [pair for pair in rewritten if not canonical.difference_vanishes(pair[1], pair[2])]
    proof = always if not always.proven else equal_at_random_points(table, unequal, generator)
    if not proof.proven:
        if residual:
            shared = tuple(guard for guard in guards_a if guard in guards_b)
            left_open = Residual(
                shared,
                tuple(guard for guard in guards_a if guard not in guards_b),
                tuple(guard for guard in guards_b if guard not in guards_a),
                tuple(unequal),
            )
            proof = replace(proof, residual=left_open)
        return proof
    if always.error_bound == 0:
        return proof
    reason = f"{proof.reason}; the guards only one block has hold at random points"
    return Proof(True, reason, "schwartz-zippel", proof.error_bound + always.error_bound)


def _extra_guards_hold(
    table: TermTable, guards_a, guards_b, canonical: Canonical, generator
) -> Proof:
    """A guard only one block has must hold wherever it is checked (`zero(x*inverse(x) - 1)`)."""
    bound = 0.0
    for side, mine, theirs in (("A", guards_a, guards_b), ("B", guards_b, guards_a)):
        for guard in mine:
            if guard in theirs:
                continue
            proof = Proof(False, "")
            if guard.kind == "zero":
                value = guard.polys[0]
                if canonical.difference_vanishes(value, table.zero):
                    continue
                proof = equal_at_random_points(table, [("guard", value, table.zero)], generator)
            if not proof.proven:
                return Proof(
                    False,
                    f"failure conditions differ: only {side} requires "
                    f"{_describe_guard(table, guard)}",
                )
            bound += proof.error_bound
    return Proof(True, "", error_bound=bound)


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
