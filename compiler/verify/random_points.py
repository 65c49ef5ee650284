"""Equality of values by evaluation at random points (Schwartz-Zippel), with error bounds.

Input: pairs of polynomials of one `TermTable` that are not the same object.
Output: `equal_at_random_points(table, pairs, generator) -> Proof`: proven
equal with an error bound (the probability that a difference went unnoticed),
or the reason why not.

Two kinds of pairs can be equal although their canonical forms differ:

* pairs with *opaque* atoms (unexpanded products and powers, compiler.verify.terms):
  both sides are polynomials in the free atoms, of known degree d;
* pairs with `inverse(m)` atoms whose argument m is a plain polynomial in free
  atoms: `m * inverse(m) = 1` holds on every run that reached the atom (its
  `invert` passed `m != 0`), so both sides are rational functions of the free
  atoms.  Their difference D, multiplied by m_j^E_j for each inverse (E_j its
  highest exponent in D), is a polynomial N of degree at most
  max_t deg(t without inverses) + sum_j E_j deg(m_j); at a random point where no
  m_j vanishes, D = 0 exactly when N = 0.  A trial errs with probability at most
  (deg N + sum_j deg(m_j)) / p.

Every free atom gets an independent uniform value; opaque atoms and the
interpreted inverses are computed from their arguments.  The values are not a fixed
seed's, which anyone could read and build a pair to differ only there: `HashPoints`
draws them from BLAKE2b in counter mode, keyed by a digest of both blocks and the
assumptions (`points_for`).  Deterministic -- the same pair gets the same points on
every run and machine -- yet fixed only once the pair is: a pair made to vanish at the
points of one pair is another pair, with other points.  Treating free atoms as
independent is sound: a formal identity holds for every value they can take.
With n pairs and per-trial error e, T trials give the bound n * e^T, and T is
chosen so that it is below 2^-100.  Any other pair of distinct canonical forms
is formally different: not proven (only the interpreter decides `different`).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

from compiler.verify.functions import FUNCTIONS, evaluate_with
from compiler.verify.terms import Atom, Poly, TermTable
from vm.field import P

TARGET_ERROR_EXPONENT = 100  # accept with error at most 2^-100
MAXIMUM_TRIALS = 40
POINTS = "BLAKE2b of both blocks"  # how the points are chosen, as a verdict says it


class HashPoints:
    """Field words no one can aim at before the pair is fixed: BLAKE2b-256 of the pair
    is the key of a BLAKE2b counter stream, each 128-bit output reduced mod p (a bias
    below 2^-64).  `randrange(P)` as `random.Random` spells it."""

    def __init__(self, material: bytes):
        self.key = hashlib.blake2b(material, digest_size=32).digest()
        self.counter = 0

    def randrange(self, bound: int) -> int:
        block = hashlib.blake2b(self.counter.to_bytes(8, "little"), key=self.key, digest_size=16)
        self.counter += 1
        return int.from_bytes(block.digest(), "little") % bound


def points_for(program_a, program_b, assumptions, seed: int = 0) -> HashPoints:
    """The evaluation points of comparing `program_a` with `program_b`: keyed by both
    blocks' instructions (their canonical text, so symbolic parameters count by name),
    the assumptions and `seed` (which a caller may vary, never to make points known)."""
    texts = ["\n".join(_word(op) for op in program.ops) for program in (program_a, program_b)]
    material = "\x00".join([*texts, repr(assumptions), str(seed)])
    return HashPoints(material.encode())


@dataclass(frozen=True)
class Proof:
    proven: bool
    reason: str
    method: str = "canonical"
    error_bound: float = 0.0
    residual: object = None  # what is left open, for compiler.verify.solver (a Residual)


@dataclass(frozen=True)
class _Test:
    """How to evaluate one pair: its per-trial error numerator and the inverses computed."""

    name: str
    left: Poly
    right: Poly
    degree: int  # a trial misses a difference with probability at most degree / p
    interpreted: frozenset[int]  # serials of inverse atoms computed from their argument


def _interpretable(table: TermTable, atom: Atom) -> bool:
    """An inverse whose argument is a polynomial in free atoms only."""
    if atom.kind != "inverse":
        return False
    (argument,) = atom.arguments
    return not argument.opaque and all(
        table.atoms[serial].kind != "inverse" for serial in table.atoms_in(argument)
    )


def _rational_degree(table: TermTable, difference: Poly) -> tuple[int, frozenset[int]] | None:
    """(per-trial error numerator, inverses) for a difference with interpretable inverses."""
    highest: dict[int, int] = {}  # inverse serial -> its highest exponent E_j
    plain = 0  # the largest degree of a monomial without its inverses
    for monomial in difference.terms:
        degree = 0
        for serial, exponent in monomial:
            if _interpretable(table, table.atoms[serial]):
                highest[serial] = max(highest.get(serial, 0), exponent)
            else:
                degree += exponent * table.atoms[serial].degree
        plain = max(plain, degree)
    if not highest:
        return None
    denominators = [table.atoms[serial].arguments[0].degree for serial in highest]
    numerator = plain + sum(e * d for e, d in zip(highest.values(), denominators))
    return numerator + sum(denominators), frozenset(highest)


def _test(table: TermTable, name: str, left: Poly, right: Poly) -> _Test | None:
    if left.opaque or right.opaque:
        return _Test(name, left, right, max(left.degree, right.degree), frozenset())
    rational = _rational_degree(table, table.sub(left, right))
    if rational is None:
        return None
    degree, interpreted = rational
    return _Test(name, left, right, degree, interpreted)


def _word(op) -> str:
    """An instruction as text; a symbolic argument (a polynomial of the table, for a rule
    proven for every value) by its terms, which the table numbers in a fixed order."""
    if isinstance(op.argument, int | str | type(None)):
        return op.text
    return f"{op.instruction.name} {sorted(op.argument.terms.items())!r}"


def evaluate_random(
    table: TermTable, polys, generator: HashPoints, interpreted: frozenset[int] = frozenset()
) -> list[int]:
    """Values at a random point: free atoms uniform in F_p; opaque atoms and the
    `interpreted` inverses computed from their arguments."""

    def atom_value(atom: Atom, arguments) -> int:
        if atom.opaque or atom.serial in interpreted:
            return FUNCTIONS[atom.kind].evaluate(atom.parameters, arguments(), None)
        return generator.randrange(P)

    return evaluate_with(table, polys, atom_value)


def equal_at_random_points(table: TermTable, pairs, generator: HashPoints) -> Proof:
    """Prove every (name, left, right) pair equal, or say which one is not shown equal."""
    tests = []
    for name, left, right in pairs:
        if left is right:
            continue
        test = _test(table, name, left, right)
        if test is None:
            return Proof(False, f"{name} differs: A {table.render(left)}, B {table.render(right)}")
        tests.append(test)
    if not tests:
        return Proof(True, "equal canonical forms")
    degree = max(test.degree for test in tests)
    if degree >= P >> 16:
        return Proof(False, f"degree {degree} is too high for Schwartz-Zippel")
    bits_per_trial = math.log2(P / degree)
    trials = math.ceil((TARGET_ERROR_EXPONENT + math.log2(len(tests))) / bits_per_trial)
    if trials > MAXIMUM_TRIALS:
        return Proof(False, f"degree {degree} needs too many Schwartz-Zippel trials")
    for test in tests:
        for _ in range(trials):
            left, right = evaluate_random(
                table, (test.left, test.right), generator, test.interpreted
            )
            if left != right:
                return Proof(False, f"{test.name} differs at a random point", "schwartz-zippel")
    bound = len(tests) * (degree / P) ** trials
    values = f"{len(tests)} value{'s' if len(tests) > 1 else ''}"
    reason = f"{values} equal at {trials} random points ({POINTS})"
    return Proof(True, reason, "schwartz-zippel", bound)
