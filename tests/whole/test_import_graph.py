"""The package graph: which of the code's packages import which.

Read from the source (every `import` and `from ... import`, at the top of a module or
inside a function: an import deferred into a function is still a dependency), so a test
here fails the moment a change adds an edge it forbids:

* the pipeline (compiler.pipeline) depends on neither the driver (compiler.driver) nor the
  neural optimizer (compiler.neural): it runs named steps with one finished options value;
* compiler.neural never imports the driver: the driver builds the model's policy and hands
  it a compiled program, so the two cannot form a cycle;
* the blocks core (compiler.blocks) imports none of the packages that build on it: the
  peephole passes, the search, the superoptimizer, lowering and the model;
* the cycles of the package graph are exactly the tangles still to be cut (`TANGLES`): a
  new cycle fails, and so does a cut one that is still listed, so the list only shrinks.

The last test checks that `tri.compiler` (what an installed wheel's files are named) and
`compiler` (what the code imports) are one module, not two copies with their own tables.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("compiler", "vm", "tri", "selfhost")

# Strongly connected sets of packages (a package: `compiler.X` or `vm.X`, a module or a
# folder) that import each other, still to be cut apart.
TANGLES = {
    frozenset({"compiler.builtins", "compiler.check", "compiler.diagnostics", "compiler.syntax"}),
    frozenset(
        {
            "compiler.evaluate",
            "compiler.failures",
            "compiler.lower",
            "compiler.semantics",
            "compiler.sourcemap",
            "compiler.tir",
        }
    ),
    frozenset({"vm.field", "vm.field_kernels"}),
    frozenset({"vm.tip5", "vm.tip5_kernels"}),
    frozenset({"tri.commands", "tri.lsp"}),
}


def _modules() -> dict[str, Path]:
    """Every module of the code, by its dotted name."""
    found = {}
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


MODULES = _modules()


def _imports(path: Path) -> set[str]:
    """The modules of the code that the module at `path` imports, anywhere in it."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name in MODULES}


IMPORTS = {name: _imports(path) for name, path in MODULES.items()}


def _package(module: str) -> str:
    return ".".join(module.split(".")[:2])


def _package_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for module, imported in IMPORTS.items():
        for target in imported:
            if _package(module) != _package(target):
                graph[_package(module)].add(_package(target))
    return graph


def _cycles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected sets of more than one package: packages that reach each
    other (the graph has a few dozen nodes, so each node's reach is walked whole)."""
    reach = {}
    for start in graph:
        seen, frontier = set(), [start]
        while frontier:
            for successor in graph.get(frontier.pop(), ()):
                if successor not in seen:
                    seen.add(successor)
                    frontier.append(successor)
        reach[start] = seen
    components = {
        frozenset({node} | {other for other in reach[node] if node in reach.get(other, ())})
        for node in graph
    }
    return {component for component in components if len(component) > 1}


def _reaches(start: str, forbidden: str) -> list[str] | None:
    """A chain of imports from module `start` to a module of package `forbidden`, or None."""
    seen = {start}
    frontier = [[start]]
    while frontier:
        chain = frontier.pop(0)
        for target in sorted(IMPORTS[chain[-1]]):
            if _package(target) == forbidden or target == forbidden:
                return [*chain, target]
            if target not in seen:
                seen.add(target)
                frontier.append([*chain, target])
    return None


def test_the_reading_sees_the_code():
    assert "compiler.pipeline" in MODULES and "compiler.driver" in MODULES
    assert "compiler.pipeline" in IMPORTS["compiler.driver"]
    assert "compiler.neural.language_model" in IMPORTS["compiler.driver"]  # a deferred import


def test_the_pipeline_depends_on_neither_the_driver_nor_the_model():
    for forbidden in ("compiler.driver", "compiler.neural"):
        chain = _reaches("compiler.pipeline", forbidden)
        assert chain is None, " -> ".join(chain)


def test_the_model_never_imports_the_driver():
    for module in MODULES:
        if _package(module) == "compiler.neural":
            chain = _reaches(module, "compiler.driver")
            assert chain is None, " -> ".join(chain)


BLOCKS_USERS = (
    "compiler.optimize", "compiler.search", "compiler.superopt", "compiler.lower",
    "compiler.neural", "compiler.driver", "compiler.pipeline",
)  # fmt: skip


def test_the_blocks_core_imports_none_of_its_users():
    core = [module for module in MODULES if _package(module) == "compiler.blocks"]
    assert len(core) >= 6
    for module in core:
        for forbidden in BLOCKS_USERS:
            chain = _reaches(module, forbidden)
            assert chain is None, " -> ".join(chain)
    importers = {
        _package(module)
        for module, imported in IMPORTS.items()
        if any(_package(target) == "compiler.blocks" for target in imported)
    }
    assert {"compiler.optimize", "compiler.search", "compiler.superopt"} <= importers


def test_the_package_graph_has_no_cycle_but_the_listed_tangles():
    cycles = _cycles(_package_graph())
    new = [sorted(cycle) for cycle in cycles - TANGLES]
    cut = [sorted(tangle) for tangle in TANGLES - cycles]
    assert not new, f"a new import cycle: {new}"
    assert not cut, f"no longer a cycle, take it off TANGLES: {cut}"


def test_tri_compiler_is_the_compiler_module_itself():
    importlib.import_module("tri")
    pairs = [
        ("tri.compiler.pipeline", "compiler.pipeline"),
        ("tri.compiler.optimize.inline_tir", "compiler.optimize.inline_tir"),
        ("tri.vm.interp", "vm.interp"),
        ("tri.selfhost", "selfhost"),
        ("tri.compiler", "compiler"),
    ]
    for alias, name in pairs:
        aliased = importlib.import_module(alias)
        assert aliased is importlib.import_module(name), alias
        assert sys.modules[alias] is sys.modules[name]
        assert aliased.__spec__.name == name  # the module keeps its own name and spec
    from tri.compiler.levels import LEVELS as aliased_levels

    from compiler.levels import LEVELS

    assert aliased_levels is LEVELS
