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
evaluating `inverse` at random points (compiler.verify.random_points).

`Canonical.difference_vanishes(a, b)` also uses `is_zero(m) * m = 0`, true
everywhere: a - b is reduced by subtracting multiples of these products (each
step replaces `is_zero(m)` times the leading monomial of m by the rest of m);
if it reaches 0, a - b lies in the ideal they generate, so a = b.
"""

from __future__ import annotations

from compiler.verify.functions import TWO_TO_32, apply, substitute
from compiler.verify.terms import Atom, Poly, TermTable
from vm.field import P

DEFINED = frozenset({"split_low", "remainder", "xor", "lt"})  # the kinds `eliminate` rewrites
REDUCTION_STEPS = 64  # a bound on the reduction by is_zero(m) * m = 0


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
        # the atoms that are, or have in their arguments, an atom an identity defines
        self.dirty: set[int] = set()
        for atom in table.atoms:
            if atom.kind in DEFINED or any(
                table.atoms_in(argument) & self.dirty for argument in atom.arguments
            ):
                self.dirty.add(atom.serial)
        self.active = bool(self.dirty)

    def __call__(self, poly: Poly) -> Poly:
        """`poly` with every atom an identity defines eliminated, at any depth."""
        if not self.table.atoms_in(poly) & self.dirty:
            return poly
        return substitute(self.table, poly, {}, self.memo, self.eliminate)

    def eliminate(self, atom: Atom) -> Poly | None:
        return eliminate(self.table, atom)

    @property
    def eliminator(self):
        """`eliminate` for substitutions, or None when no atom needs it."""
        return self.eliminate if self.active else None

    def difference_vanishes(self, left: Poly, right: Poly) -> bool:
        """Whether left - right reduces to 0 modulo the products is_zero(m) * m."""
        table = self.table
        if left is right:
            return True
        difference = table.sub(left, right)
        for _ in range(REDUCTION_STEPS):
            if difference is table.zero:
                return True
            step = self._zero_product_step(difference)
            if step is None:
                return False
            difference = table.sub(difference, step)
        return difference is table.zero

    def _zero_product_step(self, poly: Poly) -> Poly | None:
        """A multiple c * q * is_zero(m) * m that cancels one term of `poly`, or None."""
        table = self.table
        for monomial, coefficient in poly.terms.items():
            for serial, _ in monomial:
                atom = table.atoms[serial]
                if atom.kind != "is_zero":
                    continue
                (argument,) = atom.arguments
                leading = max(argument.terms)
                quotient = _divide(monomial, serial, leading)
                if quotient is None:
                    continue
                factor = table.poly({quotient: coefficient * pow(argument.terms[leading], -1, P)})
                zero_product = table.mul(table.poly({((serial, 1),): 1}), argument)
                return table.mul(factor, zero_product)
        return None


def _divide(monomial, serial: int, leading):
    """monomial / (atom `serial` * leading), or None if it does not divide."""
    if not leading:
        return None
    powers = dict(monomial)
    for divisor_serial, exponent in ((serial, 1), *leading):
        if powers.get(divisor_serial, 0) < exponent:
            return None
        powers[divisor_serial] -= exponent
    return tuple(sorted((s, e) for s, e in powers.items() if e))
