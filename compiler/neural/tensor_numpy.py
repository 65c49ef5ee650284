"""The model's tensor operations on numpy arrays of field elements, bit for bit as
`compiler.neural.tensor`.

Input and output: arrays of fixed-point field elements (`uint64`,
compiler.neural.fixed_numpy).  The arithmetic is compiler.neural.signed_numpy's, the
model's own, on the signed integers the elements stand for; this module is its face in
field elements, the form the reference (`compiler.neural.tensor`) and the language's
`std.nn.tensor` take and give: `gelu`, `sigmoid`, `exp_negative`, `reciprocal` and
`inverse_sqrt` elementwise on any shape, `layer_norm` over the last axis (a vector or a
batch of rows), `matvec` on a matrix, `attention` one node at a time with that node's work
vectorized, `argmax`.  The tests hold them to the reference on random and edge values, and
to `std.nn.tensor` on the VM.
"""

from __future__ import annotations

import numpy as np

from compiler.neural import fixed_numpy as fx
from compiler.neural import signed_numpy as sn
from compiler.neural.fixed import DIVISOR_LIMIT, FixedPointOverflow, check_accumulation

__all__ = [
    "FixedPointOverflow",
    "argmax",
    "attention",
    "dot",
    "exp_negative",
    "gelu",
    "inverse_sqrt",
    "layer_norm",
    "matvec",
    "reciprocal",
    "sigmoid",
]

dot = fx.dot
matvec = fx.matvec


def _elementwise(function):
    def on_field_elements(values) -> np.ndarray:
        return fx.from_signed(function(fx.signed(fx.field(values))))

    on_field_elements.__name__ = function.__name__
    on_field_elements.__doc__ = function.__doc__
    return on_field_elements


gelu = _elementwise(sn.gelu)
sigmoid = _elementwise(sn.sigmoid)
exp_negative = _elementwise(sn.exp_negative)
reciprocal = _elementwise(sn.reciprocal)
inverse_sqrt = _elementwise(sn.inverse_sqrt)


def layer_norm(xs, gammas, betas) -> np.ndarray:
    """Over the last axis: a vector, or each row of a batch."""
    xs, gammas, betas = fx.field(xs), fx.field(gammas), fx.field(betas)
    count = xs.shape[-1]
    if not 1 <= count < DIVISOR_LIMIT or gammas.shape != xs.shape or betas.shape != xs.shape:
        raise ValueError("layer_norm takes three arrays of one shape, rows of 1 <= n < 2^16")
    signed = fx.signed
    return fx.from_signed(sn.layer_norm(signed(xs), signed(gammas), signed(betas)))


def attention(queries, keys, values, mask, scale: int) -> np.ndarray:
    """Masked attention of n nodes with d-vectors: an n x d array."""
    queries, keys, values = fx.field(queries), fx.field(keys), fx.field(values)
    mask = fx.field(mask)
    count, width = queries.shape
    if keys.shape != queries.shape or values.shape != queries.shape or mask.shape != (count,) * 2:
        raise ValueError("attention takes n x d queries, keys and values and an n x n mask")
    left, right, columns = fx.signed(queries), fx.signed(keys), fx.signed(values)
    check_accumulation(width, int(np.abs(left).max(initial=0)), int(np.abs(right).max(initial=0)))
    outputs = np.zeros((count, width), dtype=np.int64)
    for node in range(count):
        chosen = np.flatnonzero(mask[node] != 0)
        if not len(chosen):
            continue
        scores = sn.mul(sn.rescale(right[chosen] @ left[node]), scale)
        exponentials = sn.exp_negative(scores - scores[argmax(fx.from_signed(scores))])
        weights = sn.mul(exponentials, sn.reciprocal(np.array([exponentials.sum()]))[0])
        seen = columns[chosen]
        largest_weight = int(np.abs(weights).max())
        for largest in np.abs(seen).max(axis=0).tolist():  # one dot product per column
            check_accumulation(len(chosen), largest_weight, largest)
        outputs[node] = sn.rescale(weights @ seen)
    return fx.from_signed(outputs)


def argmax(xs) -> int:
    """The index of the largest signed value, the first on ties."""
    xs = fx.field(xs)
    if len(xs) > 1:
        fx.less_than(xs, xs)  # the bound check of the reference's comparisons
    return int(np.argmax(fx.signed(xs)))
