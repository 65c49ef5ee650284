"""The Tip5 permutation as LLVM IR, compiled once per machine.

Input: the constants of `vm.tip5`; output: `emit_permutation(module, name,
marking)`, which adds `void name(i64* input, i64* output[, i64* cascade])` to a
module: the permutation of the 16 canonical words at `input`, written
canonical to `output` (the two may be the same buffer).  With `marking` the
function also sets, in the 65,536-bit map `cascade`, the bit of every 16-bit
limb the permutation looks up in the cascade table: the four limbs of
the Montgomery form of lanes 0..3 of each round's input, as
`vm.tip5.reference_cascade_limbs` lists them.  JIT-compiled programs call
these through the helper table (vm.jit.helpers), so they are compiled once.

The arithmetic is that of `vm.tip5_kernels`, arranged for speed:

- the lookup S-box on the Montgomery form of lanes 0..3, one lane at a time;
- x^7 on lanes 4..15 as one vector of 12 lanes (`<12 x i64>`, three AVX2
  registers): each 64x64-bit product from four 32x32-bit ones, reduced with
  2^64 = 2^32 - 1 and 2^96 = -1 mod p in the same vectors (a third faster
  than twelve scalar chains of 128-bit products, measured);
  S-box outputs are left partly reduced (below 2^64, congruent mod p), which
  is all the MDS step needs, since it works on 32-bit halves;
- the circulant MDS matrix as 16 vector multiply-adds of constant columns
  (`<16 x i64>`, each product of a 16-bit entry and a 32-bit half below 2^48,
  each sum of 16 below 2^52); the round constant's 32-bit halves join the two
  sums, which are then reduced in the same vectors to below 2^64, congruent
  mod p but not necessarily canonical: the next round takes any 64-bit value
  (its Montgomery multiplication reduces fully, x^7 works on halves), so the
  state is made canonical once, after the last round.

Measured on an AVX2 host (AMD Zen 3) and not adopted, being no faster: the MDS
as a fast cyclic convolution (x^16 - 1 split by the Chinese remainder theorem
down to negacyclic pieces multiplied by Karatsuba, on 16-bit limbs, 53 signed
32-bit products instead of 128: fewer instructions but longer dependency
chains); the MDS as exact double-precision multiply-adds; x^7 of four lanes in
scalar code; lane broadcasts by vector shuffles instead of from scalars.
"""

from __future__ import annotations

from llvmlite import ir

from vm import tip5
from vm.field import P
from vm.jit.arith import EPSILON, I8, I32, I64, I64_POINTER, constant, mul, mul_partial

STATE_SIZE = tip5.STATE_SIZE
LOOKUP_LANES = tip5.NUMBER_OF_SPLIT_AND_LOOKUP_LANES
LIMBS_PER_LANE = 4  # 16-bit limbs of a 64-bit Montgomery form
CASCADE_WORDS = (1 << 16) // 64  # the limb map: one bit per 16-bit limb
VECTOR = ir.VectorType(I64, STATE_SIZE)
LANE_MASK = ir.VectorType(I32, STATE_SIZE)

POWER_LANES = STATE_SIZE - LOOKUP_LANES
POWER_VECTOR = ir.VectorType(I64, POWER_LANES)


def _vector(values) -> ir.Constant:
    return ir.Constant(VECTOR, [constant(value) for value in values])


def _splat(value: int) -> ir.Constant:
    return _vector([value] * STATE_SIZE)


def _global_array(module: ir.Module, name: str, element, values) -> ir.GlobalVariable:
    array_type = ir.ArrayType(element, len(values))
    variable = ir.GlobalVariable(module, array_type, name)
    variable.global_constant = True
    variable.linkage = "internal"
    variable.initializer = ir.Constant(array_type, values)
    return variable


def _mark(builder: ir.IRBuilder, cascade, montgomery) -> None:
    """Set the bits of the four 16-bit limbs of `montgomery` in the limb map."""
    for index in range(LIMBS_PER_LANE):
        limb = builder.and_(builder.lshr(montgomery, constant(16 * index)), constant(0xFFFF))
        word = builder.gep(cascade, [builder.lshr(limb, constant(6))])
        bit = builder.shl(constant(1), builder.and_(limb, constant(63)))
        builder.store(builder.or_(builder.load(word), bit), word)


def _split_and_lookup(builder: ir.IRBuilder, sbox, value, cascade):
    """The S-box of lanes 0..3: every byte of the Montgomery form through the table."""
    montgomery = mul(builder, value, constant(tip5.MONTGOMERY_R))  # canonical: its bytes count
    if cascade is not None:
        _mark(builder, cascade, montgomery)
    looked_up = constant(0)
    for byte_index in range(8):
        shift = constant(8 * byte_index)
        byte = builder.and_(builder.lshr(montgomery, shift), constant(0xFF))
        pointer = builder.gep(sbox, [constant(0), byte], inbounds=True)
        entry = builder.zext(builder.load(pointer), I64)
        looked_up = builder.or_(looked_up, builder.shl(entry, shift))
    return mul_partial(builder, looked_up, constant(tip5.MONTGOMERY_R_INVERSE))


def _power_splat(value: int) -> ir.Constant:
    return ir.Constant(POWER_VECTOR, [constant(value)] * POWER_LANES)


def _vector_partial_mul(builder: ir.IRBuilder, a, b):
    """a * b mod p lane by lane for vectors of 64-bit values, below 2^64 but not necessarily
    canonical: the 128-bit product from four 32x32-bit ones (high * 2^64 + low), then
    high = top * 2^32 + bottom reduced as low - top + bottom * (2^32 - 1), each wrap
    corrected by 2^32 - 1 (`vm.jit.arith.reduce128_partial`, lane by lane)."""
    mask, shift = _power_splat(0xFFFFFFFF), _power_splat(32)
    a_low, a_high = builder.and_(a, mask), builder.lshr(a, shift)
    b_low, b_high = (a_low, a_high) if a is b else (builder.and_(b, mask), builder.lshr(b, shift))
    low_low = builder.mul(a_low, b_low)
    high_high = builder.mul(a_high, b_high)
    low_high = builder.mul(a_low, b_high)
    high_low = low_high if a is b else builder.mul(a_high, b_low)
    # each partial sum below 2^64: a 32x32-bit product is at most 2^64 - 2^33 + 1
    first = builder.add(low_high, builder.lshr(low_low, shift))
    second = builder.add(high_low, builder.and_(first, mask))
    high = builder.add(
        builder.add(high_high, builder.lshr(first, shift)), builder.lshr(second, shift)
    )
    low = builder.or_(builder.shl(second, shift), builder.and_(low_low, mask))
    top, bottom = builder.lshr(high, shift), builder.and_(high, mask)
    epsilon = _power_splat(EPSILON)
    difference = builder.sub(low, top)
    borrowed = _unsigned_less(builder, low, top)
    difference = builder.select(borrowed, builder.sub(difference, epsilon), difference)
    product = builder.sub(builder.shl(bottom, shift), bottom)  # bottom * (2^32 - 1)
    total = builder.add(difference, product)
    carried = _unsigned_less(builder, total, product)
    return builder.select(carried, builder.add(total, epsilon), total)


def _power_seven(builder: ir.IRBuilder, values):
    square = _vector_partial_mul(builder, values, values)
    fourth = _vector_partial_mul(builder, square, square)
    cube = _vector_partial_mul(builder, square, values)
    return _vector_partial_mul(builder, fourth, cube)


def _lanes(builder: ir.IRBuilder, vector, indices: list):
    """The vector of `vector`'s lanes at `indices`."""
    mask = ir.Constant(ir.VectorType(I32, len(indices)), [I32(index) for index in indices])
    return builder.shuffle_vector(vector, ir.Constant(vector.type, ir.Undefined), mask)


def _broadcast(builder: ir.IRBuilder, value):
    single = builder.insert_element(ir.Constant(VECTOR, ir.Undefined), value, I32(0))
    zeros = ir.Constant(LANE_MASK, [I32(0)] * STATE_SIZE)
    return builder.shuffle_vector(single, ir.Constant(VECTOR, ir.Undefined), zeros)


def _unsigned_less(builder: ir.IRBuilder, a, b):
    return builder.icmp_unsigned("<", a, b)


def _mds_and_constants(builder: ir.IRBuilder, lanes: list, round_constants):
    """MDS · lanes + round constants as a vector, below 2^64 (not necessarily canonical)."""
    sum_low = sum_high = _splat(0)
    for column, lane in enumerate(lanes):
        entries = _vector(
            [tip5.MDS_FIRST_COLUMN[(row - column) % STATE_SIZE] for row in range(STATE_SIZE)]
        )
        low = _broadcast(builder, builder.and_(lane, constant(0xFFFFFFFF)))
        high = _broadcast(builder, builder.lshr(lane, constant(32)))
        sum_low = builder.add(sum_low, builder.mul(entries, low))
        sum_high = builder.add(sum_high, builder.mul(entries, high))
    # the round constant's halves (below 2^32) join the sums, which stay below 2^53;
    # value = sum_high * 2^32 + sum_low; with sum_high = h1 * 2^32 + h0,
    # value = h1 * 2^64 + h0 * 2^32 + sum_low = h1 * (2^32 - 1) + h0 * 2^32 + sum_low (mod p)
    sum_low = builder.add(sum_low, builder.and_(round_constants, _splat(0xFFFFFFFF)))
    sum_high = builder.add(sum_high, builder.lshr(round_constants, _splat(32)))
    high_bits = builder.lshr(sum_high, _splat(32))
    small = builder.add(sum_low, builder.sub(builder.shl(high_bits, _splat(32)), high_bits))
    shifted = builder.shl(sum_high, _splat(32))  # h0 * 2^32
    total = builder.add(shifted, small)  # small < 2^54: at most one wrap, worth 2^32 - 1
    return builder.select(
        _unsigned_less(builder, total, shifted), builder.add(total, _splat(EPSILON)), total
    )


def _canonical(builder: ir.IRBuilder, values):
    """A vector of values below 2^64 reduced to [0, p)."""
    too_big = builder.icmp_unsigned(">=", values, _splat(P))
    return builder.select(too_big, builder.sub(values, _splat(P)), values)


def emit_permutation(module: ir.Module, name: str, marking: bool = False) -> ir.Function:
    """Add `void name(i64* input, i64* output[, i64* cascade])` to `module` and return it."""
    arguments = [I64_POINTER, I64_POINTER] + ([I64_POINTER] if marking else [])
    function = ir.Function(module, ir.FunctionType(ir.VoidType(), arguments), name)
    source, destination = function.args[:2]
    cascade = function.args[2] if marking else None
    sbox = _global_array(module, f"{name}.sbox", I8, [I8(value) for value in tip5.SBOX])
    constants = [
        _vector(tip5.ROUND_CONSTANTS[STATE_SIZE * index : STATE_SIZE * (index + 1)])
        for index in range(tip5.NUMBER_OF_ROUNDS)
    ]
    round_constants = _global_array(module, f"{name}.round_constants", VECTOR, constants)
    entry = function.append_basic_block("entry")
    loop = function.append_basic_block("round")
    done = function.append_basic_block("done")
    builder = ir.IRBuilder(entry)
    initial = builder.load(builder.bitcast(source, ir.PointerType(VECTOR)), align=8)
    builder.branch(loop)

    builder.position_at_end(loop)
    round_index = builder.phi(I64, "round_index")
    round_index.add_incoming(constant(0), entry)
    state = builder.phi(VECTOR, "state")
    state.add_incoming(initial, entry)
    looked_up = [
        _split_and_lookup(builder, sbox, builder.extract_element(state, I32(index)), cascade)
        for index in range(LOOKUP_LANES)
    ]
    powers = _power_seven(builder, _lanes(builder, state, list(range(LOOKUP_LANES, STATE_SIZE))))
    after_sbox = looked_up + [
        builder.extract_element(powers, I32(index)) for index in range(POWER_LANES)
    ]
    pointer = builder.gep(round_constants, [constant(0), round_index], inbounds=True)
    following = _mds_and_constants(builder, after_sbox, builder.load(pointer))
    next_round = builder.add(round_index, constant(1))
    round_index.add_incoming(next_round, loop)
    state.add_incoming(following, loop)
    finished = builder.icmp_unsigned("==", next_round, constant(tip5.NUMBER_OF_ROUNDS))
    builder.cbranch(finished, done, loop)

    builder.position_at_end(done)
    result = _canonical(builder, following)
    builder.store(result, builder.bitcast(destination, ir.PointerType(VECTOR)), align=8)
    builder.ret_void()
    return function
