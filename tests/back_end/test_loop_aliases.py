"""Loop aliases (compiler/tir/aliases.py `loop_alias`): `let row = convert.as_field(i)` with
i an enclosing loop's variable names the frame's word for i instead of copying it.  The
corpus program loop_aliases.tri runs against the evaluator with the other corpus programs;
here: an alias takes no slot (the same loop with a mutable copy costs more), matmul's three
loops fit the stack with no spill and each tests its frame with `recurse_or_return`, and a
builder that aliases the wrong word is caught by the corpus."""

from __future__ import annotations

from pathlib import Path

from corpus import expectations
from test_backend_differential import compare_program

from compiler.check.checker import check
from compiler.check.resolve import DEFAULT_LIBRARY, load_project
from compiler.driver import compile_program
from compiler.tir.builder import FunctionBuilder

CORPUS = Path(__file__).parents[1] / "programs" / "valid" / "loop_aliases.tri"
SPILL_BASE = 2**30


def _build(tmp_path: Path, let: str) -> str:
    path = tmp_path / "t.tri"
    path.write_text(
        "program t\n\nuse vm.io.io\nuse vm.core.convert\n\nfn main() {\n"
        "    let n: Field = io.read()\n    let mut total: Field = 0\n"
        "    for i in 0..n bounded 8 {\n"
        f"        {let}\n"
        "        total = total + row * row + row\n    }\n    io.write(total)\n}\n"
    )
    return compile_program(check(load_project(path)), 1).text


def test_an_alias_takes_no_slot_and_no_copy(tmp_path):
    aliased = _build(tmp_path, "let row: Field = convert.as_field(i)")
    copied = _build(tmp_path, "let mut row: Field = convert.as_field(i)")
    assert len(aliased.splitlines()) < len(copied.splitlines())


def test_matmul_fits_the_stack_and_tests_each_frame_in_one_instruction():
    compiled = compile_program(check(load_project(DEFAULT_LIBRARY / "nn" / "tensor.tri")), 1)
    body = compiled.text.split("__matmul:\n")[1].split("__relu_layer:")[0]
    pushes = [line.split()[1] for line in body.splitlines() if line.split()[:1] == ["push"]]
    assert not [value for value in pushes if int(value) >= SPILL_BASE]  # no spill address
    assert body.count("recurse_or_return") == 3


def test_a_builder_that_aliases_the_wrong_word_is_caught(monkeypatch):
    checked = check(load_project(CORPUS))
    cases = expectations(CORPUS).cases
    program = compile_program(checked, 1).program
    as_input = [(c.public, c.secret, c.digests, c.ram) for c in cases]
    assert all(compare_program(checked, program, case) is None for case in as_input)
    original = FunctionBuilder.loop_alias

    def wrong(self, statement):  # the frame's end instead of its loop word
        aliased = original(self, statement)
        if aliased:
            binding = self.analysis.lets[statement][0]
            if binding is not None:
                frame = self.values[binding]
                ends = [v for v in self.stack.values() if v.kind == "pinned" and v.name == "end"]
                self.values[binding] = ends[-1] if ends else frame
        return aliased

    monkeypatch.setattr(FunctionBuilder, "loop_alias", wrong)
    program = compile_program(checked, 1).program
    assert any(compare_program(checked, program, case) is not None for case in as_input)
