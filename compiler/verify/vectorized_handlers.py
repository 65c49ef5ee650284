"""The meaning of each straight-line instruction on many lanes at once (as vm.handlers).

Input: the lane machine `compiler.verify.vectorized.Run` and the instruction's
argument.  Output: none; a handler updates every lane the way the matching
handler in vm/handlers updates one machine, and marks the lanes that fail with
their error kind.  `HANDLERS` has one entry per instruction without control flow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from compiler.verify import moves
from compiler.verify.functions import TWO_TO_32
from vm import field, tip5, xfield
from vm.field import P
from vm.isa import Failure

if TYPE_CHECKING:
    from compiler.verify.vectorized import Run

U32_LIMIT = np.uint64(TWO_TO_32)
LOW_MASK = np.uint64(0xFFFFFFFF)
TIP5_ONES = tip5.STATE_SIZE - tip5.RATE  # the fixed-length mode's capacity (hash, Merkle)


def kernels():
    """The compiled field ufuncs of vm.field."""
    return field.kernels()


class Words:
    """A lane array with field operators, so that vm.xfield's formulas run on lanes."""

    __slots__ = ("values",)

    def __init__(self, values: np.ndarray):
        self.values = values

    def __add__(self, other):
        return Words(kernels().add_ufunc(self.values, other.values))

    def __sub__(self, other):
        return Words(kernels().sub_ufunc(self.values, other.values))

    def __mul__(self, other):
        return Words(kernels().mul_ufunc(self.values, other.values))

    def __mod__(self, modulus):  # lane words are canonical already
        return self


# --- handlers: one per instruction, (run, argument) -> None --------------------------------------


def _stream(name: str):
    def handler(run: Run, count):
        start = run.consumed[name]
        run.fail(run.lanes.available[name] < start + count, EMPTY[name])
        rows = run.lanes.streams[name]
        for index in range(start, start + count):  # lanes without the row failed above
            run.push(rows[index] if index < len(rows) else run.constant(0))
        run.consumed[name] = start + count

    return handler


EMPTY = {"public": Failure.EMPTY_PUBLIC_INPUT, "secret": Failure.EMPTY_SECRET_INPUT}


def _pick(run: Run, index):
    run.push(run.stack.pop(-1 - index))


def _place(run: Run, index):
    value = run.pop()
    run.stack.insert(len(run.stack) - index, value)


def _assert(run: Run, argument):
    run.fail(run.peek(0) != np.uint64(1), Failure.ASSERTION_FAILED)
    run.pop()


def _read_mem(run: Run, count):
    pointer = run.pop()
    for offset in range(count):
        run.push(run.read(run.offset(pointer, -offset)))
    run.push(run.offset(pointer, -count))


def _write_mem(run: Run, count):
    pointer = run.pop()
    for offset in range(count):
        run.writes.append((run.offset(pointer, offset), run.pop()))
    run.push(run.offset(pointer, count))


def _hash(run: Run, argument):
    words = [run.pop() for _ in range(10)] + [run.constant(1)] * TIP5_ONES
    digest = run.permute(np.stack(words))[:5]
    for value in digest[::-1]:
        run.push(value)


def _assert_vector(run: Run, argument):
    for index in range(5):
        run.fail(run.peek(index) != run.peek(index + 5), Failure.VECTOR_ASSERTION_FAILED)
    moves.pop(run, 5)


def _sponge_init(run: Run, argument):
    run.sponge = [run.constant(0)] * 16
    run.sponge_initialized = np.ones(run.count, dtype=bool)


def _sponge_absorb(run: Run, argument):
    run.require_sponge()
    words = [run.pop() for _ in range(10)]
    run.sponge = list(run.permute(np.stack(words + run.sponge[10:])))


def _sponge_absorb_mem(run: Run, argument):
    run.require_sponge()
    pointer = run.pop()
    words = [run.read(run.offset(pointer, offset)) for offset in range(10)]
    for index in range(4):
        run.put(index, words[index])
    run.push(run.offset(pointer, 10))
    run.sponge = list(run.permute(np.stack(words + run.sponge[10:])))


def _sponge_squeeze(run: Run, argument):
    run.require_sponge()
    for value in reversed(run.sponge[:10]):
        run.push(value)
    run.sponge = list(run.permute(np.stack(run.sponge)))


def _add(run: Run, argument):
    top = run.pop()
    run.put(0, kernels().add_ufunc(run.peek(0), top))


def _addi(run: Run, value):
    run.put(0, run.offset(run.peek(0), value))


def _mul(run: Run, argument):
    top = run.pop()
    run.put(0, kernels().mul_ufunc(run.peek(0), top))


def _invert(run: Run, argument):
    value = run.peek(0)
    run.fail(value == 0, Failure.INVERSE_OF_ZERO)
    safe = np.where(value == 0, np.uint64(1), value)
    run.put(0, kernels().power_ufunc(safe, np.uint64(P - 2)))


def _eq(run: Run, argument):
    top = run.pop()
    run.put(0, (run.peek(0) == top).astype(np.uint64))


def _split(run: Run, argument):
    value = run.peek(0)
    run.put(0, value >> np.uint64(32))
    run.push(value & LOW_MASK)


def _binary_u32(compute):
    def handler(run: Run, argument):
        top, below = run.require_u32(0), run.require_u32(1)
        run.pop()
        run.put(0, compute(top, below).astype(np.uint64))

    return handler


def _log_2_floor(run: Run, argument):
    value = run.require_u32(0)
    run.fail(value == 0, Failure.LOGARITHM_OF_ZERO)
    _, exponent = np.frexp(np.where(value >= U32_LIMIT, np.uint64(1), value).astype(np.float64))
    run.put(0, np.maximum(exponent - 1, 0).astype(np.uint64))


def _pow(run: Run, argument):
    base, exponent = run.peek(0), run.require_u32(1)
    run.pop()
    run.put(0, kernels().power_ufunc(base, exponent))


def _div_mod(run: Run, argument):
    numerator, denominator = run.require_u32(0), run.require_u32(1)
    run.fail(denominator == 0, Failure.DIVISION_BY_ZERO)
    safe = np.where(denominator == 0, np.uint64(1), denominator)
    run.put(1, numerator // safe)
    run.put(0, numerator % safe)


def _pop_count(run: Run, argument):
    run.put(0, np.bitwise_count(run.require_u32(0)).astype(np.uint64))


def _xx_binary(combine):
    def handler(run: Run, argument):
        result = combine(run.top_xfield(0), run.top_xfield(3))
        moves.pop(run, 6)
        for value in reversed(result):
            run.push(value.values)

    return handler


def _x_invert(run: Run, argument):
    element = [run.peek(k) for k in range(3)]
    zero = (element[0] == 0) & (element[1] == 0) & (element[2] == 0)
    run.fail(zero, Failure.INVERSE_OF_ZERO)
    result = np.zeros((3, run.count), dtype=np.uint64)
    for lane in np.flatnonzero(~run.failed):
        result[:, lane] = xfield.inverse(tuple(int(word[lane]) for word in element))
    for k in range(3):
        run.put(k, result[k])


def _xb_mul(run: Run, argument):
    scalar = Words(run.pop())
    run.put_xfield(0, xfield.scalar_mul(scalar, run.top_xfield(0)))


def _write_io(run: Run, count):
    for _ in range(count):
        run.output.append(run.pop())


def _merkle(from_memory: bool):
    def handler(run: Run, argument):
        node_index = run.require_u32(5)
        if from_memory:
            pointer = run.peek(7)
            sibling = [run.read(run.offset(pointer, k)) for k in range(5)]
            run.put(7, run.offset(pointer, 5))
        else:
            digest = run.consumed["digest"]
            run.fail(run.lanes.available["digest"] <= digest, Failure.EMPTY_SECRET_DIGEST_INPUT)
            rows = run.lanes.streams["digest"]
            sibling = list(rows[digest]) if digest < len(rows) else [run.constant(0)] * 5
            run.consumed["digest"] = digest + 1
        current = [run.peek(k) for k in range(5)]
        even = (node_index & np.uint64(1)) == 0
        first = [np.where(even, current[k], sibling[k]) for k in range(5)]
        second = [np.where(even, sibling[k], current[k]) for k in range(5)]
        pair = first + second
        digest_words = run.permute(np.stack(pair + [run.constant(1)] * TIP5_ONES))[:5]
        for k in range(5):
            run.put(k, digest_words[k])
        run.put(5, node_index >> np.uint64(1))

    return handler


def _xx_dot_step(run: Run, argument):
    left, right = run.peek(0), run.peek(1)
    product = xfield.mul(run.read_xfield(left), run.read_xfield(right))
    run.put_xfield(2, xfield.add(run.top_xfield(2), product))
    run.put(1, run.offset(right, 3))
    run.put(0, run.offset(left, 3))


def _xb_dot_step(run: Run, argument):
    left, right = run.peek(0), run.peek(1)
    product = xfield.scalar_mul(Words(run.read(left)), run.read_xfield(right))
    run.put_xfield(2, xfield.add(run.top_xfield(2), product))
    run.put(1, run.offset(right, 3))
    run.put(0, run.offset(left, 1))


def _horner(coefficients: int):
    def handler(run: Run, argument):
        pointer = run.peek(5)
        read = [Words(run.read(run.offset(pointer, -k))) for k in range(coefficients)]
        zero = Words(run.constant(0))
        addend = (read[0], zero, zero) if coefficients == 1 else (read[2], read[1], read[0])
        product = xfield.mul(run.top_xfield(7), run.top_xfield(0))
        run.put_xfield(7, xfield.add(product, addend))
        run.put(5, run.offset(pointer, -coefficients))

    return handler


HANDLERS = {
    "push": moves.push,
    "pop": moves.pop,
    "divine": _stream("secret"),
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
    "lt": _binary_u32(lambda top, below: top < below),
    "and": _binary_u32(lambda top, below: top & below),
    "xor": _binary_u32(lambda top, below: top ^ below),
    "log_2_floor": _log_2_floor,
    "pow": _pow,
    "div_mod": _div_mod,
    "pop_count": _pop_count,
    "xx_add": _xx_binary(xfield.add),
    "xx_mul": _xx_binary(xfield.mul),
    "x_invert": _x_invert,
    "xb_mul": _xb_mul,
    "read_io": _stream("public"),
    "write_io": _write_io,
    "merkle_step": _merkle(from_memory=False),
    "merkle_step_mem": _merkle(from_memory=True),
    "xx_dot_step": _xx_dot_step,
    "xb_dot_step": _xb_dot_step,
    "b_horner_step": _horner(1),
    "x_horner_step": _horner(3),
}
