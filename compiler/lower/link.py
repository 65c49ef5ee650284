"""The linker: lowered functions -> one TASM text (docs/backend.md, the linker).

A program becomes `call <main>` `halt` followed by every function (only those
reachable from `main` were built).  Labels are the instance keys, already
module-mangled (`<module_with_underscores>__<fn>`, generic instances
`...__N3`).  A module built alone has no entry stub; its own functions are
labelled `__<fn>` (their module prefix dropped), functions of other modules
keep their full labels, so the text still assembles on its own.
"""

from __future__ import annotations

from compiler.check.symbols import mangle
from compiler.lower.asm import AsmProgram, Instr, Label, render


def link(program: AsmProgram, module: str | None = None) -> str:
    """TASM text for `program`; `module` names the module of a module-alone build."""
    return render(linked_items(program, module)) + "\n"


def linked_items(program: AsmProgram, module: str | None = None) -> list:
    """The labels and instructions of the linked text, in order (their origins kept)."""
    items: list = []
    if program.entry is not None:
        items.extend([Instr("call", program.entry), Instr("halt")])
    for function in program.functions:
        items.extend(function.items)
    if program.entry is None and module is not None:
        items = [_rename(item, module) for item in items]
    return items


def linked_label(label: str, module: str | None) -> str:
    """The label as the linked text has it: in a module built alone (`module`), the
    module's own labels lose their module prefix (`__fn`)."""
    prefix = mangle(module) + "__" if module is not None else None
    if prefix is not None and label.startswith(prefix):
        return "__" + label[len(prefix) :]
    return label


def _rename(item, module: str):
    match item:
        case Label(name=name):
            return Label(linked_label(name, module))
        case Instr(name="call", arg=str() as target):
            return Instr("call", linked_label(target, module), item.origin)
    return item
