"""The weight file (compiler.neural.weights), the -O3 fallback and the compiler identity
(compiler.neural.identity): round trips, determinism, and a clear one-line error for
every way a file can be unusable."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from compiler.neural import weights as weight_file
from compiler.neural.identity import compiler_identity, rules_hash
from compiler.neural.poseidon2 import hash_bytes
from compiler.neural.weights import (
    WEIGHT_LIMIT,
    WeightsError,
    encode,
    load_policy_weights,
    load_weights,
    save_weights,
)


def tensors() -> dict:
    random = np.random.default_rng(7)
    return {
        "encoder.0.attention": random.integers(-(2**20), 2**20, size=(4, 3), dtype=np.int64),
        "encoder.0.bias": np.array([WEIGHT_LIMIT, -WEIGHT_LIMIT, 0, 1, -1], dtype=np.int64),
        "scalar": np.array(65536, dtype=np.int64),
        "empty": np.zeros((0, 2), dtype=np.int64),
    }


EXPECTED = [(name, array.shape) for name, array in tensors().items()]


@pytest.fixture
def saved(tmp_path):
    path = tmp_path / "model.weights"
    save_weights(path, tensors())
    return path


def test_round_trip_keeps_names_order_shapes_and_values(saved):
    loaded = load_weights(saved, EXPECTED)
    assert list(loaded.tensors) == list(tensors())
    for name, array in tensors().items():
        assert loaded.tensors[name].dtype == np.int64
        assert loaded.tensors[name].shape == array.shape
        assert np.array_equal(loaded.tensors[name], array)
    assert loaded.identity == hash_bytes(saved.read_bytes())
    assert load_weights(saved).identity == loaded.identity  # `expected` is optional


def test_same_tensors_give_the_same_bytes(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    identity = save_weights(first, tensors())
    save_weights(second, {name: array.copy() for name, array in tensors().items()})
    assert first.read_bytes() == second.read_bytes()
    assert identity == load_weights(second).identity
    changed = tensors()
    changed["scalar"] = np.array(65537, dtype=np.int64)
    assert save_weights(tmp_path / "c", changed) != identity


def test_layout_is_header_table_values_checksum(saved):
    data = saved.read_bytes()
    assert data.startswith(b"tri-weights 1\n")
    assert hashlib.sha256(data[:-32]).digest() == data[-32:]
    values = sum(array.size for array in tensors().values())
    table_length = int.from_bytes(data[14:22], "little")
    assert len(data) == 14 + 8 + table_length + 8 * values + 32


def error_for(path, expected=None) -> str:
    with pytest.raises(WeightsError) as caught:
        load_weights(path, expected)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(str(path))
    return message


def test_missing_file(tmp_path):
    assert "no such weight file" in error_for(tmp_path / "absent.weights")


@pytest.mark.parametrize("keep", [0, 5, 14, 20, 40, -33, -1])
def test_truncated_file(saved, keep):
    data = saved.read_bytes()
    saved.write_bytes(data[:keep])
    assert "truncated" in error_for(saved)


def test_trailing_bytes(saved):
    saved.write_bytes(saved.read_bytes() + b"\0")
    assert "bytes after the checksum" in error_for(saved)


@pytest.mark.parametrize("position", [30, -40, -1])
def test_corrupt_byte(saved, position):
    data = bytearray(saved.read_bytes())
    data[position] ^= 0x10
    saved.write_bytes(bytes(data))
    assert "corrupt" in error_for(saved)


def test_wrong_format_and_version(saved):
    data = saved.read_bytes()
    saved.write_bytes(b"PK\x03\x04" + data)
    assert "not a tri weight file" in error_for(saved)
    saved.write_bytes(data.replace(b"tri-weights 1\n", b"tri-weights 2\n", 1))
    assert "version '2', expected 1" in error_for(saved)


def test_names_and_shapes_must_match_the_model(saved):
    renamed = [("encoder.0.query", EXPECTED[0][1])] + EXPECTED[1:]
    assert "tensor 'encoder.0.query' is missing" in error_for(saved, renamed)
    assert "unexpected tensor 'empty'" in error_for(saved, EXPECTED[:-1])
    reshaped = [(EXPECTED[0][0], (3, 4))] + EXPECTED[1:]
    assert "has shape [4, 3], the model needs [3, 4]" in error_for(saved, reshaped)
    assert "another order" in error_for(saved, EXPECTED[::-1])


def test_values_out_of_bounds(tmp_path):
    path = tmp_path / "big.weights"
    with pytest.raises(WeightsError, match="outside"):
        save_weights(path, {"w": np.array([WEIGHT_LIMIT + 1])})
    # a file written by someone else with a value beyond the bound
    path.write_bytes(encode({"w": np.array([5])}))
    weights = load_weights(path)
    assert weights.tensors["w"].tolist() == [5]
    message = error_for_limit(path, limit=4)
    assert "tensor 'w' holds 5, outside [-4, 4]" in message


def error_for_limit(path, limit) -> str:
    with pytest.raises(WeightsError) as caught:
        load_weights(path, limit=limit)
    return str(caught.value)


def test_bad_tensors_are_refused_on_save(tmp_path):
    with pytest.raises(WeightsError, match="not integers"):
        save_weights(tmp_path / "f", {"w": np.array([0.5])})
    with pytest.raises(WeightsError, match="non-empty strings"):
        save_weights(tmp_path / "f", {"": np.array([1])})


@pytest.mark.parametrize("damage", ["missing", "corrupt", "truncated", "mismatched"])
def test_policy_fallback_warns_in_one_line(saved, damage, capsys):
    expected = EXPECTED
    if damage == "missing":
        saved.unlink()
    elif damage == "corrupt":
        data = bytearray(saved.read_bytes())
        data[-50] ^= 1
        saved.write_bytes(bytes(data))
    elif damage == "truncated":
        saved.write_bytes(saved.read_bytes()[:-10])
    else:
        expected = EXPECTED[1:]
    assert load_policy_weights(saved, expected) is None
    error = capsys.readouterr().err
    assert error.startswith(f"warning: {saved}: ") and error.endswith("; falling back to -O2\n")
    assert error.count("\n") == 1


def test_policy_weights_load_when_sound(saved, capsys):
    loaded = load_policy_weights(saved, EXPECTED)
    assert loaded is not None and loaded.identity == load_weights(saved).identity
    assert capsys.readouterr().err == ""


def test_compiler_identity_depends_on_each_part(saved):
    weights = load_weights(saved).identity
    base = compiler_identity(None, weights)
    assert base == compiler_identity(None, weights, rules_hash())
    assert len(base) == 64
    others = {
        compiler_identity(None, None),
        compiler_identity("ab" * 32, weights),
        compiler_identity(None, weights, "0" * 64),
        base,
    }
    assert len(others) == 4
    with pytest.raises(ValueError):
        compiler_identity("two words", weights)


def test_rules_hash_is_the_database_header():
    from compiler.superopt import database

    assert rules_hash() == database.content_hash(database.load().rules)
    assert weight_file.VERSION == 1
