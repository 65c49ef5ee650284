"""vm.effects: the u32 entries and permutation inputs a native run hands over as arrays
are the same sets as the interpreter's tuples, and the tables count them the same."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vm import effects, tables, tip5
from vm.field import P

U32_EDGES = [0, 1, 2, 2**31, 2**32 - 2, 2**32 - 1]
u32_values = st.one_of(st.sampled_from(U32_EDGES), st.integers(0, 2**32 - 1))
field_values = st.one_of(st.sampled_from([0, 1, P - 1, 2**32 - 1, 2**63]), st.integers(0, P - 1))


@st.composite
def u32_entry(draw):
    kind = draw(st.sampled_from(effects.U32_KINDS))
    if kind == "pow":
        return (kind, draw(field_values), draw(st.integers(0, 63) | u32_values))
    if kind in ("log2", "popcount"):
        return (kind, draw(u32_values), 0)
    return (kind, draw(u32_values), draw(u32_values))


def _split(entries: set, data, encode):
    """The same set as known tuples plus array rows, overlapping at random."""
    known = {entry for entry in entries if data.draw(st.booleans())}
    native = [entry for entry in entries if entry not in known or data.draw(st.booleans())]
    return known, encode(native)


def _u32_rows(entries) -> np.ndarray:
    rows = effects.U32Entries((), np.zeros((0, 2), dtype=np.uint64))._encode(entries)
    return effects.unique_rows(rows)


@settings(max_examples=300, deadline=None)
@given(st.sets(u32_entry(), max_size=40), st.data())
def test_u32_entries_are_the_interpreters_set_and_count_the_same_rows(entries, data):
    known, rows = _split(entries, data, _u32_rows)
    handed_over = effects.U32Entries(known, rows)
    assert handed_over == entries and entries == handed_over
    assert len(handed_over) == len(entries)
    assert set(handed_over) == entries
    assert all(entry in handed_over for entry in entries)
    expected = sum(map(tables.u32_entry_rows, entries))
    assert effects.u32_table_rows(handed_over) == expected
    assert effects.u32_table_rows(entries) == expected


def test_u32_rows_of_the_edges():
    entries = {
        ("lt", 0, 0),  # dominant 0: one row
        ("and", 2**32 - 1, 1),  # 32 bits: 33 rows
        ("pow", P - 1, 0),  # a pow counts its exponent only
        ("pow", 2, 63),
        ("split", 1, 2**31),
    }
    assert effects.u32_table_rows(entries) == 1 + 33 + 1 + 7 + 33
    assert effects.u32_table_rows(set()) == 0


def _permutation_rows(states) -> np.ndarray:
    return effects.unique_rows(np.array(list(states), dtype=np.uint64).reshape(-1, 16))


states = st.tuples(*[field_values] * 16)


@settings(max_examples=100, deadline=None)
@given(st.sets(states, max_size=8), st.data())
def test_permutation_inputs_are_the_interpreters_set_and_give_the_same_limbs(inputs, data):
    known, rows = _split(inputs, data, _permutation_rows)
    handed_over = effects.PermutationInputs(known, rows)
    assert handed_over == inputs and len(handed_over) == len(inputs)
    array = effects.permutation_array(handed_over)
    assert {tuple(row) for row in array.tolist()} == inputs
    assert tip5.cascade_limbs_many(array) == tip5.cascade_limbs_many(inputs)


def test_a_state_array_of_the_wrong_shape_is_refused():
    with pytest.raises(ValueError):
        tip5.cascade_limbs_many(np.zeros((2, 15), dtype=np.uint64))
