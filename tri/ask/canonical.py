"""The canonical form of a question: a small expression language with exact meaning.

Input: the text of a canonical expression (`parse`), or one a normalizer (tri.ask.rules)
builds.  Output: a tree of `Number`, `Negate`, `Binary`, `Reduce` and `Compare`; its exact
value (`evaluate`, Python integers); its canonical text (`render`); and the program in the
language that computes it (tri.ask.program).

The language (`GRAMMAR`): integer literals, `+ - * / %`, unary `-`, parentheses, the range
reductions `sum(a..=b)`, `product(a..=b)`, `count(a..=b)` (how many integers) and
`last(a..=b)` (where counting from a to b ends), and one comparison at the top
(`< > <= >= == !=`, true = 1, false = 0).  A range holds the integers between its ends in
either direction, both included.

The meaning is exact or refused (`Refused`, with the reason), never wrapped or truncated:

* every value, the intermediate ones included, must lie in the range the field represents
  faithfully as a signed integer, |v| <= (p - 1) / 2 (`LIMIT`);
* `a / b` only when b divides a exactly; `/` and `%` by zero are refused;
* `a % b` only for 0 <= a, 0 < b < 2^32 (the VM's u32 division);
* a comparison's two sides must lie within +-2^31 (compared as u32 after an offset);
* a range may hold at most `LONGEST_RANGE` integers (its program runs a loop that long).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from lark import Lark, Transformer
from lark.exceptions import LarkError

P = 2**64 - 2**32 + 1
LIMIT = (P - 1) // 2  # the largest magnitude a field element stands for as a signed integer
COMPARE_LIMIT = 2**31  # a comparison's sides are compared as u32 after adding this
U32 = 2**32
LONGEST_RANGE = 10**7  # integers in one range: its loop's iterations

GRAMMAR = r"""
?start: comparison
?comparison: sum
           | sum COMPARATOR sum          -> compare
?sum: product
    | sum ADDITIVE product               -> binary
?product: unary
        | product MULTIPLICATIVE unary   -> binary
?unary: atom
      | "-" unary                        -> negate
?atom: INT                               -> number
     | "(" sum ")"
     | REDUCTION "(" sum "..=" sum ")"   -> reduce
COMPARATOR: "<=" | ">=" | "==" | "!=" | "<" | ">"
ADDITIVE: "+" | "-"
MULTIPLICATIVE: "*" | "/" | "%"
REDUCTION: "sum" | "product" | "count" | "last"
INT: /[0-9]+/
%ignore /\s+/
"""


class Refused(Exception):
    """The question has no exact answer in the canonical form: the reason, for the user."""


@dataclass(frozen=True)
class Number:
    value: int  # >= 0; a negative number is a Negate


@dataclass(frozen=True)
class Negate:
    operand: object


@dataclass(frozen=True)
class Binary:
    operator: str  # + - * / %
    left: object
    right: object


@dataclass(frozen=True)
class Reduce:
    kind: str  # sum, product, count, last
    first: object
    last: object


@dataclass(frozen=True)
class Compare:
    operator: str  # < > <= >= == !=
    left: object
    right: object


class _Build(Transformer):
    def number(self, children):
        return Number(int(children[0]))

    def negate(self, children):
        return Negate(children[0])

    def binary(self, children):
        left, operator, right = children
        return Binary(str(operator), left, right)

    def reduce(self, children):
        kind, first, last = children
        return Reduce(str(kind), first, last)

    def compare(self, children):
        left, operator, right = children
        return Compare(str(operator), left, right)


@cache
def _parser() -> Lark:
    return Lark(GRAMMAR, parser="lalr")


def parse(text: str):
    """The tree of a canonical expression; `Refused` if the text is not one."""
    try:
        return _Build().transform(_parser().parse(text))
    except (LarkError, ValueError):
        raise Refused(f"not a canonical expression: {text.strip()!r}") from None


PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "%": 2}


def render(node, context: int = 0) -> str:
    """The canonical text of `node`: operators spaced, parentheses only where needed."""
    match node:
        case Number(value):
            return str(value)
        case Negate(operand):
            return f"-{render(operand, 3)}"
        case Binary(operator, left, right):
            mine = PRECEDENCE[operator]
            text = f"{render(left, mine)} {operator} {render(right, mine + 1)}"
            return f"({text})" if mine < context else text
        case Reduce(kind, first, last):
            return f"{kind}({render(first)}..={render(last)})"
        case Compare(operator, left, right):
            return f"{render(left)} {operator} {render(right)}"
    raise TypeError(f"not a canonical node: {node!r}")


def _checked(value: int, what: str) -> int:
    if abs(value) > LIMIT:
        raise Refused(
            f"{what} is {value}, beyond what a field element stands for exactly "
            f"(magnitude at most {LIMIT})"
        )
    return value


def span(first: int, last: int) -> range:
    """The integers between `first` and `last`, both included, from `first`."""
    step = 1 if last >= first else -1
    if abs(last - first) + 1 > LONGEST_RANGE:
        raise Refused(f"the range {first}..={last} holds more than {LONGEST_RANGE:,} integers")
    return range(first, last + step, step)


def evaluate(node) -> int:
    """The exact value of `node` (a comparison: 1 or 0), or `Refused`."""
    match node:
        case Number(value):
            return _checked(value, "a number")
        case Negate(operand):
            return -evaluate(operand)
        case Binary(operator, left, right):
            a, b = evaluate(left), evaluate(right)
            return _checked(_apply(operator, a, b), f"{render(node)}")
        case Reduce(kind, first, last):
            return _reduce(kind, evaluate(first), evaluate(last))
        case Compare(operator, left, right):
            a, b = evaluate(left), evaluate(right)
            for side in (a, b):
                if not -COMPARE_LIMIT < side < COMPARE_LIMIT:
                    raise Refused(f"a comparison of {side}: only numbers within +-2^31 compare")
            return int(_COMPARISONS[operator](a, b))
    raise TypeError(f"not a canonical node: {node!r}")


_COMPARISONS = {
    "<": lambda a, b: a < b,
    ">": lambda a, b: a > b,
    "<=": lambda a, b: a <= b,
    ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}


def _apply(operator: str, a: int, b: int) -> int:
    match operator:
        case "+":
            return a + b
        case "-":
            return a - b
        case "*":
            return a * b
        case "/":
            if b == 0:
                raise Refused("division by zero")
            if a % b:
                raise Refused(f"{a} / {b} is not a whole number; division must be exact")
            return a // b
        case "%":
            if b == 0:
                raise Refused("remainder of a division by zero")
            if not (0 <= a < U32 and 0 < b < U32):
                raise Refused(f"a remainder {a} % {b}: only of numbers from 0 to 2^32 - 1")
            return a % b
    raise ValueError(operator)


def _reduce(kind: str, first: int, last: int) -> int:
    numbers = span(first, last)
    if kind == "count":
        return len(numbers)
    if kind == "last":
        return last
    if kind == "sum":
        return _checked((first + last) * len(numbers) // 2, f"sum({first}..={last})")
    total = 1
    for number in numbers:
        total = _checked(total * number, f"product({first}..={last})")
    return total


def signed(word: int) -> int:
    """A field element read as the signed integer it stands for."""
    return word - P if word > LIMIT else word
