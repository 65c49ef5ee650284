"""The learned tier: a question's shape predicted by a small trained model, checked before use.

Input: a question.  Output: `propose(question)` -> a canonical tree (tri.ask.canonical), or
`Refused`.  The model reads the question as the rule tier cleans it (tri.ask.rules.cleaned:
number words as digits, the asking phrases dropped), its numbers replaced by `#1` and `#2`
in order, as hashed words and word pairs (`FEATURES` buckets), and scores the shapes of
tri.ask.paraphrases (which operation, and in which order the two numbers go); a softmax
regression, trained by `train` on generated paraphrases with plain gradient descent.  Its
proposal is used only when

* it is confident (probability at least `CONFIDENT`) and not `none` (not arithmetic);
* the question has exactly the two numbers the shape takes (every number it uses is one
  the question has, and none is left over);
* a word of the question supports the operation (`SUPPORT`: "take", "left" or "minus" for
  a difference, "each" or "times" for a product, ...).

Training is deterministic given the seed (the sums run in a fixed order, no BLAS), and
the weights are written rounded, sorted, as JSON (`save`, `load`; the shipped ones are
`learned.json` beside this file, made by `tri train --ask`).
"""

from __future__ import annotations

import json
import re
import zlib
from functools import cache
from pathlib import Path

import numpy as np

from tri.ask.canonical import Binary, Compare, Number, Reduce, Refused
from tri.ask.paraphrases import SHAPES, generate
from tri.ask.rules import cleaned

FEATURES = 2048  # hash buckets of words and word pairs
CONFIDENT = 0.9
SHIPPED = Path(__file__).with_name("learned.json")
SUPPORT = {
    "a+b": "add added plus sum total altogether together more combine combined finds got gets",
    "a-b": "minus difference take away less left remain remove decrease reduce loses lost gave "
    "sold used spent",
    "b-a": "subtract take away less remove deduct from",
    "a*b": "multiply multiplied times product groups rows each per lots cost costs",
    "a/b": "divide divided quotient split share shared equally each into",
    # a range needs a word of ranges: "add 5 to 10" is an addition, not sum(5..=10)
    "sum": "sum total up numbers integers through between",
    "product": "product numbers integers through every",
    "count": "numbers integers count",
    "a>b": "greater bigger more larger exceed above higher",
    "a<b": "less smaller below fewer lower",
    "a==b": "equal same",
}


def tokens(question: str) -> tuple[list[str], list[int]]:
    """(the words of the cleaned question with numbers as #1, #2, ..., the numbers)."""
    text = cleaned(question)
    words, numbers = [], []
    for token in re.findall(r"\d+|[a-z]+|[<>=+\-*/%]", text):
        if token.isdigit():
            numbers.append(int(token))
            words.append(f"#{min(len(numbers), 3)}")
        else:
            words.append(token)
    return words, numbers


def features(question: str) -> list[int]:
    words, _ = tokens(question)
    grams = words + [f"{a} {b}" for a, b in zip(["^", *words], [*words, "$"])]
    return sorted({zlib.crc32(gram.encode()) % FEATURES for gram in grams})


def _probabilities(weights: np.ndarray, bias: np.ndarray, indexes: list[int]) -> np.ndarray:
    logits = bias + weights[indexes].sum(axis=0)
    logits = logits - logits.max()
    exponentials = np.exp(logits)
    return exponentials / exponentials.sum()


def train(seed: int = 0, examples: int = 6000, epochs: int = 200, rate: float = 20.0) -> dict:
    """Weights trained on `examples` generated paraphrases (see the module docstring)."""
    pairs = generate(seed, examples)
    rows = [features(question) for question, _ in pairs]
    labels = np.array([SHAPES.index(shape) for _, shape in pairs])
    flat = np.concatenate([np.array(row, dtype=np.int64) for row in rows])
    owner = np.concatenate([np.full(len(row), i, dtype=np.int64) for i, row in enumerate(rows)])
    starts = np.concatenate([[0], np.cumsum([len(row) for row in rows])[:-1]])
    weights = np.zeros((FEATURES, len(SHAPES)))
    bias = np.zeros(len(SHAPES))
    target = np.zeros((len(rows), len(SHAPES)))
    target[np.arange(len(rows)), labels] = 1.0
    for _ in range(epochs):
        logits = np.add.reduceat(weights[flat], starts, axis=0) + bias
        logits -= logits.max(axis=1, keepdims=True)
        probabilities = np.exp(logits)
        probabilities /= probabilities.sum(axis=1, keepdims=True)
        error = (probabilities - target) / len(rows)
        gradient = np.zeros_like(weights)
        np.add.at(gradient, flat, error[owner])
        weights -= rate * (gradient + 1e-5 * weights)
        bias -= rate * error.sum(axis=0)
    return {
        "seed": seed,
        "examples": examples,
        "epochs": epochs,
        "shapes": list(SHAPES),
        "features": FEATURES,
        "bias": [round(float(value), 6) for value in bias],
        "weights": [[round(float(value), 6) for value in row] for row in weights],
    }


def save(model: dict, path: Path) -> None:
    path.write_text(json.dumps(model, sort_keys=True, separators=(",", ":")) + "\n")


@cache
def load(path: Path = SHIPPED) -> tuple[np.ndarray, np.ndarray, tuple]:
    model = json.loads(Path(path).read_text())
    if model.get("features") != FEATURES or tuple(model.get("shapes", ())) != SHAPES:
        raise Refused(f"the learned tier's weights ({path}) are for another model")
    return np.array(model["weights"]), np.array(model["bias"]), tuple(model["shapes"])


def predict(question: str, path: Path = SHIPPED) -> tuple[str, float]:
    """(the most probable shape, its probability)."""
    weights, bias, shapes = load(path)
    probabilities = _probabilities(weights, bias, features(question))
    best = int(np.argmax(probabilities))
    return shapes[best], float(probabilities[best])


def propose(question: str, path: Path = SHIPPED):
    """The learned tier's canonical tree for `question`, or `Refused` (module docstring)."""
    shape, probability = predict(question, path)
    if probability < CONFIDENT:
        raise Refused(f"the learned tier is not sure (its best guess {shape}: {probability:.2f})")
    if shape == "none":
        raise Refused("the learned tier reads it as not an arithmetic question")
    words, numbers = tokens(question)
    if len(numbers) != 2:
        raise Refused(
            f"the learned tier's {shape} takes two numbers; the question has {len(numbers)}"
        )
    if not set(SUPPORT[shape].split()) & set(words):
        raise Refused(f"no word of the question supports the learned tier's {shape}")
    a, b = (Number(value) for value in numbers)
    return _tree(shape, a, b)


def _tree(shape: str, a, b):
    if shape in ("sum", "product", "count"):
        return Reduce(shape, a, b)
    if shape == "b-a":
        return Binary("-", b, a)
    operator = shape[1:-1]
    if operator in (">", "<", "=="):
        return Compare(operator, a, b)
    return Binary(operator, a, b)


def accuracy(pairs) -> float:
    """The share of (question, shape) pairs whose most probable shape is right."""
    right = sum(predict(question)[0] == shape for question, shape in pairs)
    return right / max(1, len(pairs))
