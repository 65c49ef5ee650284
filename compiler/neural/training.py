"""Supervised training of the `-O3` model, in floating point, then quantized (optimizer.md §7).

Input: the model's starting parameters (signed fixed-point integers,
compiler.neural.model), the training set (compiler.neural.dataset: per block its DAG
and, per step of the search's schedule, the legal moves, the one chosen and the ones
that start an optimal schedule as well), a seed and a number of epochs.  Output:
`train(...) -> Trained`, the trained parameters quantized back to fixed point, the loss
per epoch and the share of steps where the move the model ranks first starts an optimal
schedule, before and after quantization.

The forward pass is the model's own (compiler.neural.model.Model), run on `TorchReal`,
an arithmetic of PyTorch float64 tensors that mirrors the float twin
(compiler.neural.backends.Real) operation for operation, so PyTorch's automatic
differentiation gives the gradients of exactly the function the fixed-point model
computes, up to rounding.  The loss of a step is minus the log of the probability the
model gives to the moves that start an optimal schedule (the chosen one and every other
the dataset lists as `optimal`), among the legal moves (a pointer head: illegal moves
never get a score): a model is not taught that a move as good as the search's is wrong.
Adam, one update per block, blocks in an order drawn from the seed; one thread and
PyTorch's deterministic algorithms, so two runs from one seed give the same weights on
one machine (evolution, compiler.neural.evolution, is bit-reproducible everywhere).

PyTorch is the optional `train` extra: `pip install 'tri[train]'`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from compiler.blocks.dag import Dag, build_dag
from compiler.blocks.schedule import Problem
from compiler.neural.evolution import LIMIT
from compiler.neural.fixed import ONE
from compiler.neural.model import Model, NeuralPolicy
from compiler.neural.tensor import GELU_SLOPE, SIGMOID_CLAMP, SIGMOID_CUBIC, SIGMOID_LINEAR
from compiler.search.moves import Move, State, legal_moves, start


class TrainingError(RuntimeError):
    """Training cannot run (PyTorch missing, an empty training set)."""


def _torch():
    try:
        import torch
    except ImportError:
        raise TrainingError("training needs PyTorch: pip install 'tri[train]'") from None
    return torch


@dataclass(frozen=True)
class Step:
    state: State
    previous: Move | None
    moves: tuple[Move, ...]
    chosen: int
    optimal: tuple[int, ...]  # the moves that start an optimal rest, `chosen` among them


@dataclass(frozen=True)
class Example:
    module: str
    dag: Dag
    steps: tuple[Step, ...]


def examples(dataset: dict) -> list[Example]:
    """Every block of the dataset with its steps replayed through `legal_moves`."""
    found = []
    for block in dataset["blocks"]:
        dag = build_dag([tuple(item) for item in block["start"]], frozenset(block["dont_care"]))
        problem = Problem(dag)
        state, previous, steps = start(problem), None, []
        for recorded in block["steps"]:
            moves = tuple(legal_moves(problem, state))
            optimal = tuple(recorded.get("optimal", [recorded["chosen"]]))
            steps.append(Step(state, previous, moves, recorded["chosen"], optimal))
            previous = moves[recorded["chosen"]]
            state = State(previous.stack, previous.done)
        found.append(Example(block["module"], dag, tuple(steps)))
    return found


class TorchReal:
    """The float twin's operations (compiler.neural.backends.Real) on PyTorch tensors."""

    name = "torch"

    def __init__(self):
        self.torch = _torch()

    def parameter(self, integers):
        values = np.asarray(integers, dtype=np.float64) / ONE
        return self.torch.tensor(values, dtype=self.torch.float64, requires_grad=True)

    def constant(self, value: int) -> float:
        return value / ONE

    def rows(self, table, indices):
        return table[self.torch.as_tensor(list(indices), dtype=self.torch.long)]

    def add(self, a, b):
        return a + b

    def linear(self, x, weight, bias):
        return x @ weight.T + bias

    def layer_norm(self, x, gain, bias):
        mean = x.mean(dim=-1, keepdim=True)
        variance = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
        return (x - mean) / self.torch.sqrt(variance + 1 / ONE) * gain + bias

    def gelu(self, x):
        z = GELU_SLOPE / ONE * x
        clamp, linear, cubic = SIGMOID_CLAMP / ONE, SIGMOID_LINEAR / ONE, SIGMOID_CUBIC / ONE
        middle = 0.5 + linear * z - cubic * z**3
        sigmoid = self.torch.where(
            z >= clamp, self.torch.ones_like(z), self.torch.where(z <= -clamp, 0 * z, middle)
        )
        return x * sigmoid

    def attention(self, queries, keys, values, mask, scale, heads: int):
        torch = self.torch
        count, width = queries.shape
        allowed = torch.as_tensor(np.asarray(mask) != 0)

        def split(x):
            return x.reshape(count, heads, width // heads).transpose(0, 1)

        left, right, columns = split(queries), split(keys), split(values)
        scores = scale * (left @ right.transpose(1, 2))
        scores = scores.masked_fill(~allowed, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        return (weights @ columns).transpose(0, 1).reshape(count, width)

    def join_columns(self, parts):
        return self.torch.cat(list(parts), dim=1)

    def join_rows(self, parts):
        return self.torch.cat(list(parts), dim=0)

    def mean_rows(self, x):
        return x.mean(dim=0, keepdim=True)

    def sum_rows(self, base, table, indices):
        chosen = table[self.torch.as_tensor(list(indices), dtype=self.torch.long)]
        return base + chosen.sum(dim=0)

    def scores(self, keys, query):
        return keys @ query[0]

    def signed(self, x):
        return x


@dataclass(frozen=True)
class Trained:
    parameters: dict[str, np.ndarray]  # quantized: signed fixed-point integers
    losses: tuple[float, ...]  # mean loss per step, per epoch
    float_accuracy: tuple[int, int]  # (steps whose chosen move ranks first, steps), float
    fixed_accuracy: tuple[int, int]  # the same after quantization, in fixed point


def quantize(weights) -> dict[str, np.ndarray]:
    """Float tensors -> signed fixed-point integers, rounded, within [-LIMIT, LIMIT]."""
    quantized = {}
    for name, tensor in weights.items():
        values = tensor.detach().cpu().numpy() if hasattr(tensor, "detach") else tensor
        quantized[name] = np.clip(np.rint(np.asarray(values) * ONE), -LIMIT, LIMIT).astype(np.int64)
    return quantized


def accuracy(model: Model, found: list[Example]) -> tuple[int, int]:
    """(steps whose highest-scored move, first on ties, starts an optimal rest; steps)."""
    right = total = 0
    for example in found:
        prepared = model.prepare(example.dag)
        for step in example.steps:
            scores = [
                float(score)
                for score in model.scores(prepared, step.state, step.previous, step.moves)
            ]
            best = max(range(len(scores)), key=lambda index: (scores[index], -index))
            right += best in step.optimal
            total += 1
    return right, total


def train(
    parameters: dict[str, np.ndarray],
    found: list[Example],
    epochs: int,
    seed: int,
    learning_rate: float = 3e-3,
    on_epoch: Callable[[int, float], None] | None = None,
) -> Trained:
    """`epochs` passes of Adam over `found`, one update per block; see the docstring."""
    if not found:
        raise TrainingError("the training set has no blocks")
    torch = _torch()
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    model = Model(parameters, TorchReal())
    leaves = list(model.weights.values())
    optimizer = torch.optim.Adam(leaves, lr=learning_rate)
    order_source = np.random.Generator(np.random.PCG64(seed))
    losses = []
    for epoch in range(epochs):
        total, steps = 0.0, 0
        for index in order_source.permutation(len(found)):
            example = found[int(index)]
            optimizer.zero_grad()
            prepared = model.prepare(example.dag)
            loss = 0
            for step in example.steps:
                scores = model.scores(prepared, step.state, step.previous, step.moves)
                chances = torch.log_softmax(scores, dim=0)[list(step.optimal)]
                loss = loss - torch.logsumexp(chances, dim=0)
            loss.backward()
            optimizer.step()
            with torch.no_grad():  # keep weights where the fixed-point model is exact
                for leaf in leaves:
                    leaf.clamp_(-LIMIT / ONE, LIMIT / ONE)
            total += float(loss.detach())
            steps += len(example.steps)
        losses.append(total / max(steps, 1))
        if on_epoch is not None:
            on_epoch(epoch, losses[-1])
    with torch.no_grad():
        float_accuracy = accuracy(model, found)
    quantized = quantize(model.weights)
    fixed_accuracy = accuracy(NeuralPolicy(quantized, "trained").model, found)
    return Trained(quantized, tuple(losses), float_accuracy, fixed_accuracy)
