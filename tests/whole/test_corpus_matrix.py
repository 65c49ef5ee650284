"""The corpus matrix: every `// run:` case of the corpus on every engine at every level.

Each case states the output and the failure's kind in the language's terms (the reference
evaluator's).  The evaluator runs the source; the interpreter, the JIT and the WebAssembly
target run the program as `-O0` to `-O3` compile it.  Every engine must give the case's
output and, through `compiler.failures.language_kind`, its failure kind: a compiled run's
VM kind becomes the source's only where a construct is checked with another instruction
(a bounded loop's count, an index, `as_u32` at `-O0`).  An engine that differs fails here,
with the program, line, level and engine named."""

from __future__ import annotations

from functools import cache

import pytest
from corpus import corpus, expectations

from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.driver import compile_program
from compiler.evaluate import evaluate
from compiler.failures import language_kind
from compiler.sourcemap import origin_at
from vm import interp, jit
from vm.wasm.runtime import execute_wasm

LEVELS = (0, 1, 2, 3)
MAX_STEPS = 1 << 22
CORPUS = [path for path in corpus("valid") if expectations(path).cases]
ENGINES = {  # name -> run(program, case) -> a record with output and error
    "interp": lambda program, case: interp.execute(program, *_inputs(case), max_steps=MAX_STEPS),
    "jit": lambda program, case: jit.execute(program, *_inputs(case), max_steps=MAX_STEPS),
    "wasm": lambda program, case: execute_wasm(program, *_inputs(case), max_steps=MAX_STEPS),
}


def _inputs(case) -> tuple:
    return case.public, case.secret, case.digests, case.ram


@cache
def checked(path):
    return check(load_project(path))


def test_the_matrix_covers_the_corpus():
    cases = sum(len(expectations(path).cases) for path in CORPUS)
    failing = sum(case.error is not None for path in CORPUS for case in expectations(path).cases)
    assert len(CORPUS) >= 80 and cases >= 440 and failing >= 140


@pytest.mark.parametrize("path", CORPUS, ids=lambda path: path.stem)
def test_the_evaluator(path):
    for case in expectations(path).cases:
        evaluation = evaluate(
            checked(path),
            public_input=case.public,
            secret_input=case.secret,
            secret_digests=case.digests,
            ram=dict(case.ram),
            max_steps=MAX_STEPS,
        )
        kind = evaluation.error.kind if evaluation.error is not None else None
        assert (evaluation.output, kind) == (case.output, case.error), f"line {case.line}"


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("path", CORPUS, ids=lambda path: path.stem)
def test_every_engine(path, level):
    program = compile_program(checked(path), level).program
    for case in expectations(path).cases:
        for engine, run in ENGINES.items():
            record = run(program, case)
            kind = None
            if record.error is not None:
                kind = language_kind(record.error.kind, origin_at(program, record.error.ip))
            where = f"{path.name}:{case.line} at -O{level} on {engine}: {record.error}"
            assert (record.output, kind) == (case.output, case.error), where
