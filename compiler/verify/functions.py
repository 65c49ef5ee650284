"""The atoms' meaning: one table row per kind of atom, plus `apply`, `substitute`
and the evaluators.

Input: a `TermTable` (compiler.verify.terms) and atoms named by kind.  Output:

* `apply(table, kind, parameters, arguments)`: the polynomial for a function
  application after constant folding and the simplification rules below (each
  rule is an identity that holds wherever the application can occur, i.e. after
  the guards of the instruction that produced it have passed);
* `substitute(table, poly, mapping)`: `poly` with atoms replaced, rebuilt through
  `apply`;
* `evaluate(table, polys, entry)`: the concrete value of each polynomial for one
  concrete entry state (the instructions' semantics, mirrored from vm.handlers
  and checked against the interpreter by tests/verify/test_verify_symbolic.py);
* `evaluate_with(table, polys, atom_value)`: the values of `polys` given a value
  for each atom (compiler.verify.random_points evaluates at random points).

Every function is total, so that a value exists even where the guard of the
instruction fails (`quotient(n, 0) = 0`, `log2(0) = 0`, ...); such values are
never observed, because equivalence compares results only on runs that succeed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from compiler.verify.terms import Atom, Poly, TermTable
from vm import tip5, xfield
from vm.field import P

TWO_TO_32 = 1 << 32  # the first value that is not a u32
U32_MAX = TWO_TO_32 - 1
TIP5_ONES = (1,) * (tip5.STATE_SIZE - tip5.RATE)  # the fixed-length mode's capacity (hash)


@dataclass(frozen=True)
class EntryValues:
    """One concrete entry state, as the leaves of a symbolic result see it."""

    stack: Sequence[int]  # st0 first
    public: Sequence[int] = ()
    secret: Sequence[int] = ()
    digests: Sequence[Sequence[int]] = ()
    sponge: Sequence[int] | None = None
    memory: Callable[[int], int] = field(default=lambda address: 0)


# --- concrete semantics --------------------------------------------------------------------


def _select(parameters, values, entry: EntryValues) -> int:
    """The word at `values[-1]` after the writes (address, value, address, value, ...)."""
    address = values[-1]
    for index in range(len(values) - 3, -1, -2):
        if values[index] == address:
            return values[index + 1]
    return entry.memory(address)


def _merkle(parameters, values, entry) -> int:
    node_index, current, sibling = values[0], tuple(values[1:6]), tuple(values[6:11])
    pair = current + sibling if node_index % 2 == 0 else sibling + current
    return tip5.permutation(pair + TIP5_ONES)[parameters[0]]


def _leaf(name: str):
    """An entry value; 0 for a token past the end of its stream (that run fails anyway)."""

    def value(parameters, values, entry: EntryValues) -> int:
        if name == "sponge":
            return 0 if entry.sponge is None else entry.sponge[parameters[0]]
        source = {
            "stack": entry.stack,
            "public": entry.public,
            "secret": entry.secret,
            "digest": entry.digests,
        }[name]
        if parameters[0] >= len(source):
            return 0
        word = source[parameters[0]]
        return word[parameters[1]] if name == "digest" else word

    return value


def _no_value(parameters, values, entry) -> int:
    raise TypeError("a symbolic rule parameter has no concrete value; prove, do not run")


@dataclass(frozen=True)
class Function:
    """One kind of atom: its concrete semantics and the facts the simplifier may use.

    A u32 instruction's result exists only after its operands passed their u32
    guards, so its bound (quotient < 2^32, log2 <= 31, ...) holds wherever the
    atom occurs.
    """

    evaluate: Callable  # (parameters, argument values, entry) -> int
    bound: int | None = None  # upper bound on the value wherever the atom can occur
    boolean: bool = False  # value in {0, 1}
    commutative: bool = False
    leaf: bool = False  # an entry value: no arguments, value from the entry state
    simplify: Callable | None = None  # (table, parameters, arguments) -> Poly | None


BOOLEAN_ATOMS = 6  # is_zero of a polynomial in at most this many 0/1 atoms is expanded


def _boolean_indicator(table: TermTable, argument: Poly) -> Poly | None:
    """is_zero(f(b1..bn)) for boolean atoms b1..bn (n <= BOOLEAN_ATOMS) as the multilinear
    polynomial that is 1 on the assignments where f is 0: the sum over those assignments
    of the products of b (where 1) and 1 - b (where 0).  On 0/1 values this is the same
    function, and two such forms are equal exactly when the functions are, so counting
    conditions and testing the count (`sum of n booleans == n`) meets their product."""
    serials = sorted({serial for monomial in argument.terms for serial, _ in monomial})
    if not 0 < len(serials) <= BOOLEAN_ATOMS:
        return None
    atoms = [table.atoms[serial] for serial in serials]
    if any(not atom.boolean or atom.opaque for atom in atoms):
        return None
    result = table.zero
    for bits in range(1 << len(serials)):
        ones = {serial for place, serial in enumerate(serials) if bits >> place & 1}
        value = sum(
            coefficient
            for monomial, coefficient in argument.terms.items()
            if all(serial in ones for serial, _ in monomial)
        )
        if value % P:
            continue
        term = table.one
        for serial in serials:
            atom = table.poly({((serial, 1),): 1})
            term = table.mul(term, atom if serial in ones else table.sub(table.one, atom))
        result = table.add(result, term)
    return result


def _is_zero_rule(table: TermTable, parameters, arguments):
    (argument,) = arguments
    indicator = _boolean_indicator(table, argument) if argument.constant is None else None
    if indicator is not None:
        return indicator
    _, monic = table.monic(argument)
    atom = table.atom_of(monic)
    if atom is not None and atom.boolean:  # is_zero(b) = 1 - b
        return table.sub(table.one, monic)
    if atom is not None and atom.kind == "inverse":  # an inverse is never 0
        return table.zero
    if atom is not None and atom.kind == "xor":  # u32 a xor b is 0 exactly when a = b
        return apply(table, "is_zero", (), (table.sub(*atom.arguments),))
    if len(monic.terms) == 1 and len(next(iter(monic.terms))) == 1:  # x^k = 0 iff x = 0
        ((serial, _),) = next(iter(monic.terms))
        single = table.poly({((serial, 1),): 1})
        if single is not monic:
            return apply(table, "is_zero", (), (single,))
    if len(monic.terms) == 2 and monic.terms.get(()) == P - 1:  # is_zero(b - 1) = b
        (rest,) = [monomial for monomial in monic.terms if monomial]
        candidate = table.poly({rest: 1})
        atom = table.atom_of(candidate)
        if atom is not None and atom.boolean:
            return candidate
    if monic is not argument:
        return apply(table, "is_zero", (), (monic,))
    return None


def _lt_rule(table: TermTable, parameters, arguments):
    left, right = arguments  # left = st0, right = st1: the value is left < right
    if left is right or right.constant == 0:
        return table.zero
    if left.constant == 0:  # 0 < right iff right != 0
        return table.sub(table.one, apply(table, "is_zero", (), (right,)))
    if right.constant == 1:  # left < 1 iff left = 0
        return apply(table, "is_zero", (), (left,))
    remainder = table.atom_of(left)
    if remainder is not None and remainder.kind == "remainder" and remainder.arguments[1] is right:
        return table.one  # n mod d < d (the divisor passed its non-zero guard)
    return None


def _and_rule(table: TermTable, parameters, arguments):
    left, right = arguments
    if left is right:
        return left
    for one, other in ((left, right), (right, left)):
        if one.constant == 0:
            return table.zero
        if one.constant == U32_MAX:  # the other operand is a u32 (its guard passed)
            return other
    return None


def _xor_rule(table: TermTable, parameters, arguments):
    left, right = arguments
    if left is right:
        return table.zero
    for one, other in ((left, right), (right, left)):
        if one.constant == 0:
            return other
    return None


def _split_parts(table: TermTable, value: Poly) -> tuple[Poly, Poly] | None:
    """(high, low) when value = 2^32 * high + low with both parts provably u32 and the
    whole below p, so that `split` gives exactly these words; else None."""
    high = table.poly({m: c for m, c in value.terms.items() if c == TWO_TO_32 and m})
    high = table.scale(high, pow(TWO_TO_32, P - 2, P))
    low = table.sub(value, table.scale(high, TWO_TO_32))
    high_bound, low_bound = table.upper_bound(high), table.upper_bound(low)
    if high_bound is None or low_bound is None or max(high_bound, low_bound) > U32_MAX:
        return None
    return (high, low) if high_bound * TWO_TO_32 + low_bound < P else None


def _split_high_rule(table: TermTable, parameters, arguments):
    parts = _split_parts(table, arguments[0])
    return None if parts is None else parts[0]


def _split_low_rule(table: TermTable, parameters, arguments):
    parts = _split_parts(table, arguments[0])
    return None if parts is None else parts[1]


def _quotient_rule(table: TermTable, parameters, arguments):
    numerator, denominator = arguments
    if denominator.constant == 1:
        return numerator
    if numerator is denominator:  # the denominator is non-zero (its guard passed)
        return table.one
    return None


def _remainder_rule(table: TermTable, parameters, arguments):
    numerator, denominator = arguments
    if denominator.constant == 1 or numerator is denominator:
        return table.zero
    return None


def _power_rule(table: TermTable, parameters, arguments):
    base, exponent = arguments
    if exponent.constant is not None:
        return table.power(base, exponent.constant)
    if base.constant == 1:
        return table.one
    if base.constant == 0:  # 0^0 = 1, 0^e = 0 otherwise
        return apply(table, "is_zero", (), (exponent,))
    return None


def _inverse_rule(table: TermTable, parameters, arguments):
    coefficient, monic = table.monic(arguments[0])
    atom = table.atom_of(monic)
    scale = pow(coefficient, P - 2, P) if coefficient else 0
    if atom is not None and atom.kind == "inverse":  # 1/(c/x) = x/c
        return table.scale(atom.arguments[0], scale)
    if atom is not None and atom.boolean:  # a non-zero boolean is 1
        return table.constant(scale)
    if monic is not arguments[0]:
        return table.scale(apply(table, "inverse", (), (monic,)), scale)
    return None


def _merkle_rule(table: TermTable, parameters, arguments):
    node_index = arguments[0].constant
    if node_index is None:
        return None
    current, sibling = arguments[1:6], arguments[6:11]
    pair = current + sibling if node_index % 2 == 0 else sibling + current
    ones = tuple(table.one for _ in TIP5_ONES)
    return apply(table, "permutation", parameters, pair + ones)


FUNCTIONS: dict[str, Function] = {
    # entry values
    "stack": Function(_leaf("stack"), leaf=True),
    "public": Function(_leaf("public"), leaf=True),
    "secret": Function(_leaf("secret"), leaf=True),
    "digest": Function(_leaf("digest"), leaf=True),
    "sponge": Function(_leaf("sponge"), leaf=True),
    "parameter": Function(_no_value, leaf=True),  # a symbolic push/addi argument
    # RAM: a word of the initial memory, and a read that aliasing left unresolved
    "memory": Function(lambda parameters, values, entry: entry.memory(values[0])),
    "select": Function(_select),
    # base field
    "is_zero": Function(
        lambda parameters, values, entry: int(values[0] == 0),
        bound=1,
        boolean=True,
        simplify=_is_zero_rule,
    ),
    "inverse": Function(
        lambda parameters, values, entry: pow(values[0], P - 2, P), simplify=_inverse_rule
    ),
    # u32
    "lt": Function(
        lambda parameters, values, entry: int(values[0] < values[1]),
        bound=1,
        boolean=True,
        simplify=_lt_rule,
    ),
    "and": Function(
        lambda parameters, values, entry: values[0] & values[1],
        bound=U32_MAX,
        commutative=True,
        simplify=_and_rule,
    ),
    "xor": Function(
        lambda parameters, values, entry: (values[0] ^ values[1]) % P,
        bound=U32_MAX,
        commutative=True,
        simplify=_xor_rule,
    ),
    "log2": Function(
        lambda parameters, values, entry: max(values[0].bit_length() - 1, 0), bound=31
    ),
    "pop_count": Function(lambda parameters, values, entry: values[0].bit_count(), bound=32),
    "split_high": Function(
        lambda parameters, values, entry: values[0] >> 32,
        bound=U32_MAX,
        simplify=_split_high_rule,
    ),
    "split_low": Function(
        lambda parameters, values, entry: values[0] & U32_MAX,
        bound=U32_MAX,
        simplify=_split_low_rule,
    ),
    "quotient": Function(
        lambda parameters, values, entry: values[0] // values[1] if values[1] else 0,
        bound=U32_MAX,
        simplify=_quotient_rule,
    ),
    "remainder": Function(
        lambda parameters, values, entry: values[0] % values[1] if values[1] else 0,
        bound=U32_MAX,
        simplify=_remainder_rule,
    ),
    "power": Function(
        lambda parameters, values, entry: pow(values[0], values[1], P), simplify=_power_rule
    ),
    "half": Function(lambda parameters, values, entry: values[0] >> 1, bound=(1 << 31) - 1),
    # Tip5 and the extension field
    "permutation": Function(
        lambda parameters, values, entry: tip5.permutation(tuple(values))[parameters[0]]
    ),
    "merkle": Function(_merkle, simplify=_merkle_rule),
    "x_inverse": Function(
        lambda parameters, values, entry: (
            xfield.inverse(tuple(values))[parameters[0]] if any(values) else 0
        )
    ),
    # opaque arithmetic (compiler.verify.terms): evaluated, never free
    "product": Function(lambda parameters, values, entry: values[0] * values[1] % P),
    "exponent": Function(lambda parameters, values, entry: pow(values[0], parameters[0], P)),
}


def apply(table: TermTable, kind: str, parameters: tuple[int, ...], arguments) -> Poly:
    """The application `kind(parameters; arguments)`, folded and simplified."""
    function = FUNCTIONS[kind]
    arguments = tuple(arguments)
    constants = [argument.constant for argument in arguments]
    if arguments and None not in constants and kind not in ("memory", "select"):
        return table.constant(function.evaluate(parameters, constants, None) % P)
    if function.simplify is not None:
        simplified = function.simplify(table, parameters, arguments)
        if simplified is not None:
            return simplified
    if function.commutative:
        arguments = tuple(sorted(arguments, key=lambda argument: argument.serial))
    bound, boolean = function.bound, function.boolean
    if kind == "and":  # x and c <= c for a constant c: 0 or 1 when c = 1
        masks = [constant for constant in constants if constant is not None]
        if masks:
            bound = min(bound, *masks)
            boolean = bound == 1
    return table.atom(kind, parameters, arguments, bound=bound, boolean=boolean)


def parameter(table: TermTable, index: int, bound: int | None = None) -> Poly:
    """A symbolic push/addi argument: one proof then covers every value (up to `bound`)."""
    return table.atom("parameter", (index,), bound=bound)


def leaf(table: TermTable, kind: str, *parameters: int) -> Poly:
    """An entry value: stack word, input token, secret digest word or sponge word.

    An entry stack word the comparison assumes to be u32 (`table.u32_entry`) is bounded.
    """
    bound = U32_MAX if kind == "stack" and parameters[0] in table.u32_entry else None
    return table.atom(kind, parameters, bound=bound)


def rebuild(table: TermTable, atom: Atom, arguments: tuple[Poly, ...]) -> Poly:
    """The atom with new arguments (opaque atoms are multiplied out again)."""
    if atom.kind == "product":
        return table.mul(*arguments)
    if atom.kind == "exponent":
        return table.power(arguments[0], atom.parameters[0])
    return apply(table, atom.kind, atom.parameters, arguments)


def substitute(
    table: TermTable,
    poly: Poly,
    mapping: dict[int, Poly],
    memo: dict | None = None,
    eliminate: Callable[[Atom], Poly | None] | None = None,
) -> Poly:
    """`poly` with each atom whose serial is in `mapping` replaced, at any depth.

    `eliminate`, if given, is asked about every atom left after its arguments
    were rewritten, and may replace it (compiler.verify.identities).  The walk
    keeps its own stack (a term can be as deep as its block is long), visiting
    atoms and arguments in the order a recursive walk would, so the table
    creates the same polynomials in the same order.  `memo` maps an atom's
    serial to its new value (None: it stays itself) and ("poly", serial) to a
    polynomial's.
    """
    memo = {} if memo is None else memo
    pending: list[Poly | int] = [poly]  # a Poly to rebuild, or an atom serial
    while pending:
        item = pending[-1]
        table.spend()
        if isinstance(item, int):
            if item in memo:
                pending.pop()
                continue
            if item in mapping:
                memo[item] = mapping[item]
                pending.pop()
                continue
            atom = table.atoms[item]
            missing = [a for a in atom.arguments if ("poly", a.serial) not in memo]
            if missing:
                pending.extend(reversed(missing))
                continue
            pending.pop()
            memo[item] = _rebuilt_atom(table, atom, memo, eliminate)
            continue
        key = ("poly", item.serial)
        if key in memo:
            pending.pop()
            continue
        serials = _ordered_atoms(item)
        missing_atoms = [serial for serial in serials if serial not in memo]
        if missing_atoms:
            pending.extend(reversed(missing_atoms))
            continue
        pending.pop()
        memo[key] = _rebuilt_poly(table, item, {serial: memo[serial] for serial in serials})
    return memo[("poly", poly.serial)]


def _ordered_atoms(poly: Poly) -> list[int]:
    """The serials of the atoms of `poly` in the order `TermTable.atoms_in` yields them."""
    return list({serial for monomial in poly.terms for serial, _ in monomial})


def _rebuilt_atom(table: TermTable, atom: Atom, memo: dict, eliminate) -> Poly | None:
    """The atom's new value once its arguments are rewritten, or None when it stays itself."""
    arguments = tuple(memo[("poly", argument.serial)] for argument in atom.arguments)
    result = None
    if any(new is not old for new, old in zip(arguments, atom.arguments)):
        result = rebuild(table, atom, arguments)
        atom = table.atom_of(result)
    if eliminate is not None and atom is not None:
        result = eliminate(atom) or result
    return result


def _rebuilt_poly(table: TermTable, target: Poly, values: dict[int, Poly | None]) -> Poly:
    """`target` with its atoms replaced by `values` (None: unchanged)."""
    if all(value is None for value in values.values()):
        return target
    result = table.zero
    for monomial, coefficient in target.terms.items():
        term = table.constant(coefficient)
        for serial, exponent in monomial:
            value = values[serial]
            if value is None:
                value = table.poly({((serial, 1),): 1})
            term = table.mul(term, table.power(value, exponent))
        result = table.add(result, term)
    return result


class _Unvalued(Exception):
    """An atom's value needs arguments that are not valued yet (evaluate_with's walk)."""

    def __init__(self, missing: list[Poly]):
        super().__init__()
        self.missing = missing


def evaluate_with(table: TermTable, polys, atom_value: Callable[[Atom, Callable], int]):
    """Values of `polys`; `atom_value(atom, arguments)` values an atom (`arguments()` gives
    its arguments' values).

    The walk keeps its own stack, so a term as deep as a long block is fine.  An
    atom's `arguments()` is only asked for when `atom_value` needs it; when they are
    not valued yet, the atom is valued again after them, so `atom_value` must ask
    for its arguments before any side effect (the random points draw a value only
    for atoms that do not ask).
    """
    atoms: dict[int, int] = {}
    values: dict[int, int] = {}  # poly serial -> value

    def arguments_of(atom: Atom) -> list[int]:
        missing = [a for a in atom.arguments if a.serial not in values]
        if missing:
            raise _Unvalued(missing)
        return [values[a.serial] for a in atom.arguments]

    def value(poly: Poly) -> int:
        pending: list[Poly | int] = [poly]
        while pending:
            item = pending[-1]
            table.spend()
            if isinstance(item, int):
                if item in atoms:
                    pending.pop()
                    continue
                atom = table.atoms[item]
                try:
                    atoms[item] = atom_value(atom, lambda atom=atom: arguments_of(atom)) % P
                except _Unvalued as unvalued:
                    pending.extend(reversed(unvalued.missing))
                    continue
                pending.pop()
                continue
            if item.serial in values:
                pending.pop()
                continue
            missing = [serial for serial in _monomial_order(item) if serial not in atoms]
            if missing:
                pending.extend(reversed(missing))
                continue
            pending.pop()
            total = 0
            for monomial, coefficient in item.terms.items():
                term = coefficient
                for serial, exponent in monomial:
                    term = term * pow(atoms[serial], exponent, P) % P
                total += term
            values[item.serial] = total % P
        return values[poly.serial]

    return [value(poly) for poly in polys]


def _monomial_order(poly: Poly) -> list[int]:
    """The atoms of `poly` in the order its terms name them, each once."""
    return list(dict.fromkeys(serial for monomial in poly.terms for serial, _ in monomial))


def evaluate(table: TermTable, polys, entry: EntryValues) -> list[int]:
    """The concrete values of `polys` when the block starts in `entry`."""

    def atom_value(atom: Atom, arguments) -> int:
        return FUNCTIONS[atom.kind].evaluate(atom.parameters, arguments(), entry)

    return evaluate_with(table, polys, atom_value)
