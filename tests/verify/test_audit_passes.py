"""A classical pass checked at function level: every public function of the library,
before and after inlining (compiler.optimize.inline_source), is proven the same function by
compiler.audit -- same result, same output, same RAM, failing on the same inputs, for
every input -- or left undecided with the reason; never "different".  A pass made wrong
on purpose is caught."""

from collections import Counter
from pathlib import Path

import pytest

from compiler.audit.audit import equivalent_instances
from compiler.check.resolve import DEFAULT_LIBRARY, Resolver
from compiler.optimize.inline_source import inline_calls
from compiler.pipeline import Options, check_source
from compiler.syntax import ast
from compiler.tir.walk import statement_expressions, statements, subexpressions

LIBRARY = Path(__file__).parents[2] / "stdlib"
BUDGET = 20_000  # steps per function: the largest (matrix products) are left undecided
MODULES = sorted(
    str(path.relative_to(LIBRARY)) for path in LIBRARY.rglob("*.tri") if "vm" not in path.parts
)


def _inlined(name: str):
    checked = check_source(LIBRARY / name, Options(resolver=Resolver(DEFAULT_LIBRARY, ())))
    return checked, inline_calls(checked)


@pytest.mark.parametrize("name", MODULES)
def test_inlining_keeps_every_library_function_the_same(name):
    checked, inlined = _inlined(name)
    verdicts = Counter()
    for key in checked.exported:
        if inlined.instances[key] is checked.instances[key]:
            continue
        verdict = equivalent_instances((checked, key), (inlined, key), budget=BUDGET)
        assert verdict.status != "different", (key, verdict)
        verdicts[verdict.status] += 1
        if verdict.status == "unknown":
            assert verdict.reason, key
    if name in ("math/bits.tri", "nn/fixed.tri", "crypto/auth.tri"):
        assert verdicts["equivalent"] >= 2, verdicts


def _comparisons(instance) -> list[ast.Binary]:
    found, pending = [], [e for s in statements(instance.body) for e in statement_expressions(s)]
    while pending:
        expr = pending.pop()
        if isinstance(expr, ast.Binary) and expr.operator == "<":
            found.append(expr)
        pending.extend(subexpressions(expr))
    return found


def test_a_wrong_inlining_is_caught_with_a_counterexample_the_vm_runs():
    checked, inlined = _inlined("math/arith.tri")
    key = "std_math_arith__abs_diff"  # max and min inlined: each compares a and b
    assert inlined.instances[key] is not checked.instances[key]
    (comparison, *_) = _comparisons(inlined.instances[key])
    comparison.left, comparison.right = comparison.right, comparison.left  # max is min now
    verdict = equivalent_instances((checked, key), (inlined, key))
    assert verdict.status == "different", verdict
    first, second = verdict.observed
    assert first != second and first.startswith("returns")
