"""The compiler as one list of named steps: a source file -> `Compiled`.

    step          what it does                                              runs at
    ast           read and parse the file and every module it uses          every level
    checked       resolve names, check types, instantiate (compiler.check)  every level
    inline        inline and specialize calls (compiler.optimize.inline_source)   -O1
    tir           checked program -> TIR (compiler.tir.builder)             every level
    tir-opt       inline tiny functions, TIR peephole rules                 -O1
    unroll        the chosen loops unrolled by two (compiler.optimize.unroll) -O2
    tasm-lowered  TIR -> TASM, block by block (compiler.lower.control and
                  a BlockLowerer), before any peephole                      every level
    tasm-opt      TASM peephole rules                                       -O1
    tasm          entry stub, labels, one text (compiler.lower.link)        every level

`STEPS` is that table and `run_steps` the loop that runs it: each step's name is also its
dump key (`tri build --dump tir,tasm`), and a step above the requested level passes its
input on unchanged.  `FRONT_END` (`ast`, `checked`) goes from a path to a `Checked`
program (`check_source`); `BACK_END` from a `Checked` program to the linked text
(`compile_program`, which also assembles it).  The levels are compiler.levels.LEVELS
(optimizer.md §1).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from compiler import dumps
from compiler.check.checker import check
from compiler.check.resolve import Resolver, load_project
from compiler.contracts import CHECK_FLAG, expand_contracts
from compiler.levels import DEFAULT_LEVEL, LEVELS
from compiler.lower.asm import AsmProgram
from compiler.lower.blocks import BlockLowerer
from compiler.lower.classical import CLASSICAL
from compiler.lower.control import lower
from compiler.lower.link import link
from compiler.optimize.inline_source import inline_calls
from compiler.optimize.passes import optimize_tasm, optimize_tir
from compiler.optimize.unroll import unroll, unrollable
from compiler.sourcemap import program_origins
from compiler.tir.builder import build_tir
from compiler.tir.ops import Program as TirProgram
from compiler.tir.printer import print_program
from vm import tasm

EMIT = ("tir", "tasm", "wat")  # `--emit tir` is the output of `unroll`, `--emit tasm` that of
# `tasm`, `--emit wat` the WebAssembly text of that program (vm.wasm.translate)


@dataclass(frozen=True)
class Options:
    """What the steps run with."""

    level: int = DEFAULT_LEVEL
    lowerer: BlockLowerer = CLASSICAL
    resolver: Resolver = field(default_factory=Resolver)
    flags: frozenset[str] = frozenset({"debug"})
    unroll: frozenset[str] = frozenset()  # labels of the loops to unroll (-O2)


@dataclass(frozen=True)
class Step:
    name: str  # also its dump key
    run: Callable  # (input, Options) -> output
    level: int  # the lowest level that runs it
    show: Callable  # output -> its dump text


def _parse(path, options: Options):
    return load_project(Path(path), options.resolver)


FRONT_END = (
    Step("ast", _parse, 0, dumps.project_text),
    Step(
        "contracts",
        lambda project, options: expand_contracts(project, CHECK_FLAG in options.flags),
        0,
        dumps.project_text,
    ),
    Step("checked", lambda project, options: check(project, options.flags), 0, dumps.checked_text),
)
BACK_END = (
    Step("inline", lambda checked, options: inline_calls(checked), 1, dumps.checked_text),
    Step("tir", lambda checked, options: build_tir(checked), 0, print_program),
    Step("tir-opt", lambda tir, options: optimize_tir(tir), 1, print_program),
    Step("unroll", lambda tir, options: unroll(tir, options.unroll), 2, print_program),
    Step("tasm-lowered", lambda tir, options: lower(tir, options.lowerer), 0, dumps.asm_text),
    Step("tasm-opt", lambda asm, options: optimize_tasm(asm), 1, dumps.asm_text),
    Step("tasm", lambda asm, options: link(asm, asm.name or None), 0, str),
)
STEPS = FRONT_END + BACK_END
STEP_NAMES = tuple(step.name for step in STEPS)

# dump(step name, its text, whether it ran at this level): called after each step
Dump = Callable[[str, str, bool], None]


def run_steps(steps, value, options: Options, dump: Dump | None = None) -> dict:
    """Run `steps` in order from `value`; every step's output, by name."""
    outputs = {}
    for step in steps:
        ran = options.level >= step.level
        if ran:
            value = step.run(value, options)
        outputs[step.name] = value
        if dump is not None:
            dump(step.name, step.show(value), ran)
    return outputs


def check_source(path, options: Options = Options(), dump: Dump | None = None):
    """The front end: a .tri file (and every module it uses) -> `Checked`.  Raises
    `CompileError` with every diagnostic when there is an error."""
    return run_steps(FRONT_END, path, options, dump)["checked"]


@dataclass
class Compiled:
    tir: TirProgram  # after tir-opt and unroll
    asm: AsmProgram  # after tasm-opt
    text: str  # the linked TASM
    program: tasm.Program  # the text, assembled
    module: str | None  # the module name of a module-alone build
    level: int = DEFAULT_LEVEL
    search: object = None  # at -O2: the search's funnel (compiler.search.lowerer.Funnel)
    outputs: dict = field(default_factory=dict)  # every back-end step's output, by name

    def report(self) -> str:
        """What the optimizer did to each function (`tri build --report`, compiler.report)."""
        from compiler import report

        functions = [function.label for function in self.tir.functions]
        return report.render(report.report(self.outputs), functions, self.level)

    def emit(self, what: str) -> str:
        if what == "tir":
            return print_program(self.tir)
        if what == "wat":
            from vm.wasm.translate import translate

            return translate(self.program)
        return self.text


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

    The blocks are lowered by `lowerer`: the classical one, or at `-O2` the search
    (compiler.search.lowerer).  An `-O2` build is never costlier than `-O1`: both are
    compared by `compiler.search.objective` on the runs `profile(program)` gives (every
    instruction once without a profile), and unless `-O2` is strictly cheaper the
    `-O1` program is the result.  With loops unrolled, the unrolled program with
    classical blocks is a third candidate (`_never_costlier`).  `-O3` adds the model
    (compiler.neural.model) from the weight file `weights` (default: the shipped one); a
    file that cannot be used gives a warning and the `-O2` build.  The model runs on
    numpy (`engine="numpy"`) or as its own program, std.nn.optimizer compiled at `-O2`,
    on the VM (`engine="vm"`, compiler.neural.language_model): the same scores, so the
    same TASM.  `model` names
    another model program instead (compiler.neural.program_model, run on the JIT, with the
    weight file `weights`, which it needs): a program or weight file that cannot be used
    raises ProgramModelError or WeightsError, never a silent fallback.

    At `-O2` and above, loops are unrolled (compiler.optimize.unroll) where `unrolled`
    says: by default the loops `choose_unrolled` keeps on `profile`'s runs (none without
    a profile: unrolling makes a program longer, so it pays only where loops run), "all"
    for every loop that qualifies, or a collection of loop labels."""
    if level not in LEVELS:
        raise ValueError(f"no optimization level {level}; the levels are {sorted(LEVELS)}")
    if lowerer is None:
        lowerer = search_lowerer(level, weights, engine, model) if level >= 2 else CLASSICAL
    last = BACK_END[-1].name
    held = dump
    if level >= 2 and dump is not None:  # the last dump is of the program chosen below

        def held(name, text, ran):
            if name != last:
                dump(name, text, ran)

    labels = frozenset()
    if level >= 2:
        if unrolled is None:
            labels = choose_unrolled(checked, profile, isa) if profile else frozenset()
        else:
            labels = "all" if unrolled == "all" else frozenset(unrolled)
    if labels == "all":
        labels = frozenset(unrollable(run_steps(BACK_END[:3], checked, Options(1))["tir-opt"]))
    options = Options(level, lowerer, unroll=labels)
    plan = getattr(lowerer, "plan", None)
    if plan is not None and plan.spread == "profile":
        lowerer.plan = plan_budgets(checked, plan, options, profile, isa)
    compiled = _build(checked, options, isa, held)
    if level >= 3:
        policy = getattr(lowerer, "policy", None)
        compiled.outputs["model"] = None if policy is None else policy.identity
    if level >= 2:
        alternatives = []
        if labels and lowerer is not CLASSICAL:  # the unrolled program, unsearched
            alternatives.append(_build(checked, Options(level, unroll=labels), isa))
        compiled = _never_costlier(checked, compiled, isa, profile, alternatives)
        if dump is not None:
            dump(last, compiled.text, True)
    return compiled


def _build(checked, options: Options, isa: str, dump: Dump | None = None) -> Compiled:
    """The back end's steps with `options`, as a `Compiled`."""
    outputs = run_steps(BACK_END, checked, options, dump)
    text = outputs[BACK_END[-1].name]
    module = None if checked.entry is not None else checked.project.entry.name
    origins = program_origins(outputs["tasm-opt"], module)
    program = replace(tasm.parse(text, isa), source_map=origins)
    compiled = Compiled(outputs["unroll"], outputs["tasm-opt"], text, program, module)
    compiled.level, compiled.outputs = options.level, outputs
    compiled.search = getattr(options.lowerer, "funnel", None)
    return compiled


def choose_unrolled(checked, profile, isa: str = "rel") -> frozenset[str]:
    """The loops to unroll: each qualifying loop in turn, kept where the program built with
    it unrolled (classical blocks) is strictly cheaper on `profile`'s runs than without."""
    from compiler.search.objective import objective

    tir = run_steps(BACK_END[:3], checked, Options(1))["tir-opt"]

    def cost(labels: frozenset[str]):
        text = run_steps(BACK_END[3:], tir, Options(2, unroll=labels))["tasm"]
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
    from compiler.search import budget

    if profile is None:
        return replace(plan, factors={})
    blocks = budget.program_blocks(run_steps(BACK_END[:4], checked, options)["unroll"])
    baseline = compile_program(checked, 1, isa=isa).program
    visits = budget.origin_visits(baseline, profile(baseline))
    return budget.hot_first(options.lowerer, blocks, visits, plan.scale)


def search_lowerer(level: int, weights=None, engine: str = "numpy", model=None, **options):
    """The `-O2` block lowerer (compiler.search.lowerer), with the `-O3` model at level 3
    (`weights`, `engine` and `model` as in `compile_program`); `options` go to it (e.g.
    `table`, a decision table)."""
    from compiler.search.lowerer import SearchLowerer

    policy = _model(weights, engine, model) if level >= 3 else None
    return SearchLowerer(policy=policy, **options)


def _model(weights, engine: str, model: str | None = None):
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
    from compiler.neural.language_model import vm_policy

    return vm_policy(policy.parameters, policy.identity)


def _never_costlier(checked, compiled: Compiled, isa: str, profile, alternatives=()) -> Compiled:
    """The cheapest of `compiled` and `alternatives` (other builds of the same program at
    its level) that is strictly cheaper than the `-O1` build, else that; ties go to the
    earlier.  An alternative matters where the search's blocks, each strictly cheaper
    alone, still lose as a whole: the cascade table, the tallest in short runs, counts
    the distinct limbs of hashing the program's own words, so any new code can raise it
    by a few rows (optimizer.md §3 ranks the tallest table before cycles)."""
    from compiler.search.objective import objective

    baseline = compile_program(checked, 1, isa=isa)

    def cost(build: Compiled):
        return objective(build.program, profile(build.program) if profile else None)

    chosen, best = baseline, cost(baseline)
    for build in (compiled, *alternatives):
        if build.text != baseline.text and (mine := cost(build)) < best:
            chosen, best = build, mine
    if compiled.search is not None and chosen is not compiled:  # no searched block is used
        compiled.search.applied = 0
    chosen.level, chosen.search = compiled.level, compiled.search
    chosen.outputs = {**chosen.outputs, "search": compiled.search}
    if "model" in compiled.outputs:
        chosen.outputs["model"] = compiled.outputs["model"]
    return chosen
