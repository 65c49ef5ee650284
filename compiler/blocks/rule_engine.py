"""The peephole engine: apply (pattern, replacement) rules to instruction runs to a fixpoint.

A rule is data (compiler.optimize.rules): a pattern such as
`push {a}; push {b}; add`, a replacement such as `push {a + b}`, an optional
condition over the bound arguments (`{a + b} <= 5` is written `a + b <= 5`)
and a one-line comment.  Arguments in braces are variables (bound by the
first occurrence, equal at later ones) or, in replacements, expressions over
them and `P`; literal arguments must match exactly.  Field arguments
(`push`, `addi`, `Push`, `AddI`) are reduced mod p.

`rewrite(items, rules)` works on one straight-line run of `(name, arg)`
pairs; the callers (compiler.optimize.passes) cut code into such runs.  A pair
may be an `Item`, which also carries its instruction's source origin
(compiler.sourcemap): each pair a rewrite produces takes the origin of the
first matched pair with the same name, else the first origin of the match
(`inherit`), so a failing instruction keeps pointing at its construct.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from compiler.tir.ops import OPS
from vm.field import P
from vm.isa import FIELD_ARGUMENT

# TASM instructions and TIR ops whose argument is a field element.
FIELD_ARGUMENTS = FIELD_ARGUMENT | {name for name, row in OPS.items() if row.arg == "value"}


@dataclass(frozen=True)
class Rule:
    pattern: str
    replacement: str
    comment: str
    when: str | None = None

    @cached_property
    def parsed_pattern(self) -> tuple:
        return _parse(self.pattern)

    @cached_property
    def parsed_replacement(self) -> tuple:
        return _parse(self.replacement)

    def __str__(self) -> str:
        condition = f"  if {self.when}" if self.when else ""
        return f"{self.pattern} -> {self.replacement or '(nothing)'}{condition}"


class Item(tuple):
    """A `(name, arg)` pair with the source origin of its instruction; it matches and
    compares as the plain pair."""

    def __new__(cls, name, arg, origin=None):
        item = tuple.__new__(cls, (name, arg))
        item.origin = origin
        return item


def origin_of(pair):
    return getattr(pair, "origin", None)


def inherit(produced: list, matched) -> list:
    """`produced` (the pairs a rewrite gives for the pairs `matched`) with origins: each
    that of the first matched pair with its name, else the first matched origin."""
    by_name: dict = {}
    first = None
    for pair in matched:
        origin = origin_of(pair)
        if origin is not None:
            by_name.setdefault(pair[0], origin)
            first = first or origin
    if first is None:
        return produced
    return [Item(name, arg, by_name.get(name, first)) for name, arg in produced]


def _parse(text: str) -> tuple:
    """`push {a}; pop 1` -> (("push", "a"), ("pop", 1)); a brace argument stays a string."""
    result = []
    for part in filter(None, (p.strip() for p in text.split(";"))):
        name, _, argument = part.partition(" ")
        argument = argument.strip()
        if not argument:
            result.append((name, None))
        elif argument.startswith("{"):
            result.append((name, argument[1:-1].strip()))
        else:
            value = int(argument)
            result.append((name, value % P if name in FIELD_ARGUMENTS else value))
    return tuple(result)


def _evaluate(expression: str, bindings: dict) -> int:
    return eval(expression, {"__builtins__": {}, "P": P}, dict(bindings))  # noqa: S307


def match(rule: Rule, items: list, start: int) -> dict | None:
    """The bindings if `rule`'s pattern matches `items` at `start`, else None."""
    pattern = rule.parsed_pattern
    if start + len(pattern) > len(items):
        return None
    bindings: dict = {}
    window = items[start : start + len(pattern)]  # not items[start:]: a copy of the rest
    for (name, argument), (item_name, item_argument) in zip(pattern, window):
        if name != item_name:
            return None
        if argument is None or isinstance(argument, int):
            if item_argument != argument:
                return None
        elif not isinstance(item_argument, int):
            return None
        elif argument.isidentifier():
            if bindings.setdefault(argument, item_argument) != item_argument:
                return None
        elif _evaluate(argument, bindings) != item_argument:
            return None
    if rule.when is not None and not _evaluate(rule.when, bindings):
        return None
    return bindings


def replacement(rule: Rule, bindings: dict) -> list[tuple]:
    result = []
    for name, argument in rule.parsed_replacement:
        if isinstance(argument, str):
            argument = _evaluate(argument, bindings)
            if name in FIELD_ARGUMENTS:
                argument %= P
        result.append((name, argument))
    return result


_INDEXES: dict[int, tuple] = {}  # id of a rule tuple -> (the tuple, its rules by first name)


def _by_first_name(rules) -> dict[str, list[Rule]]:
    """The rules whose pattern starts with each instruction name, in their order.

    Only rules starting with an item's name can match there, so trying just those, in
    the table's order, picks the same rule as trying all.  Kept per tuple of rules.
    """
    known = _INDEXES.get(id(rules))
    if known is not None and known[0] is rules:
        return known[1]
    index: dict[str, list[Rule]] = {}
    for rule in rules:
        index.setdefault(rule.parsed_pattern[0][0], []).append(rule)
    if isinstance(rules, tuple):
        _INDEXES[id(rules)] = (rules, index)
    return index


def rewrite(items: list[tuple], rules) -> tuple[list[tuple], int]:
    """Apply `rules` to a run of (name, arg) pairs until none applies; (result, rewrites)."""
    items = list(items)
    count = 0
    longest = max((len(rule.parsed_pattern) for rule in rules), default=1)
    index = _by_first_name(rules)
    position = 0
    while position < len(items):
        for rule in index.get(items[position][0], ()):
            bindings = match(rule, items, position)
            if bindings is not None:
                length = len(rule.parsed_pattern)
                matched = items[position : position + length]
                items[position : position + length] = inherit(replacement(rule, bindings), matched)
                count += 1
                position = max(0, position - longest)
                break
        else:
            position += 1
    return items, count
