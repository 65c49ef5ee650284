"""Self-hosting (optimizer.md §9): the `-O3` model's program, std.nn.optimizer, compiled by
the compiler it is the model of, stage after stage, until the compiler's identity is fixed.

Input: the model's weights (a weight file; the shipped one by default), a stage limit and
the check blocks (corpus blocks the model takes).  Output: one `Stage` per stage and the
stage at which the identity stopped changing (`Iteration`).

* **Stage 0** is std.nn.optimizer's program (compiler.driver.model_program)
  compiled at `-O2`, where no model runs.  **Stage k + 1** is the same source compiled at
  `-O3` with stage k's program running on the JIT as the model
  (compiler.neural.language_model.LanguagePolicy).
* A stage's **identity** is compiler.neural.identity.compiler_identity of its program's
  digest (Triton VM's program hash, vm.tasm.Program.digest), the weights' identity and the
  rule database's hash.  The **fixed point** is the first stage k + 1 whose identity equals
  stage k's.  With frozen weights the stages' programs compute the same function, so stage 2
  makes the same decisions as stage 1 and the fixed point is stage 2, as in a compiler
  bootstrap; the run says where it was reached, or that it was not within the limit.
* Per stage: the cycles and padded height of one **block inference** (the program's block
  mode on the first check block) and the mean cycles of a **state's scores**; the stage
  build's **score** (its own blocks the model made strictly cheaper, from the build's
  funnel); the seconds the stage took.
* **Same function**: every stage's program is run on the check blocks (a block inference
  and the scores of the start state each, with the starting weights) and its outputs must
  equal stage 0's word for word; `Iteration.same_function` says whether they did.
* **Retraining** (`retrain`, selfhost.retrain): stage k + 1's weights are stage k's
  evolved again on the training set and the program's own blocks; stage k + 1's program
  is still built with stage k's model (its program and its weights), and its identity
  has its own weights.  The fixed point then needs the weights to settle too;
  `Iteration.weights_settled` is the first stage whose weights equal the stage's before.

The decision cache is not consulted: a stage's build runs its model on every block it
searches (the cache would replay decisions made by another stage's program).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from compiler.driver import compile_program
from compiler.neural.identity import compiler_identity, program_digest, rules_hash
from compiler.neural.language_model import (
    VM_LEVEL,
    LanguageModel,
    LanguagePolicy,
    source_program,
)
from compiler.neural.weights import load_weights
from compiler.search.lowerer import SearchLowerer
from compiler.search.moves import PolicyDeclined, legal_moves, start
from selfhost.retrain import Retrainer, Retraining
from vm.tables import heights
from vm.tasm import Program

CHECK_BLOCKS = 4  # corpus blocks every stage's program is run on


class FirstBlocks:
    """A policy that guides only the first `count` blocks it is offered (a build offers
    them in one order, so the same ones every time) and declines the rest, which keep
    `-O2`'s schedule: `--blocks N`, a stage build in a fraction of the time."""

    def __init__(self, policy, count: int | None, on_block: Callable[[int], None] | None = None):
        self.policy, self.count, self.identity = policy, count, policy.identity
        self.offered = 0
        self.on_block = on_block  # called with the count of blocks guided so far

    def block(self, dag, u32_entry=()):
        if self.count is not None and self.offered >= self.count:
            raise PolicyDeclined("beyond the blocks this stage guides")
        self.offered += 1
        if self.on_block is not None:
            self.on_block(self.offered)
        return self.policy.block(dag, u32_entry)


@dataclass(frozen=True)
class Stage:
    number: int
    level: int  # the optimization level the stage's program was built at
    program: Program
    identity: str
    block_cycles: int  # one block inference on the first check block
    block_padded_height: int
    state_cycles: float  # a state's scores, the mean over the check blocks' start states
    model_wins: int  # blocks of its own build the model made strictly cheaper (0 at stage 0)
    outputs: tuple  # the program's outputs on the check blocks
    seconds: float
    parameters: dict = field(repr=False, compare=False, default_factory=dict)  # its weights
    weights_identity: str = ""
    fitness: tuple | None = None  # the retrained weights' fitness (None: not retrained)

    def as_json(self) -> dict:
        return {
            "stage": self.number,
            "level": self.level,
            "identity": self.identity,
            "digest": program_digest(self.program),
            "block_inference_cycles": self.block_cycles,
            "block_inference_padded_height": self.block_padded_height,
            "state_cycles": round(self.state_cycles, 1),
            "model_wins": self.model_wins,
            "seconds": round(self.seconds, 2),
            "weights": self.weights_identity,
            "fitness": None if self.fitness is None else list(self.fitness),
        }


@dataclass
class Iteration:
    stages: list[Stage] = field(default_factory=list)
    fixed_point: int | None = None  # the first stage whose identity equals the one before
    same_function: bool = True  # every stage's outputs on the check blocks equal stage 0's
    retrained: bool = False
    weights_settled: int | None = None  # the first stage whose weights equal the one before's
    own_blocks: int = 0  # the program's own blocks retraining used

    def as_json(self) -> dict:
        report = {
            "stages": [stage.as_json() for stage in self.stages],
            "fixed_point": self.fixed_point,
            "same_function": self.same_function,
        }
        if self.retrained:
            report["weights_settled"] = self.weights_settled
            report["own_blocks"] = self.own_blocks
        return report


def identity_of(program: Program, weights_identity: str) -> str:
    return compiler_identity(program_digest(program), weights_identity, rules_hash())


def load_model_weights(path: str | None = None):
    """The weights of `path`, else `$TRI_WEIGHTS`, else the shipped file (raises
    compiler.neural.weights.WeightsError when the file cannot be used)."""
    from compiler.neural.model import PARAMETERS, SHIPPED

    return load_weights(path or os.environ.get("TRI_WEIGHTS") or SHIPPED, list(PARAMETERS))


def check_blocks(count: int = CHECK_BLOCKS) -> list:
    """The first `count` training-set blocks the model takes, as DAGs."""
    from compiler.blocks.dag import build_dag
    from compiler.neural.dataset import load_dataset
    from compiler.neural.encoding import fits

    dags = []
    for block in load_dataset()["blocks"]:
        dag = build_dag([tuple(item) for item in block["start"]], frozenset(block["dont_care"]))
        if fits(dag):
            dags.append(dag)
        if len(dags) == count:
            break
    return dags


def measure(model: LanguageModel, dags: list) -> tuple[tuple, int, int, float]:
    """(outputs, block cycles, block padded height, mean state cycles) of `model`'s program
    on `dags`: per block its inference and the start state's scores."""
    outputs = []
    block_cycles = block_height = 0
    state_cycles = []
    for index, dag in enumerate(dags):
        prepared = model.prepare(dag)
        if index == 0:
            block_cycles = model.cycles
            block_height = heights(model.last_run).padded_height
        state = start(prepared.problem)
        scores = model.scores(prepared, state, None, legal_moves(prepared.problem, state))
        state_cycles.append(model.cycles)
        outputs.append((prepared.keys.tolist(), tuple(scores)))
    return tuple(outputs), block_cycles, block_height, sum(state_cycles) / max(1, len(dags))


def build_stage(
    number: int,
    previous: Stage | None,
    weights,
    reference,
    dags: list,
    blocks: int | None = None,
    engine: str = "jit",
    fitness: tuple | None = None,
    status: Callable[[str], None] = lambda text: None,
) -> Stage:
    """Stage `number` with `weights` (compiler.neural.weights.Weights or a Retrained: its
    tensors and identity): `-O2` without a previous stage, else `-O3` with the previous
    stage's program and weights as the model; measured on `dags` with the `reference`
    tensors (the same at every stage, so the outputs compare the programs); `status` is
    told what the stage is doing."""
    began = time.perf_counter()
    checked = source_program()
    if previous is None:
        status(f"stage {number}: building at -O{VM_LEVEL}")
        level, compiled = VM_LEVEL, compile_program(checked, VM_LEVEL)
        wins = 0
    else:
        # the model: stage k's program and weights; the decisions depend on its identity
        policy = LanguagePolicy(
            previous.parameters, previous.identity, engine, compiled=previous.program
        )
        status(f"stage {number}: building at -O3")

        def guided(count: int) -> None:
            status(f"stage {number}: building at -O3, the model guiding block {count}")

        lowerer = SearchLowerer(policy=FirstBlocks(policy, blocks, guided))
        level, compiled = 3, compile_program(checked, 3, lowerer=lowerer)
        wins = compiled.search.model if compiled.search is not None else 0
    program = compiled.program
    status(f"stage {number}: running the program on the check blocks")
    model = LanguageModel(reference, engine, compiled=program)
    outputs, block_cycles, block_height, state_cycles = measure(model, dags)
    return Stage(
        number,
        level,
        program,
        identity_of(program, weights.identity),
        block_cycles,
        block_height,
        state_cycles,
        wins,
        outputs,
        time.perf_counter() - began,
        getattr(weights, "parameters", None) or weights.tensors,
        weights.identity,
        fitness,
    )


def iterate(
    weights: str | None = None,
    max_stages: int = 4,
    check: int = CHECK_BLOCKS,
    progress: Callable[[Stage], None] | None = None,
    blocks: int | None = None,
    engine: str = "jit",
    retrain: Retraining | None = None,
    status: Callable[[str], None] = lambda text: None,
) -> Iteration:
    """Stages 0, 1, ... until the identity repeats or `max_stages` stages are built; the
    model guides the first `blocks` blocks of each build it is offered (all by default);
    the stages' programs run on `engine` (tri.api.ENGINES); with `retrain`, each stage
    after the first retrains the weights before it is built; `status` is told what each
    stage is doing (`progress` gets each stage as it is finished)."""
    loaded = load_model_weights(weights)
    dags = check_blocks(check)
    iteration = Iteration(retrained=retrain is not None)
    retrainer = Retrainer(retrain) if retrain is not None else None
    previous_cache = os.environ.get("TRI_CACHE")
    os.environ["TRI_CACHE"] = "off"  # see the module docstring
    try:
        previous = None
        for number in range(max_stages):
            stage_weights, fitness, retraining = loaded, None, 0.0
            if retrainer is not None and previous is not None:
                began = time.perf_counter()
                status(f"stage {number}: retraining the weights")
                stage_weights = retrainer(previous.parameters)
                fitness = stage_weights.fitness
                iteration.own_blocks = retrainer.own
                retraining = time.perf_counter() - began
            stage = build_stage(
                number,
                previous,
                stage_weights,
                loaded.tensors,
                dags,
                blocks,
                engine,
                fitness,
                status,
            )
            stage = replace(stage, seconds=stage.seconds + retraining)
            iteration.stages.append(stage)
            if progress is not None:
                progress(stage)
            if stage.outputs != iteration.stages[0].outputs:
                iteration.same_function = False
            if fitness is not None and iteration.weights_settled is None:
                if stage.weights_identity == previous.weights_identity:
                    iteration.weights_settled = number
            if previous is not None and stage.identity == previous.identity:
                iteration.fixed_point = number
                break
            previous = stage
    finally:
        if previous_cache is None:
            del os.environ["TRI_CACHE"]
        else:
            os.environ["TRI_CACHE"] = previous_cache
    return iteration
