"""Failure conditions in canonical form.

Input: the condition an instruction needs to succeed (`st0 = 1` for `assert`, a
u32 operand, a non-zero divisor, ...), as polynomials of a `TermTable`.
Output: a tuple of `Guard`s whose conjunction is that condition; the empty tuple
when it always holds, `(NEVER,)` when it never does.

A block fails on an entry state exactly when one of its guards is false there
(the values a guard reads are the real ones up to the first failing guard), so
the failure set of a block is the union of the complements of its guards, and
two blocks with the same *set* of guards fail on the same entry states.  To make
equal conditions compare equal, each constructor rewrites to one normal form:

* `zero(c*P)` and `nonzero(c*P)` use the monic form of P;
* `zero(is_zero(Q))` is `nonzero(Q)`, `zero(is_zero(Q) - 1)` is `zero(Q)`;
* `zero(split_high(Q))` is `u32(Q)`: the u32 range check written with `split`
  equals the one `lt`, `and`, ... make;
* `nonzero(x^k * y^j)` is `nonzero(x), nonzero(y)`; `nonzero(b)` for a 0/1 atom is
  `zero(b - 1)`;
* `u32(Q)` holds when Q is bounded by 2^32 - 1 (a result of a u32 instruction).

`normalize(table, guards)` rewrites each guard with the identities the guards
before it establish (`split_low(Q) -> Q` under `u32(Q)`, `x -> 5` under
`zero(x - 5)`) and returns those identities, which hold on every run that does
not fail; equivalence applies them to the results.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.verify.functions import U32_MAX, substitute
from compiler.verify.terms import Poly, TermTable
from vm.field import P


@dataclass(frozen=True)
class Guard:
    """A condition a successful run satisfies: kind in zero, nonzero, u32, nonzero_x, never."""

    kind: str
    polys: tuple[Poly, ...]

    def sort_key(self) -> tuple:
        return (self.kind, tuple(poly.serial for poly in self.polys))


NEVER = Guard("never", ())


def zero(table: TermTable, value: Poly) -> tuple[Guard, ...]:
    """value = 0."""
    constant = value.constant
    if constant is not None:
        return () if constant == 0 else (NEVER,)
    _, monic = table.monic(value)
    atom = table.atom_of(monic)
    if atom is not None:
        if atom.kind == "is_zero":
            return nonzero(table, atom.arguments[0])
        if atom.kind == "split_high":
            return u32(table, atom.arguments[0])
        if atom.kind == "inverse":  # an inverse is never 0
            return (NEVER,)
    single = _single_atom_power(table, monic)
    if single is not None and single is not monic:  # x^k = 0 iff x = 0
        return zero(table, single)
    boolean = _boolean_minus_one(table, monic)
    if boolean is not None and boolean.kind == "is_zero":  # is_zero(Q) = 1 iff Q = 0
        return zero(table, boolean.arguments[0])
    return (Guard("zero", (monic,)),)


def nonzero(table: TermTable, value: Poly) -> tuple[Guard, ...]:
    """value != 0."""
    constant = value.constant
    if constant is not None:
        return () if constant != 0 else (NEVER,)
    _, monic = table.monic(value)
    atom = table.atom_of(monic)
    if atom is not None:
        if atom.kind == "inverse":
            return ()
        if atom.boolean:  # a 0/1 value is non-zero iff it is 1
            return zero(table, table.sub(monic, table.one))
    if len(monic.terms) == 1:  # a product is non-zero iff every factor is
        ((monomial, _),) = monic.terms.items()
        if len(monomial) > 1 or monomial[0][1] > 1:
            result: tuple[Guard, ...] = ()
            for serial, _ in monomial:
                result += nonzero(table, table.poly({((serial, 1),): 1}))
            return result
    boolean = _boolean_minus_one(table, monic)
    if boolean is not None:  # b - 1 != 0 iff b = 0
        return zero(table, table.poly({((boolean.serial, 1),): 1}))
    return (Guard("nonzero", (monic,)),)


def u32(table: TermTable, value: Poly) -> tuple[Guard, ...]:
    """value < 2^32."""
    bound = table.upper_bound(value)
    if bound is not None and bound <= U32_MAX:
        return ()
    if value.constant is not None:
        return (NEVER,)
    return (Guard("u32", (value,)),)


def nonzero_x(table: TermTable, coefficients: tuple[Poly, Poly, Poly]) -> tuple[Guard, ...]:
    """The X-field element (c0, c1, c2) is not 0."""
    constants = [coefficient.constant for coefficient in coefficients]
    if any(constant not in (None, 0) for constant in constants):
        return ()
    unknown = [c for c, constant in zip(coefficients, constants) if constant is None]
    if not unknown:
        return (NEVER,)
    if len(unknown) == 1:
        return nonzero(table, unknown[0])
    return (Guard("nonzero_x", coefficients),)


def _single_atom_power(table: TermTable, monic: Poly) -> Poly | None:
    """x if monic = x^k for one atom x, else None."""
    if len(monic.terms) == 1:
        ((monomial, _),) = monic.terms.items()
        if len(monomial) == 1:
            return table.poly({((monomial[0][0], 1),): 1})
    return None


def _boolean_minus_one(table: TermTable, monic: Poly):
    """The atom b if monic = b - 1 for a 0/1 atom b, else None."""
    if len(monic.terms) != 2 or monic.terms.get(()) != P - 1:
        return None
    (monomial,) = [monomial for monomial in monic.terms if monomial]
    if monic.terms[monomial] != 1 or len(monomial) != 1 or monomial[0][1] != 1:
        return None
    atom = table.atoms[monomial[0][0]]
    return atom if atom.boolean else None


CONSTRUCTORS = {
    "zero": lambda table, polys: zero(table, polys[0]),
    "nonzero": lambda table, polys: nonzero(table, polys[0]),
    "u32": lambda table, polys: u32(table, polys[0]),
    "nonzero_x": lambda table, polys: nonzero_x(table, polys),
    "never": lambda table, polys: (NEVER,),
}


def normalize(table: TermTable, guards: dict, eliminate=None) -> tuple[dict, dict[int, Poly]]:
    """The guards rewritten by the identities earlier guards establish, and those identities.

    `guards` maps each guard to its error kind, in the order the block checks
    them.  Each guard is rewritten with the rewrites of the guards before it
    (`split_low(Q) -> Q` after `u32(Q)`, `x -> 5` after `zero(x - 5)`) and then
    adds its own.  The block fails exactly where the rewritten guards say: at
    the first guard that fails, every earlier guard holds, so every rewrite used
    on it is an identity there.  The returned rewrites hold on every run that
    does not fail; equivalence applies them to the results.  `eliminate` (an
    atom -> Poly | None, compiler.verify.identities) rewrites the atoms that
    identities define, before and after each guard's rewrites.
    """
    each, mapping = normalize_each(table, guards, eliminate)
    result: dict = {}
    for guard, kind in guards.items():
        for new in each[guard]:
            result.setdefault(new, kind)
    return result, mapping


def normalize_each(
    table: TermTable, guards, eliminate=None
) -> tuple[dict[Guard, tuple[Guard, ...]], dict[int, Poly]]:
    """`normalize`'s work guard by guard: each guard of `guards` (in the order the block
    checks them) -> the guards it is rewritten to, and the rewrites."""
    mapping: dict[int, Poly] = {}
    each: dict[Guard, tuple[Guard, ...]] = {}
    canonical: dict = {}  # the memo of the rewrites by identities alone
    for guard in guards:
        rewritten: tuple[Guard, ...] = (guard,)
        polys = guard.polys
        if eliminate is not None:
            polys = tuple(substitute(table, poly, {}, canonical, eliminate) for poly in polys)
        if mapping:
            memo: dict = {}
            polys = tuple(substitute(table, poly, mapping, memo, eliminate) for poly in polys)
        if any(new is not old for new, old in zip(polys, guard.polys)):
            rewritten = CONSTRUCTORS[guard.kind](table, polys)
        each[guard] = rewritten
        for new in rewritten:
            _add_rewrites(table, new, mapping)
    return each, mapping


def _add_rewrites(table: TermTable, guard: Guard, mapping: dict[int, Poly]) -> None:
    if guard.kind == "u32":
        (value,) = guard.polys
        low = table.find_atom("split_low", (), (value,))
        high = table.find_atom("split_high", (), (value,))
        if low is not None:
            mapping.setdefault(low.serial, value)
        if high is not None:
            mapping.setdefault(high.serial, table.zero)
    elif guard.kind == "zero":
        (value,) = guard.polys
        pivot = _pivot(value)
        if pivot is not None and pivot[0] not in mapping:
            serial, coefficient = pivot
            atom_poly = table.poly({((serial, 1),): coefficient})
            rest = table.sub(value, atom_poly)  # value = c*x + rest = 0: x = -rest / c
            mapping[serial] = table.scale(rest, P - pow(coefficient, P - 2, P))


def interesting_values(table: TermTable, guard: Guard) -> set[int]:
    """Entry values where a guard changes its truth, when it is linear in one entry value.

    `zero(3*s0 - 6)` gives 2 (and 1, 3); `u32(s1 + 5)` gives 2^32 - 6 and 2^32 - 5.
    The concrete search tries them, so that a guard only one block has is hit.
    """
    values: set[int] = set()
    for poly in guard.polys:
        linear = _linear_in_one_leaf(table, poly)
        if linear is None:
            continue
        coefficient, constant = linear
        inverse = pow(coefficient, P - 2, P)
        targets = (0,) if guard.kind != "u32" else (U32_MAX, U32_MAX + 1)
        for target in targets:
            root = (target - constant) * inverse % P
            values.update({root, (root + 1) % P, (root - 1) % P})
    return values


def _linear_in_one_leaf(table: TermTable, poly: Poly) -> tuple[int, int] | None:
    """(c, k) if poly = c*x + k for one entry value x, else None."""
    coefficient = None
    for monomial, value in poly.terms.items():
        if not monomial:
            continue
        if coefficient is not None or len(monomial) != 1 or monomial[0][1] != 1:
            return None
        if table.atoms[monomial[0][0]].arguments:
            return None
        coefficient = value
    if coefficient is None:
        return None
    return coefficient, poly.terms.get((), 0)


def _pivot(value: Poly) -> tuple[int, int] | None:
    """(serial, coefficient) of the newest atom that occurs only as a linear term."""
    occurrences: dict[int, int] = {}
    linear: dict[int, int] = {}
    for monomial, coefficient in value.terms.items():
        for serial, _ in monomial:
            occurrences[serial] = occurrences.get(serial, 0) + 1
        if len(monomial) == 1 and monomial[0][1] == 1:
            linear[monomial[0][0]] = coefficient
    candidates = [serial for serial in linear if occurrences[serial] == 1]
    if not candidates:
        return None
    serial = max(candidates)
    return serial, linear[serial]
