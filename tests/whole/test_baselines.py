"""The hand baselines of benches/ against the reference evaluator.

For every public function of every module with a `benches/<path>.baseline.tasm`: at least
50 argument tuples (edge values first, then random draws from `compiler.bench_cases`) are
run on the VM through a harness (`call __fn` `halt`, arguments pushed above three canary
words) and through `compiler.evaluate` on the checked stdlib module.  Both must fail or
neither; when they succeed the words left above the canaries, the canaries themselves (the
stack below the arguments is untouched), the public output and the final RAM must agree.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from compiler import bench, bench_cases
from compiler import evaluate as reference
from compiler.check.checker import check
from compiler.check.resolve import Resolver, load_project
from compiler.check.symbols import mangle
from compiler.check.types import width
from vm import tasm

BENCHES = Path(__file__).resolve().parents[2] / "benches"
CASES = 60


@cache
def modules() -> dict[str, Path]:
    return bench.baseline_files(BENCHES)


@cache
def checked(module: str):
    source = Resolver().locate(module, BENCHES)
    return check(load_project(source, Resolver()))


@cache
def hand_code(module: str) -> bench.Code:
    text = bench.link_baseline(modules()[module], modules())
    return bench.split(tasm.parse(text), mangle(module))


def public_functions() -> list[tuple[str, str]]:
    """Every public function with a baseline (not listed as omitted)."""
    found = []
    for module in modules():
        prefix = mangle(module) + "__"
        names = (key[len(prefix) :] for key in checked(module).exported)
        found.extend((module, name) for name in names if name not in omitted(module))
    return found


def omitted(module: str) -> set[str]:
    """Functions the baseline's header lists as `// omitted: <fn> -- <reason>`."""
    names = set()
    for line in modules()[module].read_text(encoding="utf-8").splitlines():
        if line.startswith("// omitted:"):
            names.add(line.split(":", 1)[1].split()[0])
    return names


def evaluate(module: str, function: str, case: bench_cases.Case):
    """(result or None, final RAM, output, failure kind or None) from the evaluator."""
    evaluation = reference.call_function(
        checked(module),
        f"{mangle(module)}__{function}",
        list(case.arguments),
        secret_input=case.secret,
        secret_digests=case.digests,
        ram=case.ram,
    )
    kind = None if evaluation.error is None else evaluation.error.kind
    return evaluation.result, evaluation.ram, evaluation.output, kind


def parameters(module: str, function: str) -> list[tuple[str, int, str]]:
    instance = checked(module).instances[f"{mangle(module)}__{function}"]
    return [(name, width(type_), getattr(type_, "name", "")) for name, type_ in instance.params]


def test_at_least_eight_modules_have_baselines():
    assert len(modules()) >= 8


@pytest.mark.parametrize("module", sorted(modules()))
def test_every_public_function_has_a_baseline_or_a_reason(module):
    code = hand_code(module)
    missing = [
        function
        for key in checked(module).exported
        if (function := key[len(mangle(module)) + 2 :]) not in omitted(module)
        and (mangle(module), function) not in code.functions
    ]
    assert not missing, f"{module}: no baseline and no '// omitted:' line for {missing}"


@pytest.mark.parametrize(("module", "function"), public_functions())
def test_baseline_agrees_with_the_evaluator(module, function):
    code = hand_code(module)
    key = (mangle(module), function)
    assert key in code.functions, f"{module}.{function}: not omitted, yet no baseline"
    program = bench.harness(code, key)
    draws = bench_cases.cases(module, function, parameters(module, function), CASES, seed=1)
    assert len(draws) >= 50
    succeeded = 0
    for number, case in enumerate(draws):
        expected, ram, output, failure = evaluate(module, function, case)
        outcome = bench.run_case(program, case)
        where = f"case {number}: arguments {case.arguments}"
        assert (outcome.error is None) == (failure is None), (
            f"{where}: VM error {outcome.error}, evaluator failure {failure}"
        )
        if failure is not None:
            continue
        succeeded += 1
        assert outcome.below_intact, f"{where}: the stack below the arguments changed"
        assert outcome.result == tuple(expected), f"{where}: {outcome.result} != {expected}"
        assert outcome.output == output, f"{where}: output"
        assert outcome.ram == ram, f"{where}: RAM differs"
    assert succeeded >= 10, f"only {succeeded} of {len(draws)} cases succeed: check the draws"
