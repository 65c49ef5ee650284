"""The compiler as one list of named steps: a source file -> `Compiled`.

    step          what it does                                              runs at
    ast           read and parse the file and every module it uses          every level
    contracts     each #[requires]/#[ensures] as a generated function       every level
                  (compiler.contracts)
    checked       resolve names, check types, instantiate (compiler.check)  every level
    inline        inline and specialize calls                               -O1
                  (compiler.optimize.inline_source)
    tir           checked program -> TIR (compiler.tir.builder)             every level
    tir-inline    inline tiny functions (compiler.optimize.inline_tir)      -O1
    tir-rules     the TIR peephole rules (compiler.optimize.passes)         -O1
    tir-moves     runs of moves shortened (compiler.optimize.shuffles)      -O1
    unroll        the chosen loops unrolled by two (compiler.optimize.unroll) -O2
    tasm-lowered  TIR -> TASM, block by block (compiler.lower.control and
                  a BlockLowerer), before any peephole                      every level
    tasm-rules    TASM peephole rules, merged checks, counted conjunctions  -O1
    tasm-selects  selects laid out (and where they joined runs, tasm-rules
                  again)                                                    -O1
    tasm          entry stub, labels, one text (compiler.lower.link)        every level

`STEPS` is that table and `run_steps` the loop that runs it: each step's name is also its
dump key (`tri build --dump tir,tasm`), and a step above the requested level passes its
input on unchanged.  `FRONT_END` (`ast`, `contracts`, `checked`) goes from a path to a
`Checked` program (`check_source`); `BACK_END` from a `Checked` program to the linked text
(`build`, which also assembles it); `steps(first, last)` names a stretch of it.  Every
step runs with one finished `Options` value: what a level needs beyond its steps (the
search, the model, the loops to unroll, the never-costlier choice) is built by the driver,
compiler.driver, from the level's row in compiler.levels.LEVELS (optimizer.md §1).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from compiler import dumps
from compiler.check.checker import check
from compiler.check.resolve import Resolver, load_project
from compiler.contracts import CHECK_FLAG, expand_contracts
from compiler.levels import DEFAULT_LEVEL
from compiler.lower.asm import AsmProgram
from compiler.lower.blocks import BlockLowerer
from compiler.lower.classical import CLASSICAL
from compiler.lower.control import lower
from compiler.lower.link import link
from compiler.optimize.inline_source import inline_calls
from compiler.optimize.inline_tir import inline_small
from compiler.optimize.passes import (
    apply_tasm_rules,
    apply_tir_rules,
    lay_out_selects,
    shorten_moves,
)
from compiler.optimize.unroll import unroll
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
    Step("tir-inline", lambda tir, options: inline_small(tir), 1, print_program),
    Step("tir-rules", lambda tir, options: apply_tir_rules(tir), 1, print_program),
    Step("tir-moves", lambda tir, options: shorten_moves(tir), 1, print_program),
    Step("unroll", lambda tir, options: unroll(tir, options.unroll), 2, print_program),
    Step("tasm-lowered", lambda tir, options: lower(tir, options.lowerer), 0, dumps.asm_text),
    Step("tasm-rules", lambda asm, options: apply_tasm_rules(asm), 1, dumps.asm_text),
    Step("tasm-selects", lambda asm, options: lay_out_selects(asm), 1, dumps.asm_text),
    Step("tasm", lambda asm, options: link(asm, asm.name or None), 0, str),
)
STEPS = FRONT_END + BACK_END
STEP_NAMES = tuple(step.name for step in STEPS)


def steps(first: str | None = None, last: str | None = None) -> tuple[Step, ...]:
    """The back end's steps from the one named `first` through the one named `last` (by
    default from its first, through its last)."""
    names = [step.name for step in BACK_END]
    for name in (first, last):
        if name is not None and name not in names:
            raise ValueError(f"no back-end step {name!r}; the steps are {', '.join(names)}")
    start = 0 if first is None else names.index(first)
    stop = len(names) if last is None else names.index(last) + 1
    return BACK_END[start:stop]


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
    tir: TirProgram  # after tir-moves and unroll
    asm: AsmProgram  # after tasm-selects
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


def build(checked, options: Options, isa: str = "rel", dump: Dump | None = None) -> Compiled:
    """The back end's steps with `options`, as a `Compiled`: a checked program (or a
    module alone: its public functions) built and assembled."""
    outputs = run_steps(BACK_END, checked, options, dump)
    text = outputs[BACK_END[-1].name]
    module = None if checked.entry is not None else checked.project.entry.name
    origins = program_origins(outputs["tasm-selects"], module)
    program = replace(tasm.parse(text, isa), source_map=origins)
    compiled = Compiled(outputs["unroll"], outputs["tasm-selects"], text, program, module)
    compiled.level, compiled.outputs = options.level, outputs
    compiled.search = getattr(options.lowerer, "funnel", None)
    return compiled
