"""The text of each pipeline step's output, for `tri build --dump STEP` (compiler.pipeline).

Input: the value a step produced; output: deterministic text (no addresses, no absolute
paths, nothing that depends on the run), meant for a compiler engineer reading it.

* `ast`: the entry file's syntax tree, indented: one node per line with its class, its
  scalar fields and `@line:col`, its child nodes indented below (`field: Node` for one,
  the field's name then the nodes for a list); the modules it uses are listed by name
  (each builds alone).  A tree rather than canonical source: it shows what the parser
  built (precedence, `else if` as an else block holding one `if`, dotted names kept whole).
* `checked`: every function instance the back end compiles, in build order, as canonical
  source of the body the later stages see (`match`, `reveal`/`seal` and field assignment
  already rewritten), under a header with the instance's label, its module, its size
  binding and its signature with resolved types, and the instance each call resolves to.
* `tir`, `tir-inline`, `tir-rules`, `tir-moves`: compiler.tir.printer; `tasm-lowered`,
  `tasm-rules`, `tasm-selects`: the lowered
  functions before linking; `tasm`: the linked text.
"""

from __future__ import annotations

import dataclasses

from compiler.check.checker import Checked
from compiler.check.resolve import Project
from compiler.lower.asm import AsmProgram, render
from compiler.syntax import ast
from compiler.syntax.formatter import function_text
from compiler.tir.builder import reachable

INDENT = "  "
HIDDEN = {"span", "name_span", "comments"}  # shown as @line:col, or not at all


def project_text(project: Project) -> str:
    lines = []
    used = [name for name in project.modules if name != project.entry.name]
    if used:
        lines.append(f";; also loaded (each builds alone): {', '.join(used)}")
    _node(project.entry.source, 0, lines)
    return "\n".join(lines) + "\n"


def _is_node(value) -> bool:
    return dataclasses.is_dataclass(value) and not isinstance(value, type)


def _has_node(value) -> bool:
    return _is_node(value) or (isinstance(value, tuple | list) and any(map(_has_node, value)))


def _node(node, depth: int, lines: list[str], label: str = "") -> None:
    """`label`, the node's class, scalar fields and position on one line; then its
    children: a single node on one line under its field name, a list under it."""
    scalars, children = [], []
    for field in dataclasses.fields(node):
        value = getattr(node, field.name)
        if field.name in HIDDEN or (isinstance(node, ast.SourceFile) and field.name == "path"):
            continue  # the file's path depends on the machine
        if _has_node(value):
            children.append((field.name, value))
        elif value is not None and value != []:
            scalars.append(f"{field.name}={value!r}")
    span = getattr(node, "span", ast.NO_SPAN)
    where = [f"@{span.line}:{span.column}"] if span != ast.NO_SPAN else []
    lines.append(INDENT * depth + " ".join([label + type(node).__name__, *scalars, *where]))
    for name, value in children:
        if _is_node(value):
            _node(value, depth + 1, lines, f"{name}: ")
            continue
        lines.append(f"{INDENT * (depth + 1)}{name}:")
        for element in value:
            _element(element, depth + 2, lines)


def _element(element, depth: int, lines: list[str]) -> None:
    """A list element: a node, or a (name, node) pair (struct literal fields, emits)."""
    if _is_node(element):
        _node(element, depth, lines)
        return
    label = ", ".join(repr(part) for part in element if not _is_node(part))
    for part in element:
        if _is_node(part):
            _node(part, depth, lines, f"{label}: ")


def checked_text(checked: Checked) -> str:
    roots = [checked.entry] if checked.entry is not None else list(checked.exported)
    blocks = []
    for key in reachable(checked, roots):
        instance = checked.instances[key]
        function = instance.function
        sizes = ", ".join(f"{name} = {value}" for name, value in instance.sizes.items())
        header = [f";; {key}: fn {function.name} of module {instance.module}"]
        if sizes:
            header[0] += f" with {sizes}"
        params = ", ".join(f"{name}: {type_}" for name, type_ in instance.params)
        signature = f"fn {key}({params}) -> {instance.result}"
        calls = sorted({target for target in instance.calls.values() if isinstance(target, str)})
        if calls:
            header.append(";; calls " + ", ".join(calls))
        blocks.append("\n".join([*header, function_text(signature, instance.body)]))
    return "\n\n".join(blocks) + "\n"


def asm_text(program: AsmProgram) -> str:
    return "\n".join(render(function.items) for function in program.functions) + "\n"
