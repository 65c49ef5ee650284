"""Memory groups (compiler/tir/memory_groups.py): neighbouring reads or writes of RAM at one
base done with one read_mem / write_mem per five words.  Random groups (words and digests
at shuffled offsets, bases live or dead after them, constants and names written) run on
the VM against the reference evaluator at every level; the shapes of std.io.storage's
record functions are the hand code's; runs that must end a group do."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_backend_differential import compare_program, inputs_for

from compiler.check.checker import check
from compiler.check.resolve import DEFAULT_LIBRARY, load_project
from compiler.driver import compile_program
from vm.tasm import parse

LEVELS = (0, 1, 2)


def _layout(draw_widths: list[int], order: list[int], start: int):
    """(offset, width) of each access, contiguous from `start`, in the order `order`."""
    offsets, position = [], start
    for words in draw_widths:
        offsets.append((position, words))
        position += words
    return [offsets[index] for index in order]


@st.composite
def groups(draw):
    widths = draw(st.lists(st.sampled_from([1, 1, 5]), min_size=2, max_size=4))
    order = draw(st.permutations(range(len(widths))))
    start = draw(st.integers(0, 3))
    accesses = _layout(widths, list(order), start)
    base_after = draw(st.booleans())  # the base is read again after the group
    constants = draw(st.lists(st.booleans(), min_size=len(widths), max_size=len(widths)))
    return accesses, base_after, constants


def _program(accesses, base_after: bool, constants: list[bool]) -> str:
    """Writes of the group (values read from input, or constants), then the same words
    read back as a group, then every word printed one by one."""
    lines = ["program group", "", "use vm.io.io", "use vm.io.mem", "", "fn main() {"]
    lines.append("    let base: Field = io.read()")
    for index, (_, words) in enumerate(accesses):
        if words == 1:
            value = str(index + 40) if constants[index] else "io.read()"
            lines.append(f"    let v{index}: Field = {value}")
        else:
            lines.append(f"    let v{index}: Digest = io.read5()")
    for index, (offset, words) in enumerate(accesses):
        call = "write" if words == 1 else "write_block"
        lines.append(f"    mem.{call}(base + {offset}, v{index})")
    for index, (offset, words) in enumerate(accesses):
        call, kind = ("read", "Field") if words == 1 else ("read_block", "Digest")
        lines.append(f"    let r{index}: {kind} = mem.{call}(base + {offset})")
    total = sum(words for _, words in accesses)
    for index, (_, words) in enumerate(accesses):
        if words == 1:
            lines.append(f"    io.write(r{index})")
        else:
            names = ", ".join(f"r{index}_{k}" for k in range(5))
            lines.append(f"    let ({names}) = r{index}")
            lines.append(f"    io.write5({names})")
    low = min(offset for offset, _ in accesses)
    for address in range(low, low + total):
        lines.append(f"    io.write(mem.read(base + {address}))")
    if base_after:
        lines.append("    io.write(base)")
    lines.append("}")
    return "\n".join(lines) + "\n"


@settings(max_examples=25, deadline=None, derandomize=True)
@given(groups())
def test_random_groups_agree_with_the_evaluator(tmp_path_factory, group):
    accesses, base_after, constants = group
    path = tmp_path_factory.mktemp("group") / "group.tri"
    path.write_text(_program(accesses, base_after, constants))
    checked = check(load_project(path))
    rng = random.Random(len(accesses))
    for level in LEVELS:
        compiled = compile_program(checked, level)
        notes = compiled.report()
        assert "memory grouped" in notes  # both runs are groups
        for case in inputs_for(checked, rng, 6):
            assert compare_program(checked, compiled.program, case) is None


def _function(text: str, label: str) -> list[str]:
    lines = [line.split("//")[0].strip() for line in text.splitlines()]
    start = lines.index(f"{label}:")
    body = []
    for line in lines[start + 1 :]:
        body.append(line)
        if line == "return":
            return body
    raise AssertionError(label)


def test_records_are_read_and_written_as_the_hand_code_does():
    """std.io.storage's Record (a word, a digest, a word at addr .. addr + 6): one
    read_mem 5 and one read_mem 2, as the hand baseline; the write no longer than the
    hand baseline's."""
    compiled = compile_program(check(load_project(DEFAULT_LIBRARY / "io" / "storage.tri")))
    hand = (DEFAULT_LIBRARY.parent / "benches" / "std" / "io" / "storage.baseline.tasm").read_text()
    read = _function(compiled.text, "__read_record")
    assert read == ["addi 6", "read_mem 5", "read_mem 2", "pop 1", "swap 6", "return"]
    write = _function(compiled.text, "__write_record")
    assert [line for line in write if line.startswith("write_mem")] == [
        "write_mem 5",
        "write_mem 2",
    ]
    assert len(write) <= len(_function(hand, "__write_record"))
    parse(compiled.text)


@pytest.mark.parametrize(
    "body",
    [
        # a gap between the words
        "let a: Field = mem.read(b)\n    let c: Field = mem.read(b + 2)\n    io.write(a + c)",
        # the same word twice
        "let a: Field = mem.read(b)\n    let c: Field = mem.read(b)\n    io.write(a + c)",
        # two bases
        "let a: Field = mem.read(b)\n    let c: Field = mem.read(o + 1)\n    io.write(a + c)",
        # a value that is computed (it could read RAM or fail)
        "mem.write(b, 1)\n    mem.write(b + 1, o * 2)",
        # a read between two writes
        "mem.write(b, 1)\n    let a: Field = mem.read(b)\n    mem.write(b + 1, a)",
    ],
)
def test_runs_that_are_not_groups(tmp_path, body):
    path = tmp_path / "t.tri"
    path.write_text(
        "program t\n\nuse vm.io.io\nuse vm.io.mem\n\nfn main() {\n"
        f"    let b: Field = io.read()\n    let o: Field = io.read()\n    {body}\n}}\n"
    )
    assert "memory grouped" not in compile_program(check(load_project(path))).report()
