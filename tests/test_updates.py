"""In-place updates (compiler/tir/updates.py): the literal is made in the dead value's own
slots, only the changed parts computed.  tests/programs/valid/updates.tri runs every shape
against the evaluator; here, the code is as short as the update says."""

from __future__ import annotations

from pathlib import Path

from test_backend_differential import compare_program

from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.pipeline import compile_program
from compiler.tir.ops import Facts

UPDATES = Path(__file__).parent / "programs" / "valid" / "updates.tri"


def function_ops(compiled, label: str) -> list:
    function = next(f for f in compiled.tir.functions if f.label == label)
    return [op for op in function.body if not isinstance(op, Facts)]


def test_one_changed_field_costs_its_computation_and_a_swap():
    compiled = compile_program(check(load_project(UPDATES)), 0)  # -O0 keeps step a function
    ops = function_ops(compiled, "updates__step")
    # s.s0 + a into s0's slot: dup 7, add (a is on top), swap 7, pop 1; then return
    assert [str(op) for op in ops] == ["Dup(7)", "Swap(1)", "Add", "Swap(7)", "Pop(1)", "Return"]
    step = next(f for f in compiled.tir.functions if f.label == "updates__step")
    assert step.notes == (("updated in place", "s (1 of 7 parts changed)"),)


def test_a_permutation_moves_only_what_moves():
    compiled = compile_program(check(load_project(UPDATES)), 0)
    ops = function_ops(compiled, "updates__gate")
    assert len(ops) <= 12  # the plain literal copies 7 words and drops 7: 22
    gate = next(f for f in compiled.tir.functions if f.label == "updates__gate")
    assert gate.notes == (("updated in place", "s (1 of 7 parts changed)"),)


def test_a_field_assignment_is_an_update(tmp_path):
    path = tmp_path / "t.tri"
    path.write_text(
        "program t\n\nuse vm.io.io\n\n"
        "struct P {\n    a: Field,\n    b: Field,\n    c: Field,\n}\n\n"
        "fn main() {\n    let mut p: P = P { a: io.read(), b: io.read(), c: io.read() }\n"
        "    p.a = p.a + p.c\n    io.write(p.a)\n    io.write(p.b)\n    io.write(p.c)\n}\n"
    )
    checked = check(load_project(path))
    for level in (0, 1):
        compiled = compile_program(checked, level)
        main = compiled.tir.functions[0]
        assert main.notes == (("updated in place", "p (1 of 3 parts changed)"),)
        assert compare_program(checked, compiled.program, ([1, 2, 3], [], [], {})) is None


def test_a_value_still_read_later_is_not_updated(tmp_path):
    path = tmp_path / "t.tri"
    path.write_text(
        "program t\n\nuse vm.io.io\n\nstruct P {\n    a: Field,\n    b: Field,\n}\n\n"
        "fn main() {\n    let p: P = P { a: io.read(), b: io.read() }\n"
        "    let q: P = P { a: p.a + 1, b: p.b }\n    io.write(q.a)\n    io.write(p.a)\n}\n"
    )
    checked = check(load_project(path))
    compiled = compile_program(checked, 0)
    assert compiled.tir.functions[0].notes == ()
    assert compare_program(checked, compiled.program, ([1, 2], [], [], {})) is None
