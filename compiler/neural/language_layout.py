"""The RAM layout of the model in the language (stdlib/nn/optimizer.tri): one table.

Input: the model's parameter table (compiler.neural.model.PARAMETERS) and its widths.
Output: where every weight tensor, the block encoding, the prepared tensors and the
program's scratch space live in RAM, as `TENSORS` (one `Tensor` per parameter, in
PARAMETERS order from `WEIGHTS` on) and `REGIONS` (name -> `Region`), and `constants()`,
the `const` declarations std.nn.optimizer repeats (a test checks that they agree).

Forms of the weight tensors:

* a vector, and a matrix whose rows the model looks up (the embedding tables,
  `decoder.kind`, `decoder.argument`): row-major, element (i, j) at address + i * cols + j;
* a matrix the model multiplies by (`*.weight`, m x n): the **row-triple** layout of
  std.nn.tensor.fixed_linear -- rows 3g, 3g + 1, 3g + 2 interleaved, element (3g + j, k)
  at address + 3g * n + 3k + j, the rows padded with zeros to a multiple of 3 -- so that
  one `xb_dot_step` makes three products of three dot products at once.

Regions the driver (compiler.neural.language_model) fills:

* `FEATURES`: the encoding's feature indices, feature f (in model.EMBEDDINGS order) of
  token t at FEATURES + f * MAX_TOKENS + t;
* `MASK`: the attention mask, mask[i][j] at MASK + i * MAX_TOKENS + j (0 or 1);
* `POOLED` (one row), `DONE`, `STACK` (a row per token) and `KEYS` (a row per token, then
  the garbage row, then a row of zeros): what a block inference writes out, read back by
  a state's scoring; rows of WIDTH words, row-major.

The other regions are the program's scratch space (it writes before it reads them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from compiler.neural.encoding import MAX_ENTRY, MAX_NODES
from compiler.neural.model import (
    ATTENTION_SCALE,
    DECODER_HIDDEN,
    EMBEDDINGS,
    FFN_WIDTH,
    HEAD_WIDTH,
    HEADS,
    PARAMETERS,
    WIDTH,
)

MAX_TOKENS = MAX_ENTRY + MAX_NODES  # 48
WEIGHTS = 1 << 20  # the first weight tensor
BLOCK_INPUT = 1 << 21  # FEATURES, MASK
PREPARED = 1 << 22  # POOLED, DONE, STACK, KEYS
SCRATCH = 1 << 23  # the program's own
TRIPLE_GROUPS = -(-HEAD_WIDTH // 3)  # a head's columns in triples (11 for 32)


@dataclass(frozen=True)
class Tensor:
    name: str
    address: int
    shape: tuple[int, ...]
    triples: bool  # the row-triple layout (else row-major)

    @property
    def words(self) -> int:
        if self.triples:
            return 3 * -(-self.shape[0] // 3) * self.shape[1]
        return math.prod(self.shape)

    def cells(self, values: np.ndarray) -> np.ndarray:
        """The tensor's words in this layout (int64, signed: the caller maps them to the
        field), padding rows included."""
        values = np.asarray(values, dtype=np.int64)
        if not self.triples:
            return values.reshape(-1)
        rows, columns = self.shape
        padded = np.zeros((3 * -(-rows // 3), columns), dtype=np.int64)
        padded[:rows] = values
        # group g, column k, row-in-group j  ->  3g * n + 3k + j
        return padded.reshape(-1, 3, columns).transpose(0, 2, 1).reshape(-1)


@dataclass(frozen=True)
class Region:
    name: str
    address: int
    words: int


def _tensors() -> tuple[Tensor, ...]:
    tensors, address = [], WEIGHTS
    for name, shape in PARAMETERS:
        tensor = Tensor(name, address, shape, name.endswith(".weight"))
        tensors.append(tensor)
        address += tensor.words
    return tuple(tensors)


TENSORS = _tensors()
TENSOR = {tensor.name: tensor for tensor in TENSORS}
WEIGHT_WORDS = TENSORS[-1].address + TENSORS[-1].words - WEIGHTS


def _regions() -> dict[str, Region]:
    table = [
        (BLOCK_INPUT, [("FEATURES", len(EMBEDDINGS) * MAX_TOKENS), ("MASK", MAX_TOKENS**2)]),
        (
            PREPARED,
            [
                ("POOLED", WIDTH),
                ("DONE", MAX_TOKENS * WIDTH),
                ("STACK", MAX_TOKENS * WIDTH),
                ("KEYS", (MAX_TOKENS + 2) * WIDTH),
            ],
        ),
        (
            SCRATCH,
            [
                ("HIDDEN", MAX_TOKENS * WIDTH),  # the encoder's rows
                ("QUERIES", MAX_TOKENS * WIDTH),
                ("TOKEN_KEYS", MAX_TOKENS * WIDTH),
                ("VALUES", MAX_TOKENS * WIDTH),
                ("ATTENDED", MAX_TOKENS * WIDTH),
                ("PROJECTED", MAX_TOKENS * WIDTH),
                ("INNER", MAX_TOKENS * FFN_WIDTH),
                # per head: the keys of three tokens interleaved, 3 * HEAD_WIDTH per triple
                ("KEYS_BY_TRIPLE", HEADS * MAX_TOKENS * HEAD_WIDTH),
                # per head: three columns of the values interleaved, 3 * MAX_TOKENS each
                ("VALUES_BY_TRIPLE", HEADS * TRIPLE_GROUPS * 3 * MAX_TOKENS),
                ("SCORES", MAX_TOKENS),
                ("ATTENTION_WEIGHTS", MAX_TOKENS),
                ("ZEROS", WIDTH),
                ("JOINED", 2 * WIDTH),  # a state's latent, then its previous action
                ("STATE_INNER", DECODER_HIDDEN),
                ("QUERY", WIDTH),
                ("MOVE_KEY", WIDTH),
            ],
        ),
    ]
    regions = {}
    for start, rows in table:
        address = start
        for name, words in rows:
            regions[name] = Region(name, address, words)
            address += words
    return regions


REGIONS = _regions()


def constant_name(parameter: str) -> str:
    """The const of std.nn.optimizer that holds a parameter's address: encoder layer 0's
    tensors as LAYER_*, the others by their full name (layer 1 is LAYER_STRIDE on)."""
    return parameter.replace("encoder.0.", "layer.").replace(".", "_").upper()


def constants() -> dict[str, int]:
    """Every const std.nn.optimizer declares, with its value."""
    values = {
        "WIDTH": WIDTH,
        "FFN_WIDTH": FFN_WIDTH,
        "HEAD_WIDTH": HEAD_WIDTH,
        "DECODER_HIDDEN": DECODER_HIDDEN,
        "MAX_TOKENS": MAX_TOKENS,
        "ATTENTION_SCALE": ATTENTION_SCALE,
        "TRIPLE_GROUPS": TRIPLE_GROUPS,
        "LAYER_STRIDE": TENSOR["encoder.1.query.weight"].address
        - TENSOR["encoder.0.query.weight"].address,
    }
    for tensor in TENSORS:
        if not tensor.name.startswith("encoder.1."):
            values[constant_name(tensor.name)] = tensor.address
    values.update({region.name: region.address for region in REGIONS.values()})
    return values


def _check() -> None:
    stride = constants()["LAYER_STRIDE"]
    for tensor in TENSORS:
        if tensor.name.startswith("encoder.1."):
            first = TENSOR[tensor.name.replace("encoder.1.", "encoder.0.")]
            assert tensor.address == first.address + stride and tensor.shape == first.shape
    assert WEIGHTS + WEIGHT_WORDS <= BLOCK_INPUT


_check()
