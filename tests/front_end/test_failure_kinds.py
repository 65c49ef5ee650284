"""The failure kinds are one table (compiler.failure_kinds.Kind): it holds every kind an
instruction can raise (vm.isa.Failure), the run loop's step limit and the language's own,
and no module of the compiler or the command line spells a kind as a string literal of
its own, so a misspelt kind cannot compare unequal in silence."""

from __future__ import annotations

import ast
from pathlib import Path

from compiler.failure_kinds import Kind
from vm.interp import STEP_LIMIT_KIND
from vm.isa import Failure

ROOT = Path(__file__).resolve().parents[2]
LANGUAGE = {"BoundExceeded", "IndexOutOfBounds"}


def test_the_table_is_the_vm_kinds_the_step_limit_and_the_language_kinds():
    assert {str(kind) for kind in Kind} == {str(f) for f in Failure} | {STEP_LIMIT_KIND} | LANGUAGE
    for failure in Failure:
        assert Kind[failure.name] == failure  # the same name and the same text


def test_no_module_spells_a_kind_of_its_own():
    names = {str(kind) for kind in Kind}
    found = []
    for folder in ("compiler", "tri"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.name == "failure_kinds.py":
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and node.value in names:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
    assert not found, "use compiler.failure_kinds.Kind:\n" + "\n".join(found)


def test_a_kind_reads_and_prints_as_its_text():
    assert Kind.BOUND_EXCEEDED == "BoundExceeded"
    assert f"error[{Kind.BOUND_EXCEEDED}]" == "error[BoundExceeded]"
    assert {Kind.TOO_SHALLOW} == {"TooShallow"}  # hashes as the text, in sets and dicts
