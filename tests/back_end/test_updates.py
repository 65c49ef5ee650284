"""In-place updates (compiler/tir/updates.py): the literal is made in the dead value's own
slots, only the changed parts computed.  tests/programs/valid/updates.tri runs every shape
against the evaluator; here, the code is as short as the update says."""

from __future__ import annotations

from pathlib import Path

from test_backend_differential import compare_program

from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.driver import compile_program
from compiler.tir.ops import Facts, Op

UPDATES = Path(__file__).parents[1] / "programs" / "valid" / "updates.tri"


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
    # the plain literal copied 7 words and dropped 7: 22; it now moves each field it
    # takes (the last use of its words), which is shorter than the update here
    assert len(ops) <= 10
    assert not any(str(op).startswith(("Dup", "Pop")) for op in ops)


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
        # the update, or the literal moving the fields it keeps (as short): one copy of
        # p.c for the sum, nothing dropped
        ops = [str(op) for op in main.body if isinstance(op, Op)]
        assert ops.count("Dup(1)") == 1 and not any(op.startswith("Pop") for op in ops)
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


def test_a_field_read_for_the_last_time_is_moved():
    # write_record reads record.id, record.owner, record.amount once each: each is moved
    # where its write needs it (the last use of its words, though the struct lives on), so
    # nothing is copied and nothing is left to drop (it copied 7 words and dropped 6)
    storage = Path(__file__).parents[2] / "stdlib" / "io" / "storage.tri"
    compiled = compile_program(check(load_project(storage)), 1)
    ops = [str(op) for op in function_ops(compiled, "std_io_storage__write_record")]
    assert not any(op.startswith("Pop(5)") for op in ops)
    assert sum(op.startswith("Dup") for op in ops) <= 2  # the address, for two writes
