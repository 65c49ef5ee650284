"""Lowered code: TASM instructions and labels as plain values, before linking.

`Instr(name, arg)` is one Triton instruction (`arg`: a field element for
`push`/`addi`, a count or stack index, or a label for `call`), with the source
construct it came from (`origin`, compiler.sourcemap); `Label` marks
an address.  An `AsmFunction` is a function's label, code and deferred blocks
in order; an `AsmProgram` the functions of a build.  `text` renders TASM that
`vm.tasm.parse` assembles.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vm.isa import CONTROL, FIELD_ARGUMENT
from vm.tasm import signed_text

# `CONTROL` (vm.isa): the instructions that end a straight-line run; the one
# after `skiz` is conditional and must stay a single instruction.
__all__ = ["CONTROL", "AsmFunction", "AsmProgram", "Instr", "Label", "render"]


@dataclass(frozen=True)
class Instr:
    name: str
    arg: int | str | None = None
    origin: object = field(default=None, compare=False, repr=False)  # compiler.sourcemap

    @property
    def text(self) -> str:
        if self.arg is None:
            return self.name
        if isinstance(self.arg, str):
            return f"{self.name} {self.arg}"
        if self.name in FIELD_ARGUMENT:
            return f"{self.name} {signed_text(self.arg)}"
        return f"{self.name} {self.arg}"

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Label:
    name: str

    @property
    def text(self) -> str:
        return f"{self.name}:"


@dataclass
class AsmFunction:
    label: str
    items: list = field(default_factory=list)  # Label | Instr, starting with Label(label)
    notes: tuple[tuple[str, str], ...] = ()  # (report section, what the lowering did)


@dataclass
class AsmProgram:
    functions: list[AsmFunction]
    entry: str | None  # main's label for a program
    name: str = ""  # the entry module's name (a module built alone keeps it in its labels)

    def instructions(self) -> int:
        return sum(isinstance(i, Instr) for f in self.functions for i in f.items)


def render(items) -> str:
    lines = []
    for item in items:
        if isinstance(item, Label):
            lines.append(item.text)
        else:
            lines.append("    " + item.text)
    return "\n".join(lines)
