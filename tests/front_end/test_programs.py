"""The corpus through the front end: valid programs run on the reference evaluator
with their expected outputs; invalid programs report exactly their expected errors."""

import pytest
from corpus import corpus, expectations

from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.diagnostics import CompileError
from compiler.evaluate import evaluate

VALID = corpus("valid")
INVALID = corpus("invalid")


def test_the_corpus_is_large_enough():
    programs = [path for path in VALID if expectations(path).cases]
    assert len(programs) >= 40, f"only {len(programs)} valid programs with run cases"
    assert len(INVALID) >= 40, f"only {len(INVALID)} invalid programs"


@pytest.mark.parametrize(
    "path", VALID, ids=lambda path: path.relative_to(path.parents[1]).as_posix()
)
def test_valid_program(path):
    expected = expectations(path)
    try:
        checked = check(load_project(path))
    except CompileError as failure:
        pytest.fail("\n".join(d.headline for d in failure.diagnostics))
    warnings = {
        (d.severity, d.code, d.span.line, d.span.column)
        for d in checked.diagnostics
        if d.path == str(path)
    }
    assert warnings == expected.diagnostics
    for case in expected.cases:
        result = evaluate(checked, case.public, case.secret, case.digests, case.ram)
        kind = None if result.error is None else result.error.kind
        assert (result.output, kind) == (case.output, case.error), f"run: at line {case.line}"


@pytest.mark.parametrize("path", INVALID, ids=lambda path: path.name)
def test_invalid_program(path):
    expected = expectations(path)
    assert expected.diagnostics, "an invalid program states its expected errors"
    try:
        checked = check(load_project(path))
        found = checked.diagnostics
    except CompileError as failure:
        found = failure.diagnostics
    reported = {
        (d.severity, d.code, d.span.line, d.span.column) for d in found if d.path == str(path)
    }
    assert reported == expected.diagnostics


@pytest.mark.parametrize("command", ["check", "build", "run", "cost", "fmt --check"])
def test_every_invalid_program_is_an_error_not_a_traceback(capsys, command):
    """Each command that reads source, through the command line as a user runs it, on
    every invalid program: exit 1 or 2 with `file:line:col: error[...]`, no exception."""
    from cli_helpers import tri

    for path in INVALID:
        if path.parent.name == "lib":
            continue
        code, _, err = tri(capsys, *command.split(), path)
        if command.startswith("fmt"):  # the formatter only parses: a type error formats
            assert code in (0, 1, 2), path
            continue
        assert code in (1, 2) and "error[" in err, (path, command, err)
