"""Edge cases of the lowering: loop bounds of every kind (Field bounds at and beyond 2^32,
END < START, constant and runtime ends, bounds exceeded), early return from nested
loops, tuple assignment, u32 builtins, XField, a constant index out of bounds.

Each program runs on explicit edge inputs and 50 random ones, compiled with and without
the peephole passes, against the reference evaluator.
"""

from __future__ import annotations

import random

import pytest
from test_backend_differential import compare_program, inputs_for

from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.driver import compile_program
from vm.field import P

PROGRAMS = {
    "loops": """\
program loops

use vm.io.io
use vm.core.convert

const N: Field = 3

fn field_range(a: Field, b: Field) -> Field {
    let mut count: Field = 0
    let mut last: Field = 0
    for i in a..b bounded 6 {
        count = count + 1
        last = convert.as_field(i)
    }
    count * 1000 + last
}

fn u32_range(a: U32, b: U32) -> Field {
    let mut total: Field = 0
    for i in a..b bounded 4 {
        total = total + convert.as_field(i)
    }
    total
}

fn const_end(a: Field) -> Field {
    let mut total: Field = 0
    for i in a..7 {
        total = total + convert.as_field(i) * 2
    }
    for _ in a..N {
        total = total + 100
    }
    total
}

fn first_over(limit: Field, n: Field) -> Field {
    for i in 0..n bounded 8 {
        for j in 0..n bounded 8 {
            if convert.as_field(i) * convert.as_field(j) == limit {
                return convert.as_field(i) * 10 + convert.as_field(j)
            }
        }
    }
    999
}

fn main() {
    let a: Field = io.read()
    let b: Field = io.read()
    io.write(field_range(a, b))
    io.write(u32_range(convert.as_u32(a), convert.as_u32(b)))
    io.write(const_end(a))
    io.write(first_over(a, b))
    for _ in 2..1 {
        io.write(5)
    }
    for _ in 0..3 bounded 2 {
        io.write(6)
    }
}
""",
    "misc": """\
program misc

use vm.io.io
use vm.core.convert

const BIG: Field = 5

fn pick3(a: [Field; 3]) -> Field {
    a[BIG]
}

fn stepper(x: Field) -> (Field, Field) {
    let mut a: Field = x
    let mut b: Field = x + 1
    (a, b) = (b, a)
    (a, b)
}

fn main() {
    let x: Field = io.read()
    let (p, q) = stepper(x)
    io.write2(p, q)
    let y: U32 = convert.as_u32(x)
    let z: U32 = pow(y, convert.as_u32(3))
    io.write(convert.as_field(z))
    io.write(convert.as_field(log2(y)))
    let t: XField = xfield(x, 1, 2)
    let w: XField = t * t + t *. x
    let _ = xinvert(w)
    io.write(7)
    if x == 3 {
        io.write(pick3([1, 2, 3]))
    }
    io.write(8)
}
""",
}

EDGE_PAIRS = [
    (P - 1, 0),
    (0, P - 1),
    (2**32, 2**32 + 3),
    (2**32 + 3, 2**32),
    (5, 2),
    (2, 5),
    (P - 3, P - 1),
    (P - 1, P - 1),
    (2**32 - 1, 2**32 + 2),
    (0, 6),
    (0, 7),
    (1, 4),
    (4, 3),
    (3, 3),
    (0, 0),
    (6, 6),
]


@pytest.mark.parametrize("level", [1, 0], ids=["O1", "O0"])
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_edges_agree_with_the_evaluator(tmp_path, name, level):
    path = tmp_path / f"{name}.tri"
    path.write_text(PROGRAMS[name])
    checked = check(load_project(path))
    program = compile_program(checked, level).program
    cases = [([a, b], [], [], {}) for a, b in EDGE_PAIRS]
    cases += inputs_for(checked, random.Random(name), 50)
    problems = [p for case in cases if (p := compare_program(checked, program, case))]
    assert not problems, "\n".join(problems[:5])
