"""The `-O2` block lowerer: the classical lowering, replaced where search finds cheaper code
that the equivalence checker proves equal.

Input: TIR blocks with their contracts (compiler.lower.blocks), one at a time.
Output: each block's TASM (`lower_block`), and a `Funnel` that counts what happened
(optimizer.md §10): blocks seen, searched, proven optimal, candidates found, verified
equivalent, strictly cheaper, applied.

For each block: the classical lowering with the TASM peephole rules applied and its
`as_u32` checks merged (compiler.optimize.checks) is the baseline (what `-O1` makes of the
block); the superoptimizer's proven rules
(compiler.superopt.database, applied with the hand rules, which go first) rewrite
it, and the search (compiler.blocks.windows) looks for a cheaper schedule of the
result; the candidate is checked against the baseline with the block's contract as
assumptions (don't-care exit slots, u32 entry slots, the entry length:
`Contract.assumptions()`), and used only if the checker answers `equivalent` and it
is no costlier in any of the static figures the block adds to a run (instructions =
processor and jump-stack rows, op-stack rows, program words) and cheaper in at least
one -- so whatever the execution counts, no table the block feeds grows.  `unknown`
and `different` keep the baseline (a `different` would be a bug in the search and is
counted apart).  The same holds where the block is placed: the program-level peephole
(compiler.optimize.passes) rewrites a block together with the code around it (a
branch's `skiz`, a loop's test), so once that code is known (`in_place`, called by
compiler.lower.control) a replacement stays only if it is strictly cheaper with it
too, after the peephole; else the baseline is put back (`displaced`).

A `DecisionCache` (compiler.search.cache; `$TRI_CACHE`, on by default) keeps each
searched block's decision -- the emitted instructions and the block's funnel figures --
under a key of everything it depends on.  A cached decision is re-validated as a fresh
candidate would be (proven equivalent to the baseline, strictly cheaper, figures
consistent with the code) before it is used, so a build from the cache emits the same
TASM and reports the same funnel (its seconds aside) as a build without it.

A decision table (compiler.search.decisions; `tri build --decisions FILE`) goes first: a
frozen entry, re-validated the same way, is emitted without a search or the model, and
every block decided afresh is recorded in the table as a sample.

A `BudgetPlan` (compiler.search.budget) multiplies each block's budgets by its factor: the
same for every block, or, with a profile, more for the blocks the runs execute most.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cache

from compiler.blocks.dag import DagError, build_dag
from compiler.blocks.objective import strictly_cheaper
from compiler.blocks.rule_engine import Item, origin_of, rewrite
from compiler.blocks.schedule import ScheduleError, complete_schedule, cost
from compiler.blocks.u32_entries import covered
from compiler.blocks.windows import windowed_schedule
from compiler.lower.asm import Instr
from compiler.lower.blocks import Block
from compiler.lower.classical import CLASSICAL
from compiler.optimize.passes import optimize_items, rewrite_run
from compiler.optimize.rules import TASM_RULES
from compiler.search.budget import scaled, signature
from compiler.search.cache import FUNNEL_FIELDS, Decision, DecisionCache
from compiler.search.moves import PolicyDeclined
from compiler.superopt import database
from compiler.verify import check_equivalent
from vm.isa import instruction_set
from vm.tasm import Op

WINDOW_LENGTH = 6  # instructions a window may hold
WINDOW_BUDGET = 300  # search states expanded per window
TAIL = (10, 3_000)  # the last window of a block with don't-care exit slots: length, budget
WHOLE_LENGTH = 12  # blocks of at most this many instructions are first searched whole ...
WHOLE_BUDGET = 3_000  # ... expanding at most this many states
POLICY_BUDGET = 100  # -O3: states a policy-guided search may expand per block


@dataclass
class Funnel:
    """What happened to the blocks of one build (optimizer.md §10)."""

    blocks: int = 0  # blocks lowered
    searched: int = 0  # with two or more instructions: searched
    optimal: int = 0  # what is emitted was searched whole and proven optimal
    candidates: int = 0  # a cheaper schedule found
    verified: int = 0  # ... proven equivalent by the checker
    cheaper: int = 0  # ... and no costlier in any figure
    applied: int = 0  # used in the output
    unknown: int = 0  # the checker could not decide (the baseline is kept)
    different: int = 0  # the checker refuted the candidate: a search bug, counted apart
    superopt: int = 0  # blocks the superoptimizer's rules changed before the search
    model: int = 0  # -O3: blocks where the model's schedule beat the unguided search's
    displaced: int = 0  # applied alone, but no cheaper with the code around it: baseline kept
    instructions_before: int = 0  # of the searched blocks, baseline ...
    instructions_after: int = 0  # ... and what was emitted
    expanded: int = 0  # search states expanded
    seconds: float = 0.0
    by_size: dict = field(default_factory=dict)  # instructions -> [blocks, cheaper, optimal]

    def add(self, other: Funnel) -> None:
        for name in FUNNEL_FIELDS:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.seconds += other.seconds
        self.displaced += other.displaced
        for size, counts in other.by_size.items():
            mine = self.by_size.setdefault(size, [0, 0, 0])
            for position, count in enumerate(counts):
                mine[position] += count


@cache
def o2_rules() -> tuple:
    """The hand TASM rules, then the superoptimizer's (compiler.superopt.database) that
    record no u32-table entry their pattern does not (compiler.blocks.u32_entries): the
    others, such as `dup 0; pop_count; pop 1 -> push 0; xor`, are cheaper alone but can
    make the u32 table taller, and a block they rewrite would be refused whole."""
    kept = tuple(
        rule
        for rule in database.rules()
        if covered(list(rule.parsed_replacement), list(rule.parsed_pattern))
    )
    return TASM_RULES + kept


def _peephole(items: list) -> list:
    """The instructions the program-level peephole makes of `items`."""
    return [item for item in optimize_items(items) if isinstance(item, Instr)]


ENVIRONMENT = "environment"  # SearchLowerer(cache=...): the cache `$TRI_CACHE` names


class SearchLowerer:
    """A `BlockLowerer` (compiler.lower.blocks) for `-O2`; see the module docstring."""

    name = "search"

    def __init__(
        self,
        length: int = WINDOW_LENGTH,
        budget: int = WINDOW_BUDGET,
        whole: int = WHOLE_LENGTH,
        whole_budget: int = WHOLE_BUDGET,
        cache: DecisionCache | None | str = ENVIRONMENT,
        tail: tuple[int, int] | None = TAIL,
        schedule=complete_schedule,
        windows: bool = True,
        policy=None,
        policy_budget: int = POLICY_BUDGET,
        table=None,
        plan=None,
    ):
        """`schedule(dag, budget, bound) -> Result` searches a whole block (e.g. a
        policy-guided search, compiler.search.guided); `windows=False` keeps the
        baseline of a block the whole search does not improve instead of windowing it.
        With a `policy` (`-O3`: the model, compiler.neural.model.NeuralPolicy), a block
        the unguided search has not proven optimal also gets the policy's greedy
        schedule and a search it guides (`policy_budget` states), and the cheapest of
        all is the candidate.  With a `table` (compiler.search.decisions.DecisionTable), a
        frozen entry is emitted without a search once re-validated, and every block
        decided afresh is recorded in it.  With a `plan` (compiler.search.budget.BudgetPlan)
        each block's budgets are multiplied by its factor (`compile_program` plans a build
        from its profile when the plan's spread is "profile")."""
        self.length, self.budget = length, budget
        self.whole, self.whole_budget = whole, whole_budget
        self.tail = tail
        self.schedule, self.windows = schedule, windows
        self.policy, self.policy_budget = policy, policy_budget
        self.funnel = Funnel()
        self.instructions = instruction_set()
        self.cache = DecisionCache.from_environment() if cache == ENVIRONMENT else cache
        self.replaced: dict[int, tuple] = {}  # id(block) -> (block, baseline), for `in_place`
        self.table = table
        self.sampled: dict[str, Decision] = {}  # table key -> the decision made in this build
        self.searches = 0  # blocks searched (`decide`): neither cached nor from the table
        self.model_runs = 0  # blocks the -O3 model was asked about
        self.plan = plan
        self.factor = 1.0  # the budget factor of the block being lowered
        self.allowed = 0  # search states the budgets of the searches so far allowed
        self.decided: dict = {}  # block signature -> its code, decided ahead (`decide_first`)

    def settings(self) -> dict:
        """The search settings a decision depends on (part of the cache key)."""
        return {
            "window_length": self.length,
            "window_budget": self.budget,
            "whole_length": self.whole,
            "whole_budget": self.whole_budget,
            "tail": self.tail,
            "schedule": getattr(self.schedule, "identity", self.schedule.__qualname__),
            "windows": self.windows,
            "policy": None if self.policy is None else self.policy.identity,
            "policy_budget": self.policy_budget,
            "policy_search": "led_schedule",
        } | ({} if self.factor == 1.0 else {"budget_factor": self.factor})

    def lower_block(self, block: Block) -> list[Instr]:
        """The block's code: the search's choice, or the baseline, which keeps the origins
        -O1 gives it (a choice gets its origins from compiler.sourcemap.stamp_block)."""
        start = time.process_time()
        code = self.baseline_code(block)
        baseline = [(item.name, item.arg) for item in code]
        chosen = self.decided.pop(signature(block), None)
        if chosen is None:
            chosen = self.choose(block, baseline)
        if chosen != baseline:
            self.replaced[id(block)] = (block, code)
        self.funnel.seconds += time.process_time() - start
        if chosen == baseline:
            return code
        return [Instr(name, argument) for name, argument in chosen]

    def decide_first(self, block: Block) -> tuple[int, int]:
        """Decide `block` now (with its factor in the plan) and keep its code for when
        lowering reaches it; (states expanded, states its budgets allowed)."""
        start = time.process_time()
        expanded, allowed = self.funnel.expanded, self.allowed
        self.decided[signature(block)] = self.choose(block, self.baseline(block))
        self.funnel.seconds += time.process_time() - start
        return self.funnel.expanded - expanded, self.allowed - allowed

    def in_place(self, block: Block, chosen: list, preceding: list, following: list) -> list:
        """The block's code where it is placed: `chosen` (what `lower_block` returned) if
        it is strictly cheaper than the baseline once the peephole has rewritten each
        with the code around it (`preceding`, `following`), else the baseline."""
        _, baseline = self.replaced.pop(id(block), (None, None))
        if baseline is None:
            return chosen
        start = time.process_time()
        mine = _peephole([*preceding, *chosen, *following])
        theirs = _peephole([*preceding, *baseline, *following])
        self.funnel.seconds += time.process_time() - start
        if strictly_cheaper(mine, theirs):
            return chosen
        self.funnel.applied -= 1
        self.funnel.displaced += 1
        return baseline

    @staticmethod
    def baseline_code(block: Block) -> list[Instr]:
        """What -O1 makes of the block, with its origins: its classical lowering after the
        peephole rules and merged checks."""
        classical = [Item(i.name, i.arg, i.origin) for i in CLASSICAL.lower_block(block)]
        return [Instr(pair[0], pair[1], origin_of(pair)) for pair in rewrite_run(classical)]

    @staticmethod
    def baseline(block: Block) -> list[tuple[str, int | None]]:
        """`baseline_code` as (name, argument) pairs."""
        return [(item.name, item.arg) for item in SearchLowerer.baseline_code(block)]

    def choose(self, block: Block, baseline: list) -> list:
        """The block's code: the table's frozen decision, re-validated, if there is one;
        else from the cache when a re-validated decision is there, else decided (and
        cached), and recorded in the table; the funnel counts the decision either way."""
        if len(baseline) < 2:
            self.funnel.blocks += 1
            return baseline
        self.factor = 1.0 if self.plan is None else self.plan.factor(block)
        if self.table is None:
            return list(self.cached_or_decided(block, baseline).instructions)
        table_key = self.table.key(baseline, block.contract)
        frozen = self.table.frozen(table_key)
        if frozen is not None:
            if self.revalidate(frozen, baseline, block.contract):
                self.table.hits += 1
                self.record(frozen)
                return list(frozen.instructions)
            self.table.refuse(table_key)
        decision = self.sampled.get(table_key)
        if decision is None:  # a block's first time in this build: decided, and a sample
            decision = self.sampled[table_key] = self.cached_or_decided(block, baseline)
            self.table.add(
                table_key, baseline, block.contract, decision, self.level, self.identities()
            )
        else:
            self.record(decision)
        return list(decision.instructions)

    @property
    def level(self) -> int:
        return 2 if self.policy is None else 3

    def identities(self) -> dict:
        """What a decision of this lowerer was made under: model, rules and code."""
        from compiler.search.cache import code_identity, rules_identity

        model = None if self.policy is None else self.policy.identity
        return {"model": model, "rules": rules_identity(), "code": code_identity()}

    def cached_or_decided(self, block: Block, baseline: list) -> Decision:
        """The block's decision from the cache when a re-validated one is there, else
        decided (and cached); recorded in the funnel either way."""
        key = None
        if self.cache is not None:
            key = self.cache.key(baseline, block.contract, self.settings())
            cached = self.cache.get(key)
            if cached is not None:
                if self.revalidate(cached, baseline, block.contract):
                    self.record(cached)
                    return cached
                self.cache.reject()
        decision = self.decide(block, baseline)
        self.record(decision)
        if key is not None:
            self.cache.put(key, decision)
        return decision

    def record(self, decision: Decision) -> None:
        size, cheaper, optimal = decision.by_size
        self.funnel.add(Funnel(**decision.figures, by_size={size: [1, cheaper, optimal]}))

    def revalidate(self, decision: Decision, baseline: list, contract) -> bool:
        """Whether a cached decision may be used: figures consistent with its code, and
        code other than the baseline proven equal to it and strictly cheaper."""
        chosen = [tuple(item) for item in decision.instructions]
        changed = chosen != [tuple(item) for item in baseline]
        figures = decision.figures
        consistent = (
            figures["blocks"] == figures["searched"] == 1
            and figures["applied"] == figures["cheaper"] == int(changed)
            and figures["instructions_before"] == len(baseline)
            and figures["instructions_after"] == len(chosen)
            and decision.by_size[0] == min(len(baseline), 20)
            and decision.by_size[1] == int(changed)
        )
        if not consistent:
            return False
        if not changed:
            return True
        try:
            candidate = self.program(chosen)
        except (KeyError, TypeError, ValueError):
            return False
        verdict = check_equivalent(
            self.program(baseline), candidate, assumptions=contract.assumptions()
        )
        return verdict.equivalent and strictly_cheaper(chosen, baseline)

    def decide(self, block: Block, baseline: list) -> Decision:
        """Search the block and check the candidate (see the module docstring)."""
        self.searches += 1
        funnel = Funnel(blocks=1, searched=1)
        contract = block.contract
        start = rewrite(baseline, o2_rules())[0]
        funnel.superopt += start != baseline
        schedule, optimal = self.search(start, contract.dont_care, funnel)
        funnel.instructions_before += len(baseline)
        chosen = baseline
        if schedule != baseline:
            funnel.candidates += 1
            verdict = check_equivalent(
                self.program(baseline),
                self.program(schedule),
                assumptions=contract.assumptions(),
            )
            if verdict.equivalent:
                funnel.verified += 1
                if strictly_cheaper(schedule, baseline):
                    funnel.cheaper += 1
                    funnel.applied += 1
                    chosen = schedule
            elif verdict.status == "different":
                funnel.different += 1
            else:
                funnel.unknown += 1
        proven = optimal and chosen == schedule  # what is emitted is what the search proved
        funnel.optimal += proven
        funnel.instructions_after += len(chosen)
        figures = {name: int(getattr(funnel, name)) for name in FUNNEL_FIELDS}
        size = min(len(baseline), 20)
        return Decision(tuple(chosen), figures, (size, int(chosen != baseline), int(proven)))

    def search(self, baseline: list, dont_care, funnel: Funnel | None = None) -> tuple[list, bool]:
        """(the cheapest schedule found, whether the block is proven optimal).

        A block of at most `whole` instructions is searched whole first, bounded by its
        own cost: a search that runs out of states proves nothing cheaper exists.  A
        longer block, or one whose whole search exceeds its budget, is searched in
        windows (compiler.blocks.windows; the last window of a block with don't-care exit
        slots up to `tail` long), and the cheaper of that and the best the whole search
        found before its budget ran out is kept.  Both use the complete move set
        (`complete_schedule`; compiler.blocks.schedule.Problem): with fewer moves a block
        whose don't-care slots need filling could be "proven" optimal while cheaper code
        exists.  Then, with a policy, the model's schedules
        (`guided`).  Expanded states are counted in `funnel` (this lowerer's by
        default)."""
        funnel = self.funnel if funnel is None else funnel
        found, optimal = self.unguided(baseline, dont_care, funnel)
        if self.policy is not None and not optimal:
            found = self.guided(baseline, dont_care, found, funnel)
        return found, optimal

    def unguided(self, baseline: list, dont_care, funnel: Funnel) -> tuple[list, bool]:
        whole = baseline  # the whole search's best, when it runs out of states
        if len(baseline) <= self.whole:
            try:
                dag = build_dag(baseline, dont_care)
                budget = scaled(self.whole_budget, self.factor)
                self.allowed += budget
                result = self.schedule(dag, budget, cost(baseline))
            except (DagError, ScheduleError):
                result = None
            if result is not None:
                funnel.expanded += result.expanded
                if result.optimal:
                    return result.instructions or baseline, True
                whole = result.instructions or baseline
        if not self.windows:
            return whole, False
        tail = self.tail and (self.tail[0], scaled(self.tail[1], self.factor))
        budget = scaled(self.budget, self.factor)
        found = windowed_schedule(baseline, dont_care, self.length, budget, tail=tail)
        funnel.expanded += found.expanded
        self.allowed += found.searched * budget
        if cost(whole) <= cost(found.instructions):
            return whole, False
        return found.instructions, found.windows == 1 and found.optimal_windows == 1

    def guided(self, start: list, dont_care, found: list, funnel: Funnel) -> list:
        """`found`, or a schedule of `start` from the policy that is no costlier than it in
        any figure and cheaper in one: its greedy decode, then the search it leads
        (`led_schedule`) bounded by the best so far.  A block the policy does not take
        (too many nodes for the model) keeps `found`."""
        from compiler.search.guided import decode_greedy, led_schedule

        self.model_runs += 1
        try:
            dag = build_dag(start, dont_care)
            # no longer than the best so far (or the plain schedule, if that is longer)
            results = [decode_greedy(self.policy, dag, len(found))]
            bound = min(cost(found), cost(results[0].instructions or found))
            budget = scaled(self.policy_budget, self.factor)
            self.allowed += budget
            results.append(led_schedule(dag, self.policy, budget, bound))
        except (DagError, ScheduleError, PolicyDeclined):
            return found
        best = found
        for result in results:
            funnel.expanded += result.expanded
            # no figure worse than the best so far: what -O2 would emit is never lost
            if result.instructions is not None and strictly_cheaper(result.instructions, best):
                best = result.instructions
        funnel.model += best is not found
        return best

    def program(self, instructions) -> list[Op]:
        return [Op(self.instructions[name], argument) for name, argument in instructions]
