"""Polynomials over F_p in hash-consed atoms: the values of symbolic execution.

Input: constants, atoms (named by a kind, integer parameters and argument
polynomials) and the ring operations.  Output: `Poly` objects in a canonical
form -- a sum of monomials with non-zero coefficients, each monomial a sorted
product of atom powers -- interned in a `TermTable`, so that two polynomials of
one table are equal as formal polynomials exactly when they are the same object.

An atom is one of
  * a *free* atom: an entry value (stack word, input token, initial RAM word,
    sponge word) or an uninterpreted function application (`lt(a, b)`,
    `inverse(a)`, a Tip5 output word, ...).  Free atoms are the variables of
    the polynomial ring; two applications are the same atom when their kind,
    parameters and (canonical) arguments are identical.
  * an *opaque* atom: a product or power kept unexpanded because expanding it
    would exceed `MAXIMUM_TERMS` monomials.  It stands for a polynomial in the
    free atoms, so equality of polynomials that contain opaque atoms is
    decided by evaluation (Schwartz-Zippel), not by comparing canonical forms.

Atoms may carry facts used by the simplifier: an integer upper `bound` on the
value (for u32 reasoning) and `boolean` (the value is 0 or 1, so x^2 = x).
The meaning of each kind of atom (its concrete semantics and simplification
rules) lives in `compiler.verify.functions`.  `Expression` wraps a polynomial in
Python operators, so that formulas written for integers (vm.xfield) run on symbols.
"""

from __future__ import annotations

from dataclasses import dataclass

from vm.field import P

MAXIMUM_TERMS = 64  # a product with more monomials stays an opaque atom
EXPANDED_POWER_LIMIT = 16  # powers of multi-term polynomials above this stay opaque
MAXIMUM_STEPS = 3_000_000  # polynomials built or visited in one comparison: a bound on its work

Monomial = tuple[tuple[int, int], ...]  # ((atom serial, exponent), ...), sorted by serial


@dataclass(frozen=True, eq=False)
class Atom:
    """One variable of the polynomial ring (see the module docstring)."""

    kind: str
    parameters: tuple[int, ...]
    arguments: tuple[Poly, ...]
    serial: int
    degree: int  # 1 for free atoms; the degree in free atoms for opaque ones
    bound: int | None  # an upper bound on the canonical value, or None
    boolean: bool
    opaque: bool


class WorkLimit(Exception):
    """A comparison needed more than its table's `step_limit` steps (polynomials built or
    visited): the symbolic layer gives up on it, and says so in the verdict's reason."""


class Poly:
    """A canonical polynomial; compare with `is` (the table interns them)."""

    __slots__ = ("terms", "serial", "degree", "opaque")

    def __init__(self, terms: dict[Monomial, int], serial: int, degree: int, opaque: bool):
        self.terms = terms  # monomial -> coefficient in [1, p); never mutated
        self.serial = serial
        self.degree = degree
        self.opaque = opaque

    @property
    def constant(self) -> int | None:
        """The value if this polynomial is a constant, else None."""
        if not self.terms:
            return 0
        if len(self.terms) == 1 and () in self.terms:
            return self.terms[()]
        return None

    @property
    def single_atom(self) -> int | None:
        """The atom serial if this polynomial is exactly one atom (coefficient 1)."""
        if len(self.terms) == 1:
            ((monomial, coefficient),) = self.terms.items()
            if coefficient == 1 and len(monomial) == 1 and monomial[0][1] == 1:
                return monomial[0][0]
        return None

    def __repr__(self) -> str:
        return f"Poly#{self.serial}({len(self.terms)} terms)"


class TermTable:
    """Interns atoms and polynomials; every `Poly` of a comparison comes from one table."""

    def __init__(self, u32_entry: frozenset[int] = frozenset()):
        self.u32_entry = u32_entry  # entry stack slots assumed below 2^32 (their atoms' bound)
        self.steps = 0  # work done so far: polynomials built or visited (see `spend`)
        self.step_limit = MAXIMUM_STEPS
        self.atoms: list[Atom] = []
        self._atom_index: dict[tuple, Atom] = {}
        self._polys: dict[frozenset, Poly] = {}
        self.zero = self.poly({})
        self.one = self.constant(1)

    # --- construction ---------------------------------------------------------------------

    def spend(self, steps: int = 1) -> None:
        """Count work; WorkLimit once the comparison has done more than `step_limit` steps,
        so that no block, however long, makes a comparison run without bound."""
        self.steps += steps
        if self.steps > self.step_limit:
            raise WorkLimit(
                f"the symbolic comparison needs more than {self.step_limit:,} steps "
                "(polynomials built or visited); the blocks are too large for it"
            )

    def poly(self, terms: dict[Monomial, int]) -> Poly:
        """The interned polynomial with these terms (zero coefficients are dropped)."""
        self.steps += 1  # `spend`, written out: this is the verifier's hottest path
        if self.steps > self.step_limit:
            self.spend(0)
        cleaned = {monomial: value % P for monomial, value in terms.items() if value % P}
        key = frozenset(cleaned.items())
        found = self._polys.get(key)
        if found is not None:
            return found
        degree, opaque = 0, False
        for monomial in cleaned:
            monomial_degree = 0
            for serial, exponent in monomial:
                atom = self.atoms[serial]
                monomial_degree += exponent * atom.degree
                opaque = opaque or atom.opaque
            degree = max(degree, monomial_degree)
        created = Poly(cleaned, len(self._polys), degree, opaque)
        self._polys[key] = created
        return created

    def constant(self, value: int) -> Poly:
        return self.poly({(): value})

    def atom(
        self,
        kind: str,
        parameters: tuple[int, ...] = (),
        arguments: tuple[Poly, ...] = (),
        *,
        bound: int | None = None,
        boolean: bool = False,
        opaque: bool = False,
        degree: int = 1,
    ) -> Poly:
        """The polynomial consisting of one atom, created on first use."""
        key = (kind, parameters, tuple(argument.serial for argument in arguments))
        atom = self._atom_index.get(key)
        if atom is None:
            atom = Atom(
                kind, parameters, arguments, len(self.atoms), degree, bound, boolean, opaque
            )
            self.atoms.append(atom)
            self._atom_index[key] = atom
        return self.poly({((atom.serial, 1),): 1})

    def find_atom(self, kind: str, parameters: tuple[int, ...], arguments) -> Atom | None:
        """The atom if it was ever created, without creating it."""
        key = (kind, parameters, tuple(argument.serial for argument in arguments))
        return self._atom_index.get(key)

    def atom_of(self, poly: Poly) -> Atom | None:
        """The atom if `poly` is exactly one atom, else None."""
        serial = poly.single_atom
        return None if serial is None else self.atoms[serial]

    # --- ring operations ------------------------------------------------------------------

    def add(self, a: Poly, b: Poly) -> Poly:
        if not b.terms:
            return a
        if not a.terms:
            return b
        terms = dict(a.terms)
        for monomial, coefficient in b.terms.items():
            terms[monomial] = terms.get(monomial, 0) + coefficient
        return self.poly(terms)

    def scale(self, a: Poly, factor: int) -> Poly:
        factor %= P
        if factor == 1:
            return a
        return self.poly({monomial: value * factor for monomial, value in a.terms.items()})

    def neg(self, a: Poly) -> Poly:
        return self.scale(a, P - 1)

    def sub(self, a: Poly, b: Poly) -> Poly:
        return self.add(a, self.neg(b))

    def add_constant(self, a: Poly, value: int) -> Poly:
        return self.add(a, self.constant(value))

    def mul(self, a: Poly, b: Poly) -> Poly:
        """The product, expanded unless it would exceed `MAXIMUM_TERMS` monomials."""
        constant_a, constant_b = a.constant, b.constant
        if constant_a is not None:
            return self.scale(b, constant_a)
        if constant_b is not None:
            return self.scale(a, constant_b)
        if len(a.terms) * len(b.terms) > 4 * MAXIMUM_TERMS:
            return self._opaque_product(a, b)
        terms: dict[Monomial, int] = {}
        for monomial_a, value_a in a.terms.items():
            for monomial_b, value_b in b.terms.items():
                monomial = self._multiply_monomials(monomial_a, monomial_b)
                terms[monomial] = (terms.get(monomial, 0) + value_a * value_b) % P
        if len(terms) > MAXIMUM_TERMS:
            return self._opaque_product(a, b)
        return self.poly(terms)

    def power(self, a: Poly, exponent: int) -> Poly:
        """a^exponent for a non-negative integer exponent, with 0^0 = 1."""
        if exponent == 0:
            return self.one
        if exponent == 1:
            return a
        constant = a.constant
        if constant is not None:
            return self.constant(pow(constant, exponent, P))
        if len(a.terms) == 1:
            ((monomial, coefficient),) = a.terms.items()
            raised = tuple(
                (serial, self._capped(serial, power * exponent)) for serial, power in monomial
            )
            return self.poly({raised: pow(coefficient, exponent, P)})
        if exponent > EXPANDED_POWER_LIMIT:
            return self.atom("exponent", (exponent,), (a,), opaque=True, degree=a.degree * exponent)
        result, base = self.one, a
        while exponent:
            if exponent & 1:
                result = self.mul(result, base)
            exponent >>= 1
            if exponent:
                base = self.mul(base, base)
        return result

    def _opaque_product(self, a: Poly, b: Poly) -> Poly:
        first, second = sorted((a, b), key=lambda poly: poly.serial)
        return self.atom("product", (), (first, second), opaque=True, degree=a.degree + b.degree)

    def _capped(self, serial: int, exponent: int) -> int:
        """x^k = x for a boolean atom x."""
        return 1 if self.atoms[serial].boolean else exponent

    def _multiply_monomials(self, left: Monomial, right: Monomial) -> Monomial:
        if not left:
            return right
        if not right:
            return left
        powers = dict(left)
        for serial, exponent in right:
            powers[serial] = self._capped(serial, powers.get(serial, 0) + exponent)
        return tuple(sorted(powers.items()))

    # --- canonical helpers ----------------------------------------------------------------

    def monic(self, a: Poly) -> tuple[int, Poly]:
        """(c, m) with a = c * m and the largest monomial of m having coefficient 1.

        For a = 0 this is (0, 0).  Two polynomials that differ by a non-zero
        factor have the same monic form.
        """
        if not a.terms:
            return 0, a
        leading = max(a.terms)
        coefficient = a.terms[leading]
        return coefficient, self.scale(a, pow(coefficient, P - 2, P))

    def upper_bound(self, a: Poly) -> int | None:
        """An integer bound on the canonical value of `a`, if its atoms are bounded."""
        total = 0
        for monomial, coefficient in a.terms.items():
            if coefficient >= 1 << 32:
                return None
            product = coefficient
            for serial, exponent in monomial:
                bound = self.atoms[serial].bound
                if bound is None or (bound > 1 and exponent * bound.bit_length() > 64):
                    return None
                product *= bound**exponent if bound > 1 else bound
                if product >= P:
                    return None
            total += product
        return total if total < P else None

    def atoms_in(self, a: Poly) -> set[int]:
        """The serials of the atoms that occur in `a` (not inside their arguments)."""
        return {serial for monomial in a.terms for serial, _ in monomial}

    # --- printing -------------------------------------------------------------------------

    def render(self, a: Poly, limit: int = 6, depth: int = 0) -> str:
        """Readable text for a polynomial, e.g. `s0*s1 + 3`, cut after `limit` terms and,
        inside atoms, below `depth` 3 (so a reason's length is bounded, whatever the
        block: a term tree can be exponentially larger than the block)."""
        if not a.terms:
            return "0"
        parts = []
        for monomial, coefficient in sorted(a.terms.items(), reverse=True)[:limit]:
            factors = [
                self.render_atom(self.atoms[serial], depth)
                + (f"^{exponent}" if exponent > 1 else "")
                for serial, exponent in monomial
            ]
            signed = coefficient - P if coefficient > P // 2 else coefficient
            if not factors:
                parts.append(str(signed))
            elif signed == 1:
                parts.append("*".join(factors))
            elif signed == -1:
                parts.append("-" + "*".join(factors))
            else:
                parts.append(f"{signed}*" + "*".join(factors))
        if len(a.terms) > limit:
            parts.append(f"... ({len(a.terms) - limit} more terms)")
        return " + ".join(parts).replace("+ -", "- ")

    def render_atom(self, atom: Atom, depth: int = 0) -> str:
        if atom.kind in LEAF_NAMES:
            return LEAF_NAMES[atom.kind] + "_".join(str(value) for value in atom.parameters)
        if depth > 2:
            return f"{atom.kind}(...)"
        inner = [str(value) for value in atom.parameters]
        inner += [self.render(argument, 3, depth + 1) for argument in atom.arguments[:4]]
        if len(atom.arguments) > 4:
            inner.append("...")
        return f"{atom.kind}({', '.join(inner)})"


class Expression:
    """A polynomial with operators, so that vm.xfield's formulas run on symbols."""

    __slots__ = ("table", "poly")

    def __init__(self, table: TermTable, poly: Poly):
        self.table, self.poly = table, poly

    def __add__(self, other):
        return Expression(self.table, self.table.add(self.poly, other.poly))

    def __sub__(self, other):
        return Expression(self.table, self.table.sub(self.poly, other.poly))

    def __mul__(self, other):
        return Expression(self.table, self.table.mul(self.poly, other.poly))

    def __mod__(self, modulus):  # polynomials are already reduced
        return self


# How entry values print: s0 is the entry st0, in3 the fourth public input token, ...
LEAF_NAMES = {
    "stack": "s",
    "public": "in",
    "secret": "secret",
    "digest": "digest",
    "sponge": "sponge",
    "parameter": "a",
}
