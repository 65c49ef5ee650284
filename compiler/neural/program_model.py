"""Any model program as the `-O3` policy: a program in the language, run on the VM.

Input: a model program (a .tri program that speaks the interface below), a flat vector
of signed fixed-point weights, a block's DAG and its search states.  Output: one integer
score per legal move, as a `compiler.search.moves.Policy` (`ProgramPolicy`); the
program's parameter count (`load_model_program`); the policy `tri build -O3 --model`
compiles with (`program_policy`: its identity is the compiler's, made of the program's
digest and the weights' identity, compiler.neural.identity); the fitness factory `tri
train --model` evolves it with (`ProgramPolicies`, for compiler.neural.fitness).

The interface (docs/optimizer-experiments.md): the program's `main` reads a mode from
the public input and works on RAM laid out as compiler.neural.language_layout lays out
std.nn.optimizer's:

* **parameters mode**, public input `[2]`: writes one word, the number of weights N
  (at most 2^20).  The driver reads it once, so the program is the one place it is
  written.
* **block mode**, public input `[0, T]`, once per block: RAM holds the weights (weight i,
  a signed fixed-point number as a field element, at WEIGHTS + i, WEIGHTS = 2^20) and
  the block's encoding of T tokens (compiler.neural.encoding; feature f of token t, in
  compiler.neural.model.EMBEDDINGS order, at FEATURES + 48 f + t, FEATURES = 2^21; the
  attention mask, mask[i][j] at MASK + 48 i + j).  The program writes any number of
  *prepared words* (at most 2^22).
* **state mode**, public input `[1, len(done), *done, len(stack), *stack, previous,
  len(moves), *moves]`, once per search state: RAM holds the weights and the block
  run's output, word i at PREPARED + i (PREPARED = 2^22).  `done` are the tokens of the
  nodes done, `stack` the tokens of the values on the stack (bottom first, dead words
  left out), `previous` is 0 at the start or `1, key row, kind, argument` for the move
  that led here, and each move is `key row, kind, argument`: the key row is the token
  of the node a compute or push runs, of the value a stack move copies or moves,
  T for a dead value, T + 1 for a pop; the kind is its index in
  compiler.search.moves.KINDS; the argument is a stack move's depth (at most 15) or 16.
  The program writes one signed fixed-point score per move, higher is better.

The program is compiled at `LEVEL` and runs on an engine of tri.api (the JIT by
default).  A run that fails, or writes the wrong number of words, raises
`ProgramModelError` (one line, naming the program and the mode), as does a file that
does not check or is not a program.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from compiler.blocks.dag import Dag, build_dag
from compiler.blocks.schedule import Problem
from compiler.neural import fixed_numpy as fx
from compiler.neural.encoding import Encoding, encode
from compiler.neural.language_layout import BLOCK_INPUT, PREPARED, SCRATCH, WEIGHTS
from compiler.neural.language_model import (
    BLOCK_MODE,
    BlockPolicy,
    encoding_cells,
    state_input,
)
from compiler.search.moves import Move, State
from tri.api import ENGINES
from vm.ram import RamImage
from vm.tasm import Program

PARAMETERS_MODE = 2  # block and state modes: language_model's BLOCK_MODE, STATE_MODE
LEVEL = 1  # the level a model program is compiled at
MAX_PARAMETERS = BLOCK_INPUT - WEIGHTS  # 2^20 weights fit below the block's input
MAX_PREPARED = SCRATCH - PREPARED  # 2^22 prepared words fit below the scratch space
TENSOR = "weights"  # a model program's weight file holds this one flat tensor
# a block every model must score (push 1, push 2, add): checked when a model is loaded
SAMPLE_BLOCK = (("push", 1), ("push", 2), ("add", None))


class ProgramModelError(ValueError):
    """A model program that cannot be used; `str` is one line (or the rendered
    diagnostics of a program that does not check)."""


@dataclass(frozen=True)
class ModelProgram:
    path: str
    program: Program  # compiled at LEVEL
    parameters: int  # what its parameters mode writes


def load_model_program(path, engine: str = "jit") -> ModelProgram:
    """The model program at `path`, checked, compiled and asked for its parameter count."""
    from compiler.diagnostics import CompileError, render_files
    from compiler.pipeline import Options, build, check_source

    source = Path(path)
    if not source.is_file():
        raise ProgramModelError(f"{path}: no such model program")
    if source.suffix != ".tri":
        raise ProgramModelError(f"{path}: a model program is a .tri file")
    try:
        checked = check_source(source)
    except CompileError as failure:
        raise ProgramModelError(render_files(failure.diagnostics)) from None
    errors = [diagnostic for diagnostic in checked.diagnostics if diagnostic.is_error]
    if errors:
        raise ProgramModelError(render_files(errors))
    if checked.entry is None:
        raise ProgramModelError(f"{path}: a module, not a program (a model program has main)")
    try:
        program = build(checked, Options(LEVEL)).program
    except CompileError as failure:
        raise ProgramModelError(render_files(failure.diagnostics)) from None
    words = _run(ENGINES[engine], program, [PARAMETERS_MODE], {}, f"{path}: parameters mode")
    if len(words) != 1 or not 0 < words[0] <= MAX_PARAMETERS:
        raise ProgramModelError(
            f"{path}: parameters mode (public input 2) wrote {_words(words)}; a model "
            f"program writes its number of weights, 1 to {MAX_PARAMETERS}"
        )
    return ModelProgram(str(path), program, words[0])


def _words(words: list[int]) -> str:
    shown = ", ".join(map(str, words[:4])) + (", ..." if len(words) > 4 else "")
    return f"{len(words)} word{'s' * (len(words) != 1)} [{shown}]"


def _run(execute, program: Program, public: list[int], ram, what: str) -> list[int]:
    """The program's output as signed integers; a failed run raises ProgramModelError."""
    record = execute(program, public_input=public, ram=ram)
    if record.error is not None:
        raise ProgramModelError(f"{what} failed: {record.error}")
    return fx.signed(np.array(record.output, dtype=np.uint64)).tolist()


def _cells(address: int, signed) -> RamImage:
    """Signed words from `address` on, as a RAM image of field elements."""
    return RamImage.from_segments([(address, np.asarray(signed, dtype=np.int64).reshape(-1))])


@dataclass(frozen=True)
class ProgramPrepared:
    """A block run's results: what `model.state_tokens` and `model.move_token` read, and
    the RAM of the block's state runs."""

    problem: Problem
    encoding: Encoding
    prepared: tuple[int, ...]  # the block run's output, signed
    ram: RamImage


class ProgramModel:
    """A model program with its weights in RAM: `prepare` per block, `scores` per state."""

    def __init__(self, model: ModelProgram, weights, engine: str = "jit"):
        vector = np.asarray(weights, dtype=np.int64).reshape(-1)
        if len(vector) != model.parameters:
            raise ProgramModelError(
                f"{model.path}: the program takes {model.parameters} weights, not {len(vector)}"
            )
        if engine not in ENGINES:
            raise ValueError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}")
        self.model = model
        self.execute = ENGINES[engine]
        self.weight_ram = _cells(WEIGHTS, vector)

    def run(self, public: list[int], ram: RamImage, mode: str) -> list[int]:
        return _run(self.execute, self.model.program, public, ram, f"{self.model.path}: {mode}")

    def prepare(self, dag: Dag, u32_entry=()) -> ProgramPrepared:
        """The block run (raises EncodingTooLarge for a DAG the encoding does not take)."""
        encoding = encode(dag, u32_entry)
        ram = self.weight_ram.overlay(encoding_cells(encoding))
        words = self.run([BLOCK_MODE, encoding.tokens], ram, "block mode")
        if len(words) > MAX_PREPARED:
            raise ProgramModelError(
                f"{self.model.path}: block mode wrote {len(words)} words, more than {MAX_PREPARED}"
            )
        state_ram = self.weight_ram.overlay(_cells(PREPARED, words))
        return ProgramPrepared(Problem(dag), encoding, tuple(words), state_ram)

    def scores(
        self,
        prepared: ProgramPrepared,
        state: State,
        previous: Move | None,
        moves: Sequence[Move],
    ) -> list[int]:
        """One score per move (signed integers)."""
        if not moves:
            return []
        public = state_input(prepared, state, previous, moves)
        words = self.run(public, prepared.ram, "state mode")
        if len(words) != len(moves):
            raise ProgramModelError(
                f"{self.model.path}: state mode wrote {_words(words)} for {len(moves)} "
                "moves; a model program writes one score per move"
            )
        return words


class ProgramPolicy:
    """A model program as a `compiler.search.moves.Policy`; `block` raises
    `EncodingTooLarge` for a DAG the encoding does not take."""

    def __init__(self, model: ModelProgram, weights, identity: str, engine: str = "jit"):
        self.identity = identity
        self.model = ProgramModel(model, weights, engine)

    def block(self, dag: Dag, u32_entry=()) -> BlockPolicy:
        return BlockPolicy(self.model, self.model.prepare(dag, u32_entry))


def check_policy(policy: ProgramPolicy) -> None:
    """Decode `SAMPLE_BLOCK` greedily: a program that does not speak the interface fails
    here, with a ProgramModelError, before a build or a training run uses it."""
    from compiler.search.guided import decode_greedy

    decode_greedy(policy, build_dag(list(SAMPLE_BLOCK)), len(SAMPLE_BLOCK) + 4)


def weight_vector(tensors) -> np.ndarray:
    """A weight file's tensors (`{TENSOR: vector}`) as the flat vector."""
    return np.asarray(tensors[TENSOR], dtype=np.int64).reshape(-1)


def program_policy(path, weights_path, engine: str = "jit") -> ProgramPolicy:
    """`tri build -O3 --model`'s policy: the program at `path` with the weight file
    `weights_path` (one tensor, `TENSOR`, of the program's parameter count), checked on
    `SAMPLE_BLOCK`; its identity is the compiler's (compiler.neural.identity).  Raises
    ProgramModelError, or compiler.neural.weights.WeightsError for a weight file."""
    from compiler.neural.identity import compiler_identity, program_digest
    from compiler.neural.weights import load_weights

    model = load_model_program(path, engine)
    weights = load_weights(weights_path, [(TENSOR, (model.parameters,))])
    identity = compiler_identity(program_digest(model.program), weights.identity)
    policy = ProgramPolicy(model, weight_vector(weights.tensors), identity, engine)
    check_policy(policy)
    return policy


class ProgramPolicies:
    """weights -> the model program's policy: compiler.neural.fitness.GreedyFitness's
    `policy` for `tri train --model` (picklable, for local and Ray workers)."""

    def __init__(self, model: ModelProgram, engine: str = "jit"):
        self.model = model
        self.engine = engine

    def __call__(self, weights) -> ProgramPolicy:
        return ProgramPolicy(self.model, weight_vector(weights), "candidate", self.engine)


def initial_weights(parameters: int, seed: int) -> dict[str, np.ndarray]:
    """Small seeded random weights, uniform in [-STEP, STEP] (compiler.neural.evolution's
    mutation step, 1/16): `tri train --model`'s start without --weights."""
    from compiler.neural.evolution import STEP, stream, uniform

    words = stream(seed, -1, 0, parameters)
    return {TENSOR: uniform(words, -STEP, STEP)}
