"""The classical block lowerer: each TIR op becomes its row's TASM (compiler.tir.ops)."""

from __future__ import annotations

from compiler.lower.asm import Instr
from compiler.lower.blocks import Block
from compiler.tir.ops import tasm_of


class ClassicalLowerer:
    name = "classical"

    def lower_block(self, block: Block) -> list[Instr]:
        return [
            Instr(mnemonic, argument, op.origin)
            for op in block.ops
            for mnemonic, argument in tasm_of(op)
        ]


CLASSICAL = ClassicalLowerer()
