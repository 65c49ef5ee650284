"""Terms of the symbolic execution: words and conditions as small trees, folded when known.

A *word* is an `int` (a known field element, 0 .. p - 1) or a tuple `(operator, ...)`;
a *condition* is a Python `bool` or a tuple whose operator is one of `CONDITIONS`.  The
constructors below fold constants and a few identities, so that a function whose inputs
are known runs to known values, and loops over known bounds leave no trace.  Trees are
plain tuples, compared by identity (`same`), and compiler.audit.solvers translates them.

Word operators: `("input", name)` (a parameter's word or a word read: 0 .. p - 1, or
below 2^32 where `u32` says so), `("add", a, b)`, `("mul", a, b)` (mod p), `("ite",
condition, a, b)`, `("quotient", a, b)` and `("remainder", a, b)` (u32 division),
`("and", a, b)`, `("xor", a, b)` (u32 bitwise), `("high", a)`, `("low", a)` (`split`),
`("inverse", a)`, `("log2", a)`, `("popcount", a)`, `("pow", a, b)`, `("hash", k, words)`
(the k-th word of a Tip5 digest, an uninterpreted function of its ten words).
Memory (RAM, a term of its own sort): `("memory",)` (the RAM the call starts with: any
word at every address), `("store", memory, address, word)`, and `("mite", condition,
memory, memory)`; a read is the word `("select", memory, address)`.
Condition operators: `("eq", a, b)`, `("lt", a, b)` (as integers), `("not", c)`,
`("and_all", cs)`, `("or_any", cs)`, `("runs", first, k, end)` (first + k < end as
integers: a loop's k-th iteration runs), `("differ", memory, memory)`.
"""

from __future__ import annotations

from vm.field import P

U32_LIMIT = 1 << 32
CONDITIONS = frozenset({"eq", "lt", "not", "and_all", "or_any"})
FIELD_OPERATORS = frozenset({"input", "add", "mul", "ite", "inverse", "hash"})  # no u32 order


def same(a, b) -> bool:
    """Certainly the same word: equal numbers, or one term (trees are compared by identity,
    never element by element, since a long loop's terms are deep)."""
    return a is b or (isinstance(a, int) and isinstance(b, int) and a == b)


def add(a, b):
    if isinstance(a, int) and isinstance(b, int):
        return (a + b) % P
    if a == 0:
        return b
    if b == 0:
        return a
    return ("add", a, b)


def mul(a, b):
    if isinstance(a, int) and isinstance(b, int):
        return a * b % P
    if a == 0 or b == 0:
        return 0
    if a == 1:
        return b
    if b == 1:
        return a
    return ("mul", a, b)


def neg(a):
    return mul(P - 1, a)


def sub(a, b):
    return add(a, neg(b))


def ite(condition, a, b):
    if condition is True:
        return a
    if condition is False:
        return b
    if same(a, b):
        return a
    return ("ite", condition, a, b)


def equal(a, b):
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    if same(a, b):
        return True
    return ("eq", a, b)


def less(a, b):
    """a < b as integers (both known to be below 2^32 where it is used)."""
    if isinstance(a, int) and isinstance(b, int):
        return a < b
    if same(a, b):
        return False
    return ("lt", a, b)


def negate(condition):
    if isinstance(condition, bool):
        return not condition
    if condition[0] == "not":
        return condition[1]
    return ("not", condition)


def conjunction(*conditions):
    parts = []
    for condition in conditions:
        if condition is False:
            return False
        if condition is True:
            continue
        parts.extend(condition[1] if condition[0] == "and_all" else [condition])
    if not parts:
        return True
    return parts[0] if len(parts) == 1 else ("and_all", tuple(parts))


def disjunction(*conditions):
    parts = []
    for condition in conditions:
        if condition is True:
            return True
        if condition is False:
            continue
        parts.extend(condition[1] if condition[0] == "or_any" else [condition])
    if not parts:
        return False
    return parts[0] if len(parts) == 1 else ("or_any", tuple(parts))


def as_condition(word):
    """A word used as a condition: true where it is not 0."""
    if isinstance(word, int):
        return word != 0
    if word[0] == "ite" and word[2] == 1 and word[3] == 0:
        return word[1]
    return negate(("eq", word, 0))


def as_word(condition):
    """A condition as a word: 1 or 0."""
    if isinstance(condition, bool):
        return int(condition)
    return ("ite", condition, 1, 0)


def u32_function(operator: str, a, b=None):
    """A u32 operation: folded when its operands are known."""
    if isinstance(a, int) and (b is None or isinstance(b, int)):
        match operator:
            case "quotient":
                return a // b if b else 0
            case "remainder":
                return a % b if b else 0
            case "and":
                return a & b
            case "xor":
                return a ^ b
            case "high":
                return a >> 32
            case "low":
                return a & (U32_LIMIT - 1)
            case "log2":
                return max(a.bit_length() - 1, 0)
            case "popcount":
                return a.bit_count()
            case "pow":
                return pow(a, b, P)
    if operator == "xor" and (same(a, b) or 0 in (a, b)):  # x ^ x = 0, x ^ 0 = x
        return 0 if same(a, b) else (b if a == 0 else a)
    if operator == "and" and same(a, b):
        return a
    if operator == "pow" and isinstance(b, int) and b <= 64:
        result = 1
        for _ in range(b):
            result = mul(result, a)
        return result
    return (operator, a) if b is None else (operator, a, b)


INITIAL_MEMORY = ("memory",)
LOOK_THROUGH = 64  # writes a read looks through (the solver takes the rest)


def store(memory, address, word, condition=True):
    """The memory after writing `word` at `address` where `condition` holds."""
    written = ("store", memory, address, word)
    return written if condition is True else ("mite", condition, written, memory)


def select(memory, address):
    """The word at `address`: a write to the same (known) address gives it; one to another
    known address is looked through."""
    for _ in range(LOOK_THROUGH):
        if memory[0] == "store" and same(memory[2], address):
            return memory[3]
        if memory[0] != "store" or not (isinstance(memory[2], int) and isinstance(address, int)):
            break
        memory = memory[1]
    return ("select", memory, address)


def operators(term, seen=None) -> set[str]:
    """Every operator in a term (iterative: terms may be deep)."""
    found, stack, seen = set(), [term], set() if seen is None else seen
    while stack:
        node = stack.pop()
        if not isinstance(node, tuple) or id(node) in seen:
            continue
        seen.add(id(node))
        parts = node  # a tuple of terms (the conditions of `and_all`, a hash's words)
        if isinstance(node[0], str):
            found.add(node[0])
            parts = node[1:]
        for part in parts:
            if isinstance(part, tuple):
                stack.append(part)
    return found
