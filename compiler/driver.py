"""The driver: a checked program and a level -> the `Compiled` build a user gets.

The pipeline (compiler.pipeline) runs one list of named steps with one finished `Options`
value.  Everything a level needs beyond that is built here, from its row in
compiler.levels.LEVELS:

    search          the block lowerer: the search (compiler.search.lowerer), its budget
                    plan made from the profile (`plan_budgets`)
    model           the search's policy: the neural model (compiler.neural), from a weight
                    file on numpy, or as its own program compiled here and handed to it
    unroll          the loops to unroll, kept where the profile's runs say it pays
                    (`choose_unrolled`)
    never_costlier  the candidates (the searched build, the unrolled one unsearched) and
                    the choice among them and the -O1 build (`never_costlier`)

So compiler.neural depends on the pipeline, the search's moves and the VM, never on this
module, and the pipeline depends on neither.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache

from compiler.blocks.objective import objective
from compiler.levels import DEFAULT_LEVEL, LEVELS
from compiler.lower.blocks import BlockLowerer
from compiler.lower.classical import CLASSICAL
from compiler.optimize.unroll import unrollable
from compiler.pipeline import Compiled, Dump, Options, build, run_steps, steps
from compiler.search import budget
from compiler.search.lowerer import SearchLowerer
from vm import tasm


def compile_program(
    checked,
    level: int = DEFAULT_LEVEL,
    lowerer: BlockLowerer | None = None,
    isa: str = "rel",
    dump: Dump | None = None,
    profile=None,
    weights: str | None = None,
    engine: str = "numpy",
    model: str | None = None,
    unrolled=None,
) -> Compiled:
    """The back end: a checked program (or a module alone: its public functions) at
    `level` -> `Compiled`.

    The blocks are lowered by `lowerer`: the classical one, or at a searching level the
    search (compiler.search.lowerer).  A build at a never-costlier level is never costlier
    than `-O1`: both are compared by `compiler.blocks.objective` on the runs
    `profile(program)` gives (every instruction once without a profile), and unless it is
    strictly cheaper the `-O1` program is the result.  With loops unrolled, the unrolled
    program with classical blocks is a third candidate (`never_costlier`).  `-O3` adds the
    model (compiler.neural.model) from the weight file `weights` (default: the shipped one);
    a file that cannot be used gives a warning and the `-O2` build.  The model runs on numpy
    (`engine="numpy"`) or as its own program, std.nn.optimizer compiled at `-O2`, on the VM
    (`engine="vm"`, compiler.neural.language_model): the same scores, so the same TASM.
    `model` names another model program instead (compiler.neural.program_model, run on the
    JIT, with the weight file `weights`, which it needs): a program or weight file that
    cannot be used raises ProgramModelError or WeightsError, never a silent fallback.

    Where the level unrolls, loops are unrolled (compiler.optimize.unroll) where `unrolled`
    says: by default the loops `choose_unrolled` keeps on `profile`'s runs (none without a
    profile: unrolling makes a program longer, so it pays only where loops run), "all" for
    every loop that qualifies, or a collection of loop labels."""
    if level not in LEVELS:
        raise ValueError(f"no optimization level {level}; the levels are {sorted(LEVELS)}")
    row = LEVELS[level]
    if lowerer is None:
        lowerer = search_lowerer(level, weights, engine, model) if row.search else CLASSICAL
    last = steps()[-1].name
    held = dump
    if row.never_costlier and dump is not None:  # the last dump is of the program chosen below

        def held(name, text, ran):
            if name != last:
                dump(name, text, ran)

    labels = _unrolled(checked, profile, isa, unrolled) if row.unroll else frozenset()
    options = Options(level, lowerer, unroll=labels)
    plan = getattr(lowerer, "plan", None)
    if plan is not None and plan.spread == "profile":
        lowerer.plan = plan_budgets(checked, plan, options, profile, isa)
    compiled = build(checked, options, isa, held)
    if row.model:
        policy = getattr(lowerer, "policy", None)
        compiled.outputs["model"] = None if policy is None else policy.identity
    if row.never_costlier:
        alternatives = []
        if labels and lowerer is not CLASSICAL:  # the unrolled program, unsearched
            alternatives.append(build(checked, Options(level, unroll=labels), isa))
        compiled = never_costlier(checked, compiled, isa, profile, alternatives)
        if dump is not None:
            dump(last, compiled.text, True)
    return compiled


def _unrolled(checked, profile, isa: str, unrolled) -> frozenset[str]:
    """The labels of the loops to unroll (see `compile_program`)."""
    if unrolled is None:
        return choose_unrolled(checked, profile, isa) if profile else frozenset()
    if unrolled != "all":
        return frozenset(unrolled)
    return frozenset(unrollable(_optimized_tir(checked)))


def _optimized_tir(checked):
    """The program's TIR after `tir-moves` at -O1: what unrolling starts from."""
    return run_steps(steps(last="tir-moves"), checked, Options(1))["tir-moves"]


def choose_unrolled(checked, profile, isa: str = "rel") -> frozenset[str]:
    """The loops to unroll: each qualifying loop in turn, kept where the program built with
    it unrolled (classical blocks) is strictly cheaper on `profile`'s runs than without."""
    tir = _optimized_tir(checked)

    def cost(labels: frozenset[str]):
        text = run_steps(steps(first="unroll"), tir, Options(2, unroll=labels))["tasm"]
        program = tasm.parse(text, isa)
        return objective(program, profile(program))

    chosen: frozenset[str] = frozenset()
    best = None
    for label in unrollable(tir):
        if best is None:
            best = cost(chosen)
        trial = cost(chosen | {label})
        if trial < best:
            chosen, best = chosen | {label}, trial
    return chosen


def plan_budgets(checked, plan, options: Options, profile, isa: str = "rel"):
    """`plan` (compiler.search.budget.BudgetPlan: its scale, spread "profile") made for the
    blocks this build lowers, from the runs `profile` gives of the `-O1` build: the
    lowerer (`options.lowerer`) decides them hot first (compiler.search.budget.hot_first)
    and keeps their code for the build; without a profile every block gets the plan's
    scale."""
    if profile is None:
        return replace(plan, factors={})
    blocks = budget.program_blocks(run_steps(steps(last="unroll"), checked, options)["unroll"])
    baseline = compile_program(checked, 1, isa=isa).program
    visits = budget.origin_visits(baseline, profile(baseline))
    return budget.hot_first(options.lowerer, blocks, visits, plan.scale)


def search_lowerer(level: int, weights=None, engine: str = "numpy", model=None, **options):
    """The block lowerer of a searching level (compiler.search.lowerer), with the model
    where the level has one (`weights`, `engine` and `model` as in `compile_program`);
    `options` go to it (e.g. `table`, a decision table)."""
    policy = model_policy(weights, engine, model) if LEVELS[level].model else None
    return SearchLowerer(policy=policy, **options)


def model_policy(weights, engine: str, model: str | None = None):
    """The `-O3` policy from `weights` on `engine`, or the model program `model` with
    `weights` (see `compile_program`), or None."""
    if model is not None:
        from compiler.neural.program_model import program_policy

        if weights is None:
            raise ValueError("a model program needs its weight file")
        return program_policy(model, weights)
    from compiler.neural.model import load_policy

    policy = load_policy(None if weights is None else str(weights))
    if policy is None or engine == "numpy":
        return policy
    if engine != "vm":
        raise ValueError(f"no model engine {engine!r}; the engines are numpy and vm")
    from compiler.neural.language_model import VM_LEVEL, vm_policy

    return vm_policy(policy.parameters, policy.identity, model_program(VM_LEVEL))


@cache
def model_program(level: int) -> tasm.Program:
    """std.nn.optimizer's program (compiler.neural.language_model), compiled once per
    level: what `-O3 --engine vm` runs and `tri selfhost` fixes the identity of."""
    from compiler.neural.language_model import source_program

    return compile_program(source_program(), level).program


def never_costlier(checked, compiled: Compiled, isa: str, profile, alternatives=()) -> Compiled:
    """The cheapest of `compiled` and `alternatives` (other builds of the same program at
    its level) that is strictly cheaper than the `-O1` build, else that; ties go to the
    earlier.  An alternative matters where the search's blocks, each strictly cheaper
    alone, still lose as a whole: the cascade table, the tallest in short runs, counts
    the distinct limbs of hashing the program's own words, so any new code can raise it
    by a few rows (optimizer.md §3 ranks the tallest table before cycles)."""
    baseline = compile_program(checked, 1, isa=isa)

    def cost(candidate: Compiled):
        return objective(candidate.program, profile(candidate.program) if profile else None)

    chosen, best = baseline, cost(baseline)
    for candidate in (compiled, *alternatives):
        if candidate.text != baseline.text and (mine := cost(candidate)) < best:
            chosen, best = candidate, mine
    if compiled.search is not None and chosen is not compiled:  # no searched block is used
        compiled.search.applied = 0
    chosen.level, chosen.search = compiled.level, compiled.search
    chosen.outputs = {**chosen.outputs, "search": compiled.search}
    if "model" in compiled.outputs:
        chosen.outputs["model"] = compiled.outputs["model"]
    return chosen
