"""The cubic extension field F_p^3 = F_p[X] / (X^3 - X + 1).

An element c0 + c1*X + c2*X^2 is the tuple (c0, c1, c2) of canonical words.
This module does the X-field arithmetic behind `xx_add`, `xx_mul`, `x_invert`,
`xb_mul` and the dot/Horner steps, and converts elements to and from the op
stack.

Stack layout: an element occupies three words with the constant coefficient on
top, `_ c2 c1 c0` (st0 = c0, st1 = c1, st2 = c2).  Instructions pop c0 first,
then c1, then c2, and push c2 first, then c1, then c0.
"""

from __future__ import annotations

from collections.abc import Sequence

from vm.field import P

XFieldElement = tuple[int, int, int]

ZERO: XFieldElement = (0, 0, 0)
ONE: XFieldElement = (1, 0, 0)
X: XFieldElement = (0, 1, 0)


def element(c0: int, c1: int = 0, c2: int = 0) -> XFieldElement:
    """The element c0 + c1*X + c2*X^2, coefficients reduced to [0, p)."""
    return (c0 % P, c1 % P, c2 % P)


def lift(scalar: int) -> XFieldElement:
    """The base-field word `scalar` as an X-field element."""
    return (scalar % P, 0, 0)


def add(a: XFieldElement, b: XFieldElement) -> XFieldElement:
    return ((a[0] + b[0]) % P, (a[1] + b[1]) % P, (a[2] + b[2]) % P)


def sub(a: XFieldElement, b: XFieldElement) -> XFieldElement:
    return ((a[0] - b[0]) % P, (a[1] - b[1]) % P, (a[2] - b[2]) % P)


def neg(a: XFieldElement) -> XFieldElement:
    return (-a[0] % P, -a[1] % P, -a[2] % P)


def mul(a: XFieldElement, b: XFieldElement) -> XFieldElement:
    """Schoolbook product reduced by X^3 = X - 1 and X^4 = X^2 - X."""
    a0, a1, a2 = a
    b0, b1, b2 = b
    r0 = a0 * b0 - a2 * b1 - a1 * b2
    r1 = a1 * b0 + a0 * b1 - a2 * b2 + a2 * b1 + a1 * b2
    r2 = a2 * b0 + a1 * b1 + a0 * b2 + a2 * b2
    return (r0 % P, r1 % P, r2 % P)


def scalar_mul(scalar: int, a: XFieldElement) -> XFieldElement:
    """Base-field word times X-field element: each coefficient times `scalar`."""
    return (scalar * a[0] % P, scalar * a[1] % P, scalar * a[2] % P)


def inverse(a: XFieldElement) -> XFieldElement:
    """The inverse of a non-zero element; ZeroDivisionError for zero.

    Multiplication by `a` is the linear map with matrix M (columns a, a*X,
    a*X^2).  The inverse b solves M b = (1, 0, 0), so b is the first column of
    adj(M) / det(M): a handful of products and one base-field inversion.
    det(M) is the norm of `a`, which vanishes only for a = 0.
    """
    a0, a1, a2 = a
    if a0 % P == 0 and a1 % P == 0 and a2 % P == 0:
        raise ZeroDivisionError("inverse of zero in F_p^3")
    # a*1 = (a0, a1, a2), a*X = (-a2, a0 + a2, a1), a*X^2 = (-a1, a1 - a2, a0 + a2)
    m00, m01, m02 = a0, -a2, -a1
    m10, m11, m12 = a1, a0 + a2, a1 - a2
    m20, m21, m22 = a2, a1, a0 + a2
    cofactor0 = (m11 * m22 - m12 * m21) % P
    cofactor1 = (m12 * m20 - m10 * m22) % P
    cofactor2 = (m10 * m21 - m11 * m20) % P
    determinant = (m00 * cofactor0 + m01 * cofactor1 + m02 * cofactor2) % P
    scale = pow(determinant, -1, P)
    return (cofactor0 * scale % P, cofactor1 * scale % P, cofactor2 * scale % P)


def power(base: XFieldElement, exponent: int) -> XFieldElement:
    """base^exponent by square-and-multiply, with 0^0 = 1.  Negative inverts."""
    if exponent < 0:
        base, exponent = inverse(base), -exponent
    result = ONE
    while exponent:
        if exponent & 1:
            result = mul(result, base)
        base = mul(base, base)
        exponent >>= 1
    return result


def to_stack(a: XFieldElement) -> list[int]:
    """The words to push, in push order: [c2, c1, c0], so c0 ends on top."""
    return [a[2], a[1], a[0]]


def from_stack(words: Sequence[int]) -> XFieldElement:
    """The element held by three stack words listed bottom to top, [c2, c1, c0].

    With the stack as a list whose top is the last item, pass `stack[-3:]`.
    Inverse of `to_stack`.
    """
    if len(words) != 3:
        raise ValueError(f"an X-field element is 3 words, got {len(words)}")
    c2, c1, c0 = words
    return (c0, c1, c2)
