"""The model in the language (stdlib/nn/optimizer.tri, driven by
compiler.neural.language_model) gives the numpy model's outputs bit for bit.

Oracle: `Model` on `FixedNumpy` (compiler.neural.model), what `-O3` runs.  For corpus blocks
of the training set (compiler/neural/training_set.json.gz), with the shipped weights and
with random ones (`initial_parameters`), the block inference's prepared tensors (pooled
mean, done and stack projections, move keys) and the scores of the states along the numpy
model's greedy path are compared exactly.  The default test takes a sample of the blocks
spread over their sizes (the program's JIT run costs about 5 million cycles per block);
the `slow` test (`pytest -m slow`) takes every block of the corpus.  Also: the layout
table and the module's consts agree, the row-triple layout, the interpreter agrees with
the JIT, and bad engines are refused.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import numpy as np
import pytest

import vm.jit
from compiler.blocks.dag import build_dag
from compiler.blocks.schedule import Problem
from compiler.neural import language_layout as layout
from compiler.neural.dataset import load_dataset
from compiler.neural.language_model import LanguageModel, LanguagePolicy
from compiler.neural.model import SHIPPED, Model, NeuralPolicy, initial_parameters
from compiler.neural.weights import load_weights
from compiler.search.moves import State, legal_moves, start

ROOT = Path(__file__).resolve().parents[2]
SEED = 5
STATES = 3  # states scored per block, along the numpy model's greedy path
SAMPLE = 12  # blocks of the default test, spread over the sizes
ALL_BLOCKS = 200  # the slow test's minimum
pytestmark = pytest.mark.skipif(not vm.jit.available(), reason="the JIT needs llvmlite")


@cache
def corpus_dags():
    blocks = load_dataset()["blocks"]
    return [
        build_dag([tuple(item) for item in block["start"]], frozenset(block["dont_care"]))
        for block in blocks
    ]


@cache
def parameters(name: str):
    if name == "shipped":
        return load_weights(SHIPPED).tensors
    return initial_parameters(SEED)


@cache
def models(name: str):
    return Model(parameters(name)), LanguageModel(parameters(name))


def sample(count: int):
    """`count` blocks spread over the token counts, the largest included."""
    dags = sorted(corpus_dags(), key=lambda dag: dag.entry + len(dag.nodes))
    return [dags[(len(dags) - 1) * k // (count - 1)] for k in range(count)]


def compare_block(numpy_model: Model, language_model: LanguageModel, dag) -> int:
    """Assert both models agree on the block and on its greedy path; the states scored."""
    expected = numpy_model.prepare(dag)
    prepared = language_model.prepare(dag)
    for name in ("pooled", "done", "stack", "keys"):
        assert np.array_equal(getattr(expected, name), getattr(prepared, name)), name
    problem = Problem(dag)
    state, previous, scored = start(problem), None, 0
    for _ in range(STATES):
        moves = legal_moves(problem, state)
        if not moves or problem.goal(state.stack, state.done):
            break
        scores = numpy_model.scores(expected, state, previous, moves)
        assert language_model.scores(prepared, state, previous, moves) == scores
        scored += 1
        previous = moves[int(np.argmax(scores))]
        state = State(previous.stack, previous.done)
    return scored


@pytest.mark.parametrize("weights", ["shipped", "random"])
def test_the_language_model_equals_the_numpy_model_on_a_sample(weights):
    numpy_model, language_model = models(weights)
    scored = sum(compare_block(numpy_model, language_model, dag) for dag in sample(SAMPLE))
    assert scored >= SAMPLE


@pytest.mark.slow
@pytest.mark.parametrize("weights", ["shipped", "random"])
def test_the_language_model_equals_the_numpy_model_on_every_corpus_block(weights):
    numpy_model, language_model = models(weights)
    dags = corpus_dags()
    assert len(dags) >= ALL_BLOCKS
    scored = sum(compare_block(numpy_model, language_model, dag) for dag in dags)
    print(f"\n{len(dags)} blocks, {scored} states: bit for bit ({weights} weights)")
    assert scored >= len(dags)


def test_the_policy_has_the_neural_policy_s_interface():
    dag = sample(3)[1]
    problem = Problem(dag)
    state = start(problem)
    moves = legal_moves(problem, state)
    neural = NeuralPolicy(parameters("random"), "x").block(dag).scores(state, None, moves)
    policy = LanguagePolicy(parameters("random"), "x")
    assert policy.block(dag).scores(state, None, moves) == neural
    assert policy.block(dag).scores(state, None, []) == []


def test_the_interpreter_agrees_with_the_jit():
    dag = sample(3)[0]
    interpreted = LanguageModel(parameters("random"), engine="interp")
    numpy_model, language_model = models("random")
    assert compare_block(numpy_model, interpreted, dag) >= 1
    interpreted.prepare(dag)
    language_model.prepare(dag)
    assert interpreted.cycles == language_model.cycles > 0


def test_a_bad_engine_is_refused():
    with pytest.raises(ValueError, match="unknown engine"):
        LanguageModel(parameters("random"), engine="gpu")


def test_the_module_s_consts_are_the_layout_table():
    text = (ROOT / "stdlib/nn/optimizer.tri").read_text(encoding="utf-8")
    declared = {
        name: int(value)
        for name, value in re.findall(r"^const (\w+): Field = (\d+)$", text, re.MULTILINE)
    }
    assert declared == layout.constants()


def test_the_row_triple_layout():
    tensor = layout.Tensor("x.weight", 0, (4, 2), True)
    values = np.arange(8).reshape(4, 2)
    # rows 0, 1, 2 interleaved per column, then row 3 and two zero rows
    assert tensor.cells(values).tolist() == [0, 2, 4, 1, 3, 5, 6, 0, 0, 7, 0, 0]
    assert tensor.words == 12
    regions = sorted(layout.REGIONS.values(), key=lambda region: region.address)
    for region, following in zip(regions, regions[1:]):
        assert region.address + region.words <= following.address
