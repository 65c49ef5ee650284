"""Identities between atoms that bring equal values to one canonical form.

Input: a `TermTable` (compiler.verify.terms) whose atoms come from two blocks.
Output: `Canonical(table)`, a memoized rewriting `Poly -> Poly` that replaces,
at any depth, every atom an identity defines in terms of others:

    split_low(x)     = x - 2^32 * split_high(x)              (split: x = hi * 2^32 + lo)
    remainder(n, d)  = n - d * quotient(n, d)                 (div_mod: n = q * d + r)
    xor(a, b)        = a + b - 2 * and(a, b)                  (a, b are u32)
    lt(b, a)         = 1 - lt(a, b) - is_zero(a - b)          (a, b are u32; of the two
                                                               orders, the one whose
                                                               first operand is older
                                                               stays)

Each identity holds wherever its atom can occur: an atom exists only after the
instruction that made it passed its guards (u32 operands, a non-zero divisor),
and those guards are exactly the identity's premises.  So two blocks whose
rewritten results are equal are equal on every run that does not fail.

`x * inverse(x) = 1` is not linear in one atom; the comparison proves it by
evaluating `inverse` at random points (`rational_inverses`), see
compiler.verify.equivalence.
"""

from __future__ import annotations

from compiler.verify.functions import apply, substitute
from compiler.verify.terms import Atom, Poly, TermTable

TWO_TO_32 = 1 << 32


def eliminate(table: TermTable, atom: Atom) -> Poly | None:
    """The atom written with other atoms, when an identity defines it; else None."""
    arguments = atom.arguments
    if atom.kind == "split_low":
        (value,) = arguments
        high = apply(table, "split_high", (), (value,))
        return table.sub(value, table.scale(high, TWO_TO_32))
    if atom.kind == "remainder":
        numerator, denominator = arguments
        quotient = apply(table, "quotient", (), (numerator, denominator))
        return table.sub(numerator, table.mul(denominator, quotient))
    if atom.kind == "xor":
        left, right = arguments
        both = apply(table, "and", (), (left, right))
        return table.sub(table.add(left, right), table.scale(both, 2))
    if atom.kind == "lt":
        left, right = arguments  # lt(left, right) = [left < right]
        if right.serial < left.serial:
            other = apply(table, "lt", (), (right, left))
            equal = apply(table, "is_zero", (), (table.sub(left, right),))
            return table.sub(table.sub(table.one, other), equal)
    return None


class Canonical:
    """Rewrites polynomials with the identities above; one memo per table."""

    def __init__(self, table: TermTable):
        self.table = table
        self.memo: dict = {}

    def __call__(self, poly: Poly) -> Poly:
        """`poly` with every atom an identity defines eliminated, at any depth."""
        return substitute(self.table, poly, {}, self.memo, self.eliminate)

    def eliminate(self, atom: Atom) -> Poly | None:
        return eliminate(self.table, atom)
