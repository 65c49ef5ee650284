"""Module symbol tables and name lookup across modules (docs/reference.md, `use`).

`ModuleScope` holds one module's items and its imports.  Qualified names
resolve through imports only: by full path or by the short alias (the last
path segment), with an ambiguity error when two imports share an alias and
both export the name, and -- as RC does -- through modules that are loaded but
not imported, with a warning.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from compiler.check.resolve import canonical_module_name
from compiler.syntax import ast


@dataclass
class ModuleScope:
    name: str
    path: str
    source: ast.SourceFile
    functions: dict[str, ast.Function] = field(default_factory=dict)
    structs: dict[str, ast.Struct] = field(default_factory=dict)
    constants: dict[str, ast.Const] = field(default_factory=dict)
    events: dict[str, ast.Event] = field(default_factory=dict)
    imports: dict[str, ast.Use] = field(default_factory=dict)  # canonical module name -> use
    used_imports: set[str] = field(default_factory=set)

    def item(self, kind: str, name: str):
        return getattr(self, kind).get(name)

    def exports(self, kind: str, name: str) -> bool:
        found = self.item(kind, name)
        return found is not None and getattr(found, "public", True)


@dataclass(frozen=True)
class Found:
    """The outcome of a qualified lookup."""

    module: ModuleScope | None
    item: object | None
    problem: str | None = None  # "ambiguous", "private", "transitive", "no-module", "missing"
    candidates: tuple[str, ...] = ()


def lookup_qualified(
    scopes: dict[str, ModuleScope], current: ModuleScope, prefix: str, name: str, kind: str
) -> Found:
    """Resolve `prefix.name` seen in `current`, where `prefix` names a module."""
    full = canonical_module_name(prefix)
    if full in current.imports and full in scopes:
        return _exported(scopes[full], name, kind, current, full)
    alias_matches = [module for module in current.imports if module.rsplit(".", 1)[-1] == prefix]
    exporting = [m for m in alias_matches if m in scopes and scopes[m].exports(kind, name)]
    if len(exporting) == 1:
        current.used_imports.add(exporting[0])
        return Found(scopes[exporting[0]], scopes[exporting[0]].item(kind, name))
    if len(exporting) > 1:
        current.used_imports.update(exporting)
        return Found(None, None, "ambiguous", tuple(exporting))
    if alias_matches:
        current.used_imports.update(alias_matches)
        module = scopes.get(alias_matches[0])
        if module is not None and module.item(kind, name) is not None:
            return Found(module, None, "private")
        return Found(module, None, "missing")
    # RC's visibility quirk: modules loaded before this one are visible too.
    transitive = [
        scope
        for module_name, scope in scopes.items()
        if module_name != current.name
        and module_name.rsplit(".", 1)[-1] == prefix.rsplit(".", 1)[-1]
        and (module_name == full or "." not in prefix)
        and scope.exports(kind, name)
    ]
    if len(transitive) == 1:
        return Found(transitive[0], transitive[0].item(kind, name), "transitive")
    if len(transitive) > 1:
        return Found(None, None, "ambiguous", tuple(scope.name for scope in transitive))
    return Found(None, None, "no-module")


def _exported(scope: ModuleScope, name: str, kind: str, current: ModuleScope, full: str) -> Found:
    current.used_imports.add(full)
    item = scope.item(kind, name)
    if item is None:
        return Found(scope, None, "missing")
    if not getattr(item, "public", True):
        return Found(scope, None, "private")
    return Found(scope, item)


def mangle(module: str) -> str:
    """The label prefix of a module: dots become underscores (docs/backend.md, the linker)."""
    return module.replace(".", "_")
