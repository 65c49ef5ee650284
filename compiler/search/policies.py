"""The controls of optimizer.md §7, as `Policy`s (compiler.search.moves).

Input: a seed, or a frequency table built from the training set
(compiler.neural.dataset).  Output: policies whose integer scores rank a state's legal
moves, for the guided search and greedy decoding (compiler.search.guided).

* `UniformRandomPolicy(seed)`: each move's score is drawn from a BLAKE2b hash of the
  seed, the block's content, the state and the move -- the same on every machine and
  run (never Python's `hash()`), and unrelated to anything that makes a move good.
* `FrequencyPolicy(table)`: each move's score is how often moves of its *class* were
  chosen when offered in the search's large-budget solutions on the training modules,
  in parts per million; the class is the move's kind, instruction and depth class,
  after the previous move's kind (`move_class`), and a class never seen after that
  kind falls back to the same class after any kind.  `frequency_table(trajectories)`
  builds the table (plain data: class -> [chosen, offered]); `save_table` and
  `load_table` keep it as JSON with its SHA-256 content hash as its identity; the
  shipped one (`TABLE`) is rebuilt with the training set by
  `python -m compiler.neural.dataset`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from compiler.blocks.dag import Dag
from compiler.search.moves import Move, State

TABLE = Path(__file__).resolve().parent / "frequency_table.json"  # built from the training set
ANY = "*"  # the previous-kind slot of a class counted after any move
MILLION = 1_000_000


def depth_class(move: Move) -> str:
    """The reach of a stack move: 0, 1, 2-3, 4-7, 8-15 (compute and push: none)."""
    argument = move.instruction[1]
    if move.kind in ("compute", "push") or argument is None:
        return "-"
    for limit, name in ((0, "0"), (1, "1"), (3, "2-3"), (7, "4-7")):
        if argument <= limit:
            return name
    return "8-15"


def move_class(previous: Move | None, move: Move) -> str:
    """`previous kind>kind:instruction:depth class`, e.g. `dup>compute:add:-`."""
    before = "start" if previous is None else previous.kind
    return f"{before}>{move.kind}:{move.instruction[0]}:{depth_class(move)}"


def _any_previous(name: str) -> str:
    return ANY + name[name.index(">") :]


class _RandomBlock:
    def __init__(self, prefix: bytes):
        self.prefix = prefix

    def scores(self, state: State, previous: Move | None, moves: Sequence[Move]) -> list[int]:
        digest = hashlib.blake2b(self.prefix, digest_size=16)
        digest.update(repr((state.stack, state.done)).encode())
        base = digest.copy()
        scores = []
        for move in moves:
            one = base.copy()
            one.update(repr(move.instruction).encode())
            scores.append(int.from_bytes(one.digest()[:4], "big"))
        return scores


class UniformRandomPolicy:
    """Scores from a hash of (seed, block, state, move); see the module docstring."""

    def __init__(self, seed: int = 0):
        self.seed = seed
        self.identity = f"uniform-random:{seed}"

    def block(self, dag: Dag) -> _RandomBlock:
        return _RandomBlock(repr((self.seed, dag)).encode())


class _FrequencyBlock:
    def __init__(self, rates: dict[str, int]):
        self.rates = rates

    def scores(self, state: State, previous: Move | None, moves: Sequence[Move]) -> list[int]:
        scores = []
        for move in moves:
            name = move_class(previous, move)
            rate = self.rates.get(name)
            if rate is None:
                rate = self.rates.get(_any_previous(name), 0)
            scores.append(rate)
        return scores


class FrequencyPolicy:
    """Scores from a frequency table; see the module docstring."""

    def __init__(self, table: dict[str, list[int]]):
        self.rates = {
            name: chosen * MILLION // offered for name, (chosen, offered) in table.items()
        }
        self.identity = "frequency:" + table_hash(table)

    def block(self, dag: Dag) -> _FrequencyBlock:
        return _FrequencyBlock(self.rates)


def frequency_table(steps: Iterable[tuple[Move | None, Sequence[Move], int]]) -> dict:
    """class -> [times chosen, times offered] over `steps`: (previous move, legal moves,
    index of the chosen one); each class counted after its previous kind and after any."""
    table: dict[str, list[int]] = {}
    for previous, moves, chosen in steps:
        for index, move in enumerate(moves):
            name = move_class(previous, move)
            for key in (name, _any_previous(name)):
                counts = table.setdefault(key, [0, 0])
                counts[1] += 1
                counts[0] += index == chosen
    return dict(sorted(table.items()))


def table_text(table: dict) -> str:
    """JSON, one class a line, in sorted order."""
    rows = [f"{json.dumps(name)}: {json.dumps(table[name])}" for name in sorted(table)]
    return "{\n" + ",\n".join(rows) + "\n}\n"


def table_hash(table: dict) -> str:
    return hashlib.sha256(table_text(table).encode()).hexdigest()


def save_table(table: dict, path: Path) -> str:
    """Write the table as JSON; returns its content hash."""
    Path(path).write_text(table_text(table))
    return table_hash(table)


def load_table(path: Path = TABLE) -> dict:
    return json.loads(Path(path).read_text())


def frequency_policy() -> FrequencyPolicy:
    """The frequency-table control with the shipped table (`TABLE`)."""
    return FrequencyPolicy(load_table())
