"""Proving a function's contracts, and the equivalence of two functions, for all inputs.

Input: a `Checked` program checked with `--check-contracts` (compiler.contracts: each
function with contracts is a wrapper asserting its `requires`, calling `NAME__body` and
asserting its `ensures`).  Output: `Verdict`s.

`audit_function` executes the function's body symbolically (compiler.audit.symbolic) on
fresh parameters, assumes its `requires` (each true, and its evaluation not failing),
and asks the solver (compiler.audit.solvers) one question per goal:

* each `ensures`: can it be false (or fail) on a run of the body that succeeds?
* each place the body can fail (an assert, a u32 check, `inv` of 0, a division by zero,
  an index, a bound, the `requires` of a function it calls): can it fail there?

"unsat" proves the goal.  A model is a candidate counterexample: the function is run on
the VM with those arguments (compiler.audit.confirm) and the goal is `refuted` only if
the run fails as the goal says (its `ensures`, or that kind of failure at that line);
a model the VM does not confirm, or a solver that gives up, is `unknown` with the reason.
Nothing is "proven" without the solver's proof.

`equivalent_functions` runs two functions on the same fresh parameters and asks whether
their results, their failures (fail or not) or their outputs can differ.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from compiler.audit import solvers
from compiler.audit import terms as t
from compiler.audit.confirm import run_function, run_result
from compiler.audit.symbolic import DEFAULT_BUDGET, Executor, FailureCase, Unsupported


@dataclass
class Verdict:
    function: str
    goal: str  # "ensures(...)", or "FailureKind at LINE: what" for a place that can fail
    status: str  # "proven", "refuted" or "unknown"
    solver: str = ""
    reason: str = ""
    arguments: list[tuple[str, list[int]]] = field(default_factory=list)  # a counterexample
    public: list[int] = field(default_factory=list)
    secret: list[int] = field(default_factory=list)
    ram: dict[int, int] = field(default_factory=dict)
    observed: str = ""  # what the VM run of the counterexample did
    line: int = 0  # the goal's source line
    kind: str = ""  # for a place that can fail: the failure kind (as the evaluator names it)
    column: int = 0  # for a place that can fail: its column

    def as_json(self) -> dict:
        data = {
            "function": self.function,
            "goal": self.goal,
            "status": self.status,
            "line": self.line,
            "solver": self.solver,
        }
        if self.kind:
            data["kind"], data["column"] = self.kind, self.column
        if self.reason:
            data["reason"] = self.reason
        if self.status == "refuted" or self.arguments:
            data["counterexample"] = {
                "arguments": {name: words for name, words in self.arguments},
                "input": self.public,
                "secret": self.secret,
                "ram": {str(address): value for address, value in self.ram.items()},
            }
            data["observed"] = self.observed
        return data


def instance_key(checked, name: str) -> str | None:
    """The key of the entry module's function `name` (not size-generic)."""
    module = checked.project.entry.name
    for key, instance in checked.instances.items():
        if instance.module == module and instance.function.name == name and not instance.sizes:
            return key
    return None


def audited_functions(checked) -> list[str]:
    """The entry module's functions a user wrote (no `main`, no generated code), in order."""
    module = checked.project.entry.name
    names = []
    for instance in checked.instances.values():
        function = instance.function
        if instance.module != module or instance.sizes or function.name == "main":
            continue
        if getattr(function, "contract_of", None) is not None:
            continue
        if function.attribute("test"):
            continue
        names.append(function.name)
    return sorted(set(names), key=names.index)


def audit_function(checked, name: str) -> list[Verdict]:
    key = instance_key(checked, name)
    body_key = instance_key(checked, f"{name}__body") or key
    requires = _generated(checked, name, "requires")
    ensures = _generated(checked, name, "ensures")
    executor = Executor(checked)
    try:
        parameters = executor.parameters(body_key)
        assumed = []
        for predicate_key, _ in requires:
            holds, fails = _predicate(executor, predicate_key, parameters)
            assumed.append(t.conjunction(holds, t.negate(fails)))
        start = len(executor.failures)
        result = executor.call(body_key, parameters)
        body_failures = executor.failures[start:]
        goals = []
        for predicate_key, text in ensures:
            holds, fails = _predicate(
                executor, predicate_key, [*parameters, result] if result else parameters
            )
            goals.append((text, t.conjunction(holds, t.negate(fails))))
    except Unsupported as reason:
        return [Verdict(name, "the function", "unknown", reason=f"not modelled: {reason}")]
    assumption = t.conjunction(*assumed)
    succeeds = t.negate(t.disjunction(*(f.condition for f in body_failures)))
    trace = executor.trace(result)
    verdicts = []
    for (predicate_key, text), (_, goal) in zip(ensures, goals, strict=True):
        query = t.conjunction(assumption, succeeds, t.negate(goal))
        line = checked.instances[predicate_key].function.span.line
        verdict = _decide(
            checked,
            key,
            name,
            text,
            line,
            query,
            trace,
            parameters,
            lambda failure, text=text: (
                failure is not None
                and failure.origin is not None
                and failure.origin.construct == "contract"
                and failure.origin.name == text
            ),
        )
        verdicts.append(verdict)
    for place, cases in _places(body_failures).items():
        kind, line, column, what = place
        query = t.conjunction(assumption, t.disjunction(*(case.condition for case in cases)))
        goal = f"no {kind} ({what})"
        lines = {(case.origin.path, case.origin.span.line) for case in cases}
        verdicts.append(
            _decide(
                checked,
                key,
                name,
                goal,
                line,
                query,
                trace,
                parameters,
                lambda failure, lines=lines: _fails_at(failure, lines),
            )
        )
        verdicts[-1].kind, verdicts[-1].column = kind, column
    return verdicts


def _generated(checked, name: str, kind: str) -> list:
    """The generated predicate functions of `name`'s contracts of `kind`, in the order
    they are written: (key, the contract's text), read off the asserts of the wrapper
    compiler.contracts made."""
    found = []
    wrapper = checked.instances[instance_key(checked, name)].function
    for statement in wrapper.body.statements:
        check = getattr(statement, "expr", None)
        text = getattr(check, "contract", None)
        if text is None or not text.startswith(f"{kind}("):
            continue
        key = instance_key(checked, check.arguments[0].callee)
        if key is not None:
            found.append((key, text))
    return found


def _predicate(executor: Executor, key: str, arguments: list[tuple]):
    """(the predicate's value as a condition, the condition under which evaluating it fails)."""
    start = len(executor.failures)
    value = executor.call(key, arguments)
    failures = executor.failures[start:]
    del executor.failures[start:]
    return t.as_condition(value[0]), t.disjunction(*(f.condition for f in failures))


def _places(failures: list[FailureCase]) -> dict:
    """The failures grouped by place: (kind, line, column, what) -> cases, in source order; each
    case's condition is that it is the run's first failure (the cases are in the order
    they run on every path)."""
    places: dict = {}
    earlier = False
    for case in failures:
        first = t.conjunction(case.condition, t.negate(earlier))
        earlier = t.disjunction(earlier, case.condition)
        case = dataclasses.replace(case, condition=first)
        origin = case.calls[-1] if case.calls else case.origin  # in the audited function
        what = case.origin.name if case.contract else _construct(case)
        if case.calls:
            what = f"in the call of {origin.name}: {what}"
        place = (case.kind, origin.span.line, origin.span.column, what)
        places.setdefault(place, []).append(case)
    return dict(sorted(places.items(), key=lambda item: item[0][1:3]))


def _construct(case: FailureCase) -> str:
    origin = case.origin
    if origin.construct == "builtin":
        return origin.name
    if origin.construct == "operator":
        return f"'{origin.name}'"
    if origin.construct == "bounded":
        return f"a loop bounded by {origin.name}"
    return origin.construct


def _fails_at(failure, lines: set) -> bool:
    """Did the VM run fail at one of these source lines?  With any kind: compiled code may
    check a condition with another instruction (`as_u32` by `split` and an `assert`, a
    loop's bound by its u32 `lt`)."""
    return failure is not None and failure.origin is not None and failure.origin.line in lines


def _decide(checked, key, name, goal, line, query, trace, parameters, confirms) -> Verdict:
    names = [name for name, _ in trace.inputs]
    answer = solvers.satisfiable(query, trace.facts, names)
    verdict = Verdict(name, goal, "unknown", answer.solver, line=line)
    if answer.status == "unsat":
        verdict.status = "proven"
        return verdict
    if answer.status == "unknown":
        verdict.reason = answer.reason
        return verdict
    words = _words(trace, parameters, answer.model)
    verdict.arguments = _named(checked, key, words)
    verdict.public = [answer.model[word[1]] for word in trace.reads]
    verdict.secret = [answer.model[word[1]] for word in trace.secret_reads]
    flat = [w for _, ws in verdict.arguments for w in ws]
    verdict.ram = answer.ram
    failure = run_function(checked, key, flat, verdict.public, verdict.secret, verdict.ram)
    verdict.observed = (
        "the call returned" if failure is None else f"{failure.kind}: {failure.message}"
    )
    if confirms(failure):
        verdict.status = "refuted"
    else:
        verdict.reason = "the solver's counterexample does not fail so on the VM"
    return verdict


def _words(trace, parameters, model) -> list[list[int]]:
    return [
        [model.get(word[1], 0) if isinstance(word, tuple) else word for word in value]
        for value in parameters
    ]


def _named(checked, key, words) -> list[tuple[str, list[int]]]:
    params = checked.instances[key].params
    return [(name, values) for (name, _), values in zip(params, words, strict=True)]


# --- equivalence of two functions ---------------------------------------------------------


@dataclass
class Equivalence:
    status: str  # "equivalent", "different" or "unknown"
    solver: str = ""
    reason: str = ""
    arguments: list[tuple[str, list[int]]] = field(default_factory=list)
    public: list[int] = field(default_factory=list)
    secret: list[int] = field(default_factory=list)
    ram: dict[int, int] = field(default_factory=dict)
    observed: tuple[str, str] = ("", "")  # what each function's VM run did

    def as_json(self) -> dict:
        data = {"status": self.status, "solver": self.solver}
        if self.reason:
            data["reason"] = self.reason
        if self.arguments:
            data["counterexample"] = {
                "arguments": {name: words for name, words in self.arguments},
                "input": self.public,
                "secret": self.secret,
                "ram": {str(address): value for address, value in self.ram.items()},
            }
            data["observed"] = list(self.observed)
        return data


def equivalent_functions(checked, first: str, second: str) -> Equivalence:
    """Do `first` and `second` (same parameter and result types) give the same result,
    fail on the same inputs and write the same output, for every input?"""
    return equivalent_instances(
        (checked, instance_key(checked, first)), (checked, instance_key(checked, second))
    )


def equivalent_instances(first: tuple, second: tuple, budget: int = DEFAULT_BUDGET) -> Equivalence:
    """The same for two (checked program, instance key) pairs: a function of one program
    and one of another (a program before and after a pass, say); each unfolded in at most
    `budget` steps."""
    executors = [Executor(checked, budget) for checked, _ in (first, second)]
    try:
        parameters = executors[0].parameters(first[1])
        runs = []
        for executor, (_, key) in zip(executors, (first, second), strict=True):
            result = executor.call(key, parameters)
            fails = t.disjunction(*(f.condition for f in executor.failures))
            runs.append((result, fails, executor.outputs, executor.reads, executor.secret_reads))
        memories = [executor.memory for executor in executors]
    except Unsupported as reason:
        return Equivalence("unknown", reason=f"not modelled: {reason}")
    (result_a, fails_a, out_a, reads_a, secret_a), (result_b, fails_b, out_b, reads_b, secret_b) = (
        runs
    )
    if any(condition is not True for condition, _ in out_a + out_b):
        return Equivalence("unknown", reason="not modelled: output written under a condition")
    if len(reads_a) != len(reads_b) or len(secret_a) != len(secret_b):
        return Equivalence("different", reason="they read different numbers of input words")
    # both read their n-th input word as `input#n`: the same terms, the same input
    words_a = [w for _, words in out_a for w in words]
    words_b = [w for _, words in out_b for w in words]
    if len(words_a) != len(words_b):
        return Equivalence("different", reason="they write different numbers of output words")
    results_differ = t.disjunction(
        *(
            t.negate(t.equal(a, b))
            for a, b in zip((*result_a, *words_a), (*result_b, *words_b), strict=True)
        )
    )
    if not t.same(*memories):
        results_differ = t.disjunction(results_differ, ("differ", *memories))
    query = t.disjunction(
        t.conjunction(fails_a, t.negate(fails_b)),
        t.conjunction(fails_b, t.negate(fails_a)),
        t.conjunction(t.negate(fails_a), t.negate(fails_b), results_differ),
    )
    facts = executors[0].facts + executors[1].facts
    names = sorted({name for executor in executors for name, _ in executor.inputs})
    answer = solvers.satisfiable(query, facts, names)
    verdict = Equivalence("unknown", answer.solver, answer.reason)
    if answer.status == "unsat":
        verdict.status = "equivalent"
        return verdict
    if answer.status == "unknown":
        return verdict
    verdict.arguments = _named(first[0], first[1], _words(None, parameters, answer.model))
    verdict.public = [answer.model[word[1]] for word in reads_a]
    verdict.secret = [answer.model[word[1]] for word in secret_a]
    flat = [w for _, ws in verdict.arguments for w in ws]
    verdict.ram = answer.ram
    outcomes = [
        run_result(checked, key, flat, verdict.public, verdict.secret, verdict.ram)
        for checked, key in (first, second)
    ]
    verdict.observed = tuple(text for _, text in outcomes)
    if outcomes[0][0] != outcomes[1][0]:
        verdict.status = "different"
    else:
        verdict.reason = "the solver's counterexample runs the same on the VM"
    return verdict
