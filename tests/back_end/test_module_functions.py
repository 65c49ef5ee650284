"""A module's public functions, built alone by `tri build MODULE -O<level>`, agree with the
reference evaluator at every level, on the shape of a hash permutation from a library:

* an 8-word state struct passed through a chain of public functions,
* a function taking the state and `ROUNDS` more arguments, called by another with one
  `mem.read(address + k)` per argument (more words than the 16 the stack reaches, so the
  builder spills while it reads), and
* a public function of scalars that builds the state, permutes it from RAM and returns
  one word, called in turn by a public function of another shape.

The module is built through the command line exactly as a user builds it, called as a user
calls it (its arguments pushed, `call __NAME`), on random arguments with the RAM at the
address argument filled with random words.  Found by building the Trident library's
Poseidon2 module: at -O1 a group of RAM reads made room for its words with the address
left out of the stack's slots, so the spill that made room wrote one word too high.
"""

from __future__ import annotations

import random

import pytest
from cli_helpers import tri

from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.check.types import width
from compiler.evaluate import call_function
from compiler.levels import LEVELS
from vm import interp, tasm
from vm.field import P

ROUNDS = 24  # arguments read from RAM: with the state and the address, 33 words
CASES = 12
MAX_STEPS = 1_000_000


def module_text(rounds: int = ROUNDS) -> str:
    """The module's source: `mix` folds one argument into one state word per round."""
    fields = ", ".join(f"s{i}: Field" for i in range(8))
    parameters = "".join(f",\n    k{i}: Field" for i in range(rounds))
    lines = []
    for i in range(rounds):
        word = i % 8
        lines.append(f"    let t{i}: Field = cur.s{word} * k{i} + cur.s{(word + 3) % 8} + {i + 1}")
        lines.append(f"    cur.s{word} = t{i}")
    reads = ",\n        ".join(f"mem.read(address + {i})" for i in range(rounds))
    return f"""module wide_state

use vm.io.mem

pub struct State {{
    {fields},
}}

fn sum(st: State) -> Field {{
    st.s0 + st.s1 + st.s2 + st.s3 + st.s4 + st.s5 + st.s6 + st.s7
}}

pub fn mix(st: State{parameters}) -> State {{
    let mut cur: State = st
{chr(10).join(lines)}
    cur
}}

pub fn mix_from_ram(st: State, address: Field) -> State {{
    mix(
        st,
        {reads}
    )
}}

pub fn digest(a: Field, b: Field, c: Field, d: Field, address: Field) -> Field {{
    let st: State = State {{ s0: a, s1: b, s2: c, s3: d, s4: 4, s5: 0, s6: 0, s7: 0 }}
    let mixed: State = mix_from_ram(st, address)
    mixed.s0 + sum(mixed)
}}

pub fn commit(count: Field, key: Field, address: Field) -> Field {{
    let first: Field = digest(count, key, count * key, 1, address)
    digest(first, key, count, 2, address)
}}
"""


@pytest.fixture(scope="module")
def module_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("module") / "wide_state.tri"
    path.write_text(module_text(), encoding="utf-8")
    return path


def built(capsys, path, level: int) -> str:
    code, text, err = tri(capsys, "build", path, f"-O{level}")
    assert code == 0, err
    return text


def call(text: str, name: str, words: list[int], ram: dict[int, int]) -> interp.Run:
    """The module's function called as a user calls it: its arguments pushed, then
    `call __NAME`, `halt`, then the module's text."""
    harness = "".join(f"push {word}\n" for word in words) + f"call __{name}\nhalt\n" + text
    return interp.execute(tasm.parse(harness), (), (), (), ram, MAX_STEPS)


def argument_words(checked, key: str, rng: random.Random) -> tuple[list[tuple], int]:
    """Random arguments of `key` (edge values mixed in) and the address they read from."""
    instance = checked.instances[key]
    address = rng.choice((0, 7, 1000, 2**32 - 1, P - ROUNDS - 1))
    arguments = []
    for name, type_ in instance.params:
        if name == "address":
            arguments.append((address,))
            continue
        arguments.append(tuple(word(rng) for _ in range(width(type_))))
    return arguments, address


def word(rng: random.Random) -> int:
    edges = (0, 1, P - 1, 2**32 - 1, 2**32)
    return rng.choice(edges) if rng.random() < 0.2 else rng.randrange(P)


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_public_functions_agree_with_the_evaluator(capsys, module_file, level):
    checked = check(load_project(module_file))
    text = built(capsys, module_file, level)
    rng = random.Random(level)
    assert len(checked.exported) == 4
    for key in sorted(checked.exported):
        name = key.split("__", 1)[1]
        for _ in range(CASES):
            arguments, address = argument_words(checked, key, rng)
            ram = {(address + k) % P: rng.randrange(P) for k in range(ROUNDS)}
            expected = call_function(checked, key, arguments, ram=ram)
            run = call(text, name, [w for argument in arguments for w in argument], ram)
            assert run.error is None and expected.error is None, (key, run.error)
            assert run.stack[16:] == list(expected.result), (key, arguments, address)


def test_the_reads_outnumber_the_stack(module_file):
    """The shape that broke: the state, the address and the read words do not fit in the
    16 words the stack reaches, so building the reads must spill."""
    checked = check(load_project(module_file))
    mix = checked.instances["wide_state__mix"]
    assert sum(width(type_) for _, type_ in mix.params) == 8 + ROUNDS > 16
