"""Module resolution: an entry file -> every module it uses, parsed, in dependency order.

Paths follow Trident's with our library layout (docs/reference.md, `use` and
qualified names): `std.X.Y` is `<library>/X/Y.tri`, `vm.X.Y` is
`<library>/vm/X/Y.tri`, `os.X.Y` is `<library>/os/X/Y.tri` (a library laid out like
Trident's own, with `std/`, is found too), legacy aliases (`LEGACY_ALIASES`) are
honoured, and any other path is looked up beside the entry file and then in each
`-I` directory, as `a/b/c.tri` or `a/b/c/main.tri`.  Import cycles are errors.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from compiler.diagnostics import CompileError, Diagnostic, error, read_text, warning
from compiler.syntax import ast
from compiler.syntax.parser import parse

DEFAULT_LIBRARY = Path(__file__).resolve().parents[2] / "stdlib"

LEGACY_ALIASES = {
    "std.crypto.hash": "vm.crypto.hash",
    "std.hash": "vm.crypto.hash",
    "std.assert": "vm.core.assert",
    "std.core.assert": "vm.core.assert",
    "std.convert": "vm.core.convert",
    "std.core.convert": "vm.core.convert",
    "std.field": "vm.core.field",
    "std.core.field": "vm.core.field",
    "std.u32": "vm.core.u32",
    "std.core.u32": "vm.core.u32",
    "std.io": "vm.io.io",
    "std.io.io": "vm.io.io",
    "std.mem": "vm.io.mem",
    "std.io.mem": "vm.io.mem",
    "std.storage": "std.io.storage",
    "std.merkle": "std.crypto.merkle",
    "std.auth": "std.crypto.auth",
    "std.xfield": "os.neptune.xfield",
    "std.kernel": "os.neptune.kernel",
    "std.utxo": "os.neptune.utxo",
    **{
        f"ext.triton.{name}": f"os.neptune.{name}"
        for name in ("xfield", "kernel", "utxo", "proof", "recursive")
    },
}


@dataclass
class Module:
    """One parsed source file and the module name it is known by."""

    name: str
    path: Path
    text: str
    source: ast.SourceFile


@dataclass
class Project:
    """The entry module and everything it imports, dependencies first."""

    entry: Module
    modules: dict[str, Module]  # in dependency order; the entry is last
    diagnostics: list[Diagnostic] = field(default_factory=list)


def canonical_module_name(name: str) -> str:
    return LEGACY_ALIASES.get(name, name)


@dataclass
class Resolver:
    library: Path = DEFAULT_LIBRARY
    include_dirs: tuple[Path, ...] = ()

    def candidates(self, name: str, base: Path) -> list[Path]:
        parts = name.split(".")
        head, rest = parts[0], parts[1:]
        if head == "std" and rest:
            return [
                self.library.joinpath(*rest).with_suffix(".tri"),
                self.library.joinpath("std", *rest).with_suffix(".tri"),
            ]
        if head in ("vm", "os") and rest:
            return [self.library.joinpath(head, *rest).with_suffix(".tri")]
        found = []
        for directory in (base, *self.include_dirs):
            found.append(directory.joinpath(*parts).with_suffix(".tri"))
            found.append(directory.joinpath(*parts, "main.tri"))
        return found

    def locate(self, name: str, base: Path) -> Path | None:
        return next((path for path in self.candidates(name, base) if os.path.isfile(path)), None)


def read_module(path: Path, name: str | None = None, text: str | None = None) -> Module:
    """Read (unless `text` is given) and parse one file; `CompileError` on bad input."""
    if text is None:
        text = read_text(path)
    source = parse(text, str(path))
    return Module(name or source.name, path, text, source)


def load_project(
    entry_path: Path, resolver: Resolver | None = None, text: str | None = None
) -> Project:
    """Parse the entry file (or `text`, standing for it) and every module it uses.

    Raises `CompileError` with every problem found (syntax errors in any file,
    missing modules, cycles); warnings come back in `Project.diagnostics`.
    """
    resolver = resolver or Resolver()
    entry = read_module(entry_path, text=text)
    diagnostics: list[Diagnostic] = []
    _check_module_name(entry, None, diagnostics)
    problems: list[Diagnostic] = []
    order: dict[str, Module] = {}
    loaded: dict[str, Module] = {entry.name: entry}
    visiting: list[str] = []
    base = entry_path.resolve().parent

    def visit(module: Module) -> None:
        if module.name in order:
            return
        visiting.append(module.name)
        for use in module.source.uses:
            name = canonical_module_name(use.path)
            if name != use.path:
                diagnostics.append(
                    warning(
                        "W0005",
                        f"'{use.path}' is a legacy name for '{name}'",
                        module.source.path,
                        use.span,
                    )
                )
            if name in visiting:
                cycle = " -> ".join([*visiting[visiting.index(name) :], name])
                problems.append(
                    error("E0102", f"import cycle: {cycle}", module.source.path, use.span)
                )
                continue
            dependency = loaded.get(name)
            if dependency is None:
                dependency = _load_dependency(name, use, module, resolver, base, problems)
                if dependency is None:
                    continue
                loaded[name] = dependency
                _check_module_name(dependency, name, diagnostics)
            visit(dependency)
        visiting.pop()
        order[module.name] = module

    visit(entry)
    if problems:
        raise CompileError(problems)
    return Project(entry, order, diagnostics)


def path_suffixes(name: str) -> list[tuple[str, ...]]:
    """The endings a file's path may have for it to hold module `name`."""
    parts = tuple(name.split("."))
    head, rest = parts[0], parts[1:]
    if head == "std" and rest:
        return [rest, parts]
    if head in ("vm", "os") and rest:
        return [parts]
    return [parts, (*parts, "main")]


def _check_module_name(module: Module, used_as: str | None, diagnostics: list) -> None:
    """W0010: a `module` line that does not match the file's path (or the name it was
    imported by)."""
    source = module.source
    if source.kind != "module":
        return
    parts = Path(module.path).with_suffix("").parts
    declared = canonical_module_name(source.name)
    if used_as is not None and declared != used_as:
        message = f"this file is imported as '{used_as}' but says 'module {source.name}'"
    elif used_as is None and not any(
        parts[-len(suffix) :] == suffix for suffix in path_suffixes(declared)
    ):
        expected = "/".join(path_suffixes(declared)[0]) + ".tri"
        message = f"'module {source.name}' does not match the file's path (expected .../{expected})"
    else:
        return
    diagnostics.append(
        warning("W0010", message, source.path, source.name_span, "make the two agree")
    )


def _load_dependency(name, use, importer, resolver, base, problems) -> Module | None:
    path = resolver.locate(name, base)
    if path is None:
        tried = ", ".join(str(candidate) for candidate in resolver.candidates(name, base)[:2])
        problems.append(
            error(
                "E0101",
                f"module '{name}' not found",
                importer.source.path,
                use.span,
                f"looked for {tried}",
            )
        )
        return None
    try:
        return read_module(path, name)
    except CompileError as failure:
        problems.extend(failure.diagnostics)
        return None
