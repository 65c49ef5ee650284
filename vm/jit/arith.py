"""Goldilocks and X-field arithmetic as LLVM IR, for the JIT's code generator.

Input: an llvmlite `IRBuilder` and i64 SSA values that hold canonical field
elements (in [0, p)); output: i64 SSA values that hold canonical results.
The reduction follows `vm.field_kernels` exactly (2^64 = 2^32 - 1 and
2^96 = -1 mod p), but the 64x64-bit product is a native 128-bit multiply.
X-field elements are tuples (c0, c1, c2) of such values, as in `vm.xfield`.
`power_function` builds the field power as a function (shifts for a base of 2,
square-and-multiply otherwise), for the shared helpers of `vm.jit.helpers`.
"""

from __future__ import annotations

from functools import lru_cache

from llvmlite import ir

from vm.field import P, R

I1 = ir.IntType(1)
I8 = ir.IntType(8)
I32 = ir.IntType(32)
I64 = ir.IntType(64)
I128 = ir.IntType(128)
I64_POINTER = ir.PointerType(I64)

EPSILON = R  # 2^64 mod p = 2^32 - 1, also the mask of the low 32 bits


@lru_cache(maxsize=1 << 14)
def constant(value: int) -> ir.Constant:
    """An i64 constant from an unsigned 64-bit value (constants are immutable: shared)."""
    value &= (1 << 64) - 1
    return ir.Constant(I64, value - (1 << 64) if value >= 1 << 63 else value)


def add(builder: ir.IRBuilder, a, b):
    """(a + b) mod p: a - (p - b), plus p if that borrowed."""
    negated = builder.sub(constant(P), b)
    difference = builder.sub(a, negated)
    borrowed = builder.icmp_unsigned("<", a, negated)
    return builder.select(borrowed, builder.add(difference, constant(P)), difference)


def sub(builder: ir.IRBuilder, a, b):
    """(a - b) mod p."""
    difference = builder.sub(a, b)
    borrowed = builder.icmp_unsigned("<", a, b)
    return builder.select(borrowed, builder.add(difference, constant(P)), difference)


def neg(builder: ir.IRBuilder, a):
    return sub(builder, constant(0), a)


def reduce128_partial(builder: ir.IRBuilder, high, low):
    """(high * 2^64 + low) mod p, below 2^64 but not necessarily canonical (it may still
    be at least p): `reduce128` without its final subtraction, for sums that reduce later."""
    high_top = builder.lshr(high, constant(32))
    high_bottom = builder.and_(high, constant(EPSILON))
    result = builder.sub(low, high_top)
    borrowed = builder.icmp_unsigned("<", low, high_top)
    result = builder.select(borrowed, builder.sub(result, constant(EPSILON)), result)
    product = builder.mul(high_bottom, constant(EPSILON))
    total = builder.add(result, product)
    carried = builder.icmp_unsigned("<", total, product)
    return builder.select(carried, builder.add(total, constant(EPSILON)), total)


def reduce128(builder: ir.IRBuilder, high, low):
    """(high * 2^64 + low) mod p for any 64-bit high and low (vm.field_kernels.reduce128)."""
    total = reduce128_partial(builder, high, low)
    too_big = builder.icmp_unsigned(">=", total, constant(P))
    return builder.select(too_big, builder.sub(total, constant(P)), total)


def mul(builder: ir.IRBuilder, a, b):
    """(a * b) mod p through the 128-bit product."""
    product = builder.mul(builder.zext(a, I128), builder.zext(b, I128))
    high = builder.trunc(builder.lshr(product, ir.Constant(I128, 64)), I64)
    return reduce128(builder, high, builder.trunc(product, I64))


def mul_partial(builder: ir.IRBuilder, a, b):
    """a * b mod p for any 64-bit a and b, below 2^64 but not necessarily canonical."""
    product = builder.mul(builder.zext(a, I128), builder.zext(b, I128))
    high = builder.trunc(builder.lshr(product, ir.Constant(I128, 64)), I64)
    return reduce128_partial(builder, high, builder.trunc(product, I64))


def canonical(builder: ir.IRBuilder, value):
    """A value below 2^64 (< 2p) reduced to [0, p)."""
    too_big = builder.icmp_unsigned(">=", value, constant(P))
    return builder.select(too_big, builder.sub(value, constant(P)), value)


TWO_ORDER = 192  # 2^96 = -1 mod p, so 2^192 = 1: the powers of 2 repeat with period 192


def power_of_two(builder: ir.IRBuilder, exponent):
    """2^exponent mod p for any 64-bit exponent, from shifts: with k = exponent mod 192,
    2^k = -2^(k - 96) for k >= 96, and 2^j = 2^(j - 32) - 2^(j - 64) for 64 <= j < 96
    (2^64 = 2^32 - 1); every such value is canonical and not 0."""
    k = builder.urem(exponent, constant(TWO_ORDER))
    negative = builder.icmp_unsigned(">=", k, constant(96))
    j = builder.select(negative, builder.sub(k, constant(96)), k)  # 0 <= j < 96
    small = builder.shl(constant(1), builder.and_(j, constant(63)))
    upper = builder.shl(constant(1), builder.and_(builder.sub(j, constant(32)), constant(63)))
    lower = builder.shl(constant(1), builder.and_(builder.sub(j, constant(64)), constant(63)))
    wide = builder.icmp_unsigned(">=", j, constant(64))
    value = builder.select(wide, builder.sub(upper, lower), small)
    return builder.select(negative, builder.sub(constant(P), value), value)


def power_function(module: ir.Module, name: str = "field_power") -> ir.Function:
    """`i64 name(i64 base, i64 exponent)`: base^exponent mod p, with 0^0 = 1.  A base of 2
    (`push 2 pow`, TASM's shift idiom) takes shifts (`power_of_two`); any other base square
    and multiply, with products left partly reduced until the end."""
    function = ir.Function(module, ir.FunctionType(I64, [I64, I64]), name)
    base_argument, exponent_argument = function.args
    entry = function.append_basic_block("entry")
    two = function.append_basic_block("two")
    loop = function.append_basic_block("loop")
    body = function.append_basic_block("body")
    done = function.append_basic_block("done")
    builder = ir.IRBuilder(entry)
    is_two = builder.icmp_unsigned("==", base_argument, constant(2))
    builder.cbranch(is_two, two, loop)
    builder.position_at_end(two)
    builder.ret(power_of_two(builder, exponent_argument))
    builder.position_at_end(loop)
    result = builder.phi(I64, "result")
    base = builder.phi(I64, "base")
    exponent = builder.phi(I64, "exponent")
    result.add_incoming(constant(1), entry)
    base.add_incoming(base_argument, entry)
    exponent.add_incoming(exponent_argument, entry)
    builder.cbranch(builder.icmp_unsigned("==", exponent, constant(0)), done, body)
    builder.position_at_end(body)
    odd = builder.trunc(exponent, I1)
    next_result = builder.select(odd, mul_partial(builder, result, base), result)
    next_base = mul_partial(builder, base, base)
    next_exponent = builder.lshr(exponent, constant(1))
    result.add_incoming(next_result, body)
    base.add_incoming(next_base, body)
    exponent.add_incoming(next_exponent, body)
    builder.branch(loop)
    builder.position_at_end(done)
    builder.ret(canonical(builder, result))
    return function


# --- the X-field F_p[X] / (X^3 - X + 1) ------------------------------------------------------


def x_add(builder: ir.IRBuilder, a, b) -> tuple:
    return tuple(add(builder, left, right) for left, right in zip(a, b))


def x_mul(builder: ir.IRBuilder, a, b) -> tuple:
    """Schoolbook product reduced by X^3 = X - 1 (vm.xfield.mul)."""
    a0, a1, a2 = a
    b0, b1, b2 = b

    def product(x, y):
        return mul(builder, x, y)

    def total(*terms):
        result = terms[0]
        for term in terms[1:]:
            result = add(builder, result, term)
        return result

    r0 = sub(builder, sub(builder, product(a0, b0), product(a2, b1)), product(a1, b2))
    r1 = total(product(a1, b0), product(a0, b1), product(a2, b1), product(a1, b2))
    r1 = sub(builder, r1, product(a2, b2))
    r2 = total(product(a2, b0), product(a1, b1), product(a0, b2), product(a2, b2))
    return (r0, r1, r2)


def x_scalar_mul(builder: ir.IRBuilder, scalar, a) -> tuple:
    return tuple(mul(builder, scalar, coefficient) for coefficient in a)


def x_inverse(builder: ir.IRBuilder, power: ir.Function, a) -> tuple:
    """The inverse of a non-zero element: adjugate column over the norm (vm.xfield.inverse)."""
    a0, a1, a2 = a
    m00, m01, m02 = a0, neg(builder, a2), neg(builder, a1)
    m10, m11, m12 = a1, add(builder, a0, a2), sub(builder, a1, a2)
    m20, m21, m22 = a2, a1, add(builder, a0, a2)

    def cross(x, y, z, w):  # x*y - z*w
        return sub(builder, mul(builder, x, y), mul(builder, z, w))

    cofactor0 = cross(m11, m22, m12, m21)
    cofactor1 = cross(m12, m20, m10, m22)
    cofactor2 = cross(m10, m21, m11, m20)
    determinant = add(
        builder,
        add(builder, mul(builder, m00, cofactor0), mul(builder, m01, cofactor1)),
        mul(builder, m02, cofactor2),
    )
    scale = builder.call(power, [determinant, constant(P - 2)])
    return tuple(mul(builder, cofactor, scale) for cofactor in (cofactor0, cofactor1, cofactor2))
