"""Exact answers for what the symbolic comparison leaves open: an SMT query over F_p.

Input: a `Residual` (compiler.verify.equivalence): the normalized guards both
blocks share, the guards only one has, and the value pairs not shown equal, all
polynomials of one `TermTable` (compiler.verify.terms).  Output:
`decide(table, residual, assumptions) -> Decision`:

* `unsat`: no entry state makes the blocks differ -- equivalence, exactly;
* `sat`: a *candidate* counterexample (`Decision.leaves`: a value for each entry
  word the formula names, `Decision.cells`: initial RAM cells), which the caller
  must confirm on the interpreter before it says `different`;
* `unknown`: no answer (cvc5 is not installed, the formula is too large, the
  resource limit ran out, or the solver stopped), with the reason.

The query is "some entry state passes the shared guards, and exactly one block
fails, or neither fails and some pair of values differs", in cvc5's theory of
finite fields (QF_FF) over exactly p.  Its variables are the atoms
(compiler.verify.functions):

* entry words (stack, input, secret, digest, sponge words, rule parameters) are
  variables; a slot the assumptions say is u32 is written as 32 bits;
* `is_zero(m)`, `inverse(m)`, opaque products and powers, and RAM (`memory`,
  `select`: if-then-else over the writes, the initial RAM a function of the
  address) are defined exactly: `m*z = 0, m*w = 1 - z`; `m^2*i = m, m*i^2 = i`;
  products; square-and-multiply chains;
* any other atom (`lt`, `and`, Tip5 words, ...) is a fresh variable, 0/1 when it
  is boolean, equal to another application of the same function to equal
  arguments.  This over-approximates: every real entry state gives the atoms
  values that satisfy the formula exactly when the blocks differ there, so `unsat`
  proves equivalence, while a model may give an atom a value its function never
  takes -- hence a model is only a candidate.

A guard is a literal in each polarity: `u32(x)` is `x = sum of 32 bits`, its
negation `x = 2^32*hi + lo` with hi non-zero and the whole below p, each with bits
of its own (existential variables in a satisfiability query are exact in either
polarity that way).  The formula is sent to a child process
(compiler.verify.solver_worker, where cvc5 is imported), with a resource limit
counted in solver steps, so answers are deterministic.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from compiler.verify.functions import U32_MAX
from compiler.verify.guards import Guard
from compiler.verify.terms import Poly, TermTable
from vm.field import P

RESOURCE_LIMIT = 100_000  # cvc5 resource units per query (its rlimit-per)
MAXIMUM_NODES = 20_000  # formula nodes; a larger residual is not sent to the solver
MAXIMUM_CONSISTENCY_PAIRS = 400  # "equal arguments, equal values" constraints per query
# cvc5's finite-field solvers, tried in turn, each with a time bound: they do not count
# resources inside their Groebner-basis steps, so `rlimit-per` alone does not end them
# (docs/verify.md).  "gb" answers univariate corners at once, "split" many-variable ones.
FIELD_SOLVERS = (("gb", 10), ("split", 20))
LEAF_KINDS = ("stack", "public", "secret", "digest", "sponge", "parameter")
WORKER = Path(__file__).with_name("solver_worker.py")


@dataclass(frozen=True)
class Residual:
    """What the symbolic comparison could not settle, ready for the solver."""

    shared: tuple[Guard, ...]  # guards both blocks check (normalized)
    only_a: tuple[Guard, ...]
    only_b: tuple[Guard, ...]
    pairs: tuple[tuple[str, Poly, Poly], ...]  # values compared where neither fails


@dataclass(frozen=True)
class Decision:
    status: str  # "unsat", "sat" or "unknown"
    reason: str
    leaves: dict[tuple[str, tuple[int, ...]], int] = field(default_factory=dict)
    cells: dict[int, int] = field(default_factory=dict)  # initial RAM of the candidate


def available() -> bool:
    """Whether cvc5 is installed (it is an optional dependency)."""
    return importlib.util.find_spec("cvc5") is not None


class FormulaTooLarge(Exception):
    pass


class Formula:
    """Hash-consed formula nodes, in an order where operands come first."""

    def __init__(self):
        self.nodes: list[list] = []
        self.index: dict[tuple, int] = {}
        self.fresh = 0

    def node(self, *key) -> int:
        found = self.index.get(key)
        if found is None:
            if len(self.nodes) >= MAXIMUM_NODES:
                raise FormulaTooLarge(f"the solver formula would exceed {MAXIMUM_NODES:,} nodes")
            found = len(self.nodes)
            self.nodes.append(list(key))
            self.index[key] = found
        return found

    def variable(self, name: str) -> int:
        return self.node("var", name)

    def new_variable(self, prefix: str) -> int:
        self.fresh += 1
        return self.variable(f"{prefix}{self.fresh}")

    def constant(self, value: int) -> int:
        return self.node("const", value % P)

    def add(self, *terms: int) -> int:
        return terms[0] if len(terms) == 1 else self.node("add", *terms)

    def mul(self, left: int, right: int) -> int:
        return self.node("mul", left, right)

    def scale(self, term: int, factor: int) -> int:
        return term if factor % P == 1 else self.mul(self.constant(factor), term)

    def equal(self, left: int, right: int) -> int:
        return self.node("true") if left == right else self.node("eq", left, right)

    def differ(self, left: int, right: int) -> int:
        return self.node("false") if left == right else self.node("not", self.equal(left, right))

    def all(self, *literals: int) -> int:
        true, false = self.node("true"), self.node("false")
        if false in literals:
            return false
        literals = tuple(literal for literal in dict.fromkeys(literals) if literal != true)
        if not literals:
            return true
        return literals[0] if len(literals) == 1 else self.node("and", *literals)

    def any(self, *literals: int) -> int:
        true, false = self.node("true"), self.node("false")
        if true in literals:
            return true
        literals = tuple(literal for literal in dict.fromkeys(literals) if literal != false)
        if not literals:
            return false
        return literals[0] if len(literals) == 1 else self.node("or", *literals)

    def bits(self, count: int) -> tuple[int, list[int]]:
        """(sum of 2^i * b_i, the constraints b_i^2 = b_i) over fresh bits."""
        bits = [self.new_variable("bit") for _ in range(count)]
        total = self.add(*(self.scale(bit, 1 << place) for place, bit in enumerate(bits)))
        return total, [self.equal(self.mul(bit, bit), bit) for bit in bits]

    def is_u32(self, term: int) -> int:
        total, booleans = self.bits(32)
        return self.all(self.equal(term, total), *booleans)

    def is_not_u32(self, term: int) -> int:
        """term = 2^32*hi + lo with hi, lo u32, hi != 0, and below p (hi = 2^32-1 needs lo = 0)."""
        high, high_booleans = self.bits(32)
        low, low_booleans = self.bits(32)
        whole = self.add(self.scale(high, 1 << 32), low)
        below_p = self.any(
            self.differ(high, self.constant(U32_MAX)), self.equal(low, self.constant(0))
        )
        return self.all(
            self.equal(term, whole),
            *high_booleans,
            *low_booleans,
            self.differ(high, self.constant(0)),
            below_p,
        )

    def query(self, root: int, report: list[int]) -> dict:
        return {
            "nodes": self.nodes,
            "root": root,
            "report": report,
            "resource_limit": RESOURCE_LIMIT,
            "prime": P,
        }


class Encoder:
    """Polynomials of a table as formula terms, with the facts their atoms' meanings give."""

    def __init__(self, table: TermTable, formula: Formula):
        self.table, self.formula = table, formula
        self.facts: list[int] = []  # hold on every entry state (under the assumptions)
        self.atoms: dict[int, int] = {}  # atom serial -> term
        self.polys: dict[int, int] = {}  # poly serial -> term
        self.leaves: dict[int, int] = {}  # leaf atom serial -> its variable
        self.memory: dict[int, tuple[int, int]] = {}  # address serial -> (address, word)
        self.applications: dict[tuple, list[tuple[int, tuple[int, ...]]]] = {}
        self.powers: dict[tuple[int, int], int] = {}  # (base, exponent) -> term

    def poly(self, poly: Poly) -> int:
        """The term for `poly` (an explicit stack: terms are as deep as blocks are long)."""
        pending: list[Poly | int] = [poly]
        while pending:
            item = pending[-1]
            self.table.spend()
            if isinstance(item, int):
                if item in self.atoms:
                    pending.pop()
                    continue
                atom = self.table.atoms[item]
                missing = [a for a in atom.arguments if a.serial not in self.polys]
                if missing:
                    pending.extend(reversed(missing))
                    continue
                pending.pop()
                self.atoms[item] = self._atom(item)
                continue
            if item.serial in self.polys:
                pending.pop()
                continue
            missing_atoms = [
                serial
                for serial in dict.fromkeys(s for monomial in item.terms for s, _ in monomial)
                if serial not in self.atoms
            ]
            if missing_atoms:
                pending.extend(reversed(missing_atoms))
                continue
            pending.pop()
            self.polys[item.serial] = self._sum(item)
        return self.polys[poly.serial]

    def _sum(self, poly: Poly) -> int:
        formula = self.formula
        terms = []
        for monomial, coefficient in sorted(poly.terms.items()):
            term = None
            for serial, exponent in monomial:
                factor = self.power(self.atoms[serial], exponent)
                term = factor if term is None else formula.mul(term, factor)
            terms.append(
                formula.constant(coefficient) if term is None else formula.scale(term, coefficient)
            )
        return formula.add(*terms) if terms else formula.constant(0)

    def power(self, base: int, exponent: int) -> int:
        """base^exponent by square and multiply, each square a variable of its own (x^e
        with e >= p is x^(((e - 1) mod (p - 1)) + 1), true for every x)."""
        formula = self.formula
        if exponent >= P:
            exponent = (exponent - 1) % (P - 1) + 1
        if exponent <= 2:
            return base if exponent == 1 else formula.mul(base, base)
        key = (base, exponent)
        if key not in self.powers:
            self.powers[key] = self._chain(base, exponent)
        return self.powers[key]

    def _chain(self, base: int, exponent: int) -> int:
        formula = self.formula
        result = None
        while exponent:
            if exponent & 1:
                result = base if result is None else self._named(formula.mul(result, base))
            exponent >>= 1
            if exponent:
                base = self._named(formula.mul(base, base))
        return result

    def _named(self, term: int) -> int:
        """A fresh variable equal to `term` (keeps every equation of degree two)."""
        variable = self.formula.new_variable("power")
        self.facts.append(self.formula.equal(variable, term))
        return variable

    def _atom(self, serial: int) -> int:
        table, formula = self.table, self.formula
        atom = table.atoms[serial]
        arguments = [self.polys[argument.serial] for argument in atom.arguments]
        if atom.kind in LEAF_KINDS:
            variable = formula.variable(f"{atom.kind}_{'_'.join(map(str, atom.parameters))}")
            self.leaves[serial] = variable
            if atom.bound == U32_MAX:
                self.facts.append(formula.is_u32(variable))
            elif atom.bound == 1 or atom.boolean:
                self.facts.append(formula.equal(formula.mul(variable, variable), variable))
            return variable
        if atom.kind == "product":
            return formula.mul(*arguments)
        if atom.kind == "exponent":
            return self.power(arguments[0], atom.parameters[0])
        if atom.kind == "memory":
            return self._memory(atom.arguments[0])
        if atom.kind == "select":
            address = arguments[-1]
            value = self._memory(atom.arguments[-1])
            for index in range(0, len(arguments) - 1, 2):  # oldest first: the newest wins
                written, word = arguments[index], arguments[index + 1]
                value = formula.node("ite", formula.equal(address, written), word, value)
            return value
        variable = formula.new_variable(atom.kind)
        one, zero = formula.constant(1), formula.constant(0)
        if atom.kind == "is_zero":
            (argument,) = arguments
            witness = formula.new_variable("witness")
            self.facts.append(formula.equal(formula.mul(argument, variable), zero))
            complement = formula.add(one, formula.scale(variable, P - 1))
            self.facts.append(formula.equal(formula.mul(argument, witness), complement))
            return variable
        if atom.kind == "inverse":
            (argument,) = arguments
            square = formula.mul(argument, argument)
            self.facts.append(formula.equal(formula.mul(square, variable), argument))
            self.facts.append(
                formula.equal(formula.mul(argument, formula.mul(variable, variable)), variable)
            )
            return variable
        if atom.boolean:
            self.facts.append(formula.equal(formula.mul(variable, variable), variable))
        key = (atom.kind, atom.parameters, len(arguments))
        self.applications.setdefault(key, []).append((variable, tuple(arguments)))
        return variable

    def _memory(self, address: Poly) -> int:
        """The initial RAM word at `address`: one variable per address polynomial."""
        found = self.memory.get(address.serial)
        if found is None:
            found = (self.polys[address.serial], self.formula.new_variable("memory"))
            self.memory[address.serial] = found
        return found[1]

    def consistency(self) -> list[int]:
        """Equal arguments give equal values: RAM is a function of the address, and so is
        every application of one function (bounded in number)."""
        formula = self.formula
        groups = [list(self.memory.values())] + [
            [
                (arguments[0] if len(arguments) == 1 else arguments, variable)
                for variable, arguments in applications
            ]
            for applications in self.applications.values()
        ]
        constraints: list[int] = []
        for group in groups:
            for index, (first, value_first) in enumerate(group):
                for second, value_second in group[index + 1 :]:
                    if len(constraints) >= MAXIMUM_CONSISTENCY_PAIRS:
                        return constraints
                    firsts = first if isinstance(first, tuple) else (first,)
                    seconds = second if isinstance(second, tuple) else (second,)
                    apart = [formula.differ(a, b) for a, b in zip(firsts, seconds)]
                    constraints.append(
                        formula.any(*apart, formula.equal(value_first, value_second))
                    )
        return constraints


def _literal(formula: Formula, encoder: Encoder, guard: Guard, holds: bool) -> int:
    """The guard (holds) or its negation as a literal of the formula."""
    terms = [encoder.poly(poly) for poly in guard.polys]
    zero = formula.constant(0)
    if guard.kind == "never":
        return formula.node("false" if holds else "true")
    if guard.kind == "zero":
        return formula.equal(terms[0], zero) if holds else formula.differ(terms[0], zero)
    if guard.kind == "nonzero":
        return formula.differ(terms[0], zero) if holds else formula.equal(terms[0], zero)
    if guard.kind == "u32":
        return formula.is_u32(terms[0]) if holds else formula.is_not_u32(terms[0])
    if guard.kind == "nonzero_x":
        if holds:
            return formula.any(*(formula.differ(term, zero) for term in terms))
        return formula.all(*(formula.equal(term, zero) for term in terms))
    raise ValueError(f"unknown guard kind {guard.kind}")


def decide(table: TermTable, residual: Residual) -> Decision:
    """Ask cvc5 whether the blocks can differ; see the module docstring."""
    if not available():
        return Decision("unknown", "cvc5 is not installed")
    formula = Formula()
    encoder = Encoder(table, formula)
    try:
        shared = [_literal(formula, encoder, guard, True) for guard in residual.shared]
        a_holds = formula.all(*(_literal(formula, encoder, g, True) for g in residual.only_a))
        a_fails = formula.any(*(_literal(formula, encoder, g, False) for g in residual.only_a))
        b_holds = formula.all(*(_literal(formula, encoder, g, True) for g in residual.only_b))
        b_fails = formula.any(*(_literal(formula, encoder, g, False) for g in residual.only_b))
        values_differ = formula.any(
            *(
                formula.differ(encoder.poly(left), encoder.poly(right))
                for _, left, right in residual.pairs
            )
        )
        differ = formula.any(
            formula.all(a_holds, b_fails),
            formula.all(a_fails, b_holds),
            formula.all(a_holds, b_holds, values_differ),
        )
        root = formula.all(*encoder.facts, *encoder.consistency(), *shared, differ)
    except FormulaTooLarge as error:
        return Decision("unknown", str(error))
    if differ == formula.node("false"):  # every pair and guard is the same term on both sides
        return Decision("unsat", "the two sides are the same terms")
    leaves = sorted(encoder.leaves.items())
    cells = sorted(encoder.memory.values())
    report = [variable for _, variable in leaves] + [term for cell in cells for term in cell]
    query = formula.query(root, report)
    for field_solver, seconds in FIELD_SOLVERS:
        answer = _run({**query, "ff_solver": field_solver}, seconds)
        if answer.get("status") in ("sat", "unsat"):
            break
    if answer.get("status") != "sat":
        status = answer.get("status", "unknown")
        return Decision(status, answer.get("reason", f"the solver answered {status}"))
    values = {int(index): value for index, value in answer["values"].items()}
    found = {
        (table.atoms[serial].kind, table.atoms[serial].parameters): values[variable]
        for serial, variable in leaves
    }
    memory = {}
    for address, word in cells:
        memory.setdefault(values[address], values[word])
    return Decision("sat", "the solver found a candidate counterexample", found, memory)


def _run(query: dict, seconds: float) -> dict:
    """The worker's answer, or unknown with the reason it gave none."""
    try:
        completed = subprocess.run(
            [sys.executable, str(WORKER)],
            input=json.dumps(query),
            capture_output=True,
            text=True,
            timeout=seconds,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return {"status": "unknown", "reason": "the solver did not answer"}
    if completed.returncode != 0:
        return {"status": "unknown", "reason": f"the solver stopped (exit {completed.returncode})"}
    try:
        return json.loads(completed.stdout)
    except json.JSONDecodeError:
        return {"status": "unknown", "reason": "the solver gave no readable answer"}
