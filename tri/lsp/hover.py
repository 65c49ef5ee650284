"""The text shown on hover, in Markdown: a declaration, its comment and, for a function,
what the toolchain computes about it without running it.

For a function: its signature, the comment above it, and

* the static cost estimate of one call that `tri cost --estimate` prints per function
  (`compiler.check.cost_estimate.function_costs`: computed from the source, each loop counted to its
  bound; callees included), one line per checked instance (a size-generic function has one
  per size binding), for an intrinsic the builtin's row of that table;
* the stack-width budget that `tri check --stack` prints (`compiler.check.budget`).

Both need the program checked without errors; otherwise the hover says so.  For a local
variable: its name and type as the checker has it; for a constant, struct or event its
declaration; for a module its name and file.
"""

from __future__ import annotations

from compiler.check.budget import WINDOW, stack_budget
from compiler.check.cost_estimate import BUILTIN_COSTS, Cost, function_costs
from compiler.syntax import ast
from compiler.syntax.formatter import expression_text, type_text
from tri.lsp.analysis import Analysis
from tri.lsp.navigation import Target

ESTIMATE_NOTE = (
    "estimated cost of one call (`tri cost --estimate`: from the source, each loop to its "
    "bound, callees included)"
)


def signature(function: ast.Function) -> str:
    """`pub fn name<N>(a: T, ...) -> R`, as the formatter writes it."""
    text = ("pub " if function.public else "") + "fn " + function.name
    if function.size_parameters:
        text += "<" + ", ".join(function.size_parameters) + ">"
    text += "(" + ", ".join(f"{p.name}: {type_text(p.type)}" for p in function.params) + ")"
    if function.return_type is not None:
        text += f" -> {type_text(function.return_type)}"
    return text


def declaration(target: Target) -> str:
    """The one-line declaration of a target."""
    node = target.node
    match target.kind:
        case "function":
            return signature(node)
        case "constant":
            public = "pub " if node.public else ""
            return f"{public}const {node.name}: {type_text(node.type)} = {_value(node)}"
        case "struct" | "event":
            fields = ", ".join(f"{f.name}: {type_text(f.type)}" for f in node.fields)
            public = "pub " if getattr(node, "public", False) else ""
            return f"{public}{target.kind} {node.name} {{ {fields} }}"
        case "variable":
            return f"{target.name}: {target.type}" if target.type else target.name
        case "module":
            return f"module {target.name}"
    return target.name


def _value(constant: ast.Const) -> str:
    try:
        return expression_text(constant.value)
    except Exception:  # an expression the formatter cannot print: leave the value out
        return "..."


def leading_comment(text: str, item) -> str | None:
    """The `//` lines right above an item (or its attributes), without the slashes."""
    lines = text.split("\n")
    first = min([a.span.line for a in getattr(item, "attributes", [])] + [item.span.line])
    found = []
    index = first - 2
    while 0 <= index < len(lines) and lines[index].lstrip().startswith("//"):
        found.append(lines[index].lstrip()[2:].removeprefix(" ").rstrip())
        index -= 1
    return "\n".join(reversed(found)) if found else None


def vector_text(cost: Cost) -> str:
    """`processor 12, hash 0, ...`, as `tri cost --estimate` prints a function's."""
    return ", ".join(f"{name} {value}" for name, value in cost.as_dict().items())


def cost_lines(analysis: Analysis, function: ast.Function) -> list[str]:
    intrinsic = function.attribute("intrinsic")
    if intrinsic is not None:
        builtin = intrinsic.argument or ""
        cost = BUILTIN_COSTS.get(builtin)
        if cost is None:
            return [f"intrinsic `{builtin}`: the estimate has no row for it"]
        note = "the estimated cost of each call (`tri cost --estimate`)"
        return [f"intrinsic `{builtin}`: {note}:", vector_text(cost)]
    if analysis.checked is None:
        return ["cost: not estimated while the program has errors"]
    checked = analysis.checked
    instances = [i for i in checked.instances.values() if i.function is function]
    if not instances:
        return ["cost: not estimated: no instance of this function is checked"]
    costs = function_costs(checked, [instance.key for instance in instances])
    lines = [f"{ESTIMATE_NOTE}:"]
    for instance in instances:
        named = f"`{instance.key}`: " if len(instances) > 1 else ""
        lines.append(f"{named}{vector_text(costs[instance.key])}")
    for instance in instances:
        budget = stack_budget(instance)
        spills = f" (over the {WINDOW}-element window: spills)" if budget > WINDOW else ""
        named = f"`{instance.key}`: " if len(instances) > 1 else ""
        lines.append(f"stack (`tri check --stack`): {named}{budget} live elements{spills}")
    return lines


def hover_text(analysis: Analysis, target: Target) -> str:
    parts = [f"```trident\n{declaration(target)}\n```"]
    if target.kind == "module":
        parts.append(f"`{target.path}`")
        scope = analysis.tables.scopes.get(target.name) if analysis.tables else None
        if scope is not None:
            source = scope.source
            if comment := leading_comment(target.text, source):
                parts.append(comment)
        return "\n\n".join(parts)
    if target.kind != "variable":
        comment = leading_comment(target.text, target.node)
        if comment:
            parts.append(comment)
        if target.module is not None and target.module != analysis.entry_name:
            parts.append(f"from `{target.module}`")
    if target.kind == "function":
        parts.append("\n\n".join(cost_lines(analysis, target.node)))
    return "\n\n".join(parts)
