"""Field and index assignment (docs/reference.md, Assignment), as assignment of the whole variable.

    p.a.b = e        ->   p = P { a: A { b: e, c: p.a.c }, d: p.d }
    v[1] = e         ->   v = [v[0], e, v[2]]

The new value is built in declaration (or element) order from the old one, with
`e` evaluated in its place; every other part is a read of the variable as it was,
so `p.x = p.x + 1` means what it says.  Only a constant index can be assigned
(a runtime index would need a select per element).  A struct literal built here
carries its type directly, so a struct from a module this one does not import
works too.  The body checker calls `expand` for every assignment and checks the
plain assignment it returns like any other; mutability is checked there.
"""

from __future__ import annotations

from compiler.check.types import ArrayType, StructType
from compiler.syntax import ast


def expand(checker, statement: ast.Assign) -> list | None:
    """`[variable = new value]` for a field or index assignment (`[]` after reporting why it
    cannot be); None for any other assignment, which is checked as it is."""
    target = statement.target
    parts = _parts(target)
    if parts is None or not parts[1]:
        return None
    root, path = parts
    binding = checker.binding(root)
    if binding is None:
        checker.error("E0103", f"undefined variable '{root}'", target.span)
        value = None
    else:
        value = _rebuilt(checker, root, binding.type, path, statement.value, target.span)
    if value is None:
        checker.expr(statement.value)  # its own errors are reported all the same
        return []
    return [ast.Assign(ast.Var(root, target.span), value, statement.span)]


def _parts(target) -> tuple[str, list] | None:
    """(variable, [field name | index expression, ...]) of a place, else None."""
    match target:
        case ast.Var(path=path):
            root, *fields = path.split(".")
            return root, list(fields)
        case ast.Index(base=base, index=index):
            inner = _parts(base)
            return None if inner is None else (inner[0], [*inner[1], index])
    return None


def _rebuilt(checker, base: str, type_, path: list, value, span) -> ast.Expr | None:
    """The value of `base` (a readable path) with the part at `path` replaced by `value`;
    None after reporting why that place cannot be assigned."""
    step, *rest = path
    if isinstance(step, str):
        found = type_.field(step) if isinstance(type_, StructType) else None
        if found is None:
            checker.error("E0206", f"type {type_} has no field '{step}'", span)
            return None
        fields = []
        for name, field_type in type_.fields:
            part = value if name == step else ast.Var(f"{base}.{name}", span)
            if name == step and rest:
                part = _rebuilt(checker, f"{base}.{name}", field_type, rest, value, span)
                if part is None:
                    return None
            fields.append((name, part))
        literal = ast.StructLiteral(type_.name, fields, span)
        checker.synthetic_structs[literal] = type_
        return literal
    if not isinstance(type_, ArrayType):
        checker.error("E0219", f"cannot index a value of type {type_}", span)
        return None
    if not isinstance(step, ast.IntLiteral) or rest:
        checker.error(
            "E0217",
            "only an element at a constant index can be assigned",
            span,
            "tri supports 'v[2] = e'; a runtime index, or a path through an element, "
            "is not supported yet",
        )
        return None
    if step.value >= type_.length:
        checker.error("E0219", f"index {step.value} is out of bounds for {type_}", span)
        return None
    elements = [
        value if position == step.value else _element(base, position, span)
        for position in range(type_.length)
    ]
    return ast.ArrayExpr(elements, span)


def _element(base: str, position: int, span) -> ast.Index:
    return ast.Index(ast.Var(base, span), ast.IntLiteral(position, span), span)
