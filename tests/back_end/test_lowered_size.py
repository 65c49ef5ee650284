"""`compiler.tir.walk.lowered_size`, which the builder uses to choose between variants, is the
number of instructions the lowering really emits.

It used to be a separate count of control.py's shapes and had drifted (an `IfOnly` around a
loop is `skiz call LOOP`, not a `then` subroutine around the call); now it lowers.  Checked
on every function of the corpus, of stdlib built alone and of generated programs
(tests/back_end/test_backend_fuzz.py) against the lowered functions of the whole pipeline (no
peephole).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus import corpus
from test_backend_fuzz import program_text

from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.driver import compile_program
from compiler.lower.asm import Instr
from compiler.tir.ops import IfOnly, Loop, Op
from compiler.tir.walk import lowered_size

STDLIB = Path(__file__).parents[2] / "stdlib"
SOURCES = [*corpus("valid"), *sorted(STDLIB.rglob("*.tri"))]


def check_sizes(path: Path) -> None:
    compiled = compile_program(check(load_project(path)), level=0)
    lowered = {function.label: function for function in compiled.asm.functions}
    for function in compiled.tir.functions:
        emitted = sum(isinstance(item, Instr) for item in lowered[function.label].items)
        assert lowered_size(function.body) == emitted, function.label


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: path.name)
def test_lowered_size_is_what_the_pipeline_emits(path):
    check_sizes(path)


@pytest.mark.parametrize("seed", range(0, 40, 4))
def test_lowered_size_on_generated_programs(tmp_path, seed):
    path = tmp_path / "generated.tri"
    path.write_text(program_text(seed))
    check_sizes(path)


def test_an_if_around_a_loop_is_skiz_call():
    loop = Loop("f__loop__1", (Op("Pick", 2), Op("Dup", 2), Op("Add"), Op("Swap", 1)))
    # skiz, call f__loop__1; the loop: 4 body instructions, addi -1 dup 0 skiz recurse return
    assert lowered_size([IfOnly((loop,))]) == 2 + 4 + 5
    assert lowered_size([IfOnly((Op("Pop", 1),))]) == 2  # skiz pop 1
    assert lowered_size([IfOnly(())]) == 1  # pop 1
