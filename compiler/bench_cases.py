"""Argument tuples for library functions: (module, function, parameters) -> [Case].

Used by `tests/whole/test_baselines.py` (edge values plus random draws, checked against the
reference evaluator) and by `compiler.bench` (the same fixed-seed draws for the compiled
and the hand code).  A `Case` holds one word tuple per parameter in stack layout, the
secret input and secret digests the function may consume, and the initial RAM.

What a parameter takes is a *kind*: by default its type decides (`Field`, `U32`, `Bool`,
or any wider type as that many field words); `KINDS` refines it per stdlib module and
parameter name (loop counts with their `bounded` limit, RAM pointers with RAM contents
around them, shift amounts), and `WORLDS` builds whole cases where the arguments must fit
together (a Merkle path and its root, lock digests and their secrets).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from compiler.evaluate import BUILTIN_SEMANTICS
from vm import tip5
from vm.field import P

U32_MAX = (1 << 32) - 1
HALF = (P - 1) // 2  # the largest non-negative value of std.nn.tensor's signed convention
REGION = 4096  # pointer parameters of one case live 4096 words apart (longer than any loop)
FILLED = 160  # words of random RAM after each pointer


@dataclass(frozen=True)
class Case:
    arguments: tuple[tuple[int, ...], ...]
    secret: tuple[int, ...] = ()
    digests: tuple[tuple[int, ...], ...] = ()
    ram: tuple[tuple[int, int], ...] = ()

    @property
    def words(self) -> list[int]:
        return [word for argument in self.arguments for word in argument]


# --- kinds: (rng, edge index or None) -> one argument value --------------------------------------


@dataclass(frozen=True)
class Kind:
    edges: tuple[int, ...]
    draw: Callable[[random.Random], int]
    pointer: bool = False  # a RAM address: gets RAM contents, never equalised
    alias: str | None = None  # a pointer that may equal this other parameter
    calm: Callable[[random.Random], int] | None = None  # in-range draws only

    def value(self, rng: random.Random, edge: int | None, calm: bool = False) -> int:
        if edge is not None and self.edges:
            return self.edges[edge % len(self.edges)]
        return (self.calm if calm and self.calm else self.draw)(rng)


def _field(rng: random.Random) -> int:
    choice = rng.random()
    if choice < 0.3:
        return rng.randrange(100)
    if choice < 0.5:
        return P - 1 - rng.randrange(100)
    if choice < 0.7:
        return rng.randrange(1 << 32)
    return rng.randrange(P)


def _u32(rng: random.Random) -> int:
    if rng.random() < 0.12:
        return rng.choice([P - 1, 1 << 32, rng.randrange(1 << 32, P)])
    return _small_u32(rng)


def _signed(rng: random.Random) -> int:
    value = rng.randrange(-1000, 1000)
    return value % P if rng.random() < 0.8 else rng.randrange(P)


def _small_u32(rng: random.Random) -> int:
    return rng.randrange(1 << rng.randrange(1, 33))


FIELD = Kind((0, 1, P - 1, U32_MAX, 1 << 32, HALF, HALF + 1), _field)
U32 = Kind((0, 1, U32_MAX, 1 << 31, 1 << 32, P - 1), _u32, calm=_small_u32)
BOOL = Kind((0, 1), lambda rng: rng.randrange(2))
SHIFT = Kind(
    (0, 1, 31, 32, 33, 64, U32_MAX, P - 1),
    lambda rng: rng.randrange(32) if rng.random() < 0.85 else rng.choice([32, 40, 64, P - 1]),
    calm=lambda rng: rng.randrange(32),
)
POWER_OF_TWO = Kind(
    (1, 2, 1 << 31, U32_MAX, 0, P - 1),
    lambda rng: (1 << rng.randrange(32)) if rng.random() < 0.4 else _u32(rng),
    calm=lambda rng: (1 << rng.randrange(32)) if rng.random() < 0.4 else _small_u32(rng) or 1,
)


def count(bound: int, typical: int, full: bool = True) -> Kind:
    """A loop count `for _ in 0..n bounded <bound>`: mostly 0..typical, sometimes over.

    With `full` the bound itself is an edge value, and a rare draw when at most 1024
    (without, only the values just over the bound are tried).
    """

    def draw(rng: random.Random) -> int:
        choice = rng.random()
        if choice < 0.05:
            return bound + 1 + rng.randrange(3)
        if choice < 0.08:
            return rng.choice([P - 1, U32_MAX])
        if full and bound <= 1024 and choice < 0.11:
            return bound
        return rng.randrange(typical + 1)

    edges = (0, 1, *((bound,) if full else ()), bound + 1, P - 1, 2, U32_MAX)
    return Kind(edges, draw, calm=lambda rng: rng.randrange(typical + 1))


def pointer(alias: str | None = None) -> Kind:
    return Kind((), lambda rng: 0, pointer=True, alias=alias)


# --- per-module refinements ----------------------------------------------------------------------

ADDRESS = pointer()

KINDS: dict[str, dict[str, Kind]] = {
    "std.math.fibonacci": {
        "n": count(100000, 40),
        "bound": count(1024, 50),
        "fib256.n": count(256, 40),
        "fib1k.n": count(1024, 40),
    },
    "std.math.bits": {"k": SHIFT, "i": SHIFT, "is_power_of_two.x": POWER_OF_TWO},
    "std.math.poly": {
        "addr": ADDRESS,
        "a": ADDRESS,
        "b": ADDRESS,
        "out": ADDRESS,
        "n": count(256, 10),
        "derivative.n": count(257, 10),
        "na": count(256, 5),
        "nb": count(256, 5),
    },
    "std.nn.tensor": {
        **{name: ADDRESS for name in ("a_addr", "b_addr", "x_addr", "bias_addr", "vec_addr")},
        **{name: ADDRESS for name in ("mat_addr", "w_addr", "tmp_addr")},
        "out_addr": pointer(alias="x_addr"),
        "n": count(1024, 10),
        "argmax.n": count(1025, 12),
        "m": count(1024, 4),
        "matvec.n": count(1024, 4),
        "matmul.m": count(64, 3),
        "matmul.n": count(64, 3),
        "matmul.k": count(64, 3),
        "rows": count(1024, 4),
        "cols": count(1024, 4),
    },
    "std.crypto.digest": {"n": count(1024, 4)},
    "std.crypto.merkle": {"depth": count(64, 6)},
    "std.crypto.auth": {
        "keys_addr": ADDRESS,
        "count": count(16, 5),
        "threshold": count(16, 4),
    },
    "std.io.storage": {
        **{name: ADDRESS for name in ("key", "addr", "src", "dst")},
        "n": count(1024, 10),
    },
}


def kind_of(module: str, function: str, name: str, width: int, type_name: str) -> Kind | None:
    """The kind of one parameter, or None for a wide value (drawn word by word)."""
    table = KINDS.get(module, {})
    found = table.get(f"{function}.{name}") or table.get(name)
    if found is not None:
        return found
    if width != 1:
        return None
    return {"U32": U32, "Bool": BOOL}.get(type_name, FIELD)


# --- whole cases ---------------------------------------------------------------------------------


def lock_digest(words: tuple[int, ...]) -> tuple[int, ...]:
    """hash.tip5(words..., 0, ...) in stack layout, as the evaluator computes it."""
    padded = [(word,) for word in words] + [(0,)] * (10 - len(words))
    return BUILTIN_SEMANTICS["hash"](None, *padded)


def merkle_parent(node: int, digest: tuple[int, ...], sibling: tuple[int, ...]):
    """One `merkle_step` (vm.crypto.merkle.step), as the evaluator computes it."""
    current = list(reversed(digest))
    pair = current + list(sibling) if node % 2 == 0 else list(sibling) + current
    return node >> 1, tuple(reversed(tip5.hash10(pair)))


def _merkle_world(function: str, rng: random.Random, arguments: dict) -> dict:
    place = "position" if function == "verify_position" else "index"
    if not _takes(arguments, "depth", place):
        return {}
    depth = arguments["depth"][0]
    if depth > 64:
        return {}  # fails on the bound before anything else
    steps = depth
    digests = [tuple(rng.randrange(P) for _ in range(5)) for _ in range(steps)]
    if digests and rng.random() < 0.1:
        digests.pop()  # one sibling short: merkle_step fails
    if function == "verify_position":
        if depth < 32 and rng.random() < 0.85:
            arguments["position"] = (rng.randrange(1 << depth),)
        index = ((1 << depth) % P + arguments["position"][0]) % P
    else:
        if depth < 32 and rng.random() < 0.85:
            arguments["index"] = (rng.randrange(1 << depth, 1 << (depth + 1)),)
        index = arguments["index"][0]
    verifies = function in ("verify", "verify_position") and _takes(arguments, "leaf", "root")
    if verifies and rng.random() < 0.75 and index <= U32_MAX:
        node, digest = index, arguments["leaf"]
        for sibling in digests:
            node, digest = merkle_parent(node, digest, sibling)
        arguments["root"] = digest
    return {"digests": digests}


def _auth_world(function: str, rng: random.Random, arguments: dict) -> dict:
    if function in ("verify_preimage", "verify_preimage5") and _takes(arguments, "expected"):
        size = 1 if function == "verify_preimage" else 5
        secret = tuple(_field(rng) for _ in range(size))
        if rng.random() < 0.6:
            arguments["expected"] = lock_digest(secret)
        return {"secret": list(secret) if rng.random() < 0.9 else []}
    if function != "verify_threshold" or not _takes(arguments, "keys_addr", "count", "threshold"):
        return {}
    keys, count, threshold = (arguments[name][0] for name in ("keys_addr", "count", "threshold"))
    if threshold > count and rng.random() < 0.6:
        threshold = count  # more secrets than keys cannot pass
        arguments["threshold"] = (threshold,)
    stored = min(count, 16)
    secrets = [rng.randrange(P) for _ in range(stored)]
    if stored >= 2 and rng.random() < 0.2:
        secrets[rng.randrange(stored)] = secrets[rng.randrange(stored)]  # a repeated key
    ram = {}
    for k, secret in enumerate(secrets):
        for i, word in enumerate(lock_digest((secret,))):
            ram[(keys + 5 * k + 4 - i) % P] = word
    chosen = sorted(rng.sample(range(stored), min(stored, threshold))) if stored else []
    missing = max(0, min(threshold, 16) - stored)  # more secrets than keys: cannot all match
    divined = [secrets[k] for k in chosen] + [rng.randrange(P)] * missing
    roll = rng.random()
    if divined and roll < 0.15:
        divined[rng.randrange(len(divined))] = rng.randrange(P)  # a wrong secret
    elif len(divined) >= 2 and roll < 0.3:
        divined.reverse()  # keys used out of order
    elif roll < 0.35:
        divined = divined[:-1]  # the secret input runs out
    return {"secret": divined, "ram": ram}


def _fibonacci_world(function: str, rng: random.Random, arguments: dict) -> dict:
    if function == "is_consecutive" and _takes(arguments, "a", "b") and rng.random() < 0.5:
        a, b = 0, 1
        for _ in range(rng.randrange(60)):
            a, b = b, (a + b) % P
        arguments["a"], arguments["b"] = (a,), (b if rng.random() < 0.8 else (b + 1) % P,)
    return {}


def _digest_world(function: str, rng: random.Random, arguments: dict) -> dict:
    if function == "equal" and _takes(arguments, "a", "b") and rng.random() < 0.6:
        same = list(arguments["a"])
        if rng.random() < 0.4:
            same[rng.randrange(5)] = rng.randrange(P)
        arguments["b"] = tuple(same)
    return {}


def _takes(arguments: dict, *names: str) -> bool:
    """The function has these parameters: a world is written for a module's functions as
    they are here, and a module of the same name elsewhere (another library's) may differ."""
    return all(name in arguments for name in names)


WORLDS: dict[str, Callable[[str, random.Random, dict], dict]] = {
    "std.crypto.merkle": _merkle_world,
    "std.crypto.auth": _auth_world,
    "std.math.fibonacci": _fibonacci_world,
    "std.crypto.digest": _digest_world,
}


# --- drawing cases -------------------------------------------------------------------------------


@dataclass
class _Draw:
    module: str
    function: str
    params: list[tuple[str, int, str]]  # (name, width, type name)
    rng: random.Random
    kinds: dict[str, Kind | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, width, type_name in self.params:
            self.kinds[name] = kind_of(self.module, self.function, name, width, type_name)

    def edge_count(self, name: str) -> int:
        """How many edge values a parameter has: wide ones 2 (all 0, all p-1), pointers 1."""
        kind = self.kinds[name]
        if kind is None:
            return 2
        return 1 if kind.pointer else len(kind.edges)

    def case(self, edges: dict[str, int], equal: bool = False, calm: bool = False) -> Case:
        """A case whose parameters in `edges` take that edge value; the others are drawn
        (`calm`: in range, so that the edge value decides whether the case fails)."""
        rng, arguments, shared = self.rng, {}, {}
        regions = iter(rng.sample(range(1, 12), 11))
        for name, width, _ in self.params:
            kind, edge = self.kinds[name], edges.get(name)
            if kind is None:
                arguments[name] = _wide(rng, width, edge)
            elif kind.pointer:
                if kind.alias in arguments and rng.random() < 0.3:
                    arguments[name] = arguments[kind.alias]
                elif edge is not None:
                    arguments[name] = (P - 1 - rng.randrange(3),)  # wraps around p
                else:
                    arguments[name] = (next(regions) * REGION + rng.randrange(100),)
            else:
                value = kind.value(rng, edge, calm)
                arguments[name] = (shared.setdefault(kind, value) if equal else value,)
        world = WORLDS.get(self.module, lambda *_: {})(self.function, rng, arguments)
        ram = dict(world.get("ram", {}))
        for name, _, _ in self.params:
            kind = self.kinds[name]
            if kind is not None and kind.pointer:
                fill = _signed if self.module == "std.nn.tensor" else _field
                for offset in range(FILLED):
                    ram.setdefault((arguments[name][0] + offset) % P, fill(rng))
        return Case(
            tuple(arguments[name] for name, _, _ in self.params),
            tuple(world.get("secret", ())),
            tuple(world.get("digests", ())),
            tuple(sorted(ram.items())),
        )


def _wide(rng: random.Random, width: int, edge: int | None) -> tuple[int, ...]:
    if edge is not None:
        return (0 if edge % 2 == 0 else P - 1,) * width
    return tuple(_field(rng) for _ in range(width))


def cases(
    module: str,
    function: str,
    params: list[tuple[str, int, str]],
    count: int,
    seed: int = 0,
    edges: bool = True,
    calm: bool = False,
) -> list[Case]:
    """At least `count` cases for `module.function`; `params`: (name, width, type name).

    With `edges`, the first cases are: all parameters but pointers at their first edge
    value, all at their second; then each parameter in turn through every one of its edge
    values, the others drawn in range; then one case where parameters of the same kind
    are equal.  The rest are random (`calm`: in range, for measuring costs rather than
    failures).  The same seed gives the same cases.
    """
    rng = random.Random(f"{module}.{function}:{seed}")
    draw = _Draw(module, function, params, rng)
    result: list[Case] = []
    if edges:
        names = [name for name, _, _ in params]
        values = [name for name in names if not getattr(draw.kinds[name], "pointer", False)]
        result.extend(draw.case(dict.fromkeys(values, index)) for index in (0, 1))
        for name in names:
            sweep = range(draw.edge_count(name))
            result.extend(draw.case({name: index}, calm=True) for index in sweep)
        result.append(draw.case({}, equal=True))
    while len(result) < count:
        result.append(draw.case({}, equal=rng.random() < 0.1, calm=calm))
    return result
