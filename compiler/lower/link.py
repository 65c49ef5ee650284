"""The linker: lowered functions -> one TASM text (language.md §9.1-§9.2).

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
    items: list = []
    if program.entry is not None:
        items.extend([Instr("call", program.entry), Instr("halt")])
    for function in program.functions:
        items.extend(function.items)
    if program.entry is None and module is not None:
        prefix = mangle(module) + "__"
        items = [_rename(item, prefix) for item in items]
    return render(items) + "\n"


def _rename(item, prefix: str):
    match item:
        case Label(name=name) if name.startswith(prefix):
            return Label("__" + name[len(prefix) :])
        case Instr(name="call", arg=str() as target) if target.startswith(prefix):
            return Instr("call", "__" + target[len(prefix) :])
    return item
