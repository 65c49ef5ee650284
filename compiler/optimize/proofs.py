"""Proofs of the peephole rules with the equivalence checker, for every argument.

Input: a `Rule` (compiler.blocks.rule_engine) and the table it belongs to:
`tir` (TIR ops, compared through their TASM templates), `tasm`, `skiz` (rules
applied only right before a `skiz`, which looks at nothing but whether the top
is zero) or `select` (patterns that hold a `skiz` and the move it guards).
Output: `prove_rule(rule, kind) -> RuleProof`, with every instance's verdict.

A rule stands for many rewrites.  Count and index variables take every value
their instructions allow (1..5, 0..15) that satisfies the rule's condition;
field variables stay symbolic (compiler.verify.functions.parameter), so one
proof covers every field element, and a condition `a < N` on one becomes the
parameter's bound.  Each instance is proven by
`compiler.verify.prove_equivalent`; the `skiz` rules are compared with
`push 0 eq` appended to both sides (what `skiz` decides on, and the rest of
the stack).  A rule is proven when every instance is `equivalent`.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from compiler.blocks.rule_engine import Rule, replacement
from compiler.optimize.rules import SELECT_RULES, SKIZ_RULES, TASM_RULES, TIR_RULES
from compiler.tir.ops import OPS, tasm_of
from compiler.tir.ops import Op as TirOp
from compiler.verify.equivalence import Verdict, prove_equivalent
from compiler.verify.functions import parameter
from compiler.verify.terms import Expression, Poly, TermTable
from vm.isa import ARGUMENT_RANGE, Arg, instruction_set
from vm.tasm import Op

RULE_TABLES = {"tir": TIR_RULES, "tasm": TASM_RULES, "skiz": SKIZ_RULES, "select": SELECT_RULES}
SKIZ_DECISION = (("push", 0), ("eq", None))  # what `skiz` looks at: is the top zero?
VALUES = {"count": ARGUMENT_RANGE[Arg.COUNT], "index": ARGUMENT_RANGE[Arg.INDEX]}
BOUND = re.compile(r"^\s*(\w+)\s*<\s*(.+)$")  # a condition `a < N` on a field variable


@dataclass(frozen=True)
class RuleProof:
    rule: Rule
    kind: str
    instances: int
    failures: tuple[tuple[dict, Verdict], ...]  # (bindings, verdict) of each unproven instance

    @property
    def proven(self) -> bool:
        return self.instances > 0 and not self.failures


def _argument_kind(name: str, tir: bool) -> str:
    """count, index or field: the kind of value an instruction's argument takes."""
    if tir:
        return {"count": "count", "index": "index"}.get(OPS[name].arg, "field")
    return {Arg.COUNT: "count", Arg.INDEX: "index"}.get(instruction_set()[name].arg, "field")


def _variables(rule: Rule, tir: bool) -> dict[str, str]:
    """Each variable of the pattern with the strictest kind of the arguments it stands for."""
    order = ("count", "index", "field")
    variables: dict[str, str] = {}
    for name, argument in rule.parsed_pattern:
        if isinstance(argument, str):
            if not argument.isidentifier():
                raise ValueError(f"{rule}: a pattern argument must be a variable or a number")
            kind = _argument_kind(name, tir)
            known = variables.get(argument, "field")
            variables[argument] = min(kind, known, key=order.index)
    return variables


def _field_bounds(rule: Rule, fields: list[str]) -> dict[str, int] | None:
    """The bound a condition puts on a field variable; None if the condition is only
    about count and index variables."""
    if rule.when is None or not any(re.search(rf"\b{name}\b", rule.when) for name in fields):
        return None
    found = BOUND.match(rule.when)
    if found is None or found.group(1) not in fields:
        raise ValueError(f"{rule}: only `a < N` can constrain a field variable")
    return {found.group(1): eval(found.group(2), {"__builtins__": {}}) - 1}  # noqa: S307


def instances(rule: Rule, kind: str, table_for=TermTable):
    """(bindings, table) for every instance of the rule: finite variables enumerated,
    field variables symbolic parameters of a fresh table per instance."""
    tir = kind == "tir"
    variables = _variables(rule, tir)
    fields = [name for name, value_kind in variables.items() if value_kind == "field"]
    finite = [name for name in variables if name not in fields]
    bounds = _field_bounds(rule, fields)
    for values in itertools.product(*(VALUES[variables[name]] for name in finite)):
        bindings: dict = dict(zip(finite, values))
        if bounds is None and rule.when is not None:
            if not eval(rule.when, {"__builtins__": {}}, dict(bindings)):  # noqa: S307
                continue
        table = table_for()
        for index, name in enumerate(fields):
            bound = None if bounds is None else bounds.get(name)
            bindings[name] = Expression(table, parameter(table, index, bound))
        yield bindings, table


def _ops(pairs, tir: bool) -> list[Op]:
    if tir:
        pairs = [pair for name, argument in pairs for pair in tasm_of(TirOp(name, argument))]
    instructions = instruction_set()
    return [Op(instructions[name], _plain(argument)) for name, argument in pairs]


def _plain(argument):
    return argument.poly if isinstance(argument, Expression) else argument


def instance_blocks(rule: Rule, kind: str, bindings: dict) -> tuple[list[Op], list[Op]]:
    """The rule's two sides, instantiated, as TASM ops (with the `skiz` decision appended)."""
    before = [
        (name, bindings[argument] if isinstance(argument, str) else argument)
        for name, argument in rule.parsed_pattern
    ]
    after = replacement(rule, bindings)
    tir = kind == "tir"
    suffix = list(SKIZ_DECISION) if kind == "skiz" else []
    return _ops(before, tir) + _ops(suffix, False), _ops(after, tir) + _ops(suffix, False)


def prove_rule(rule: Rule, kind: str) -> RuleProof:
    """Prove every instance of `rule` (see the module docstring)."""
    count = 0
    failures = []
    for bindings, table in instances(rule, kind):
        before, after = instance_blocks(rule, kind, bindings)
        verdict = prove_equivalent(before, after, table=table)
        count += 1
        if not verdict.equivalent:
            shown = {name: _shown(table, value) for name, value in bindings.items()}
            failures.append((shown, verdict))
    return RuleProof(rule, kind, count, tuple(failures))


def _shown(table: TermTable, value) -> int | str:
    value = _plain(value)
    return table.render(value) if isinstance(value, Poly) else value
