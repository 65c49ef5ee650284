"""The three arithmetics the model runs on: one architecture (compiler.neural.model), three
implementations of its operations.

Input: parameters as signed fixed-point integers (numpy int64 arrays, compiler.neural.fixed:
the real r is round(r * 2^16)) and activations in each backend's own form.  Output: the
same operations in each:

* `FixedNumpy` -- fixed-point Goldilocks, vectorized, on int64 arrays of the signed
  values the field elements stand for (compiler.neural.signed_numpy, the reference's
  operations without a conversion around each): what `-O3` runs.
* `FixedReference` -- the same on lists of lists of Python ints (compiler.neural.fixed,
  tensor): the pure-Python reference, bit for bit with `FixedNumpy`.
* `Real` -- float64 numpy on the real numbers the fixed-point values stand for, with the
  same clamped cubic sigmoid in the GeLU (so that a trainer mirrors the same function)
  and exact exponentials, square roots and reciprocals elsewhere: the float twin.

Every activation is a matrix (a list of rows; a vector is one row).  Each fixed-point
operation is the sequence of compiler.neural.tensor's functions row by row: `linear`
is one `matvec` per row plus the bias (exact products, one rounding per output),
`layer_norm`, `gelu` and `attention` are tensor's, `mean_rows` divides the exact column
sums by the row count once (`fixed.divide`), and sums of rows are exact field additions.
"""

from __future__ import annotations

import numpy as np

from compiler.neural import fixed, tensor
from compiler.neural import fixed_numpy as fx
from compiler.neural import signed_numpy as sn
from compiler.neural.fixed import ONE, check_accumulation
from compiler.neural.tensor import GELU_SLOPE, SIGMOID_CLAMP, SIGMOID_CUBIC, SIGMOID_LINEAR


class FixedNumpy:
    """Fixed point, vectorized: int64 arrays of the signed values of the field elements
    (compiler.neural.signed_numpy: the reference's sequences without the conversions)."""

    name = "fixed numpy"

    def parameter(self, integers: np.ndarray) -> np.ndarray:
        return fx.signed(fx.from_signed(np.asarray(integers, dtype=np.int64)))

    def constant(self, value: int) -> int:
        return value

    def rows(self, table, indices) -> np.ndarray:
        return table[np.asarray(indices, dtype=np.int64)]

    def add(self, a, b) -> np.ndarray:
        return a + b

    def linear(self, x, weight, bias) -> np.ndarray:
        check_accumulation(weight.shape[1], _largest(weight), _largest(x))
        return sn.rescale(x @ weight.T) + bias

    def layer_norm(self, x, gain, bias) -> np.ndarray:
        return sn.layer_norm(x, gain, bias)

    def gelu(self, x) -> np.ndarray:
        return sn.gelu(x)

    def attention(self, queries, keys, values, mask, scale, heads: int) -> np.ndarray:
        """tensor.attention's operations for every head and node at once (tensor_numpy's
        goes node by node): the head's columns of queries, keys and values, scores of the
        masked-out pairs computed and then dropped, so that each kept value is made
        exactly as the reference makes it; the heads' outputs side by side."""
        count, width = queries.shape
        allowed = np.asarray(mask) != 0

        def split(x):  # heads x nodes x head width
            return x.reshape(count, heads, width // heads).transpose(1, 0, 2)

        left, right, columns = split(queries), split(keys), split(values)
        for head in range(heads):
            check_accumulation(width // heads, _largest(left[head]), _largest(right[head]))
        scores = sn.mul(sn.rescale(left @ right.transpose(0, 2, 1)), scale)
        best = np.where(allowed, scores, np.iinfo(np.int64).min).max(axis=-1, keepdims=True)
        exponentials = np.where(allowed, sn.exp_negative(np.where(allowed, scores - best, 0)), 0)
        inverse = sn.reciprocal(exponentials.sum(axis=-1))
        weights = np.where(allowed, sn.mul(exponentials, inverse[..., None]), 0)
        check_accumulation(int(allowed.sum(axis=1).max()), _largest(weights), _largest(columns))
        outputs = sn.rescale(weights @ columns)  # heads x nodes x head width
        return outputs.transpose(1, 0, 2).reshape(count, width)

    def join_columns(self, parts) -> np.ndarray:
        return np.concatenate(parts, axis=1)

    def join_rows(self, parts) -> np.ndarray:
        return np.concatenate(parts, axis=0)

    def mean_rows(self, x) -> np.ndarray:
        check_accumulation(x.shape[0], _largest(x), 1)
        return sn.round_divide(x.sum(axis=0), x.shape[0])[None, :]

    def sum_rows(self, base, table, indices) -> np.ndarray:
        """base (one row) plus the rows of `table` at `indices` (repeats counted)."""
        return base + table[np.asarray(indices, dtype=np.int64)].sum(axis=0)

    def scores(self, keys, query) -> list[int]:
        """keys . query (query: one row), one rounding each, as signed integers."""
        check_accumulation(query.shape[1], _largest(keys), _largest(query))
        return sn.rescale(keys @ query[0]).tolist()

    def field(self, x) -> np.ndarray:
        """Field elements (uint64) of an activation."""
        return fx.from_signed(x)


def _largest(values: np.ndarray) -> int:
    return int(np.abs(values).max()) if values.size else 0


class FixedReference:
    """Fixed point, pure Python: lists of rows of field elements."""

    name = "fixed reference"

    def parameter(self, integers: np.ndarray):
        array = np.asarray(integers, dtype=np.int64)
        if array.ndim == 1:
            return [fixed.from_signed(int(value)) for value in array.tolist()]
        return [[fixed.from_signed(value) for value in row] for row in array.tolist()]

    def constant(self, value: int):
        return fixed.from_signed(value)

    def rows(self, table, indices) -> list[list[int]]:
        return [list(table[index]) for index in indices]

    def add(self, a, b) -> list:
        if a and isinstance(a[0], list):
            if b and isinstance(b[0], list):
                return [self.add(row, other) for row, other in zip(a, b)]
            return [self.add(row, b) for row in a]
        return [fixed.add(x, y) for x, y in zip(a, b)]

    def linear(self, x, weight, bias) -> list[list[int]]:
        return [self.add(tensor.matvec(weight, row), bias) for row in x]

    def layer_norm(self, x, gain, bias) -> list[list[int]]:
        return [tensor.layer_norm(row, gain, bias) for row in x]

    def gelu(self, x) -> list[list[int]]:
        return [[tensor.gelu(value) for value in row] for row in x]

    def attention(self, queries, keys, values, mask, scale, heads: int) -> list[list[int]]:
        """tensor.attention per head (its columns of queries, keys and values), the heads'
        outputs side by side."""
        size = len(queries[0]) // heads
        outputs = []
        for head in range(heads):
            parts = [
                [row[head * size : (head + 1) * size] for row in x] for x in (queries, keys, values)
            ]
            outputs.append(tensor.attention(*parts, mask, scale))
        return [sum(pieces, []) for pieces in zip(*outputs)]

    def join_columns(self, parts) -> list[list[int]]:
        return [sum(pieces, []) for pieces in zip(*parts)]

    def join_rows(self, parts) -> list[list[int]]:
        return [row for part in parts for row in part]

    def mean_rows(self, x) -> list[list[int]]:
        largest = max((abs(fixed.signed(value)) for row in x for value in row), default=0)
        check_accumulation(len(x), largest, 1)
        sums = [sum(fixed.signed(row[column]) for row in x) for column in range(len(x[0]))]
        return [[fixed.divide(fixed.from_signed(total), len(x)) for total in sums]]

    def sum_rows(self, base, table, indices) -> list[list[int]]:
        total = list(base[0])
        for index in indices:
            total = self.add(total, table[index])
        return [total]

    def scores(self, keys, query) -> list[int]:
        row = query[0]
        largest = max((abs(fixed.signed(value)) for key in keys for value in key), default=0)
        check_accumulation(len(row), largest, max(abs(fixed.signed(value)) for value in row))
        return [fixed.signed(fixed.dot(key, row)) for key in keys]

    def field(self, x) -> np.ndarray:
        return np.array(x, dtype=np.uint64)


def real_sigmoid(z: np.ndarray) -> np.ndarray:
    """compiler.neural.tensor's clamped cubic sigmoid on reals."""
    clamp = SIGMOID_CLAMP / ONE
    linear, cubic = SIGMOID_LINEAR / ONE, SIGMOID_CUBIC / ONE
    middle = 0.5 + linear * z - cubic * z**3
    return np.where(z >= clamp, 1.0, np.where(z <= -clamp, 0.0, middle))


class Real:
    """The float twin: float64 arrays of the real values."""

    name = "float"

    def parameter(self, integers: np.ndarray) -> np.ndarray:
        return np.asarray(integers, dtype=np.float64) / ONE

    def constant(self, value: int) -> float:
        return value / ONE

    def rows(self, table, indices) -> np.ndarray:
        return table[np.asarray(indices, dtype=np.int64)]

    def add(self, a, b) -> np.ndarray:
        return a + b

    def linear(self, x, weight, bias) -> np.ndarray:
        return x @ weight.T + bias

    def layer_norm(self, x, gain, bias) -> np.ndarray:
        mean = x.mean(axis=-1, keepdims=True)
        variance = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
        return (x - mean) / np.sqrt(variance + 1 / ONE) * gain + bias

    def gelu(self, x) -> np.ndarray:
        return x * real_sigmoid(GELU_SLOPE / ONE * x)

    def attention(self, queries, keys, values, mask, scale, heads: int) -> np.ndarray:
        count, width = queries.shape
        allowed = np.asarray(mask) != 0

        def split(x):
            return x.reshape(count, heads, width // heads).transpose(1, 0, 2)

        left, right, columns = split(queries), split(keys), split(values)
        scores = np.where(allowed, scale * (left @ right.transpose(0, 2, 1)), -np.inf)
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        weights = weights / weights.sum(axis=-1, keepdims=True)
        return (weights @ columns).transpose(1, 0, 2).reshape(count, width)

    def join_columns(self, parts) -> np.ndarray:
        return np.concatenate(parts, axis=1)

    def join_rows(self, parts) -> np.ndarray:
        return np.concatenate(parts, axis=0)

    def mean_rows(self, x) -> np.ndarray:
        return x.mean(axis=0, keepdims=True)

    def sum_rows(self, base, table, indices) -> np.ndarray:
        return base + table[np.asarray(indices, dtype=np.int64)].sum(axis=0)

    def scores(self, keys, query) -> np.ndarray:
        return keys @ query[0]

    def real(self, x) -> np.ndarray:
        return np.asarray(x)
