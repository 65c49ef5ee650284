"""IR emitters of the instructions that use RAM, Tip5 or the extension field: memory,
hashing and the sponge, X-field arithmetic, Merkle, dot and Horner steps.

The counterpart of `vm.handlers.coprocessor`, with the conventions of
`vm.jit.instructions`: checks first, in the handler's order, then changes.
"""

from __future__ import annotations

from llvmlite import ir

from vm.isa import Failure
from vm.jit import arith, memory
from vm.jit.arith import I64, I64_POINTER, constant
from vm.jit.layout import DIGEST_WORDS, PAGE_BITS, Control

ONES = [constant(1)] * 6  # the capacity of a fixed-length hash: six 1s

# --- memory ------------------------------------------------------------------------------


def _read_mem(context, op):
    pointer = context.value(0)
    values = [context.ram_read(pointer, -offset) for offset in range(op.argument)]
    context.pop()
    for value in values:
        context.push(value)
    context.push(context.minus(pointer, op.argument))


def _write_mem(context, op):
    pointer = context.value(0)
    for offset in range(op.argument):
        context.ram_write(pointer, offset, context.value(offset + 1))
    context.pop(op.argument + 1)
    context.push(context.plus(pointer, op.argument))


# --- hashing ---------------------------------------------------------------------------------


def _hash(context, op):
    words = [context.value(depth) for depth in range(10)]
    digest = context.permute(words + ONES)
    context.pop(10)
    for word in reversed(digest):
        context.push(word)


def _assert_vector(context, op):
    builder = context.builder
    differ = [builder.icmp_unsigned("!=", context.value(i), context.value(i + 5)) for i in range(5)]
    any_differ = differ[0]
    for other in differ[1:]:
        any_differ = builder.or_(any_differ, other)
    context.fail_if(any_differ, Failure.VECTOR_ASSERTION_FAILED)
    context.pop(5)


def _require_sponge(context):
    ready = context.register(Control.SPONGE_READY)
    context.fail_if(
        context.builder.icmp_unsigned("==", ready, constant(0)), Failure.SPONGE_NOT_INITIALIZED
    )


def _sponge_init(context, op):
    if context.sponge_fresh:  # the sponge is still all zeros, as this would leave it
        return
    for index in range(16):
        context.store("sponge", index, constant(0))
    context.set_register(Control.SPONGE_READY, constant(1))
    context.sponge_fresh = True


def _absorb(context, words: list) -> None:
    """Overwrite the sponge's rate with `words` and permute it (the capacity stays)."""
    for index, word in enumerate(words):
        context.store("sponge", index, word)
    context.permute_sponge()
    context.sponge_fresh = False


def _sponge_absorb(context, op):
    _require_sponge(context)
    words = [context.value(depth) for depth in range(10)]
    context.pop(10)
    _absorb(context, words)


def _sponge_absorb_mem(context, op):
    _require_sponge(context)
    pointer = context.value(0)
    words = [context.ram_read(pointer, offset) for offset in range(10)]
    context.pop()
    for depth in range(4):
        context.set(depth, words[depth])
    context.push(context.plus(pointer, 10))
    _absorb(context, words)


def _sponge_squeeze(context, op):
    _require_sponge(context)
    rate = [context.load("sponge", index) for index in range(10)]
    for word in reversed(rate):
        context.push(word)
    context.permute_sponge()
    context.sponge_fresh = False


# --- extension-field arithmetic (st0 = c0) ---------------------------------------------------


def _x_element(context, depth: int) -> tuple:
    """The X-field element whose c0 is st_depth."""
    return tuple(context.value(depth + index) for index in range(3))


def _set_x_element(context, depth: int, element) -> None:
    for index, coefficient in enumerate(element):
        context.set(depth + index, coefficient)


def _xx_add(context, op):
    result = arith.x_add(context.builder, _x_element(context, 0), _x_element(context, 3))
    context.pop(3)
    _set_x_element(context, 0, result)


def _xx_mul(context, op):
    result = context.x_mul(_x_element(context, 0), _x_element(context, 3))
    context.pop(3)
    _set_x_element(context, 0, result)


def _x_invert(context, op):
    element = _x_element(context, 0)
    builder = context.builder
    any_set = builder.or_(builder.or_(element[0], element[1]), element[2])
    context.fail_if(builder.icmp_unsigned("==", any_set, constant(0)), Failure.INVERSE_OF_ZERO)
    _set_x_element(context, 0, context.x_inverse(element))


def _xb_mul(context, op):
    scalar, element = context.value(0), _x_element(context, 1)
    context.pop()
    _set_x_element(context, 0, arith.x_scalar_mul(context.builder, scalar, element))


# A run of n equal dot steps (the usual shape: a loop body unrolled over one instruction) is
# one call of a shared helper, compiled once per machine at LLVM's full level, instead of n
# inline copies of four page lookups and the products: less code for LLVM to compile and a
# tight loop to run; std.nn.optimizer spends most of its cycles in such runs.  The helper's
# words in and out: left pointer (st0), right pointer (st1), accumulator (st2, st3, st4).
DOT_STEPS_TYPE = ir.FunctionType(ir.VoidType(), [I64_POINTER] * 4 + [I64] * 6 + [I64_POINTER])
REPEATED = {"xx_dot_step": "xx_dot_steps", "xb_dot_step": "xb_dot_steps"}  # helper per run


def dot_steps_function(module: ir.Module, name: str, page: ir.Function, scalar_left: bool):
    """`void name(control, pages, index, cache, count, left, right, c0, c1, c2, out)`:
    `count` xb_dot_steps (`scalar_left`) or xx_dot_steps; writes the five words to out."""
    function = ir.Function(module, DOT_STEPS_TYPE, name)
    control, pages, index, cache, count, *words, out = function.args
    entry = function.append_basic_block("entry")
    loop = function.append_basic_block("loop")
    body = function.append_basic_block("body")
    done = function.append_basic_block("done")
    builder = ir.IRBuilder(entry)
    builder.branch(loop)
    builder.position_at_end(loop)
    step = builder.phi(I64, "step")
    step.add_incoming(constant(0), entry)
    current = [builder.phi(I64, f"word{position}") for position in range(5)]
    for phi, word in zip(current, words):
        phi.add_incoming(word, entry)
    builder.cbranch(builder.icmp_unsigned("<", step, count), body, done)
    builder.position_at_end(body)

    def read(pointer, offset: int):
        address = pointer if offset == 0 else arith.add(builder, pointer, constant(offset))
        number = builder.lshr(address, constant(PAGE_BITS))
        offset = memory.page_offset(
            builder,
            lambda values: builder.call(page, values),
            [control, pages, index, cache],
            number,
            create=False,
        )
        return builder.load(memory.cell_pointer(builder, pages, offset, address))

    left, right, *accumulator = current
    element = tuple(read(right, offset) for offset in range(3))
    if scalar_left:
        product = arith.x_scalar_mul(builder, read(left, 0), element)
    else:
        product = arith.x_mul(builder, tuple(read(left, offset) for offset in range(3)), element)
    following = [
        arith.add(builder, left, constant(1 if scalar_left else 3)),
        arith.add(builder, right, constant(3)),
        *arith.x_add(builder, tuple(accumulator), product),
    ]
    step.add_incoming(builder.add(step, constant(1)), builder.block)
    for phi, word in zip(current, following):
        phi.add_incoming(word, builder.block)
    builder.branch(loop)
    builder.position_at_end(done)
    for position, word in enumerate(current):
        builder.store(word, builder.gep(out, [constant(position)]))
    builder.ret_void()
    return function


def _dot_steps(context, op):
    """`context.repeat` equal dot steps (xx_dot_step or xb_dot_step) in a row: one call."""
    buffers = context.buffers
    pointers = [
        context.control,
        *(buffers[name] for name in ("ram_pages", "ram_index", "ram_cache")),
    ]
    words = [context.value(depth) for depth in range(5)]
    results = context.call_out(
        REPEATED[op.instruction.name], [*pointers, constant(context.repeat), *words], 5
    )
    for depth, word in enumerate(results):
        context.set(depth, word)


def _horner_step(coefficients: int):
    """b_horner_step (1 base coefficient) and x_horner_step (3 coefficients), HEAD only."""

    def emit(context, op):
        builder = context.builder
        pointer = context.value(5)
        read = [context.ram_read(pointer, -offset) for offset in range(coefficients)]
        if coefficients == 1:
            addend = (read[0], constant(0), constant(0))
        else:
            addend = (read[2], read[1], read[0])
        product = context.x_mul(_x_element(context, 7), _x_element(context, 0))
        _set_x_element(context, 7, arith.x_add(builder, product, addend))
        context.set(5, context.minus(pointer, coefficients))

    return emit


# --- Merkle steps ------------------------------------------------------------------------------


def _merkle_step(from_memory: bool):
    def emit(context, op):
        builder = context.builder
        node_index = context.value(5)
        checks = [context.not_u32(node_index), Failure.FAILED_U32_CONVERSION]
        if from_memory:
            context.fail_if(*checks)
            pointer = context.value(7)
            sibling = [context.ram_read(pointer, k) for k in range(DIGEST_WORDS)]
            context.set(7, context.plus(pointer, DIGEST_WORDS))
        else:
            position = context.register(Control.DIGEST_POSITION)
            exhausted = builder.icmp_signed(">=", position, context.read_only(Control.DIGEST_COUNT))
            context.fail_if(*checks, exhausted, Failure.EMPTY_SECRET_DIGEST_INPUT)
            start = builder.mul(position, constant(DIGEST_WORDS))
            sibling = [context.load("digests", context.add(start, k)) for k in range(DIGEST_WORDS)]
            context.set_register(Control.DIGEST_POSITION, context.add(position, 1))
        current = [context.value(depth) for depth in range(DIGEST_WORDS)]
        even = builder.icmp_unsigned("==", builder.and_(node_index, constant(1)), constant(0))
        first = [builder.select(even, c, s) for c, s in zip(current, sibling)]
        second = [builder.select(even, s, c) for c, s in zip(current, sibling)]
        digest = context.permute(first + second + ONES)
        for depth, word in enumerate(digest):
            context.set(depth, word)
        half = builder.lshr(node_index, constant(1))
        context.set(5, half)
        context.log_u32("split", node_index, half)

    return emit


EMITTERS = {
    "read_mem": _read_mem,
    "write_mem": _write_mem,
    "hash": _hash,
    "assert_vector": _assert_vector,
    "sponge_init": _sponge_init,
    "sponge_absorb": _sponge_absorb,
    "sponge_absorb_mem": _sponge_absorb_mem,
    "sponge_squeeze": _sponge_squeeze,
    "xx_add": _xx_add,
    "xx_mul": _xx_mul,
    "x_invert": _x_invert,
    "xb_mul": _xb_mul,
    "merkle_step": _merkle_step(from_memory=False),
    "merkle_step_mem": _merkle_step(from_memory=True),
    "xx_dot_step": _dot_steps,
    "xb_dot_step": _dot_steps,
    "b_horner_step": _horner_step(1),
    "x_horner_step": _horner_step(3),
}
