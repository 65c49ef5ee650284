"""The compiled Tip5 kernels against the plain-Python reference, on random and edge states."""

from hypothesis import given, settings
from hypothesis import strategies as st

from vm import tip5, tip5_kernels
from vm.field import P

EDGE_VALUES = (0, 1, 2, P - 1, P - 2, 2**32 - 1, 2**32, 2**64 - 2**32, 2**63, 2**63 - 1)
words = st.one_of(st.sampled_from(EDGE_VALUES), st.integers(min_value=0, max_value=P - 1))
states = st.lists(words, min_size=16, max_size=16)


# --- the compiled kernels against the plain-Python reference ----------------------------------


@settings(max_examples=150, deadline=None)
@given(states)
def test_compiled_permutation_matches_reference(state):
    reference_trace = tip5.reference_permutation_trace(state)
    assert tip5_kernels.permutation_trace(state) == reference_trace
    assert tip5_kernels.permutation(state) == reference_trace[-1]
    assert all(0 <= word < P and type(word) is int for word in tip5_kernels.permutation(state))
    assert tip5_kernels.cascade_limbs(state) == tip5.reference_cascade_limbs(state)


@settings(max_examples=30, deadline=None)
@given(st.lists(states, min_size=0, max_size=6))
def test_cascade_limbs_many_is_the_union(state_list):
    expected = set().union(*(tip5.reference_cascade_limbs(state) for state in state_list))
    assert tip5.cascade_limbs_many(state_list) == expected
    assert tip5_kernels.cascade_limbs_many(state_list) == expected


def test_edge_value_states():
    for value in EDGE_VALUES:
        state = [value] * 16
        assert tip5_kernels.permutation_trace(state) == tip5.reference_permutation_trace(state)
    mixed = list(EDGE_VALUES) + [P - 1] * 6
    assert tip5_kernels.permutation_trace(mixed) == tip5.reference_permutation_trace(mixed)
