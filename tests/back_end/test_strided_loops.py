"""Strided pointer loops (compiler/tir/pointers.py, compiler/tir/pointer_loops.py): an
address `base + i * k` walks by k with a pointer carried by the loop.  Random loops
(stride a name or a constant, terms in any order, a start of 0 or more, reads and writes)
run on the VM against the reference evaluator at every level, and the walk is really
taken where it applies (no `mul` left in the loop)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from test_backend_differential import compare_program, inputs_for

from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.driver import compile_program


@st.composite
def loops(draw):
    stride = draw(st.sampled_from(["k", "3", "k + 1"]))
    order = draw(st.sampled_from(["base + i * S + c", "S * i + base + c", "c + base + i * S"]))
    start = draw(st.sampled_from(["0", "1"]))
    write = draw(st.booleans())
    offset = draw(st.integers(0, 4))
    return stride, order, start, write, offset


def _program(stride, order, start, write, offset) -> str:
    address = order.replace("S", f"({stride})" if "+" in stride else stride).replace(
        "c", str(offset)
    )
    body = [
        "        let i: Field = convert.as_field(j)",
        f"        let value: Field = mem.read({address})",
        "        sum = sum + sum + value + mem.read(other + i)",
    ]
    if write:
        body.append(f"        mem.write({address}, value + 1)")
    return "\n".join(
        [
            "program strided",
            "",
            "use vm.io.io",
            "use vm.io.mem",
            "use vm.core.convert",
            "",
            "fn main() {",
            "    let base: Field = io.read()",
            "    let other: Field = io.read()",
            "    let k: Field = io.read()",
            "    let n: Field = io.read()",
            "    for w in 0..12 {",
            "        let a: Field = convert.as_field(w)",
            "        mem.write(base + a, a * a + 1)",
            "    }",
            "    let mut sum: Field = 0",
            f"    for j in {start}..n bounded 8 {{",
            *body,
            "    }",
            "    io.write(sum)",
            "    io.write(mem.read(base + 5))",
            "}",
            "",
        ]
    )


@settings(max_examples=25, deadline=None, derandomize=True)
@given(loops())
def test_random_strided_loops_agree_with_the_evaluator(tmp_path_factory, loop):
    path = tmp_path_factory.mktemp("strided") / "strided.tri"
    path.write_text(_program(*loop))
    checked = check(load_project(path))
    rng = random.Random(3)
    cases = inputs_for(checked, rng, 8)
    for level in (0, 1, 2):
        compiled = compile_program(checked, level)
        # (a loop from a start other than 0 to a bound known only at run time counts its
        # variable, strided or not; `k + 1` is not a name: each address computes it)
        if level == 1 and loop[0] != "k + 1" and loop[2] == "0":
            walk = compiled.text.split("__loop__2:")[-1]
            assert "mul" not in walk.split("recurse")[0]
        for case in cases:
            assert compare_program(checked, compiled.program, case) is None
