"""Random well-typed programs, compiled and run against the reference evaluator.

A small type-directed generator writes programs with Field/U32/Bool/Digest values,
`let`/`let mut`/assignment, nested `if` (valued or not), constant and bounded loops
(with loop variables and runtime starts), helper functions with early `return`, and
sometimes more than 16 live values.  Each program must check, compile with and
without the peephole passes, and agree with the evaluator on random inputs (output
and failure).  A failing seed reproduces with `program_text(seed)`.
"""

from __future__ import annotations

import random

import pytest
from test_backend_differential import compare_program, inputs_for

from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.driver import compile_program

SEEDS = range(40)
INPUTS = 12


class _Generator:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.functions: list[tuple[str, list[str], str]] = []  # name, param types, result

    # --- expressions ---------------------------------------------------------------------
    def expr(self, type_: str, scope: list, depth: int) -> str:
        rng = self.rng
        names = [name for name, t, _ in scope if t == type_]
        if depth <= 0 or rng.random() < 0.35:
            if names and rng.random() < 0.85:
                return rng.choice(names)
            return self.leaf(type_)
        d = depth - 1
        match type_:
            case "Field":
                choice = rng.randrange(9)
                if choice == 0:
                    return f"{self.expr('Field', scope, d)} + {self.expr('Field', scope, d)}"
                if choice == 1:
                    return f"{self.expr('Field', scope, d)} * {self.expr('Field', scope, d)}"
                if choice == 2:
                    return f"sub({self.expr('Field', scope, d)}, {self.expr('Field', scope, d)})"
                if choice == 3:
                    return f"as_field({self.expr('U32', scope, d)})"
                if choice == 4 and self.callable("Field"):
                    return self.call("Field", scope, d)
                if choice == 5:
                    return f"neg({self.expr('Field', scope, d)})"
                if choice == 6:
                    return f"({self.expr('Field', scope, d)} + {rng.randrange(5)})"
                if choice == 7:
                    return f"{self.expr('Field', scope, d)} * {self.expr('Field', scope, d)}"
                return self.leaf("Field") if not names else rng.choice(names)
            case "U32":
                choice = rng.randrange(6)
                if choice == 0:
                    return f"as_u32({self.expr('Field', scope, d)})"
                if choice == 1:
                    return f"({self.expr('U32', scope, d)} & {self.expr('U32', scope, d)})"
                if choice == 2:
                    return f"({self.expr('U32', scope, d)} ^ {self.expr('U32', scope, d)})"
                if choice == 3 and self.callable("U32"):
                    return self.call("U32", scope, d)
                return self.leaf("U32") if not names else rng.choice(names)
            case "Bool":
                choice = rng.randrange(4)
                if choice == 0:
                    return f"{self.expr('Field', scope, d)} == {self.expr('Field', scope, d)}"
                if choice == 1:
                    return f"{self.expr('U32', scope, d)} < {self.expr('U32', scope, d)}"
                return self.leaf("Bool") if not names else rng.choice(names)
        raise AssertionError(type_)

    def leaf(self, type_: str) -> str:
        rng = self.rng
        match type_:
            case "Field":
                return str(rng.choice([0, 1, 2, 3, 7, 18446744069414584320]))
            case "U32":
                return f"as_u32({rng.choice([0, 1, 2, 5, 4294967295])})"
            case "Bool":
                return rng.choice(["true", "false"])
        raise AssertionError(type_)

    def callable(self, result: str) -> list:
        return [f for f in self.functions if f[2] == result]

    def call(self, result: str, scope: list, depth: int) -> str:
        name, params, _ = self.rng.choice(self.callable(result))
        arguments = ", ".join(self.expr(t, scope, depth) for t in params)
        return f"{name}({arguments})"

    # --- statements ----------------------------------------------------------------------
    def block(
        self, scope: list, depth: int, count: int, indent: str, result: str | None, loops: int = 0
    ) -> list[str]:
        rng = self.rng
        scope = list(scope)
        lines: list[str] = []
        for _ in range(count):
            kind = rng.randrange(10)
            if kind <= 2 or not scope:
                type_ = rng.choice(["Field", "Field", "U32", "Bool"])
                name = f"v{self.counter()}"
                mutable = rng.random() < 0.4
                value = self.expr(type_, scope, 2)
                lines.append(f"{indent}let {'mut ' if mutable else ''}{name}: {type_} = {value}")
                scope.append((name, type_, mutable))
            elif kind == 3:
                mutables = [(n, t) for n, t, m in scope if m]
                if mutables:
                    name, type_ = rng.choice(mutables)
                    lines.append(f"{indent}{name} = {self.expr(type_, scope, 2)}")
            elif kind == 4:
                lines.append(f"{indent}pub_write({self.expr('Field', scope, 2)})")
            elif kind == 5 and depth > 0:
                lines.append(f"{indent}if {self.expr('Bool', scope, 1)} {{")
                lines += self.block(
                    scope, depth - 1, rng.randrange(1, 4), indent + "    ", result, loops
                )
                if rng.random() < 0.6:
                    lines.append(f"{indent}}} else {{")
                    lines += self.block(
                        scope, depth - 1, rng.randrange(1, 4), indent + "    ", result, loops
                    )
                lines.append(f"{indent}}}")
            elif kind == 6 and depth > 0 and loops < 2:
                variable = f"i{self.counter()}"
                if rng.random() < 0.5:
                    header = f"for {variable} in {rng.randrange(3)}..{rng.randrange(5)}"
                else:
                    start = self.expr("Field", scope, 1) if rng.random() < 0.3 else "0"
                    header = f"for {variable} in {start}..{self.expr('Field', scope, 1)} bounded 4"
                lines.append(f"{indent}{header} {{")
                inner = [*scope, (variable, "U32", False)]
                lines += self.block(
                    inner, depth - 1, rng.randrange(1, 4), indent + "    ", result, loops + 1
                )
                lines.append(f"{indent}}}")
            elif kind == 7 and result is not None and rng.random() < 0.5:
                lines.append(f"{indent}if {self.expr('Bool', scope, 1)} {{")
                lines.append(f"{indent}    return {self.expr(result, scope, 1)}")
                lines.append(f"{indent}}}")
            elif kind == 8:
                name = f"d{self.counter()}"
                words = ", ".join(self.expr("Field", scope, 1) for _ in range(3))
                lines.append(f"{indent}let {name}: Digest = hash({words}, 0, 0, 0, 0, 0, 0, 1)")
                parts = [f"p{self.counter()}" for _ in range(5)]
                lines.append(f"{indent}let ({', '.join(parts)}) = {name}")
                scope += [(p, "Field", False) for p in parts]
            else:
                lines.append(f"{indent}pub_write({self.expr('Field', scope, 1)})")
        return lines

    def counter(self) -> int:
        self.count = getattr(self, "count", 0) + 1
        return self.count

    def program(self) -> str:
        rng = self.rng
        lines = ["program fuzz", ""]
        for index in range(rng.randrange(1, 4)):
            types = ["Field", "Field", "U32", "Bool"]
            params = [rng.choice(types) for _ in range(rng.randrange(4))]
            result = rng.choice(["Field", "U32"])
            scope = [(f"a{i}", t, False) for i, t in enumerate(params)]
            signature = ", ".join(f"a{i}: {t}" for i, t in enumerate(params))
            lines.append(f"fn f{index}({signature}) -> {result} {{")
            lines += self.block(scope, 2, rng.randrange(1, 6), "    ", result)
            lines.append(f"    {self.expr(result, scope + self.visible(lines), 2)}")
            lines.append("}")
            lines.append("")
            self.functions.append((f"f{index}", params, result))
        lines.append("fn main() {")
        count = rng.randrange(3, 20)
        scope = []
        for i in range(count):
            lines.append(f"    let x{i}: Field = pub_read()")
            scope.append((f"x{i}", "Field", False))
        if rng.random() < 0.5:
            lines.append("    let mut u0: U32 = as_u32(x0)")
            scope.append(("u0", "U32", True))
        lines += self.block(scope, 3, rng.randrange(3, 10), "    ", None)
        for i in range(count):
            lines.append(f"    pub_write(x{i})")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def visible(self, lines: list[str]) -> list:
        """Top-level lets of the function being written (usable in its tail)."""
        found = []
        for line in reversed(lines):
            if line.startswith("fn "):
                break
            if line.startswith("    let ") and ":" in line and "(" not in line.split("=")[0]:
                head = line[8:].split("=")[0].replace("mut ", "")
                name, type_ = (part.strip() for part in head.split(":"))
                if type_ in ("Field", "U32", "Bool"):
                    found.append((name, type_, False))
        return found


def program_text(seed: int) -> str:
    return _Generator(seed).program()


@pytest.mark.parametrize("seed", SEEDS)
def test_random_program(tmp_path, seed):
    path = tmp_path / "fuzz.tri"
    path.write_text(program_text(seed))
    checked = check(load_project(path))
    cases = inputs_for(checked, random.Random(seed), INPUTS)
    for level in (1, 0):
        program = compile_program(checked, level).program
        problems = [p for case in cases if (p := compare_program(checked, program, case))]
        assert not problems, "\n".join(problems[:3])
