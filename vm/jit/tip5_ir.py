"""The Tip5 permutation as LLVM IR (tasm.md §10), compiled once per process.

Input: the constants of `vm.tip5`; output: `emit_permutation(module)`, which adds
`void tip5_permute(i64* input, i64* output)` to a module: the permutation of the
16 canonical words at `input`, written to `output` (the two may be the same
buffer).  JIT-compiled programs call it through a function pointer, so it is
compiled once, not once per program.  The arithmetic is that of
`vm.tip5_kernels`: the lookup S-box on the Montgomery form of lanes 0..3, x^7
on the other lanes, and the circulant MDS matrix on 32-bit halves (every sum of
16 products stays below 2^52).
"""

from __future__ import annotations

from llvmlite import ir

from vm import tip5
from vm.jit.arith import I8, I64, I64_POINTER, add, constant, mul, reduce128

STATE_SIZE = tip5.STATE_SIZE
LOOKUP_LANES = tip5.NUMBER_OF_SPLIT_AND_LOOKUP_LANES


def _global_array(module: ir.Module, name: str, element, values) -> ir.GlobalVariable:
    array_type = ir.ArrayType(element, len(values))
    variable = ir.GlobalVariable(module, array_type, name)
    variable.global_constant = True
    variable.linkage = "internal"
    if element is I64:
        variable.initializer = ir.Constant(array_type, [constant(value) for value in values])
    else:
        variable.initializer = ir.Constant(array_type, values)
    return variable


def _split_and_lookup(builder: ir.IRBuilder, sbox: ir.GlobalVariable, value):
    """The S-box of lanes 0..3: every byte of the Montgomery form through the table."""
    montgomery = mul(builder, value, constant(tip5.MONTGOMERY_R))
    looked_up = constant(0)
    for byte_index in range(8):
        shift = constant(8 * byte_index)
        byte = builder.and_(builder.lshr(montgomery, shift), constant(0xFF))
        pointer = builder.gep(sbox, [ir.Constant(I64, 0), byte], inbounds=True)
        entry = builder.zext(builder.load(pointer), I64)
        looked_up = builder.or_(looked_up, builder.shl(entry, shift))
    return mul(builder, looked_up, constant(tip5.MONTGOMERY_R_INVERSE))


def _power_seven(builder: ir.IRBuilder, value):
    square = mul(builder, value, value)
    return mul(builder, mul(builder, square, square), mul(builder, square, value))


def _mds_row(builder: ir.IRBuilder, row: int, lanes: list):
    """Row `row` of the circulant MDS product, reduced to a canonical word."""
    sum_low = constant(0)
    sum_high = constant(0)
    for column, (low_half, high_half) in enumerate(lanes):
        coefficient = constant(tip5.MDS_FIRST_COLUMN[(row - column) % STATE_SIZE])
        sum_low = builder.add(sum_low, builder.mul(coefficient, low_half))
        sum_high = builder.add(sum_high, builder.mul(coefficient, high_half))
    low = builder.add(builder.shl(sum_high, constant(32)), sum_low)
    high = builder.lshr(sum_high, constant(32))
    carried = builder.icmp_unsigned("<", low, sum_low)
    high = builder.add(high, builder.zext(carried, I64))
    return reduce128(builder, high, low)


def emit_permutation(module: ir.Module, name: str = "tip5_permute") -> ir.Function:
    """Add `void name(i64* input, i64* output)` to `module` and return it."""
    function_type = ir.FunctionType(ir.VoidType(), [I64_POINTER, I64_POINTER])
    function = ir.Function(module, function_type, name)
    sbox = _global_array(module, "tip5_sbox", I8, list(tip5.SBOX))
    round_constants = _global_array(module, "tip5_round_constants", I64, tip5.ROUND_CONSTANTS)
    source, destination = function.args
    entry = function.append_basic_block("entry")
    loop = function.append_basic_block("round")
    done = function.append_basic_block("done")
    builder = ir.IRBuilder(entry)
    initial = [builder.load(builder.gep(source, [constant(index)])) for index in range(STATE_SIZE)]
    builder.branch(loop)

    builder.position_at_end(loop)
    round_index = builder.phi(I64, "round_index")
    round_index.add_incoming(constant(0), entry)
    state = [builder.phi(I64, f"lane{index}") for index in range(STATE_SIZE)]
    for phi, value in zip(state, initial):
        phi.add_incoming(value, entry)
    after_sbox = [
        _split_and_lookup(builder, sbox, value)
        if index < LOOKUP_LANES
        else _power_seven(builder, value)
        for index, value in enumerate(state)
    ]
    halves = [
        (builder.and_(value, constant(0xFFFFFFFF)), builder.lshr(value, constant(32)))
        for value in after_sbox
    ]
    base = builder.mul(round_index, constant(STATE_SIZE))
    following = []
    for row in range(STATE_SIZE):
        offset = builder.add(base, constant(row))
        pointer = builder.gep(round_constants, [ir.Constant(I64, 0), offset], inbounds=True)
        following.append(add(builder, _mds_row(builder, row, halves), builder.load(pointer)))
    next_round = builder.add(round_index, constant(1))
    round_index.add_incoming(next_round, loop)
    for phi, value in zip(state, following):
        phi.add_incoming(value, loop)
    finished = builder.icmp_unsigned("==", next_round, constant(tip5.NUMBER_OF_ROUNDS))
    builder.cbranch(finished, done, loop)

    builder.position_at_end(done)
    for index, value in enumerate(following):
        builder.store(value, builder.gep(destination, [constant(index)]))
    builder.ret_void()
    return function
