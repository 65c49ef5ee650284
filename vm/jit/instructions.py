"""One IR emitter per instruction: Triton VM's meaning of each, as native code.

Input: a `vm.jit.codegen.Context` positioned inside a block, and the `Op`;
output: IR that does what the instruction's handler in `vm.handlers` does, with
its checks in the same order and before any change to the state.  Depth and
buffer capacity are not checked here: the block's guards did that.

This module holds the instructions that touch only the op stack, the jump
stack, the input streams and the u32 table (the counterpart of
`vm.handlers.core`); `vm.jit.coprocessor` holds the rest.  Their `EMITTERS`
together map every mnemonic of both ISAs to its emitter
(`vm.jit.codegen.emitters`); a test checks that they cover `vm.isa.INSTRUCTIONS`
exactly.  The stack is read and written through `context.value(i)` /
`context.set(i, v)` (st_i), `push` and `pop`.
"""

from __future__ import annotations

from vm.field import P
from vm.isa import Failure
from vm.jit import arith
from vm.jit.arith import I64, constant
from vm.jit.layout import Control

LOW_HALF = constant(0xFFFFFFFF)


# --- stack manipulation ------------------------------------------------------------------


def _push(context, op):
    context.push(constant(op.argument))


def _pop(context, op):
    context.pop(op.argument)


def _stream(position_register, length_register, buffer: str, kind: str):
    """read_io and divine: push the next n words of an input stream, the last on top."""

    def emit(context, op):
        count = op.argument
        position = context.register(position_register)
        end = context.add(position, count)
        length = context.read_only(length_register)
        context.fail_if(context.builder.icmp_signed(">", end, length), kind)
        for index in range(count):
            context.push(context.load(buffer, context.add(position, index)))
        context.set_register(position_register, end)

    return emit


def _pick(context, op):
    index = op.argument
    values = [context.value(depth) for depth in range(index + 1)]
    context.set(0, values[index])
    for depth in range(index):
        context.set(depth + 1, values[depth])


def _place(context, op):
    index = op.argument
    values = [context.value(depth) for depth in range(index + 1)]
    for depth in range(index):
        context.set(depth, values[depth + 1])
    context.set(index, values[0])


def _dup(context, op):
    context.push(context.value(op.argument))


def _swap(context, op):
    top, other = context.value(0), context.value(op.argument)
    context.set(0, other)
    context.set(op.argument, top)


# --- control flow ------------------------------------------------------------------------


def _halt(context, op):
    context.halt()


def _nop(context, op):
    pass


def _skiz(context, op):
    top = context.value(0)
    is_zero = context.builder.icmp_unsigned("==", top, constant(0))
    skip = context.skip_target()
    if skip is None:  # skiz on 0 as the last instruction fails (vm.handlers.core._skiz)
        context.fail_if(is_zero, Failure.INSTRUCTION_POINTER_OVERFLOW)
        context.pop()
        context.goto(context.following())
        return
    context.pop()
    context.branch_if(is_zero, skip, context.following())


def _call(context, op):
    length = context.register(Control.JUMP_LENGTH)
    position = context.builder.shl(length, constant(1))
    context.store("jump", position, constant(context.following()))
    context.store("jump", context.add(position, 1), constant(op.argument))
    context.set_register(Control.JUMP_LENGTH, context.add(length, 1))
    context.goto(op.argument)


def _jump_stack_top(context):
    """The jump-stack length, after failing with JumpStackIsEmpty if it is 0."""
    length = context.register(Control.JUMP_LENGTH)
    empty = context.builder.icmp_unsigned("==", length, constant(0))
    context.fail_if(empty, Failure.JUMP_STACK_IS_EMPTY)
    return length


def _emit_return(context, length):
    top = context.builder.sub(length, constant(1))
    origin = context.load("jump", context.builder.shl(top, constant(1)))
    context.set_register(Control.JUMP_LENGTH, top)
    context.switch(origin, context.blocks.call_returns)


def _emit_recurse(context, length):
    last_word = context.builder.sub(context.builder.shl(length, constant(1)), constant(1))
    context.switch(context.load("jump", last_word), context.blocks.call_targets)


def _return(context, op):
    _emit_return(context, _jump_stack_top(context))


def _recurse(context, op):
    _emit_recurse(context, _jump_stack_top(context))


def _recurse_or_return(context, op):
    length = _jump_stack_top(context)
    equal = context.builder.icmp_unsigned("==", context.value(5), context.value(6))
    context.sync()  # both paths below leave the block from the same state
    function = context.function
    returning = function.append_basic_block(f"returning{context.address}")
    recursing = function.append_basic_block(f"recursing{context.address}")
    context.builder.cbranch(equal, returning, recursing)
    context.builder.position_at_end(returning)
    _emit_return(context, length)
    context.builder.position_at_end(recursing)
    _emit_recurse(context, length)


def _assert(context, op):
    not_one = context.builder.icmp_unsigned("!=", context.value(0), constant(1))
    context.fail_if(not_one, Failure.ASSERTION_FAILED)
    context.pop()


# --- base-field arithmetic -------------------------------------------------------------------


def _binary_field(combine):
    def emit(context, op):
        result = combine(context.builder, context.value(1), context.value(0))
        context.pop()
        context.set(0, result)

    return emit


def _addi(context, op):
    context.set(0, arith.add(context.builder, context.value(0), constant(op.argument)))


def _invert(context, op):
    value = context.value(0)
    context.fail_if(
        context.builder.icmp_unsigned("==", value, constant(0)), Failure.INVERSE_OF_ZERO
    )
    context.set(0, context.field_power(value, constant(P - 2)))


def _equal(builder, below, top):
    return builder.zext(builder.icmp_unsigned("==", below, top), I64)


# --- u32 arithmetic --------------------------------------------------------------------------


def _split(context, op):
    value = context.value(0)
    high = context.builder.lshr(value, constant(32))
    low = context.builder.and_(value, LOW_HALF)
    context.set(0, high)
    context.push(low)
    context.log_u32("split", low, high)


def _binary_u32(kind: str, compute):
    """`_ b a -> _ compute(a, b)` on u32 operands, logging (kind, a, b)."""

    def emit(context, op):
        top, below = context.value(0), context.value(1)
        either = context.builder.or_(context.not_u32(top), context.not_u32(below))
        context.fail_if(either, Failure.FAILED_U32_CONVERSION)
        context.pop()
        context.set(0, compute(context.builder, top, below))
        context.log_u32(kind, top, below)

    return emit


def _less_than(builder, top, below):
    return builder.zext(builder.icmp_unsigned("<", top, below), I64)


def _log_2_floor(context, op):
    value = context.value(0)
    zero = context.builder.icmp_unsigned("==", value, constant(0))
    context.fail_if(
        context.not_u32(value), Failure.FAILED_U32_CONVERSION, zero, Failure.LOGARITHM_OF_ZERO
    )
    leading = context.builder.ctlz(value, arith.I1(1))
    context.set(0, context.builder.sub(constant(63), leading))
    context.log_u32("log2", value, constant(0))


def _pow(context, op):
    base, exponent = context.value(0), context.value(1)
    context.fail_if(context.not_u32(exponent), Failure.FAILED_U32_CONVERSION)
    context.pop()
    context.set(0, context.field_power(base, exponent))
    context.log_u32("pow", base, exponent)


def _div_mod(context, op):
    numerator, denominator = context.value(0), context.value(1)
    not_u32 = context.builder.or_(context.not_u32(numerator), context.not_u32(denominator))
    zero = context.builder.icmp_unsigned("==", denominator, constant(0))
    context.fail_if(not_u32, Failure.FAILED_U32_CONVERSION, zero, Failure.DIVISION_BY_ZERO)
    quotient = context.builder.udiv(numerator, denominator)
    remainder = context.builder.urem(numerator, denominator)
    context.set(1, quotient)
    context.set(0, remainder)
    context.log_u32("lt", remainder, denominator)
    context.log_u32("split", numerator, quotient)


def _pop_count(context, op):
    value = context.value(0)
    context.fail_if(context.not_u32(value), Failure.FAILED_U32_CONVERSION)
    context.set(0, context.builder.ctpop(value))
    context.log_u32("popcount", value, constant(0))


# --- input / output --------------------------------------------------------------------------


def _write_io(context, op):
    length = context.register(Control.OUTPUT_LENGTH)
    for index in range(op.argument):
        context.store("output", context.add(length, index), context.value(index))
    context.set_register(Control.OUTPUT_LENGTH, context.add(length, op.argument))
    context.pop(op.argument)


EMITTERS = {
    "push": _push,
    "pop": _pop,
    "divine": _stream(
        Control.SECRET_POSITION, Control.SECRET_LENGTH, "secret", Failure.EMPTY_SECRET_INPUT
    ),
    "pick": _pick,
    "place": _place,
    "dup": _dup,
    "swap": _swap,
    "halt": _halt,
    "nop": _nop,
    "skiz": _skiz,
    "call": _call,
    "return": _return,
    "recurse": _recurse,
    "recurse_or_return": _recurse_or_return,
    "assert": _assert,
    "add": _binary_field(arith.add),
    "addi": _addi,
    "mul": _binary_field(arith.mul),
    "invert": _invert,
    "eq": _binary_field(_equal),
    "split": _split,
    "lt": _binary_u32("lt", _less_than),
    "and": _binary_u32("and", lambda builder, top, below: builder.and_(top, below)),
    "xor": _binary_u32("and", lambda builder, top, below: builder.xor(top, below)),
    "log_2_floor": _log_2_floor,
    "pow": _pow,
    "div_mod": _div_mod,
    "pop_count": _pop_count,
    "read_io": _stream(
        Control.PUBLIC_POSITION, Control.PUBLIC_LENGTH, "public", Failure.EMPTY_PUBLIC_INPUT
    ),
    "write_io": _write_io,
}
