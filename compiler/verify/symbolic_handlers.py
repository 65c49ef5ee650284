"""The symbolic meaning of each straight-line instruction (as vm.handlers executes it).

Input: the symbolic machine `compiler.verify.symbolic.State` and the
instruction's argument.  Output: none; a handler updates the state -- the
stack, guards, reads, writes, output, sponge and permutations -- the way the
matching handler in vm/handlers updates the concrete machine.  `HANDLERS` has
one entry per instruction without control flow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from compiler.verify import guards, moves
from compiler.verify.functions import TIP5_ONES, apply, leaf
from compiler.verify.terms import Expression, Poly, TermTable
from vm import xfield
from vm.isa import Failure

if TYPE_CHECKING:
    from compiler.verify.symbolic import State


# --- handlers: one per instruction, (state, argument) -> None --------------------------------


def _divine(state: State, count):
    for _ in range(count):
        state.push(leaf(state.table, "secret", state.reads["secret"]))
        state.reads["secret"] += 1


def _pick(state: State, index):
    state.ensure(index + 1)
    state.push(state.stack.pop(-1 - index))


def _place(state: State, index):
    value = state.pop()
    state.ensure(index)
    state.stack.insert(len(state.stack) - index, value)


def _assert(state: State, argument):
    table = state.table
    state.require(guards.zero(table, table.sub(state.peek(0), table.one)), Failure.ASSERTION_FAILED)
    state.pop()


def _read_mem(state: State, count):
    table = state.table
    pointer = state.pop()
    for offset in range(count):
        state.push(state.read(table.add_constant(pointer, -offset)))
    state.push(table.add_constant(pointer, -count))


def _write_mem(state: State, count):
    table = state.table
    pointer = state.pop()
    for offset in range(count):
        state.writes.append((table.add_constant(pointer, offset), state.pop()))
    state.push(table.add_constant(pointer, count))


def _hash(state: State, argument):
    words = [state.pop() for _ in range(10)]
    digest = state.permute(words + [state.table.one] * len(TIP5_ONES))[:5]
    for value in reversed(digest):
        state.push(value)


def _assert_vector(state: State, argument):
    table = state.table
    for index in range(5):
        difference = table.sub(state.peek(index), state.peek(index + 5))
        state.require(guards.zero(table, difference), Failure.VECTOR_ASSERTION_FAILED)
    moves.pop(state, 5)


def _sponge_init(state: State, argument):
    state.sponge = tuple(state.table.zero for _ in range(16))


def _sponge_absorb(state: State, argument):
    sponge = state.require_sponge()
    words = [state.pop() for _ in range(10)]
    state.sponge = tuple(state.permute(words + list(sponge[10:])))


def _sponge_absorb_mem(state: State, argument):
    table = state.table
    sponge = state.require_sponge()
    pointer = state.pop()
    words = [state.read(table.add_constant(pointer, offset)) for offset in range(10)]
    for index in range(4):
        state.put(index, words[index])
    state.push(table.add_constant(pointer, 10))
    state.sponge = tuple(state.permute(words + list(sponge[10:])))


def _sponge_squeeze(state: State, argument):
    sponge = state.require_sponge()
    for value in reversed(sponge[:10]):
        state.push(value)
    state.sponge = tuple(state.permute(list(sponge)))


def _add(state: State, argument):
    top = state.pop()
    state.put(0, state.table.add(state.peek(0), top))


def _addi(state: State, argument):
    state.put(0, state.table.add(state.peek(0), state.constant(argument)))


def _mul(state: State, argument):
    top = state.pop()
    state.put(0, state.table.mul(state.peek(0), top))


def _invert(state: State, argument):
    value = state.peek(0)
    state.require(guards.nonzero(state.table, value), Failure.INVERSE_OF_ZERO)
    state.put(0, apply(state.table, "inverse", (), (value,)))


def _eq(state: State, argument):
    table = state.table
    top = state.pop()
    state.put(0, apply(table, "is_zero", (), (table.sub(state.peek(0), top),)))


def _split(state: State, argument):
    value = state.peek(0)
    state.put(0, apply(state.table, "split_high", (), (value,)))
    state.push(apply(state.table, "split_low", (), (value,)))


def _require_u32(state: State, index: int) -> Poly:
    value = state.peek(index)
    state.require(guards.u32(state.table, value), Failure.FAILED_U32_CONVERSION)
    return value


def _binary_u32(kind: str):
    def handler(state: State, argument):
        top, below = _require_u32(state, 0), _require_u32(state, 1)
        state.pop()
        state.put(0, apply(state.table, kind, (), (top, below)))

    return handler


def _log_2_floor(state: State, argument):
    value = _require_u32(state, 0)
    state.require(guards.nonzero(state.table, value), Failure.LOGARITHM_OF_ZERO)
    state.put(0, apply(state.table, "log2", (), (value,)))


def _pow(state: State, argument):
    base, exponent = state.peek(0), _require_u32(state, 1)
    state.pop()
    state.put(0, apply(state.table, "power", (), (base, exponent)))


def _div_mod(state: State, argument):
    numerator, denominator = _require_u32(state, 0), _require_u32(state, 1)
    state.require(guards.nonzero(state.table, denominator), Failure.DIVISION_BY_ZERO)
    state.put(1, apply(state.table, "quotient", (), (numerator, denominator)))
    state.put(0, apply(state.table, "remainder", (), (numerator, denominator)))


def _pop_count(state: State, argument):
    state.put(0, apply(state.table, "pop_count", (), (_require_u32(state, 0),)))


def _xx_binary(combine):
    def handler(state: State, argument):
        result = combine(state.top_xfield(0), state.top_xfield(3))
        moves.pop(state, 6)
        for value in reversed(result):
            state.push(value.poly)

    return handler


def _x_invert(state: State, argument):
    table = state.table
    element = tuple(state.peek(k) for k in range(3))
    state.require(guards.nonzero_x(table, element), Failure.INVERSE_OF_ZERO)
    for k in range(3):
        state.put(k, apply(table, "x_inverse", (k,), element))


def _xb_mul(state: State, argument):
    scalar = Expression(state.table, state.pop())
    state.put_xfield(0, xfield.scalar_mul(scalar, state.top_xfield(0)))


def _read_io(state: State, count):
    for _ in range(count):
        state.push(leaf(state.table, "public", state.reads["public"]))
        state.reads["public"] += 1


def _write_io(state: State, count):
    for _ in range(count):
        state.output.append(state.pop())


def _merkle(from_memory: bool):
    def handler(state: State, argument):
        table = state.table
        node_index = _require_u32(state, 5)
        if from_memory:
            pointer = state.peek(7)
            sibling = [state.read(table.add_constant(pointer, k)) for k in range(5)]
            state.put(7, table.add_constant(pointer, 5))
        else:
            digest = state.reads["digest"]
            state.reads["digest"] += 1
            sibling = [leaf(table, "digest", digest, k) for k in range(5)]
        current = [state.peek(k) for k in range(5)]
        arguments = (node_index, *current, *sibling)
        state.permutations.append(permutation_key(table, ("merkle", *arguments)))
        for k in range(5):
            state.put(k, apply(table, "merkle", (k,), arguments))
        state.put(5, apply(table, "half", (), (node_index,)))

    return handler


def _xx_dot_step(state: State, argument):
    table = state.table
    left, right = state.peek(0), state.peek(1)
    product = xfield.mul(state.read_xfield(left), state.read_xfield(right))
    state.put_xfield(2, xfield.add(state.top_xfield(2), product))
    state.put(1, table.add_constant(right, 3))
    state.put(0, table.add_constant(left, 3))


def _xb_dot_step(state: State, argument):
    table = state.table
    left, right = state.peek(0), state.peek(1)
    scalar = Expression(table, state.read(left))
    product = xfield.scalar_mul(scalar, state.read_xfield(right))
    state.put_xfield(2, xfield.add(state.top_xfield(2), product))
    state.put(1, table.add_constant(right, 3))
    state.put(0, table.add_constant(left, 1))


def _horner(coefficients: int):
    def handler(state: State, argument):
        table = state.table
        pointer = state.peek(5)
        read = [
            Expression(table, state.read(table.add_constant(pointer, -k)))
            for k in range(coefficients)
        ]
        zero = Expression(table, table.zero)
        addend = (read[0], zero, zero) if coefficients == 1 else (read[2], read[1], read[0])
        product = xfield.mul(state.top_xfield(7), state.top_xfield(0))
        state.put_xfield(7, xfield.add(product, addend))
        state.put(5, table.add_constant(pointer, -coefficients))

    return handler


HANDLERS = {
    "push": moves.push,
    "pop": moves.pop,
    "divine": _divine,
    "pick": _pick,
    "place": _place,
    "dup": moves.dup,
    "swap": moves.swap,
    "halt": moves.halt,
    "nop": moves.nop,
    "assert": _assert,
    "read_mem": _read_mem,
    "write_mem": _write_mem,
    "hash": _hash,
    "assert_vector": _assert_vector,
    "sponge_init": _sponge_init,
    "sponge_absorb": _sponge_absorb,
    "sponge_absorb_mem": _sponge_absorb_mem,
    "sponge_squeeze": _sponge_squeeze,
    "add": _add,
    "addi": _addi,
    "mul": _mul,
    "invert": _invert,
    "eq": _eq,
    "split": _split,
    "lt": _binary_u32("lt"),
    "and": _binary_u32("and"),
    "xor": _binary_u32("xor"),
    "log_2_floor": _log_2_floor,
    "pow": _pow,
    "div_mod": _div_mod,
    "pop_count": _pop_count,
    "xx_add": _xx_binary(xfield.add),
    "xx_mul": _xx_binary(xfield.mul),
    "x_invert": _x_invert,
    "xb_mul": _xb_mul,
    "read_io": _read_io,
    "write_io": _write_io,
    "merkle_step": _merkle(from_memory=False),
    "merkle_step_mem": _merkle(from_memory=True),
    "xx_dot_step": _xx_dot_step,
    "xb_dot_step": _xb_dot_step,
    "b_horner_step": _horner(1),
    "x_horner_step": _horner(3),
}


def permutation_key(table: TermTable, key: tuple) -> tuple:
    """A Merkle step whose node index became a constant is an ordinary permutation."""
    if key[0] == "merkle" and key[1].constant is not None:
        current, sibling = key[2:7], key[7:12]
        pair = current + sibling if key[1].constant % 2 == 0 else sibling + current
        return ("tip5", *pair, *([table.one] * len(TIP5_ONES)))
    return key
