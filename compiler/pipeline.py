"""The back end as one function of named steps: checked program -> `Compiled`.

    build_tir      checked AST -> TIR (compiler.tir.builder)
    optimize_tir   peephole rules over TIR (compiler.optimize)
    lower          TIR -> TASM, block by block (compiler.lower.control + a BlockLowerer)
    optimize_tasm  peephole rules over TASM
    link           entry stub, labels, one text (compiler.lower.link); assembled by vm.tasm

Each step's name is also a dump key: `tri build --emit tir` prints the TIR
after `optimize_tir`, `--emit tasm` the linked text.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.lower.asm import AsmProgram
from compiler.lower.blocks import BlockLowerer
from compiler.lower.classical import CLASSICAL
from compiler.lower.control import lower
from compiler.lower.link import link
from compiler.optimize.passes import optimize_tasm, optimize_tir
from compiler.tir.builder import build_tir
from compiler.tir.ops import Program as TirProgram
from compiler.tir.printer import print_program
from vm import tasm

STEPS = ("build_tir", "optimize_tir", "lower", "optimize_tasm", "link")
EMIT = ("tir", "tasm")


@dataclass
class Compiled:
    tir: TirProgram  # after optimize_tir
    asm: AsmProgram  # after optimize_tasm
    text: str  # the linked TASM
    program: tasm.Program  # the text, assembled
    module: str | None  # the module name of a module-alone build

    def emit(self, what: str) -> str:
        return print_program(self.tir) if what == "tir" else self.text


def compile_program(
    checked, optimize: bool = True, lowerer: BlockLowerer = CLASSICAL, isa: str = "rel"
) -> Compiled:
    """Compile a checked program (or a module alone: its public functions)."""
    module = None if checked.entry is not None else checked.project.entry.name
    tir = build_tir(checked)
    if optimize:
        tir = optimize_tir(tir)
    asm = lower(tir, lowerer)
    if optimize:
        asm = optimize_tasm(asm)
    text = link(asm, module)
    return Compiled(tir, asm, text, tasm.parse(text, isa), module)
