"""Spills, wide values and deep call chains: programs that need more than 16 live values.

Each program below is compiled (with and without the peephole passes) and run
on the VM against the reference evaluator on at least 50 random inputs (the
helpers of test_backend_differential).  The tests also check that the
situation they are about really arises: spill code at 2^30 and up, runtime
indexing through RAM, a call chain at least six deep, parameters wider than
the 16-slot window.
"""

from __future__ import annotations

import random

import pytest
from test_backend_differential import compare_program, inputs_for

from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.driver import compile_program
from compiler.tir.builder import reachable
from compiler.tir.effects import check_program
from compiler.tir.stack import SPILL_BASE

PROGRAMS = {
    "wider": """\
program wider

use vm.io.io

struct W {
    a: Digest,
    b: Digest,
    c: Digest,
    d: Digest,
    e: Field,
}

fn make(x: Field) -> W {
    let d1: Digest = hash(x, 1, 2, 3, 4, 5, 6, 7, 8, 9)
    let d2: Digest = hash(x, 2, 2, 3, 4, 5, 6, 7, 8, 9)
    W { e: io.read(), d: d1, c: d2, b: d1, a: d2 }
}

fn pick_one(w: W, v: W, c: Bool) -> W {
    if c {
        w
    } else {
        v
    }
}

fn main() {
    let x: Field = io.read()
    let w: W = make(x)
    let v: W = make(x + 1)
    let r: W = pick_one(w, v, x == 3)
    let (r0, _, _, _, r4) = r.c
    io.write3(r0, r4, r.e)
    let arr: [W; 2] = [w, v]
    let i: U32 = as_u32(io.read())
    let q: W = arr[i]
    let (q0, _, _, _, _) = q.d
    io.write2(q0, q.e)
    let mut acc: W = w
    for k in 0..2 {
        acc = pick_one(acc, v, acc.e == v.e)
    }
    io.write(acc.e)
}
""",
    "many_live": """\
program many_live

use vm.io.io

fn main() {
    let a0: Field = io.read()
    let a1: Field = io.read()
    let a2: Field = io.read()
    let a3: Field = io.read()
    let a4: Field = io.read()
    let a5: Field = io.read()
    let a6: Field = io.read()
    let a7: Field = io.read()
    let a8: Field = io.read()
    let a9: Field = io.read()
    let b0: Field = a0 * a1 + 1
    let b1: Field = a1 * a2 + 2
    let b2: Field = a2 * a3 + 3
    let b3: Field = a3 * a4 + 4
    let b4: Field = a4 * a5 + 5
    let b5: Field = a5 * a6 + 6
    let b6: Field = a6 * a7 + 7
    let b7: Field = a7 * a8 + 8
    let b8: Field = a8 * a9 + 9
    let b9: Field = a9 * a0 + 10
    let mut acc: Field = 0
    for i in 0..3 {
        acc = acc + a0 + b9 + a9 + b0
        if acc == b5 {
            acc = acc + a3 * b3
        } else {
            acc = acc + a4 + b4
        }
    }
    io.write(a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9)
    io.write(b0 + b1 + b2 + b3 + b4 + b5 + b6 + b7 + b8 + b9)
    io.write(acc)
    io.write(a0 * b9)
}
""",
    "wide": """\
program wide

use vm.io.io
use vm.core.convert

struct Big {
    d0: Digest,
    d1: Digest,
    d2: Digest,
    tag: U32,
    extra: Field,
}

fn make(x: Field) -> Big {
    let d: Digest = io.read5()
    Big { d0: d, d1: hash(x, 0, 0, 0, 0, 0, 0, 0, 0, 1), d2: d, tag: convert.as_u32(7), extra: x }
}

fn mix(a: Big, b: Big, k: Field) -> Field {
    let (x0, _, _, _, x4) = a.d1
    let (y0, _, y2, _, _) = b.d2
    x0 + x4 * k + y0 * y2 + convert.as_field(a.tag) + b.extra + a.extra
}

fn swap_parts(a: Big) -> Big {
    Big { d0: a.d2, d1: a.d0, d2: a.d1, tag: a.tag, extra: a.extra + 1 }
}

fn main() {
    let x: Field = io.read()
    let a: Big = make(x)
    let b: Big = swap_parts(make(x + 1))
    io.write(mix(a, b, x))
    io.write(mix(b, a, 3))
    let (e0, e1, e2, e3, e4) = b.d0
    io.write5(e0, e1, e2, e3, e4)
    assert_digest(a.d0, a.d2)
}
""",
    "params20": """\
program params20

use vm.io.io

fn combine(a: Digest, b: Digest, c: Digest, d: Digest, k: Field) -> Digest {
    let (a0, a1, a2, a3, a4) = a
    let (b0, b1, b2, b3, b4) = b
    let (c0, c1, c2, c3, c4) = c
    let (d0, d1, d2, d3, d4) = d
    let s: Field = a0 + b1 * k + c2 + d3 * a4
    hash(a0 + b0, a1 + b1, a2 + c2, a3 + d3, a4 + k, b2 * c3, b3 + c4, b4 + c0, c1 + d0,
         s + d1 + d2 + d4)
}

fn twenty(x0: Field, x1: Field, x2: Field, x3: Field, x4: Field, x5: Field, x6: Field,
          x7: Field, x8: Field, x9: Field, x10: Field, x11: Field, x12: Field, x13: Field,
          x14: Field, x15: Field, x16: Field, x17: Field, x18: Field, x19: Field) -> Field {
    x0 * x19 + x1 * x18 + x2 + x17 + x10 * x9 + x3 + x4 + x5 + x6 + x7 + x8 + x11 + x12
        + x13 + x14 + x15 + x16
}

fn main() {
    let a: Digest = io.read5()
    let b: Digest = io.read5()
    let k: Field = io.read()
    let r: Digest = combine(a, b, a, b, k)
    let (r0, r1, r2, r3, r4) = r
    io.write5(r0, r1, r2, r3, r4)
    let (a0, a1, a2, a3, a4) = a
    let (b0, b1, b2, b3, b4) = b
    io.write(twenty(a0, a1, a2, a3, a4, b0, b1, b2, b3, b4, k, r0, r1, r2, r3, r4, a0 + 1,
                    b0 + 2, k * k, 7))
}
""",
    "deep_calls": """\
program deep_calls

use vm.io.io
use vm.core.convert

fn f1(x: Field, y: Field) -> Field {
    x * y + 1
}

fn f2(x: Field, y: Field) -> Field {
    f1(x + 1, y) + f1(y, x)
}

fn f3(x: Field, d: Digest) -> Field {
    let (d0, _, _, _, d4) = d
    f2(x, d0) * d4
}

fn f4(x: Field, y: Field, z: Field) -> (Field, Field) {
    let d: Digest = hash(x, y, z, 0, 0, 0, 0, 0, 0, 0)
    (f3(x, d), f3(y, d))
}

fn f5(x: U32, y: Field) -> Field {
    let (a, b) = f4(convert.as_field(x), y, y + 2)
    if x < convert.as_u32(10) {
        a
    } else {
        b
    }
}

fn f6(n: Field) -> Field {
    let mut total: Field = 0
    for i in 0..n bounded 5 {
        total = total + f5(i, total)
    }
    total
}

fn f7(n: Field) -> Field {
    f6(n) + f6(n + 1)
}

fn main() {
    let n: Field = io.read()
    io.write(f7(n))
}
""",
    "arrays_rt": """\
program arrays_rt

use vm.io.io
use vm.core.convert

fn pick(a: [Field; 6], i: U32, j: Field) -> Field {
    a[i] * a[j] + a[5]
}

fn main() {
    let (a, b, c, d) = io.read4()
    let arr: [Field; 6] = [a, b, c, d, a + b, c * d]
    let (_, i) = convert.as_u32(io.read()) /% convert.as_u32(6)
    let (_, jj) = convert.as_u32(io.read()) /% convert.as_u32(7)
    let j: Field = convert.as_field(jj)
    io.write(pick(arr, i, j))
    let digests: [Digest; 3] = [io.read5(), hash(a, b, c, d, 0, 0, 0, 0, 0, 0), io.read5()]
    let (_, i3) = i /% convert.as_u32(3)
    let (x0, _, _, _, x4) = digests[i3]
    io.write(x0 + x4)
    let mut s: Field = 0
    for k in 0..6 {
        s = s + arr[k] * convert.as_field(k)
    }
    io.write(s)
}
""",
}


def build(tmp_path, name: str, level: int = 1):
    path = tmp_path / f"{name}.tri"
    path.write_text(PROGRAMS[name])
    checked = check(load_project(path))
    return checked, compile_program(checked, level)


def spills(text: str) -> bool:
    lines = text.split()
    return any(
        lines[i] == "push" and SPILL_BASE <= int(lines[i + 1]) < SPILL_BASE + 2**20
        for i in range(len(lines) - 1)
    )


@pytest.mark.parametrize("level", [1, 0], ids=["O1", "O0"])
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_agrees_with_the_evaluator(tmp_path, name, level):
    checked, compiled = build(tmp_path, name, level)
    assert check_program(compiled.tir) == []
    rng = random.Random(name)
    cases = inputs_for(checked, rng, 50)
    problems = [p for case in cases if (p := compare_program(checked, compiled.program, case))]
    assert not problems, "\n".join(problems[:5])


@pytest.mark.parametrize("name", ["many_live", "wide", "params20", "arrays_rt", "wider"])
def test_the_program_spills(tmp_path, name):
    _, compiled = build(tmp_path, name)
    assert spills(compiled.text)


def test_values_wider_than_the_window_are_rearranged_through_ram(tmp_path):
    """A 21-word struct literal in another field order, and a 21-word valued if (at -O0,
    where the callee stays a function: -O1 inlines a function called once)."""
    checked, compiled = build(tmp_path, "wider", level=0)
    widths = {f.label: (f.params, f.result) for f in compiled.tir.functions}
    assert widths["wider__pick_one"] == (43, 21)
    cases = [([3, 1, 9, 0], [], [], {}), ([3, 1, 1, 1], [], [], {}), ([4, 2, 2, 1], [], [], {})]
    for case in cases:
        assert compare_program(checked, compiled.program, case) is None


def test_parameters_wider_than_the_window(tmp_path):
    checked, compiled = build(tmp_path, "params20", level=0)  # -O1 inlines them
    widths = {f.label: f.params for f in compiled.tir.functions}
    assert widths["params20__twenty"] == 20 and widths["params20__combine"] == 21


def test_call_chain_is_at_least_six_deep(tmp_path):
    checked, _ = build(tmp_path, "deep_calls")

    def depth(key: str) -> int:
        callees = [t for t in checked.instances[key].calls.values() if isinstance(t, str)]
        return 1 + max((depth(c) for c in callees), default=0)

    assert depth(checked.entry) >= 7
    assert len(reachable(checked, [checked.entry])) == 8


def test_runtime_index_reads_ram_and_checks_bounds(tmp_path):
    checked, compiled = build(tmp_path, "arrays_rt")
    assert "read_mem" in compiled.text
    public = [1, 2, 3, 4, 9, 0]  # i = 9 mod 6 = 3 is in range; j = 0
    state_case = (public + [5] * 10, [], [], {})
    assert compare_program(checked, compiled.program, state_case) is None
