"""The model's tensor operations: Python reference, numpy, and the language on the VM agree.

compiler/neural/tensor.py (reference) and tensor_numpy.py are compared bit for
bit on random inputs with edge values (zeros, single units, the clamps and
cut-offs, negative numbers, values near the bounds).  Then std.nn.fixed and
std.nn.tensor are compiled, run on the VM (the JIT, and the interpreter for one
case each), and their outputs compared with the reference on the same inputs:
scalars through the public input, vectors and matrices through RAM.  Also the
accuracy of the nonlinearities against their real-valued definitions.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from functools import cache
from pathlib import Path

import pytest

import vm.jit
from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.driver import compile_program
from compiler.neural import fixed, tensor
from compiler.neural import tensor_numpy as tn
from compiler.neural.fixed import ONE
from vm import interp

SCALAR_EDGES = [
    0,
    1,
    -1,
    ONE,
    -ONE,
    ONE // 2,
    tensor.SIGMOID_CLAMP,
    -tensor.SIGMOID_CLAMP,
    tensor.SIGMOID_CLAMP - 1,
    -tensor.SIGMOID_CLAMP + 1,
    2 * ONE + 7,
    -(5 * ONE) - 3,
    100 * ONE,
    -(100 * ONE),
]


def real(rng: random.Random, bound: float) -> int:
    """A random non-dyadic real in (-bound, bound), encoded."""
    return fixed.encode(Fraction(rng.randint(-(10**9), 10**9), 10**9 + 7) * Fraction(bound))


def signed_list(values) -> list[int]:
    return [fixed.from_signed(value) for value in values]


# --- numpy against the reference -------------------------------------------------------------


@pytest.mark.parametrize("seed", range(3))
def test_scalar_functions_numpy_equals_reference(seed):
    rng = random.Random(seed)
    xs = signed_list(SCALAR_EDGES) + [real(rng, 6) for _ in range(300)]
    assert tn.gelu(xs).tolist() == [tensor.gelu(x) for x in xs]
    assert tn.sigmoid(xs).tolist() == [tensor.sigmoid(x) for x in xs]
    negatives = [fixed.from_signed(-abs(fixed.signed(x))) for x in xs]
    negatives += signed_list([-tensor.EXP_CUTOFF, -tensor.EXP_CUTOFF + 1, -(40 * ONE)])
    assert tn.exp_negative(negatives).tolist() == [tensor.exp_negative(t) for t in negatives]
    positives = [rng.randint(1, 2**32 - 1) for _ in range(200)] + [1, 2, ONE, 2**32 - 1]
    assert tn.reciprocal(positives).tolist() == [tensor.reciprocal(z) for z in positives]
    wide = [rng.randint(1, 2**48 - 1) for _ in range(200)] + [1, 3, ONE, 2**48 - 1]
    assert tn.inverse_sqrt(wide).tolist() == [tensor.inverse_sqrt(v) for v in wide]


@pytest.mark.parametrize("seed", range(3))
def test_vector_functions_numpy_equals_reference(seed):
    rng = random.Random(10 + seed)
    n = rng.choice([1, 2, 7, 64])
    x = [real(rng, 20) for _ in range(n)]
    gamma = [real(rng, 2) for _ in range(n)]
    beta = [real(rng, 2) for _ in range(n)]
    assert tn.layer_norm(x, gamma, beta).tolist() == tensor.layer_norm(x, gamma, beta)
    batch = [[real(rng, 3) for _ in range(n)] for _ in range(4)]
    expected = [tensor.layer_norm(row, gamma, beta) for row in batch]
    assert tn.layer_norm(batch, [gamma] * 4, [beta] * 4).tolist() == expected
    assert tn.argmax(x) == tensor.argmax(x)
    matrix = [[real(rng, 4) for _ in range(n)] for _ in range(5)]
    assert tn.matvec(matrix, x).tolist() == tensor.matvec(matrix, x)


def attention_case(rng: random.Random, nodes: int, width: int):
    queries = [[real(rng, 2) for _ in range(width)] for _ in range(nodes)]
    keys = [[real(rng, 2) for _ in range(width)] for _ in range(nodes)]
    values = [[real(rng, 3) for _ in range(width)] for _ in range(nodes)]
    mask = [[int(i == j or rng.random() < 0.4) for j in range(nodes)] for i in range(nodes)]
    if nodes > 2:
        mask[1] = [0] * nodes  # a node that may attend to none
    scale = fixed.encode(Fraction(1, 3))
    return queries, keys, values, mask, scale


@pytest.mark.parametrize("seed", range(3))
def test_attention_numpy_equals_reference(seed):
    rng = random.Random(20 + seed)
    case = attention_case(rng, rng.randint(1, 12), rng.randint(1, 16))
    assert tn.attention(*case).tolist() == tensor.attention(*case)


def test_the_mask_decides_what_a_node_sees():
    rng = random.Random(5)
    queries, keys, values, mask, scale = attention_case(rng, 6, 4)
    mask = [[int(i == j) for j in range(6)] for i in range(6)]  # each node sees itself only
    out = tensor.attention(queries, keys, values, mask, scale)
    for row, value in zip(out, values):
        assert all(abs(fixed.signed(a) - fixed.signed(b)) <= 2 for a, b in zip(row, value))
    changed = [row[:] for row in mask]
    changed[2][4] = 1
    other = tensor.attention(queries, keys, values, changed, scale)
    assert other[2] != out[2] and [row for i, row in enumerate(other) if i != 2] == [
        row for i, row in enumerate(out) if i != 2
    ]


# --- accuracy against the real-valued definitions ---------------------------------------------


def test_nonlinearities_are_close_to_their_definitions():
    for step in range(-800, 801):
        x = step / 100
        encoded = fixed.encode(x)
        expected = x / (1 + math.exp(-1.702 * x))
        assert abs(float(fixed.decode(tensor.gelu(encoded))) - expected) < 0.061
        if x <= 0:
            assert abs(float(fixed.decode(tensor.exp_negative(encoded))) - math.exp(x)) < 2e-4
    for value in (0.01, 0.5, 1, 3, 100, 1000):
        inverse = float(fixed.decode(tensor.inverse_sqrt(fixed.encode(value))))
        assert abs(inverse * math.sqrt(value) - 1) < 1e-3
        reciprocal = float(fixed.decode(tensor.reciprocal(fixed.encode(value))))
        assert abs(reciprocal * value - 1) < max(1e-3, value / ONE)
    xs = [fixed.encode(v) for v in (1.5, -2.25, 3.0, 0.125, -0.5)]
    normalized = [float(fixed.decode(v)) for v in tensor.layer_norm(xs, [ONE] * 5, [0] * 5)]
    reals = [1.5, -2.25, 3.0, 0.125, -0.5]
    mean = sum(reals) / 5
    deviation = math.sqrt(sum((v - mean) ** 2 for v in reals) / 5)
    for got, value in zip(normalized, reals):
        assert abs(got - (value - mean) / deviation) < 1e-3


def test_bounds_and_domains_raise_clear_errors():
    with pytest.raises(fixed.FixedPointOverflow):
        tensor.matvec([[fixed.from_signed(2**40)] * 4], [fixed.from_signed(2**21)] * 4)
    with pytest.raises(ValueError, match="exp_negative"):
        tensor.exp_negative(ONE)
    with pytest.raises(ValueError, match="inverse_sqrt"):
        tensor.inverse_sqrt(0)
    with pytest.raises(ValueError, match="reciprocal"):
        tensor.reciprocal(fixed.from_signed(-ONE))
    with pytest.raises(ValueError, match="layer_norm"):
        tensor.layer_norm([], [], [])


# --- the language on the VM -------------------------------------------------------------------

SCALAR_PROGRAM = """program scalars

use vm.io.io
use vm.core.convert
use std.nn.fixed
use std.nn.tensor

// For each input pair (a, b): the fixed-point functions of a and b, in a fixed order.
fn main() {
    let count: Field = io.read()
    for _ in 0..count bounded 4096 {
        let (a, b) = io.read2()
        io.write(fixed.mul(a, b))
        io.write(fixed.rescale(a * 3))
        io.write(tensor.gelu(a))
        io.write(tensor.sigmoid(b))
        if fixed.less_than(a, b) {
            io.write(1)
        } else {
            io.write(0)
        }
        io.write(fixed.divide(a, convert.as_u32(7)))
        io.write(fixed.divide(b, convert.as_u32(65535)))
        io.write(fixed.shift_round(a * b, convert.as_u32(32)))
    }
}
"""

POSITIVE_PROGRAM = """program positives

use vm.io.io
use std.nn.tensor

// For each input (t, z, v): exp(-|t|), 1 / z and 1 / sqrt(v).
fn main() {
    let count: Field = io.read()
    for _ in 0..count bounded 4096 {
        let (t, z, v) = io.read3()
        io.write(tensor.exp_negative(t))
        io.write(tensor.reciprocal(z))
        io.write(tensor.inverse_sqrt(v))
    }
}
"""

RAM_PROGRAM = """program ram_functions

use vm.io.io
use std.nn.tensor

// Parameters from the input; vectors and matrices in RAM at fixed addresses.
fn main() {
    let (n, d, m, scale) = io.read4()
    tensor.fixed_matvec(1000, 2000, 3000, m, d)
    tensor.layer_norm(4000, 5000, 6000, 7000, d)
    tensor.gelu_layer(4000, 8000, d)
    tensor.attention(10000, 20000, 30000, 40000, 50000, 60000, n, d, scale)
    io.write(tensor.argmax(4000, d))
    io.write(tensor.fixed_dot(1000, 2000, d))
}
"""


@cache
def compiled(text: str, directory: str):
    path = Path(directory) / f"{text.split()[1]}.tri"
    path.write_text(text)
    checked = check(load_project(path))
    assert not checked.diagnostics, [d.headline for d in checked.diagnostics]
    return compile_program(checked).program


@pytest.fixture(scope="module")
def directory(tmp_path_factory):
    return str(tmp_path_factory.mktemp("nn"))


def run(program, public=(), ram=None, engine=vm.jit.execute):
    result = engine(program, public_input=list(public), ram=ram or {})
    assert result.error is None, result.error
    return result


def test_scalar_functions_on_the_vm(directory):
    program = compiled(SCALAR_PROGRAM, directory)
    rng = random.Random(7)
    pairs = [(x, y) for x in signed_list(SCALAR_EDGES) for y in signed_list(SCALAR_EDGES[:6])]
    pairs += [(real(rng, 3000), real(rng, 3000)) for _ in range(400)]
    public = [len(pairs)] + [word for pair in pairs for word in pair]
    expected = []
    for a, b in pairs:
        expected += [
            fixed.mul(a, b),
            fixed.from_signed(fixed.rescale(fixed.signed(a) * 3)),
            tensor.gelu(a),
            tensor.sigmoid(b),
            int(fixed.less_than(a, b)),
            fixed.divide(a, 7),
            fixed.divide(b, 65535),
            fixed.from_signed(fixed.shift_round(fixed.signed(a) * fixed.signed(b), 32)),
        ]
    assert run(program, public).output == expected
    few = public[: 1 + 2 * 20]
    few[0] = 20
    assert run(program, few, engine=interp.execute).output == expected[: 8 * 20]


def test_exp_reciprocal_and_inverse_sqrt_on_the_vm(directory):
    program = compiled(POSITIVE_PROGRAM, directory)
    rng = random.Random(8)
    triples = [
        (
            fixed.from_signed(-abs(fixed.signed(real(rng, 14)))),
            rng.randint(1, 2**32 - 1),
            rng.randint(1, 2**48 - 1),
        )
        for _ in range(300)
    ]
    triples += [(0, 1, 1), (fixed.from_signed(-tensor.EXP_CUTOFF), 2**32 - 1, 2**48 - 1)]
    triples += [(fixed.from_signed(-tensor.EXP_CUTOFF + 1), ONE, ONE)]
    public = [len(triples)] + [word for triple in triples for word in triple]
    expected = []
    for t, z, v in triples:
        expected += [tensor.exp_negative(t), tensor.reciprocal(z), tensor.inverse_sqrt(v)]
    assert run(program, public).output == expected


def _place(ram: dict, address: int, values) -> None:
    for offset, value in enumerate(values):
        ram[address + offset] = value


@pytest.mark.parametrize("seed", range(4))
def test_ram_functions_on_the_vm(directory, seed):
    program = compiled(RAM_PROGRAM, directory)
    rng = random.Random(30 + seed)
    n, d, m = rng.randint(1, 8), rng.randint(1, 12), rng.randint(1, 6)
    ram: dict[int, int] = {}
    matrix = [[real(rng, 4) for _ in range(d)] for _ in range(m)]
    vector = [real(rng, 4) for _ in range(d)]
    x = [real(rng, 8) for _ in range(d)]
    x[0] = fixed.from_signed(SCALAR_EDGES[seed + 6])  # a clamp edge or a large value
    gamma, beta = [real(rng, 2) for _ in range(d)], [real(rng, 2) for _ in range(d)]
    _place(ram, 1000, [w for row in matrix for w in row])
    _place(ram, 2000, vector)
    _place(ram, 4000, x)
    _place(ram, 5000, gamma)
    _place(ram, 6000, beta)
    queries, keys, values, mask, scale = attention_case(rng, n, d)
    for address, rows in ((10000, queries), (20000, keys), (30000, values), (40000, mask)):
        _place(ram, address, [w for row in rows for w in row])
    result = run(program, [n, d, m, scale], ram)
    cells = result.ram

    def read(address, count):
        return [cells.get(address + k, 0) for k in range(count)]

    assert read(3000, m) == tensor.matvec(matrix, vector)
    assert read(7000, d) == tensor.layer_norm(x, gamma, beta)
    assert read(8000, d) == [tensor.gelu(value) for value in x]
    expected = tensor.attention(queries, keys, values, mask, scale)
    assert read(50000, n * d) == [w for row in expected for w in row]
    assert result.output == [tensor.argmax(x), tensor.dot(matrix[0], vector)]
    if seed == 0:
        assert run(program, [n, d, m, scale], ram, engine=interp.execute).ram == cells
