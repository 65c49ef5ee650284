"""Which u32-table entries straight-line code records, as terms over its entry stack.

The u32 table (docs/vm.md, How tables are counted) holds one entry per distinct
(kind, operand, operand) that any u32 instruction of a run records, however often it
is recorded: `pop_count` of x records ("popcount", x, 0), `xor` of a and b ("and", a,
b), `div_mod` of n by d ("lt", n mod d, d) and ("split", n, n div d), and so on
(vm.handlers.core).  Code that
is cheaper by every static figure can still make the table taller: `dup 0 pop_count
pop 1` and `push 0 xor` both check that the top is a u32, but where the program also
takes `pop_count` of the same value elsewhere, the first adds nothing to the table and
the second adds ("and", 0, x), a new entry per value x.

Input: two instruction sequences, `(mnemonic, argument)` pairs or objects with `name`
and `arg`, equal in effect (the caller proves that).  Output:
`covered(candidate, baseline)`: whether every entry the candidate records is one the
baseline records on the same entry stack.  Then, on every run that completes, a
program using the candidate in place of the baseline records a subset of the entries
(the table is a set: each block execution adds a subset of what the baseline added
there), so the u32 table is no taller, whatever the input.

How: each sequence runs once on a stack of terms.  A term names a value by how it is
computed: an entry word `st_k`, a constant, or an instruction with its operands' terms
(commutative operands in a fixed order; `addi c` is `add` of `c`).  A stateful effect's
results (input, RAM, sponge) also name the effect before them, so two reads are one
term only if everything stateful before them is.  Equal terms are equal values on
every input; different terms may still be equal values, so `covered` may say no where
the table would not grow (conservative, never wrong).  At the first control-flow
instruction the trace stops: what follows must record nothing, or be the same code as
the baseline's, run from the same terms.  Code that both sequences begin with, up to a
control-flow instruction (the code before a block that the peephole sees with it, a
`call` or a `skiz`), is left out: both run it alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.blocks.dag import _canonical, _chained, _move, _touched
from vm.field import P
from vm.isa import BY_NAME, MOVES, Flow

# a constant c with x op c = c op x = x for every x the instruction takes
NEUTRAL = {"add": (0,), "mul": (1,), "xor": (0,)}


class Terms:
    """Interned terms: each distinct term gets one integer, shared by the sequences
    compared."""

    def __init__(self):
        self.ids: dict[tuple, int] = {}

    def __call__(self, *term) -> int:
        return self.ids.setdefault(term, len(self.ids))


@dataclass
class Trace:
    entries: set  # (kind, term, term) per u32-table entry recorded
    stack: list  # terms, bottom first, of the words above the untouched entry words
    touched: int  # entry words reached below the stack
    effects: int  # the term of the last stateful effect (or of none)
    rest: tuple  # the instructions from the first control-flow one on


def _pair(item) -> tuple:
    if isinstance(item, tuple):
        return item
    return item.name, item.arg


def trace(instructions, terms: Terms) -> Trace:
    """Run `instructions` on a stack of terms up to the first control-flow instruction."""
    pairs = [_pair(item) for item in instructions]
    stack: list[int] = []
    state = {"touched": 0}
    entries: set = set()
    effects = terms("no effect")

    def need(count: int) -> None:
        while len(stack) < count:  # the word below the stack is entry st_touched
            stack.insert(0, terms("entry", state["touched"]))
            state["touched"] += 1

    for position, (name, argument) in enumerate(pairs):
        row = BY_NAME[name]
        if row.flow is not Flow.STRAIGHT:
            return Trace(entries, stack, state["touched"], effects, tuple(pairs[position:]))
        if name in MOVES:
            need(0 if name == "nop" else argument + (name != "pop"))
            _move(stack, name, argument)
            continue
        if name == "push":
            stack.append(terms("constant", argument % P))
            continue
        taken, left = _touched(name, argument)
        need(taken)
        operands = tuple(reversed(stack[len(stack) - taken :])) if taken else ()
        del stack[len(stack) - taken :]
        if _chained(name, argument):
            outputs = tuple(
                terms("effect", name, argument, operands, effects, index) for index in range(left)
            )
            effects = terms("after", name, argument, operands, effects)
        else:
            outputs = _pure(terms, name, argument, operands, left)
        entries.update(_entries(terms, name, argument, operands, outputs))
        stack.extend(reversed(outputs))
    return Trace(entries, stack, state["touched"], effects, ())


def _pure(terms: Terms, name: str, argument, operands: tuple, count: int) -> tuple:
    """The terms of a pure instruction's results, st0 first."""
    if name == "addi":  # x + c, as `push c add` names it
        name, operands = "add", (*operands, terms("constant", argument % P))
        argument = None
    if count == 1 and len(operands) == 2:  # x xor 0 = x + 0 = x * 1 = x (when it runs)
        for identity in NEUTRAL.get(name, ()):
            constant = terms("constant", identity)
            if constant in operands:
                other = operands[1] if operands[0] == constant else operands[0]
                return (other,)
    return tuple(
        terms("value", name, argument, _canonical(name, operands), index) for index in range(count)
    )


def _entries(terms: Terms, name: str, argument, operands: tuple, outputs: tuple) -> list:
    """The entries one execution records (vm.handlers.core), as terms."""
    if not BY_NAME[name].u32:
        return []
    zero = terms("constant", 0)
    match name:
        case "lt" | "and" | "pow":
            return [(name, operands[0], operands[1])]
        case "xor":
            return [("and", operands[0], operands[1])]
        case "log_2_floor":
            return [("log2", operands[0], zero)]
        case "pop_count":
            return [("popcount", operands[0], zero)]
        case "split":  # st0 = low, st1 = high
            return [("split", outputs[0], outputs[1])]
        case "div_mod":  # st0 = remainder, st1 = quotient; st0 was the numerator
            return [("lt", outputs[0], operands[1]), ("split", operands[0], outputs[1])]
    # any other instruction that records entries: named by itself and its operands
    return [("use", name, argument, operands)]


def records_entries(instructions) -> bool:
    """Whether any instruction of `instructions` records u32-table entries."""
    return any(BY_NAME[_pair(item)[0]].u32 for item in instructions)


def common_start(first: list, second: list) -> int:
    """Where two sequences that begin alike can be compared from a fresh stack of terms:
    the end of their longest common prefix, moved back to just after a control-flow
    instruction in it (and the instruction a `skiz` guards), else 0.  Up to there both
    ran the same code from the same state, so they recorded the same entries and are in
    the same state; instructions after a control-flow one cannot be traced from before
    it (a call changes the stack, a `skiz` may skip)."""
    length = 0
    while length < min(len(first), len(second)) and first[length] == second[length]:
        length += 1
    for end in range(length, 0, -1):
        name = first[end - 1][0]
        if name == "skiz":
            continue
        if BY_NAME[name].flow is not Flow.STRAIGHT or (end >= 2 and first[end - 2][0] == "skiz"):
            return end
    return 0


def covered(candidate, baseline) -> bool:
    """Whether every u32-table entry `candidate` records is one `baseline` records from
    the same entry state (see the module docstring)."""
    mine_pairs = [_pair(item) for item in candidate]
    theirs_pairs = [_pair(item) for item in baseline]
    start = common_start(mine_pairs, theirs_pairs)
    mine_pairs, theirs_pairs = mine_pairs[start:], theirs_pairs[start:]
    if not records_entries(mine_pairs):
        return True
    terms = Terms()
    mine, theirs = trace(mine_pairs, terms), trace(theirs_pairs, terms)
    if not mine.entries <= theirs.entries:
        return False
    if not records_entries(mine.rest):
        return True
    same_state = (mine.stack, mine.touched, mine.effects) == (
        theirs.stack,
        theirs.touched,
        theirs.effects,
    )
    return same_state and mine.rest == theirs.rest
