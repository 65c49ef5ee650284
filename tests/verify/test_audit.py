"""`tri audit` and `tri equiv FILE F G` (compiler.audit): contracts proven for all inputs
or refuted by a counterexample the VM confirms, never "proven" without a proof.

The corpus, tests/audit_corpus/, says of each function whether its contracts hold
(`// audit: proven`) or not (`// audit: refuted --input ...`, an input that the VM run of
the file's `main` confirmed), and of each pair of functions whether they are the same.
The gate is 0 false "proven": a function whose contracts do not hold must have a goal
refuted (with the VM's confirmation) and a function whose contracts hold every goal
proven; every equivalence verdict must be the annotated one.
"""

import json
import re
from pathlib import Path

import pytest
from cli_helpers import tri

from compiler.audit import audit_function, audited_functions, equivalent_functions
from compiler.check.resolve import DEFAULT_LIBRARY, Resolver
from compiler.contracts import CHECK_FLAG
from compiler.pipeline import Options, check_source

CORPUS = Path(__file__).parents[1] / "audit_corpus"
AUDIT_LINE = re.compile(r"^// audit: (proven|refuted)")
EQUIV_LINE = re.compile(r"^// equiv: (same|different) (\w+) (\w+)")
FUNCTION = re.compile(r"^(?:pub )?fn (\w+)")


def _checked(path: Path):
    options = Options(
        resolver=Resolver(DEFAULT_LIBRARY, ()), flags=frozenset({"debug", CHECK_FLAG})
    )
    return check_source(path, options)


def _annotations(path: Path) -> dict[str, str]:
    """function name -> "proven" or "refuted", from the line above it (and its attributes)."""
    found, pending = {}, None
    for line in path.read_text().splitlines():
        if match := AUDIT_LINE.match(line):
            pending = match.group(1)
        elif (match := FUNCTION.match(line)) and pending is not None:
            found[match.group(1)] = pending
            pending = None
    return found


def _pairs() -> list[tuple[str, str, str]]:
    pairs = []
    for path in sorted(CORPUS.glob("*.tri")):
        for line in path.read_text().splitlines():
            if match := EQUIV_LINE.match(line):
                pairs.append((path.name, *match.groups()))
    return pairs


AUDITED = sorted(path.name for path in CORPUS.glob("*.tri") if _annotations(path))


def test_the_corpus_is_as_large_as_promised():
    annotations = [a for name in AUDITED for a in _annotations(CORPUS / name).values()]
    assert annotations.count("proven") >= 20 and annotations.count("refuted") >= 20
    pairs = _pairs()
    assert len(pairs) >= 20
    assert {kind for _, kind, _, _ in pairs} == {"same", "different"}


@pytest.mark.parametrize("name", AUDITED)
def test_every_true_contract_is_proven_and_every_false_one_refuted(name):
    path = CORPUS / name
    checked = _checked(path)
    annotations = _annotations(path)
    assert set(annotations) <= set(audited_functions(checked))
    for function, expected in annotations.items():
        verdicts = audit_function(checked, function)
        statuses = [verdict.status for verdict in verdicts]
        shown = [(v.goal, v.status, v.reason) for v in verdicts]
        if expected == "proven":
            assert statuses and set(statuses) == {"proven"}, (function, shown)
        else:  # the gate: never all proven; the refutation the VM's
            assert "refuted" in statuses, (function, shown)
            for verdict in verdicts:
                if verdict.status == "refuted":
                    assert verdict.observed and verdict.observed != "the call returned"


@pytest.mark.parametrize(
    "file, kind, first, second", [pytest.param(*p, id=f"{p[2]}-{p[3]}") for p in _pairs()]
)
def test_equivalence_verdicts_are_the_annotated_ones(file, kind, first, second):
    checked = _checked(CORPUS / file)
    verdict = equivalent_functions(checked, first, second)
    assert verdict.status == ("equivalent" if kind == "same" else "different"), verdict
    if kind == "different":  # the counterexample ran on the VM, with different outcomes
        assert verdict.observed[0] != verdict.observed[1]


PROGRAM = """program audited

use vm.io.io
use vm.core.convert
use vm.core.field
use vm.io.mem

#[requires(a < convert.as_u32(1000))]
#[ensures(result < convert.as_u32(1000))]
fn double(a: U32) -> U32 {
    convert.as_u32(convert.as_field(a) + convert.as_field(a))
}

#[ensures(result == x * x + x + x + 1)]
fn square(x: Field) -> Field {
    (x + 1) * (x + 1)
}

fn expanded(x: Field) -> Field {
    x * x + 2 * x + 1
}

fn shifted(x: Field) -> Field {
    x * x + 2 * x
}

fn stored(x: Field) {
    mem.write(5, x)
}

fn extended(x: Field) {
    let _ = xinvert(xfield(x, 0, 0))
}

fn main() {
    io.write(convert.as_field(double(convert.as_u32(io.read()))))
}
"""


def _write(tmp_path, text=PROGRAM) -> Path:
    path = tmp_path / "audited.tri"
    path.write_text(text)
    return path


def test_audit_prints_each_goal_and_confirms_a_counterexample_on_the_vm(tmp_path, capsys):
    path = _write(tmp_path)
    code, out, err = tri(capsys, "audit", path)
    assert code == 1, err
    lines = out.splitlines()
    assert f"{path}:9: double: ensures(result < convert.as_u32(1000)): refuted" in lines
    assert "  counterexample: a = 500" in lines  # 500 + 500 is not below 1000
    assert any(
        line.startswith("  on the VM: AssertionFailed: contract #[ensures(") for line in lines
    )
    assert f"{path}:14: square: ensures(result == x * x + x + x + 1): proven (cvc5)" in lines
    assert not any("stored" in line for line in lines)  # it cannot fail: nothing to prove
    assert any("extended: the function: unknown" in line for line in lines)
    assert "  reason: not modelled: extension-field values" in out
    assert lines[-1] == "2 proven, 1 refuted, 1 unknown"


def test_audit_of_one_function_and_as_json(tmp_path, capsys):
    path = _write(tmp_path)
    code, out, _ = tri(capsys, "audit", path, "--fn", "square")
    assert code == 0 and out.splitlines()[-1] == "1 proven, 0 refuted, 0 unknown"
    code, out, _ = tri(capsys, "audit", path, "--fn", "double", "--json")
    report = json.loads(out)
    refuted = [goal for goal in report["goals"] if goal["status"] == "refuted"]
    assert code == 1 and refuted[0]["counterexample"]["arguments"] == {"a": [500]}
    again = tri(capsys, "audit", path, "--fn", "double", "--json")[1]
    assert again == out  # deterministic: the solvers run with limits in steps


def test_audit_usage_errors(tmp_path, capsys, monkeypatch):
    path = _write(tmp_path)
    code, _, err = tri(capsys, "audit", path, "--fn", "dubble")
    assert code == 2 and "no function 'dubble' in the file; did you mean 'double'?" in err
    code, _, err = tri(capsys, "audit", tmp_path / "missing.tri")
    assert code == 2 and "missing.tri" in err
    from compiler.audit import solvers

    monkeypatch.setattr(solvers, "missing_solvers", lambda: ["z3-solver", "cvc5-gpl"])
    code, _, err = tri(capsys, "audit", path)
    assert code == 2 and "pip install 'tri[solvers]'" in err and "Traceback" not in err


def test_equiv_of_two_functions(tmp_path, capsys):
    path = _write(tmp_path)
    code, out, _ = tri(capsys, "equiv", path, "square", "expanded")
    assert (code, out) == (0, "equivalent (proven for every input: cvc5)\n")
    code, out, _ = tri(capsys, "equiv", path, "expanded", "shifted")
    assert code == 1 and out.startswith("different: on x = ")
    assert "  expanded returns " in out and "  shifted returns " in out
    report = json.loads(tri(capsys, "equiv", path, "expanded", "shifted", "--json")[1])
    assert report["status"] == "different" and report["functions"] == ["expanded", "shifted"]


def test_equiv_usage_errors(tmp_path, capsys):
    path = _write(tmp_path)
    code, _, err = tri(capsys, "equiv", path, "square")
    assert code == 2 and "name two functions" in err
    code, _, err = tri(capsys, "equiv", path, "square", "double")
    assert code == 2 and "have different types: (Field) -> Field and (U32) -> U32" in err
    code, _, err = tri(capsys, "equiv", path, "square", "sqare")
    assert code == 2 and "did you mean 'square'?" in err


def _documented(section: str) -> tuple[str, list[tuple[str, str]]]:
    """docs/cli.md's example program of `section` and its (command, output) pairs."""
    text = (Path(__file__).parents[2] / "docs" / "cli.md").read_text()
    body = text.split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    program = re.search(r"```trident\n(.*?)```", body, re.S)
    sessions = []
    for block in re.findall(r"```\n(\$ .*?)```", body, re.S):
        for part in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, _, output = part.partition("\n")
            sessions.append((command, output))
    return (program.group(1) if program else None), sessions


def test_the_documented_audit_and_equiv_examples_print_what_the_docs_say(
    tmp_path, capsys, monkeypatch
):
    program, audit_sessions = _documented("tri audit")
    _, equiv_sessions = _documented("tri equiv")
    (tmp_path / "sums.tri").write_text(program)
    monkeypatch.chdir(tmp_path)
    assert len(audit_sessions) == 1 and len(equiv_sessions) == 2
    for command, output in audit_sessions + equiv_sessions:
        arguments = command.split()[1:]
        assert tri(capsys, *arguments)[1] == output, command


def test_long_chains_of_conditions_reach_the_solver_and_come_back():
    """gcd's 48 conditional divisions, and a loop with an early return, once made the
    translation exponential (a shared condition translated at every use, z3 copying an
    if-then-else into each use): now each is translated once and named, and a question
    too hard for the step limit is `unknown` with the solver's reason."""
    library = Path(__file__).parents[2] / "stdlib" / "math" / "arith.tri"
    verdicts = audit_function(_checked(library), "gcd")
    assert verdicts and all(v.status != "unknown" or v.reason for v in verdicts)
    program = Path(__file__).parents[1] / "programs" / "valid" / "early_return.tri"
    verdicts = audit_function(_checked(program), "first_square_at_least")
    assert verdicts and all(v.status != "unknown" or v.reason for v in verdicts)
