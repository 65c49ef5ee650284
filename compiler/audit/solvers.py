"""Asking a solver whether a condition over the inputs can hold: `satisfiable(query)`.

Input: a condition (compiler.audit.terms) and the facts every input satisfies.  Output:
an `Answer` -- "unsat" (it never holds: the proof), "sat" with a model (a value for every
input word: a *candidate*, which the caller confirms by running the program), or
"unknown" with the solver's reason.

Two solvers, both optional extras (`pip install 'tri[solvers]'`):

* **cvc5**'s finite-field theory (package cvc5-gpl) decides conditions that only add,
  multiply, compare with `==`, choose (`ite`) and invert over exactly the field
  p = 2^64 - 2^32 + 1: the algebra of a Field function;
* **z3** takes everything else, with each word an integer in 0 .. p - 1 and every
  operation its exact integer meaning (`(a * b) mod p`, u32 `and`/`xor` through 32-bit
  vectors, division and `split` by integer division); a Tip5 digest word, `pow` with an
  unknown exponent and an inverse are functions the solver knows only by their facts
  (an over-approximation: "unsat" is still a proof, a model only a candidate).

Both run with a resource limit in steps, not seconds, so an answer is the same on any
machine.  A condition neither can take is "unknown" with the reason.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

from compiler.audit import terms as t
from vm.field import P

U32_MAX = (1 << 32) - 1
# words z3 gets as a named constant equal to their meaning: z3 pushes arithmetic through
# an if-then-else, so a loop's chain of them, unnamed, grows exponentially as it is asserted
NAMED = frozenset({"ite", "mul", "quotient", "remainder", "and", "xor"})
RESOURCE_LIMIT = 4_000_000  # z3's rlimit and cvc5's per query
TRANSLATION_DEPTH = 20_000  # Python frames while a term is translated
FINITE_FIELD = frozenset(
    {"input", "add", "mul", "ite", "inverse", "eq", "not", "and_all", "or_any"}
)


@dataclass
class Answer:
    status: str  # "unsat", "sat" or "unknown"
    solver: str  # "cvc5", "z3" or "" when none could be asked
    model: dict[str, int] = field(default_factory=dict)
    reason: str = ""
    ram: dict[int, int] = field(default_factory=dict)  # the model's initial RAM, where read


def missing_solvers() -> list[str]:
    """The solver packages that are not installed."""
    missing = []
    for module, package in (("z3", "z3-solver"), ("cvc5", "cvc5-gpl")):
        try:
            __import__(module)
        except ImportError:
            missing.append(package)
    return missing


def satisfiable(condition, facts: list, inputs: list[str]) -> Answer:
    """Can `condition` hold for inputs satisfying `facts`?"""
    if condition is False:
        return Answer("unsat", "terms")  # the terms alone show it: no solver is asked
    relevant = [fact for fact in facts if not _trivial(fact)]
    used = t.operators(("and_all", (condition, *relevant)))
    missing = missing_solvers()
    if used <= FINITE_FIELD and "cvc5-gpl" not in missing:
        solver, ask = "cvc5", lambda: _cvc5(condition, relevant, inputs)
    elif "z3-solver" not in missing:
        solver, ask = "z3", lambda: _z3(condition, facts, inputs)
    else:
        return Answer("unknown", "", reason=f"no solver: install {' and '.join(missing)}")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, TRANSLATION_DEPTH))  # translating follows a term's depth
    try:
        return ask()
    except RecursionError:
        return Answer("unknown", solver, reason="the terms nest too deep to hand to the solver")
    finally:
        sys.setrecursionlimit(limit)


def _trivial(fact) -> bool:
    """`input < p`: true of every field element (the finite field needs no such fact)."""
    return fact[0] == "lt" and fact[2] == P and fact[1][0] == "input"


# --- cvc5: the finite field ----------------------------------------------------------------


def _cvc5(condition, facts: list, inputs: list[str]) -> Answer:
    import cvc5
    from cvc5 import Kind

    solver = cvc5.Solver()
    solver.setOption("produce-models", "true")
    solver.setOption("rlimit", str(RESOURCE_LIMIT))
    solver.setLogic("QF_FF")
    sort = solver.mkFiniteFieldSort(str(P))
    constants: dict[str, object] = {}
    side: list = []
    memo: dict = {}

    def word(term):
        key = ("number", term) if isinstance(term, int) else id(term)
        if key in memo:
            return memo[key][1]
        if isinstance(term, int):
            built = solver.mkFiniteFieldElem(str(term), sort)
        else:
            match term[0]:
                case "input":
                    if term[1] not in constants:
                        constants[term[1]] = solver.mkConst(sort, term[1])
                    built = constants[term[1]]
                case "add":
                    built = solver.mkTerm(Kind.FINITE_FIELD_ADD, word(term[1]), word(term[2]))
                case "mul":
                    built = solver.mkTerm(Kind.FINITE_FIELD_MULT, word(term[1]), word(term[2]))
                case "ite":
                    built = solver.mkTerm(Kind.ITE, truth(term[1]), word(term[2]), word(term[3]))
                case "inverse":
                    value = word(term[1])
                    built = solver.mkConst(sort, f"inverse{len(side)}")
                    one = solver.mkFiniteFieldElem("1", sort)
                    zero = solver.mkFiniteFieldElem("0", sort)
                    product = solver.mkTerm(Kind.FINITE_FIELD_MULT, value, built)
                    inverted = solver.mkTerm(Kind.EQUAL, product, one)
                    both_zero = solver.mkTerm(
                        Kind.AND,
                        solver.mkTerm(Kind.EQUAL, value, zero),
                        solver.mkTerm(Kind.EQUAL, built, zero),
                    )
                    side.append(solver.mkTerm(Kind.OR, inverted, both_zero))
        memo[key] = (term, built)  # keeps `term` alive, so its id stays its own
        return built

    def truth(term):
        if isinstance(term, bool):
            return solver.mkBoolean(term)
        key = ("condition", id(term))
        if key not in memo:  # conditions are shared (a path's, by every check on it)
            memo[key] = (term, _truth(term))
        return memo[key][1]

    def _truth(term):
        match term[0]:
            case "eq":
                return solver.mkTerm(Kind.EQUAL, word(term[1]), word(term[2]))
            case "not":
                return solver.mkTerm(Kind.NOT, truth(term[1]))
            case "and_all":
                return solver.mkTerm(Kind.AND, *[truth(part) for part in term[1]])
            case "or_any":
                return solver.mkTerm(Kind.OR, *[truth(part) for part in term[1]])
        raise ValueError(f"not a finite-field condition: {term[0]}")

    for fact in facts:
        solver.assertFormula(truth(fact))
    solver.assertFormula(truth(condition))
    for constraint in side:
        solver.assertFormula(constraint)
    result = solver.checkSat()
    if result.isUnsat():
        return Answer("unsat", "cvc5")
    if result.isSat():
        model = {}
        for name in inputs:
            if name in constants:
                model[name] = int(solver.getValue(constants[name]).getFiniteFieldValue()) % P
            else:
                model[name] = 0
        return Answer("sat", "cvc5", model)
    return Answer("unknown", "cvc5", reason=f"cvc5: {result.getUnknownExplanation()}")


def _low_mask(value: int) -> bool:
    """Is `value` 2^k - 1 (k >= 0)?"""
    return value & (value + 1) == 0


# --- z3: integers ----------------------------------------------------------------------------


def _z3(condition, facts: list, inputs: list[str]) -> Answer:
    import z3

    context = z3.Context()
    solver = z3.Solver(ctx=context)
    solver.set("rlimit", RESOURCE_LIMIT)
    solver.set("random_seed", 0)
    integers: dict[str, object] = {}
    functions: dict[str, object] = {}
    side: list = []
    memo: dict = {}
    integer_sort = z3.IntSort(context)
    initial = z3.Array("ram", integer_sort, integer_sort)
    addresses: list = []  # every address read, for the model's RAM

    def value(number: int):
        return z3.IntVal(number, context)

    def function(name: str, arity: int):
        if name not in functions:
            functions[name] = z3.Function(name, *[integer_sort] * (arity + 1))
        return functions[name]

    def in_field(term):
        side.append(z3.And(term >= 0, term < P))
        return term

    def bits(term):
        return z3.Int2BV(term, 32)

    def word(term):
        key = ("number", term) if isinstance(term, int) else id(term)
        if key in memo:
            return memo[key][1]
        built = _word(term)
        if not isinstance(term, int) and term[0] in NAMED:  # a name for it: z3 would copy
            name = z3.Int(f"term{len(memo)}", context)  # a shared term into each use
            side.append(name == built)
            built = name
        memo[key] = (term, built)
        return built

    def _word(term):
        if isinstance(term, int):
            return value(term)
        match term[0]:
            case "input":
                if term[1] not in integers:
                    integers[term[1]] = z3.Int(term[1], context)
                    side.append(integers[term[1]] >= 0)  # its upper bound is a fact
                return integers[term[1]]
            case "add":
                total = word(term[1]) + word(term[2])
                return z3.If(total >= P, total - P, total)
            case "mul":
                return (word(term[1]) * word(term[2])) % P
            case "ite":
                return z3.If(truth(term[1]), word(term[2]), word(term[3]))
            case "quotient":
                return word(term[1]) / word(term[2])
            case "remainder":
                return word(term[1]) % word(term[2])
            case "and":  # with what it implies, which z3 finds slowly through the vectors
                operand, mask = (term[2], term[1]) if isinstance(term[1], int) else term[1:]
                if isinstance(mask, int) and _low_mask(mask):  # a & (2^k - 1)
                    return word(operand) % (mask + 1)
                if isinstance(mask, int) and _low_mask(U32_MAX - mask):  # clears k low bits
                    return word(operand) - word(operand) % (U32_MAX - mask + 1)
                a, b = word(term[1]), word(term[2])
                result = z3.BV2Int(bits(a) & bits(b))
                side.append(z3.And(result <= a, result <= b))
                return result
            case "xor":
                return z3.BV2Int(bits(word(term[1])) ^ bits(word(term[2])))
            case "high":
                return word(term[1]) / (1 << 32)
            case "low":
                return word(term[1]) % (1 << 32)
            case "popcount":
                vector = bits(word(term[1]))
                return z3.Sum([z3.BV2Int(z3.Extract(k, k, vector)) for k in range(32)])
            case "log2":
                operand = word(term[1])
                result = in_field(function("log2", 1)(operand))
                cases = [
                    z3.And(result == k, operand >= (1 << k), operand < (1 << (k + 1)))
                    for k in range(32)
                ]
                side.append(z3.Implies(z3.And(operand >= 1, operand < (1 << 32)), z3.Or(cases)))
                return result
            case "pow":
                return in_field(function("pow", 2)(word(term[1]), word(term[2])))
            case "inverse":
                operand = word(term[1])
                result = in_field(function("inverse", 1)(operand))
                side.append(z3.Implies(operand != 0, (operand * result) % P == 1))
                return result
            case "hash":
                words = [word(part) for part in term[2]]
                return in_field(function(f"tip5_{term[1]}", len(words))(*words))
            case "select":
                address = word(term[2])
                addresses.append(address)
                return in_field(z3.Select(memory(term[1]), address))
        raise ValueError(f"no integer meaning for {term[0]}")

    def memory(term):
        key = ("memory", id(term))
        if key not in memo:
            match term[0]:
                case "memory":
                    built = initial
                case "store":
                    built = z3.Store(memory(term[1]), word(term[2]), word(term[3]))
                case "mite":
                    built = z3.If(truth(term[1]), memory(term[2]), memory(term[3]))
            memo[key] = (term, built)
        return memo[key][1]

    def truth(term):
        if isinstance(term, bool):
            return z3.BoolVal(term, context)
        key = ("condition", id(term))
        if key not in memo:  # conditions are shared (a path's, by every check on it)
            memo[key] = (term, _truth(term))
        return memo[key][1]

    def _truth(term):
        match term[0]:
            case "eq":
                return word(term[1]) == word(term[2])
            case "lt":
                return word(term[1]) < word(term[2])
            case "runs":  # a loop's iteration k runs: first + k < end, as integers
                return word(term[1]) + term[2] < word(term[3])
            case "differ":
                return memory(term[1]) != memory(term[2])
            case "not":
                return z3.Not(truth(term[1]))
            case "and_all":
                return z3.And(*[truth(part) for part in term[1]])
            case "or_any":
                return z3.Or(*[truth(part) for part in term[1]])
        raise ValueError(f"not a condition: {term[0]}")

    for fact in facts:
        solver.add(truth(fact))
    solver.add(truth(condition))
    solver.add(*side)
    result = solver.check()
    if result == z3.unsat:
        return Answer("unsat", "z3")
    if result == z3.sat:
        model = solver.model()
        values = {}
        for name in inputs:
            if name in integers:
                values[name] = model.eval(integers[name], model_completion=True).as_long() % P
            else:
                values[name] = 0
        ram = {}
        for address in addresses:
            at = model.eval(address, model_completion=True).as_long() % P
            ram[at] = model.eval(z3.Select(initial, at), model_completion=True).as_long() % P
        return Answer("sat", "z3", values, ram={at: v for at, v in sorted(ram.items()) if v})
    return Answer("unknown", "z3", reason=f"z3: {solver.reason_unknown()}")
