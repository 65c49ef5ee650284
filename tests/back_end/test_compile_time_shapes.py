"""The shapes of benchmarks/compile_time.py build correctly, and the work of a build grows
linearly with them.

A wide struct of lanes through a chain of step functions (keccak256's shape) and lookup
functions of deep `else if` chains (keccak256's `u32_pow2`, sha256's `k`) are built at
`-O1` (and `-O0`) and run on the VM against the reference evaluator.  A chain of valued
`if`s whose arms may be evaluated either way once had each link built both ways (branches
or a select) inside each way of the link above it: 2^n builds for n links.  The number of
alternatives built (calls of `FunctionBuilder.cheapest`, a count of work, not a timing)
must now grow linearly with the depth of the chain.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from compiler.driver import compile_program
from compiler.evaluate import evaluate
from compiler.pipeline import check_source
from compiler.tir.builder import FunctionBuilder
from vm import interp

ROOT = Path(__file__).resolve().parents[2]


def _shapes():
    spec = importlib.util.spec_from_file_location(
        "compile_time", ROOT / "benchmarks" / "compile_time.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SHAPES = _shapes()


def run_both(path: Path, level: int, public: list[int]):
    checked = check_source(path)
    program = compile_program(checked, level).program
    run = interp.execute(program, public)
    reference = evaluate(checked, public)
    assert run.error is None and reference.error is None
    return run.output, reference.output


@pytest.mark.parametrize("level", [0, 1])
def test_a_wide_struct_through_a_call_chain_runs_as_the_evaluator_says(tmp_path, level):
    lanes = 8
    path = tmp_path / "wide.tri"
    path.write_text(SHAPES.wide(200, lanes=lanes))
    assert "fn step3(st: State) -> State" in path.read_text()  # a chain of four steps or more
    output, reference = run_both(path, level, SHAPES.wide_inputs(lanes))
    assert output == reference and len(output) == 2 * lanes


@pytest.mark.parametrize("shape", ["straight", "small", "chains"])
def test_the_other_shapes_run_as_the_evaluator_says(tmp_path, shape):
    path = tmp_path / f"{shape}.tri"
    path.write_text(SHAPES.SHAPES[shape](150))
    for public in ([5, 3], [31, 2], [40, 1]):
        output, reference = run_both(path, 1, public)
        assert output == reference and output


def chain(depth: int) -> str:
    """A lookup of `depth` valued links, each arm a constant: every link could be a select."""
    links = "".join(f"    }} else if n == {i} {{\n        {3 * i + 1}\n" for i in range(1, depth))
    return (
        "program chain\n\nuse vm.io.io\n\nfn lookup(n: Field) -> Field {\n"
        f"    if n == 0 {{\n        1\n{links}    }} else {{\n        7\n    }}\n}}\n\n"
        "fn main() {\n    io.write(lookup(io.read()))\n}\n"
    )


def work(path: Path, monkeypatch) -> tuple[int, int]:
    """(alternatives built, statements built) by a build of `path` at -O0."""
    counts = {"cheapest": 0, "statement": 0}
    for name in counts:
        method = getattr(FunctionBuilder, name)

        def counted(self, *arguments, _method=method, _name=name, **keywords):
            counts[_name] += 1
            return _method(self, *arguments, **keywords)

        monkeypatch.setattr(FunctionBuilder, name, counted)
    compile_program(check_source(path), 0)
    monkeypatch.undo()
    return counts["cheapest"], counts["statement"]


def test_the_work_a_chain_of_ifs_takes_grows_linearly_with_its_depth(tmp_path, monkeypatch):
    alternatives, statements = {}, {}
    for depth in (6, 9, 12):
        path = tmp_path / f"chain{depth}.tri"
        path.write_text(chain(depth))
        alternatives[depth], statements[depth] = work(path, monkeypatch)
        for n in (0, depth // 2, depth - 1, depth + 3):
            output, reference = run_both(path, 0, [n])
            assert output == reference
    assert alternatives[6] > 0
    # linear: three links more cost the same again (built both ways at every link: 2^depth)
    for counts in (alternatives, statements):
        assert counts[12] - counts[9] <= counts[9] - counts[6] + 2, counts
