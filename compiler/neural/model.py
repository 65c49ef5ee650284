"""The `-O3` model: a block's encoding in, one score per legal schedule move out (optimizer.md §5).

Input: an `Encoding` (compiler.neural.encoding) and the model's parameters, an ordered
dict name -> numpy int64 array of **signed fixed-point integers** (the real r is
round(r * 2^16); `PARAMETERS` lists names and shapes in order, `initial_parameters(seed)`
draws them).  Output: `NeuralPolicy`, a `compiler.search.moves.Policy` whose integer
scores rank the legal moves of each search state (greedy decoding and the guided
search are compiler.search.guided's).

Architecture (widths from optimizer.md §5):

* **embedding**: per token, the sum of one row of each feature table (op, value type,
  role, immediate class, exit slot, arity, liveness first and last), layer-normalized.
  Operand references enter through the attention mask, not as an input vector.
* **encoder**: 2 post-norm layers; each masked attention with 2 heads of width 32
  (queries, keys, values and output 64 x 64 with biases, scores scaled by 1/sqrt(32)),
  the residual and a layer normalization, then the FFN 64 -> 128 -> 64 with
  compiler.neural.tensor's clamped polynomial GeLU, the residual and a layer
  normalization.
* **decoder**, a pointer head over the legal moves.  The latent of a state is
  layer_norm(mean of the encoder outputs + the sum of `done` projections of the nodes
  done + the sum of `stack` projections of the values on the stack); the previous action
  is the previous move's key (a learned `start` row at the first step); the seed's MLP
  (latent 64 + previous action 64 -> 128, GeLU -> 64) makes a query, and each legal move
  scores query . key.  A move's key is the sum of a projection of the encoder output of
  the token it concerns (the node it computes or pushes; the node or entry slot making
  the value it copies or moves; a learned `garbage` row for a dead word), a learned row
  for its kind (compute, push, dup, swap, pick, place, pop: pop's key is this row plus
  its count) and a row for its stack depth (the instruction's argument: dup/swap/pick/
  place d, pop n; none for compute and push, whose operands are on top).

**Departure from §5**: the spec gives each node "its current stack position during
decoding" as an encoder input, which would re-run the encoder at every search state.
Here the encoder runs once per block (`NeuralPolicy.block`), and what changes per state
enters cheaply: the nodes done and the values on the stack as sums of precomputed
projections in the latent, and each move's stack depth in its key.  A state costs a
few row sums, one layer norm, the 128 -> 128 -> 64 MLP and one dot product per move.

The forward pass is written once over an arithmetic (compiler.neural.backends):
`FixedNumpy` (what `-O3` runs), `FixedReference` (pure Python, bit for bit the same)
and `Real` (the float64 twin).  Scores are the fixed-point dot products as signed
integers (floats on `Real`).  Parameters are drawn as integers, so the same seed gives
the same parameters on every machine; their bounds keep every accumulation far below
2^62 (compiler.neural.fixed.check_accumulation checks each one as it runs).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from compiler.blocks.dag import Dag
from compiler.blocks.schedule import Problem
from compiler.neural import encoding as features
from compiler.neural.backends import FixedNumpy
from compiler.neural.encoding import Encoding, encode
from compiler.neural.fixed import ONE
from compiler.search.moves import KINDS, Move, State

WIDTH = 64
HEADS = 2
HEAD_WIDTH = WIDTH // HEADS
FFN_WIDTH = 128
LAYERS = 2
DECODER_HIDDEN = 128
ARGUMENTS = 17  # a move's depth: 0 .. 15, and 16 for none (compute, push)
NO_ARGUMENT = ARGUMENTS - 1
ATTENTION_SCALE = round(ONE / math.sqrt(HEAD_WIDTH))  # 1/sqrt(32) in fixed point

EMBEDDINGS = (  # (feature, rows): one table each
    ("op", features.OPS),
    ("value_type", features.VALUE_TYPES),
    ("role", features.ROLES),
    ("immediate", features.IMMEDIATES),
    ("exit_slot", features.EXIT_SLOTS + 1),
    ("arity", features.ARITIES),
    ("live_first", features.TIMES),
    ("live_last", features.TIMES),
)


def _parameter_table() -> tuple[tuple[str, tuple[int, ...]], ...]:
    table = [(f"embed.{name}", (rows, WIDTH)) for name, rows in EMBEDDINGS]
    table += [("embed.norm.gain", (WIDTH,)), ("embed.norm.bias", (WIDTH,))]
    for layer in range(LAYERS):
        prefix = f"encoder.{layer}."
        for part in ("query", "key", "value", "output"):
            table += [
                (f"{prefix}{part}.weight", (WIDTH, WIDTH)),
                (f"{prefix}{part}.bias", (WIDTH,)),
            ]
        table += [(f"{prefix}norm1.gain", (WIDTH,)), (f"{prefix}norm1.bias", (WIDTH,))]
        table += [
            (f"{prefix}ffn_in.weight", (FFN_WIDTH, WIDTH)),
            (f"{prefix}ffn_in.bias", (FFN_WIDTH,)),
        ]
        table += [
            (f"{prefix}ffn_out.weight", (WIDTH, FFN_WIDTH)),
            (f"{prefix}ffn_out.bias", (WIDTH,)),
        ]
        table += [(f"{prefix}norm2.gain", (WIDTH,)), (f"{prefix}norm2.bias", (WIDTH,))]
    table += [
        ("decoder.done.weight", (WIDTH, WIDTH)),
        ("decoder.stack.weight", (WIDTH, WIDTH)),
        ("decoder.latent_norm.gain", (WIDTH,)),
        ("decoder.latent_norm.bias", (WIDTH,)),
        ("decoder.move_key.weight", (WIDTH, WIDTH)),
        ("decoder.move_key.bias", (WIDTH,)),
        ("decoder.kind", (len(KINDS), WIDTH)),
        ("decoder.argument", (ARGUMENTS, WIDTH)),
        ("decoder.garbage", (WIDTH,)),
        ("decoder.start", (WIDTH,)),
        ("decoder.hidden.weight", (DECODER_HIDDEN, 2 * WIDTH)),
        ("decoder.hidden.bias", (DECODER_HIDDEN,)),
        ("decoder.output.weight", (WIDTH, DECODER_HIDDEN)),
        ("decoder.output.bias", (WIDTH,)),
    ]
    return tuple(table)


PARAMETERS = _parameter_table()  # (name, shape), in the weights file's order


def parameter_count() -> int:
    return sum(math.prod(shape) for _, shape in PARAMETERS)


def part_counts() -> dict[str, int]:
    """Parameters per part: embeddings, each encoder layer, the decoder's MLP, its keys and
    latent."""
    parts: dict[str, int] = {}
    for name, shape in PARAMETERS:
        if name.startswith("encoder."):
            part = ".".join(name.split(".")[:2])
        elif name.startswith(("decoder.hidden", "decoder.output")):
            part = "decoder MLP"
        elif name.startswith(("decoder.done", "decoder.stack", "decoder.latent")):
            part = "decoder latent"
        elif name.startswith("decoder."):
            part = "decoder move keys"
        else:
            part = "embeddings"
        parts[part] = parts.get(part, 0) + math.prod(shape)
    return parts


def summary() -> str:
    """The parameter table, one line per tensor, the total last."""
    lines = [
        f"{name:32} {'x'.join(map(str, shape)):>8} {math.prod(shape):>8,}"
        for name, shape in PARAMETERS
    ]
    lines += [f"{part:32} {count:>17,}" for part, count in part_counts().items()]
    lines.append(f"{parameter_count():,} parameters")
    return "\n".join(lines)


def initial_parameters(seed: int = 0) -> dict[str, np.ndarray]:
    """Random parameters as signed fixed-point integers, from a seed (integers drawn by
    numpy's PCG64: the same on every machine).  Weights uniform in +-1/sqrt(fan in),
    embedding rows in +-1, biases in +-0.1, layer-norm gains in 1 +- 0.1."""
    generator = np.random.default_rng(seed)
    parameters = {}
    for name, shape in PARAMETERS:
        if name.endswith(".gain"):
            low, high, offset = -ONE // 10, ONE // 10, ONE
        elif name.endswith(".weight"):
            bound = round(ONE / math.sqrt(shape[1]))
            low, high, offset = -bound, bound, 0
        elif (
            name.startswith("embed.")
            or len(shape) == 2
            or name in ("decoder.garbage", "decoder.start")
        ):
            low, high, offset = -ONE, ONE, 0
        else:
            low, high, offset = -ONE // 10, ONE // 10, 0
        parameters[name] = generator.integers(low, high + 1, size=shape, dtype=np.int64) + offset
    return parameters


def check_parameters(parameters) -> None:
    names = [name for name, _ in PARAMETERS]
    if list(parameters) != names:
        raise ValueError("the parameters must be the model's, in PARAMETERS order")
    for name, shape in PARAMETERS:
        if tuple(np.shape(parameters[name])) != shape:
            raise ValueError(f"{name} has shape {np.shape(parameters[name])}, not {shape}")


class Model:
    """The parameters loaded into one arithmetic; `encoder` and `prepare` per block,
    `scores` per state."""

    def __init__(self, parameters, arithmetic=None):
        check_parameters(parameters)
        self.arithmetic = arithmetic if arithmetic is not None else FixedNumpy()
        self.weights = {
            name: self.arithmetic.parameter(value) for name, value in parameters.items()
        }
        self.zero_bias = self.arithmetic.parameter(np.zeros(WIDTH, dtype=np.int64))
        self.scale = self.arithmetic.constant(ATTENTION_SCALE)

    def _row(self, vector):
        return [list(vector)] if isinstance(vector, list) else vector[None, :]

    def embed(self, encoding: Encoding):
        a, w = self.arithmetic, self.weights
        total = None
        for name, _ in EMBEDDINGS:
            rows = a.rows(w[f"embed.{name}"], getattr(encoding, name))
            total = rows if total is None else a.add(total, rows)
        return a.layer_norm(total, w["embed.norm.gain"], w["embed.norm.bias"])

    def encoder(self, encoding: Encoding, layers: int = LAYERS):
        """The encoder's output, one row per token (after `layers` layers)."""
        a, w = self.arithmetic, self.weights
        x = self.embed(encoding)
        for layer in range(layers):
            p = f"encoder.{layer}."
            projected = {
                part: a.linear(x, w[f"{p}{part}.weight"], w[f"{p}{part}.bias"])
                for part in ("query", "key", "value")
            }
            parts = [projected[part] for part in ("query", "key", "value")]
            heads = a.attention(*parts, encoding.mask, self.scale, HEADS)
            attended = a.linear(heads, w[f"{p}output.weight"], w[f"{p}output.bias"])
            x = a.layer_norm(a.add(x, attended), w[f"{p}norm1.gain"], w[f"{p}norm1.bias"])
            inner = a.gelu(a.linear(x, w[f"{p}ffn_in.weight"], w[f"{p}ffn_in.bias"]))
            outer = a.linear(inner, w[f"{p}ffn_out.weight"], w[f"{p}ffn_out.bias"])
            x = a.layer_norm(a.add(x, outer), w[f"{p}norm2.gain"], w[f"{p}norm2.bias"])
        return x

    def prepare(self, dag: Dag, u32_entry=()) -> Prepared:
        """Everything per block: the encoder once, the projections the states sum."""
        a, w = self.arithmetic, self.weights
        encoding = encode(dag, u32_entry)
        hidden = self.encoder(encoding)
        keys = a.linear(hidden, w["decoder.move_key.weight"], w["decoder.move_key.bias"])
        nothing = a.parameter(np.zeros(WIDTH, dtype=np.int64))
        return Prepared(
            problem=Problem(dag),
            encoding=encoding,
            pooled=a.mean_rows(hidden),
            done=a.linear(hidden, w["decoder.done.weight"], self.zero_bias),
            stack=a.linear(hidden, w["decoder.stack.weight"], self.zero_bias),
            # token rows, then the garbage row, then a row of zeros (pop)
            keys=a.join_rows([keys, self._row(w["decoder.garbage"]), self._row(nothing)]),
        )

    def _key_rows(self, prepared: Prepared, moves: Sequence[Move]):
        a, w = self.arithmetic, self.weights
        tokens = [move_token(prepared, move) for move in moves]
        kinds = [KINDS.index(move.kind) for move in moves]
        arguments = [move_argument(move) for move in moves]
        rows = a.add(a.rows(prepared.keys, tokens), a.rows(w["decoder.kind"], kinds))
        return a.add(rows, a.rows(w["decoder.argument"], arguments))

    def scores(
        self, prepared: Prepared, state: State, previous: Move | None, moves: Sequence[Move]
    ):
        """One score per move (signed integers in fixed point)."""
        a, w = self.arithmetic, self.weights
        if not moves:
            return []
        done, on_stack = state_tokens(prepared, state)
        latent = a.sum_rows(
            a.sum_rows(prepared.pooled, prepared.done, done), prepared.stack, on_stack
        )
        latent = a.layer_norm(latent, w["decoder.latent_norm.gain"], w["decoder.latent_norm.bias"])
        if previous is None:
            action = self._row(w["decoder.start"])
        else:
            action = self._key_rows(prepared, [previous])
        joined = a.join_columns([latent, action])
        inner = a.gelu(a.linear(joined, w["decoder.hidden.weight"], w["decoder.hidden.bias"]))
        query = a.linear(inner, w["decoder.output.weight"], w["decoder.output.bias"])
        return a.scores(self._key_rows(prepared, moves), query)


@dataclass(frozen=True)
class Prepared:
    problem: Problem
    encoding: Encoding
    pooled: object  # one row: the mean of the encoder's outputs
    done: object  # per token: what a done node adds to the latent
    stack: object  # per token: what one of its values on the stack adds to the latent
    keys: object  # per token, then garbage, then nothing: a move key's token part


def state_tokens(prepared, state: State) -> tuple[list[int], list[int]]:
    """A state's tokens: of the nodes done, and of the values on the stack (dead words
    left out), as the latent sums their projections."""
    problem, encoding = prepared.problem, prepared.encoding
    done = [
        encoding.entry + node
        for position, node in enumerate(problem.work)
        if state.done >> position & 1
    ]
    on_stack = [encoding.value_token[value] for value in state.stack if value != problem.garbage]
    return done, on_stack


def move_token(prepared: Prepared, move: Move) -> int:
    """The key row of the token a move concerns (see the module docstring)."""
    encoding = prepared.encoding
    if move.kind in ("compute", "push"):
        return encoding.entry + move.node
    if move.kind == "pop":
        return encoding.tokens + 1
    if move.value == prepared.problem.garbage:
        return encoding.tokens
    return encoding.value_token[move.value]


def move_argument(move: Move) -> int:
    if move.kind in ("compute", "push"):
        return NO_ARGUMENT
    return min(move.instruction[1], NO_ARGUMENT - 1)


class NeuralBlockPolicy:
    def __init__(self, model: Model, prepared: Prepared):
        self.model = model
        self.prepared = prepared

    def scores(self, state: State, previous: Move | None, moves: Sequence[Move]) -> list:
        return self.model.scores(self.prepared, state, previous, moves)


class NeuralPolicy:
    """The model as a `compiler.search.moves.Policy`.  `block` raises
    `compiler.neural.encoding.EncodingTooLarge` for a DAG the model does not take
    (`encoding.fits`): the caller searches that block unguided."""

    def __init__(self, parameters, identity: str, arithmetic=None):
        self.identity = identity
        self.parameters = parameters  # as given: signed integers, PARAMETERS order
        self.model = Model(parameters, arithmetic)

    def block(self, dag: Dag, u32_entry=()) -> NeuralBlockPolicy:
        return NeuralBlockPolicy(self.model, self.model.prepare(dag, u32_entry))


SHIPPED = Path(__file__).resolve().parent / "model.weights"  # the trained weights, `tri train`


def load_policy(path: str | None = None) -> NeuralPolicy | None:
    """The model of `-O3` from a weight file -- `path`, else `$TRI_WEIGHTS`, else the
    shipped one -- or None after a one-line warning when the file cannot be used: the
    build is then `-O2`'s (compiler.neural.weights.load_policy_weights)."""
    chosen = Path(path or os.environ.get("TRI_WEIGHTS") or SHIPPED).resolve()
    try:
        version = chosen.stat().st_mtime_ns, chosen.stat().st_size
    except OSError:
        version = None
    return _load_policy(str(chosen), version)


@cache
def _load_policy(path: str, version) -> NeuralPolicy | None:
    """The policy of one version (modification time, size) of a file, loaded once."""
    from compiler.neural.weights import load_policy_weights

    weights = load_policy_weights(path, list(PARAMETERS))
    if weights is None:
        return None
    return NeuralPolicy(weights.tensors, weights.identity)
