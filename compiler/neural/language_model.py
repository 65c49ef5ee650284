"""The `-O3` model run as a program in the language: stdlib/nn/optimizer.tri on the VM.

Input: the model's parameters (compiler.neural.model.PARAMETERS order, signed fixed-point
integers), a block's DAG and its search states.  Output: the same scores as
`model.NeuralPolicy` on `FixedNumpy`, bit for bit, computed by std.nn.optimizer compiled
once (`program`, cached per level) and run on an engine of tri.api (the JIT by default,
the interpreter for small checks).

* `LanguageModel(parameters)` lays the weights out in RAM once, as a `vm.ram.RamImage`
  (compiler.neural.language_layout; `weight_cells`), which each run overlays with its own
  cells and the JIT copies into its pages in bulk; `prepare(dag, u32_entry)` runs a
  block inference (the program's block mode: the encoding in RAM, the prepared tensors
  back on the output) and `scores(prepared, state, previous, moves)` a state's (state
  mode: the prepared tensors in RAM, the state on the public input, one score per move
  back, as signed integers).  A state's run gets only the RAM it reads: the decoder's
  tensors (`STATE_TENSORS`) and the prepared ones, laid out once per block.
* `LanguagePolicy(parameters, identity)` is the model as a
  `compiler.search.moves.Policy`, with `model.NeuralPolicy`'s interface:
  `block(dag, u32_entry).scores(state, previous, moves)`.

`LanguageModel.cycles` holds the cycle count of its last run (docs/neural.md gives the
figures per block inference and per state).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from compiler.blocks.dag import Dag
from compiler.blocks.schedule import Problem
from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.levels import CLASSICAL_LEVELS
from compiler.neural import fixed_numpy as fx
from compiler.neural.encoding import Encoding, encode
from compiler.neural.language_layout import MAX_TOKENS, REGIONS, TENSOR, TENSORS
from compiler.neural.model import (
    EMBEDDINGS,
    WIDTH,
    check_parameters,
    move_argument,
    move_token,
    state_tokens,
)
from compiler.pipeline import Options, build
from compiler.search.moves import KINDS, Move, State
from tri.api import ENGINES
from vm.ram import RamImage
from vm.tasm import Program

BLOCK_MODE, STATE_MODE = 0, 1
# -O0: without -O1's inlining and constant specialization the program has half the words
# (3,480 against 7,053) and the JIT compiles it about eight times faster (a minute against
# eight on a loaded 2-core machine; cached on disk afterwards), for 12% more cycles
LEVEL = 0
# the weight tensors a state's run reads (the rest is only read by a block's)
STATE_TENSORS = (
    "decoder.latent_norm.gain",
    "decoder.latent_norm.bias",
    "decoder.kind",
    "decoder.argument",
    "decoder.start",
    "decoder.hidden.weight",
    "decoder.hidden.bias",
    "decoder.output.weight",
    "decoder.output.bias",
)
# the program: std.nn.optimizer's entry point, compiled with the standard library
PROGRAM_TEXT = """program optimizer

use std.nn.optimizer

// The -O3 model (std.nn.optimizer): a block inference or a state's scores.
fn main() {
    optimizer.infer()
}
"""
PROGRAM_PATH = Path(__file__).resolve().parent / "optimizer_program.tri"  # stands for the text


class LanguageModelError(RuntimeError):
    """The program failed on the VM (a bug: the inputs are the model's own)."""


@cache
def program(level: int = LEVEL) -> Program:
    """std.nn.optimizer's program built by the pipeline alone, at a level that lowers every
    block classically (at a searching level it is the driver's to build:
    compiler.driver.model_program)."""
    if level not in CLASSICAL_LEVELS:
        raise ValueError(f"-O{level} searches: compiler.driver.model_program builds it")
    return build(source_program(), Options(level)).program


@cache
def source_program():
    """std.nn.optimizer's program, checked (what `program` and `tri selfhost` compile)."""
    return check(load_project(PROGRAM_PATH, text=PROGRAM_TEXT))


def _image(pairs) -> RamImage:
    """The RAM image of (address, signed words) pairs, mapped to the field."""
    return RamImage.from_segments(
        (address, np.asarray(words, dtype=np.int64)) for address, words in pairs
    )


def weight_cells(parameters, names: Sequence[str] | None = None) -> RamImage:
    """The RAM cells of the weights (of the tensors `names`, default all)."""
    chosen = set(names) if names is not None else None
    return _image(
        (tensor.address, tensor.cells(parameters[tensor.name]))
        for tensor in TENSORS
        if chosen is None or tensor.name in chosen
    )


def encoding_cells(encoding: Encoding) -> RamImage:
    """The RAM cells of a block's encoding: feature indices and mask rows."""
    features = REGIONS["FEATURES"].address
    mask = np.zeros((encoding.tokens, MAX_TOKENS), dtype=np.int64)
    mask[:, : encoding.tokens] = np.asarray(encoding.mask, dtype=np.int64)
    pairs = [
        (features + index * MAX_TOKENS, np.asarray(getattr(encoding, name), dtype=np.int64))
        for index, (name, _) in enumerate(EMBEDDINGS)
    ]
    pairs.append((REGIONS["MASK"].address, mask.reshape(-1)))
    return _image(pairs)


@dataclass(frozen=True)
class LanguagePrepared:
    """A block inference's results (signed integers, as `model.Prepared` holds them on
    FixedNumpy) and the RAM a state's run of this block gets."""

    problem: Problem
    encoding: Encoding
    pooled: np.ndarray  # 1 x WIDTH
    done: np.ndarray  # tokens x WIDTH
    stack: np.ndarray  # tokens x WIDTH
    keys: np.ndarray  # (tokens + 2) x WIDTH: the tokens', garbage, zeros
    ram: RamImage


class LanguageModel:
    """The parameters laid out in RAM once; `prepare` per block, `scores` per state."""

    def __init__(
        self, parameters, engine: str = "jit", level: int = LEVEL, compiled: Program | None = None
    ):
        check_parameters(parameters)
        if engine not in ENGINES:
            raise ValueError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}")
        # the program: std.nn.optimizer compiled at `level`, or one given (tri selfhost's
        # stages: the same source compiled by another compiler)
        self.program = compiled if compiled is not None else program(level)
        self.execute = ENGINES[engine]
        self.block_ram = weight_cells(parameters)
        self.state_ram = weight_cells(parameters, STATE_TENSORS)
        self.cycles = 0
        self.last_run = None  # the run record of the last call (vm.interp.Run)

    def run(self, public: list[int], ram: RamImage) -> list[int]:
        """The program's output on one input, as signed integers."""
        record = self.execute(self.program, public_input=public, ram=ram)
        if record.error is not None:
            raise LanguageModelError(f"std.nn.optimizer failed: {record.error}")
        self.cycles = record.cycles
        self.last_run = record
        return fx.signed(np.array(record.output, dtype=np.uint64)).tolist()

    def prepare(self, dag: Dag, u32_entry=()) -> LanguagePrepared:
        """The block inference (raises EncodingTooLarge for a DAG the model does not take)."""
        encoding = encode(dag, u32_entry)
        tokens = encoding.tokens
        ram = self.block_ram.overlay(encoding_cells(encoding))
        words = np.array(self.run([BLOCK_MODE, tokens], ram), dtype=np.int64)
        sizes = np.cumsum([WIDTH, tokens * WIDTH, tokens * WIDTH])
        pooled, done, stack, keys = np.split(words, sizes)
        pooled, done = pooled.reshape(1, WIDTH), done.reshape(tokens, WIDTH)
        stack, keys = stack.reshape(tokens, WIDTH), keys.reshape(tokens + 2, WIDTH)
        prepared = (
            (REGIONS[name].address, values.reshape(-1))
            for name, values in (
                ("POOLED", pooled),
                ("DONE", done),
                ("STACK", stack),
                ("KEYS", keys),
            )
        )
        state_ram = self.state_ram.overlay(_image(prepared))
        return LanguagePrepared(Problem(dag), encoding, pooled, done, stack, keys, state_ram)

    def scores(
        self,
        prepared: LanguagePrepared,
        state: State,
        previous: Move | None,
        moves: Sequence[Move],
    ) -> list[int]:
        """One score per move (signed integers in fixed point), as `Model.scores`."""
        if not moves:
            return []
        return self.run(state_input(prepared, state, previous, moves), prepared.ram)


def state_input(prepared, state: State, previous: Move | None, moves: Sequence[Move]):
    """A state run's public input: the mode, the done tokens, the stack's tokens, the
    previous move (0, or 1 and its words) and the legal moves' words (compiler.neural.
    program_model's module docstring; any model program takes the same)."""
    done, on_stack = state_tokens(prepared, state)
    public = [STATE_MODE, len(done), *done, len(on_stack), *on_stack]
    public += [0] if previous is None else [1, *move_words(prepared, previous)]
    public.append(len(moves))
    for move in moves:
        public += move_words(prepared, move)
    return public


def move_words(prepared, move: Move) -> tuple[int, int, int]:
    """(key row, kind, argument): what the program sums into a move's key."""
    return move_token(prepared, move), KINDS.index(move.kind), move_argument(move)


class BlockPolicy:
    """A model program's policy for one block: `scores` per state, of a model with a
    `scores(prepared, state, previous, moves)` (this module's and program_model's)."""

    def __init__(self, model, prepared):
        self.model = model
        self.prepared = prepared

    def scores(self, state: State, previous: Move | None, moves: Sequence[Move]) -> list:
        return self.model.scores(self.prepared, state, previous, moves)


class LanguagePolicy:
    """The model in the language as a `compiler.search.moves.Policy` (the interface of
    `model.NeuralPolicy`); `block` raises `EncodingTooLarge` for a DAG the model does not
    take."""

    def __init__(
        self, parameters, identity: str, engine: str = "jit", compiled: Program | None = None
    ):
        self.identity = identity
        self.model = LanguageModel(parameters, engine, compiled=compiled)

    def block(self, dag: Dag, u32_entry=()) -> BlockPolicy:
        return BlockPolicy(self.model, self.model.prepare(dag, u32_entry))


assert TENSOR.keys() >= set(STATE_TENSORS)


VM_LEVEL = 2  # the level `-O3 --engine vm` and `tri selfhost --identity` compile it at


def vm_policy(
    parameters, weights_identity: str, compiled: Program, engine: str = "auto"
) -> LanguagePolicy:
    """`-O3 --engine vm`'s model: std.nn.optimizer's program `compiled` (by the driver, at
    `VM_LEVEL`: compiler.driver.model_program), run on `engine`; its identity is the
    compiler's (compiler.neural.identity: the program's digest, the weights' identity, the
    rule database's hash)."""
    from compiler.neural.identity import compiler_identity, program_digest

    identity = compiler_identity(program_digest(compiled), weights_identity)
    return LanguagePolicy(parameters, identity, engine, compiled=compiled)
