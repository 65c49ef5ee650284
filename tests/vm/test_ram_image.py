"""`vm.ram.RamImage`: a large initial RAM as sorted arrays, the same RAM as the dictionary.

Oracle: the interpreter with the same cells as a plain dictionary.  Checked: an image
built from a mapping, from segments and by overlays holds exactly the cells the
dictionary would (canonical words, the later of two equal field elements, overlaid cells
winning); every engine (interpreter, JIT with and without tiering, auto, tri.api) gives
the same `Run` from an image as from the dictionary -- output, cycles, stack, final RAM,
visits, records, error and all nine heights -- on a program that reads and writes RAM at
edge addresses (0, page boundaries, p - 1, reads that wrap below 0) with edge values
(p - 1), on an empty image, on generated programs, and on runs that fail; bad words are
refused with the interpreter's message; a JIT run's RAM, read lazily, equals the
interpreter's dictionary and turns back into an image.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from program_generator import SMALL, generate

import vm.jit
from tri import api
from vm import interp, tables
from vm.field import P
from vm.jit.runtime import Options
from vm.ram import RamImage, RamOverlay
from vm.tasm import parse

needs_jit = pytest.mark.skipif(not vm.jit.available(), reason="the JIT needs llvmlite")

RUN_FIELDS = ("output", "cycles", "stack", "ram", "visits", "u32_entries", "permutation_inputs")
EDGE_ADDRESSES = [0, 1, 4, 15, 16, 17, 2**20, 2**32 - 1, 2**32, 2**63, P - 17, P - 16, P - 2, P - 1]
EDGE_VALUES = [0, 1, P - 1, P - 2, 2**32 - 1, 2**32, 2**63]
# For each address read from public input: read the 5 words at and below it (wrapping below
# 0 to p - 1), output them, and write the first one plus 1 back at the address.
READ_WRITE = """
read_io 1 call each halt
each:
    dup 0 push 0 eq skiz return
    read_io 1 dup 0 read_mem 5 pop 1
    dup 4 dup 4 dup 4 dup 4 dup 4 write_io 5
    pop 4 addi 1 swap 1 write_mem 1 pop 1
    addi -1 recurse
"""
# Fails with an error (the stack is too shallow for `pop`) after reading and writing RAM.
FAILING = "read_io 1 dup 0 read_mem 1 pop 1 swap 1 write_mem 1 pop 1 pop 5 pop 5 pop 5 pop 5 halt"

words = st.one_of(st.sampled_from(EDGE_VALUES), st.integers(-(P - 1), P - 1))
addresses = st.one_of(st.sampled_from(EDGE_ADDRESSES), st.integers(0, 64), st.integers(0, P - 1))
cells = st.dictionaries(addresses, words, max_size=40)


def canonical(ram: dict[int, int]) -> dict[int, int]:
    """The interpreter's dictionary of `ram` (what `vm.interp.initial_machine` makes)."""
    return interp.initial_machine(parse("halt"), ram=ram).ram


def assert_same_run(expected, actual) -> None:
    for name in RUN_FIELDS:
        assert getattr(actual, name) == getattr(expected, name), name
    assert actual.error == expected.error
    assert tables.heights(actual) == tables.heights(expected)


def engines():
    yield interp.execute
    if vm.jit.available():
        yield vm.jit.execute
        yield lambda program, **inputs: vm.jit.execute(program, **inputs, options=Options(False))
        yield vm.jit.execute_auto


def compare_everywhere(program, ram: dict[int, int], image: RamImage, **inputs):
    """Every engine on the image gives the interpreter's run on the dictionary."""
    expected = interp.execute(program, ram=ram, **inputs)
    for engine in engines():
        assert_same_run(expected, engine(program, ram=image, **inputs))
    return expected


# --- the image holds the dictionary's cells --------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(cells)
@example({})
@example({-1: 5, P - 1: 7})  # the same field element twice: the later key's value
@example({P - 1: 7, -1: 5})
@example({0: -(P - 1), 3: P - 1})
def test_image_of_a_mapping_holds_the_interpreters_cells(ram):
    image = RamImage.from_cells(ram)
    assert image.cells() == canonical(ram)
    assert list(image.addresses) == sorted(canonical(ram))
    assert len(image) == len(canonical(ram))
    for address, value in canonical(ram).items():
        assert image.get(address) == value


@settings(max_examples=200, deadline=None)
@given(cells, cells, cells)
def test_overlay_is_the_dictionary_update(base, middle, top):
    image = RamImage.from_cells(base).overlay(RamImage.from_cells(middle)).overlay(top)
    assert image.cells() == {**canonical(base), **canonical(middle), **canonical(top)}


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(addresses, st.lists(words, max_size=20)), max_size=5))
def test_segments_are_consecutive_cells_later_winning(segments):
    segments = [(start, values) for start, values in segments if start + len(values) <= P]
    expected: dict[int, int] = {}
    for start, values in segments:
        expected.update(canonical(dict(zip(range(start, start + len(values)), values))))
    as_arrays = [(start, np.array(values, dtype=object)) for start, values in segments]
    assert RamImage.from_segments(segments).cells() == expected
    assert RamImage.from_segments(as_arrays).cells() == expected


def test_segments_of_numpy_words_signed_and_unsigned():
    signed = np.array([-1, 0, 1, -(2**63), 2**63 - 1], dtype=np.int64)
    unsigned = np.array([0, P - 1, 2**63, 2**64 - 2**32], dtype=np.uint64)
    image = RamImage.from_segments([(P - 5, signed), (10, unsigned), (12, [7])])
    expected = {P - 5 + k: int(value) % P for k, value in enumerate(signed.tolist())}
    expected.update({10: 0, 11: P - 1, 12: 7, 13: 2**64 - 2**32})
    assert image.cells() == expected


def test_overlaying_nothing_and_onto_nothing():
    image = RamImage.from_cells({5: 1})
    assert image.overlay({}) is image
    assert image.overlay(RamImage()) is image
    assert RamImage().overlay(image) is image
    assert RamImage.of(None) == RamImage() and len(RamImage()) == 0
    assert RamImage.of(image) is image
    assert RamImage().cells() == {}


def test_images_compare_by_their_cells():
    assert RamImage.from_cells({1: 2, 3: 4}) == RamImage.from_segments([(3, [4]), (1, [2])])
    assert RamImage.from_cells({1: 2}) != RamImage.from_cells({1: 3})
    assert hash(RamImage.from_cells({1: -1})) == hash(RamImage.from_cells({1: P - 1}))


@pytest.mark.parametrize(
    "make",
    [
        lambda: RamImage.from_cells({1: P}),
        lambda: RamImage.from_cells({1: -P}),
        lambda: RamImage.from_cells({P: 1}),
        lambda: RamImage.from_cells({2**64: 1}),
        lambda: RamImage.from_segments([(0, np.array([P], dtype=np.uint64))]),
        lambda: RamImage.from_segments([(0, [1, 2**64 + 5])]),
    ],
)
def test_words_outside_the_field_are_refused_as_the_interpreter_refuses_them(make):
    with pytest.raises(ValueError, match=r"outside \(-p, p\)"):
        make()


def test_a_segment_past_the_last_address_is_refused():
    with pytest.raises(ValueError, match="passes p - 1"):
        RamImage.from_segments([(P - 2, [1, 2, 3])])
    assert RamImage.from_segments([(P - 3, [1, 2, 3])]).cells() == {P - 3: 1, P - 2: 2, P - 1: 3}


def test_overlay_mapping_reads_and_writes_like_a_dictionary():
    ram = RamOverlay(RamImage.from_cells({1: 10, P - 1: 20}))
    ram[2] = 30
    ram[1] = 11
    assert ram.get(1) == 11 and ram.get(2) == 30 and ram.get(P - 1) == 20 and ram.get(3, 9) == 9
    assert ram == {1: 11, 2: 30, P - 1: 20}
    assert ram.ram_image() == RamImage.from_cells({1: 11, 2: 30, P - 1: 20})
    with pytest.raises(KeyError):
        ram[3]


# --- every engine runs an image as the dictionary ---------------------------------------------


def read_write_inputs(ram: dict[int, int], targets: list[int]) -> dict:
    return dict(public_input=[len(targets), *targets])


@settings(max_examples=25, deadline=None)
@given(cells, st.lists(addresses, max_size=6))
@example({}, [])
@example({}, [0, 3, P - 1])
@example({address: P - 1 for address in EDGE_ADDRESSES}, EDGE_ADDRESSES)
@example({P - 1 - k: -k for k in range(40)}, [P - 1, P - 17, P - 33, 2])
def test_every_engine_runs_an_image_as_the_dictionary(ram, targets):
    program = parse(READ_WRITE)
    image = RamImage.from_cells(ram)
    run = compare_everywhere(program, ram, image, **read_write_inputs(ram, targets))
    assert run.error is None


def test_cells_given_per_run_override_the_image():
    base = {address: 7 for address in EDGE_ADDRESSES}
    block = {0: 1, 16: P - 1, P - 1: 2, 99: 3}
    image = RamImage.from_segments([(0, [5] * 40), (P - 40, [6] * 40)]).overlay(base)
    program = parse(READ_WRITE)
    expected_ram = {
        **dict(zip(range(40), [5] * 40)),
        **dict(zip(range(P - 40, P), [6] * 40)),
        **base,
        **block,
    }
    public = [3, 0, 16, P - 1]
    run = compare_everywhere(program, expected_ram, image.overlay(block), public_input=public)
    # the words at -4 .. 0 (wrapping to p - 4 .. p - 1), the deepest first: the image's
    # segment, its cells, the block's
    assert run.output[:5] == [6, 6, 7, 2, 1]


def test_a_large_image_on_every_engine():
    rng = np.random.default_rng(7)
    values = rng.integers(0, P, size=20_000, dtype=np.uint64)
    image = RamImage.from_segments([(2**20, values), (P - 1000, values[:1000])])
    targets = [2**20, 2**20 + 19_999, P - 1, P - 1000, 2**20 + 20_000]
    compare_everywhere(parse(READ_WRITE), image.cells(), image, public_input=[5, *targets])


def test_a_failing_run_from_an_image():
    program = parse(FAILING)
    image = RamImage.from_cells({4: P - 1, P - 1: 3})
    run = compare_everywhere(program, image.cells(), image, public_input=[4])
    assert run.error is not None and run.error.kind == "TooShallow"


@needs_jit
@pytest.mark.parametrize("seed", range(0, 120, 7))
def test_generated_programs_from_an_image(seed):
    case = generate(seed, size=SMALL)
    inputs = case.inputs()
    ram = inputs.pop("ram")
    program = parse(case.text, case.isa)
    compare_everywhere(program, ram, RamImage.from_cells(ram), **inputs)


def test_the_api_takes_an_image():
    image = RamImage.from_cells({3: 5, P - 1: P - 1})
    given = api.Inputs(public=(1, 3), ram=image)
    as_pairs = api.Inputs(public=(1, 3), ram=tuple(image.cells().items()))
    for engine in ("interp", "auto", *(("jit",) if vm.jit.available() else ())):
        assert api.execute(parse(READ_WRITE), given, engine=engine) == api.execute(
            parse(READ_WRITE), as_pairs, engine="interp"
        )
    result = api.run_tasm(READ_WRITE, public_input=[1, 3], ram=image, engine="interp")
    assert result.output == [P - 1, 0, 0, 0, 5]  # the words at -1 .. 3, the deepest first


@needs_jit
def test_a_jit_runs_ram_is_read_lazily_and_back_as_an_image():
    image = RamImage.from_cells({3: 5, 40: 6, P - 1: 1})
    run = vm.jit.execute(parse(READ_WRITE), public_input=[2, 3, 40], ram=image)
    expected = interp.execute(parse(READ_WRITE), public_input=[2, 3, 40], ram=image.cells())
    assert len(run.ram) == len(expected.ram)
    assert RamImage.of(run.ram) == RamImage.from_cells(expected.ram)
    assert dict(run.ram) == expected.ram
    again = vm.jit.execute(parse(READ_WRITE), public_input=[1, 3], ram=RamImage.of(run.ram))
    assert again.output[-1] == 6  # written by the first run
