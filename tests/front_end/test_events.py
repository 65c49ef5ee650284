"""`reveal` and `seal` against RC's emitted TASM (compiler/check/events.py), on the VM.

For events of 1 to 9 fields and random field values (edge values included), a
program that reveals and seals the event is compiled, and run on the VM and on the
reference evaluator; both outputs must equal the output of the TASM sequence RC
emits: for `reveal`, push the fields in declaration order, `push TAG`, `write_io 1`,
then `write_io 1` per field; for `seal`, push the fields in reverse declaration
order, pad with `push 0` to nine, `push TAG`, `hash`, `write_io 5`.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.driver import compile_program
from compiler.evaluate import evaluate
from vm import interp
from vm.field import P
from vm.tasm import parse

EDGES = [0, 1, P - 1, 2**32 - 1, 2**32]
words = st.one_of(st.sampled_from(EDGES), st.integers(0, P - 1))


def rc_tasm(tag: int, values: list[int]) -> str:
    reveal = [f"push {value}" for value in values] + [f"push {tag}", "write_io 1"]
    reveal += ["write_io 1"] * len(values)
    seal = [f"push {value}" for value in reversed(values)] + ["push 0"] * (9 - len(values))
    seal += [f"push {tag}", "hash", "write_io 5"]
    return "\n".join([*reveal, *seal, "halt"])


def program(values: list[int]) -> str:
    names = [f"f{index}" for index in range(len(values))]
    fields = "\n".join(f"    {name}: Field," for name in names)
    pairs = reversed(list(zip(names, values)))  # given in another order than declared
    given_values = ", ".join(f"{name}: {value}" for name, value in pairs)
    return (
        f"program events\n\nevent Unused {{\n    x: Field,\n}}\n\nevent E {{\n{fields}\n}}\n\n"
        f"fn main() {{\n    reveal E {{ {given_values} }}\n    seal E {{ {given_values} }}\n}}\n"
    )


@settings(max_examples=60, deadline=None)
@given(st.lists(words, min_size=1, max_size=9))
def test_reveal_and_seal_write_what_rc_writes(tmp_path_factory, values):
    path = tmp_path_factory.mktemp("events") / "events.tri"
    path.write_text(program(values))
    checked = check(load_project(path))
    expected = interp.execute(parse(rc_tasm(1, values))).output  # E is the second event
    assert evaluate(checked).output == expected
    assert interp.execute(compile_program(checked).program).output == expected
