"""`-O3`: the model in the build (optimizer.md §1, §5, §7, §8).

* A weight file that cannot be used -- missing, corrupt, truncated, or made for
  another model -- gives one warning line and the `-O2` build, byte for byte.
* The shipped weights load, and their identity is the Poseidon2 hash of the file.
* Never costlier than `-O2`, block by block, with the shipped weights and with random
  ones: `-O3` only adds candidates, so a worse model cannot make the output worse
  (the invariant behind "monotone when the model is swapped for a better one").
* `-O3` programs give the outputs their cases expect and agree with the reference
  evaluator (tests/optimizer/test_search_programs.py runs the same checks at -O2 and -O3).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_backend_differential import PROGRAM_PATHS

from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.driver import compile_program
from compiler.neural.model import PARAMETERS, SHIPPED, initial_parameters, load_policy
from compiler.neural.poseidon2 import hash_bytes
from compiler.neural.weights import load_weights, save_weights

SAMPLE = [path for path in PROGRAM_PATHS if path.stem in ("fib", "collatz", "binary_search")] or (
    PROGRAM_PATHS[:3]
)


def build(path, level, weights=None):
    return compile_program(check(load_project(path)), level, weights=weights)


def bad_files(tmp_path):
    good = tmp_path / "good.weights"
    save_weights(good, initial_parameters(1))
    data = good.read_bytes()
    corrupt = tmp_path / "corrupt.weights"
    corrupt.write_bytes(data[:100] + bytes([data[100] ^ 1]) + data[101:])
    truncated = tmp_path / "truncated.weights"
    truncated.write_bytes(data[: len(data) // 2])
    other = tmp_path / "other.weights"
    names = [name for name, _ in PARAMETERS]
    save_weights(other, {name: np.zeros((2, 2), dtype=np.int64) for name in names[:3]})
    return {
        "missing": tmp_path / "missing.weights",
        "corrupt": corrupt,
        "truncated": truncated,
        "mismatched": other,
    }


@pytest.mark.parametrize("kind", ["missing", "corrupt", "truncated", "mismatched"])
def test_an_unusable_weight_file_warns_and_gives_the_o2_build(tmp_path, capsys, kind):
    path = bad_files(tmp_path)[kind]
    program = SAMPLE[0]
    built = build(program, 3, weights=str(path))
    error = capsys.readouterr().err
    assert f"warning: {path}:" in error and "falling back to -O2" in error
    assert error.count("\n") == 1
    assert built.text == build(program, 2).text
    assert built.outputs["model"] is None


def test_the_environment_names_the_weight_file(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TRI_WEIGHTS", str(tmp_path / "nowhere.weights"))
    assert load_policy() is None
    assert "nowhere.weights" in capsys.readouterr().err


def test_the_shipped_weights_load_and_their_identity_is_their_hash():
    weights = load_weights(SHIPPED, list(PARAMETERS))
    assert weights.identity == hash_bytes(SHIPPED.read_bytes())
    policy = load_policy(str(SHIPPED))
    assert policy is not None and policy.identity == weights.identity


@pytest.fixture(scope="module")
def random_weights(tmp_path_factory):
    path = tmp_path_factory.mktemp("weights") / "random.weights"
    save_weights(path, initial_parameters(7))
    return str(path)


@pytest.mark.parametrize("path", SAMPLE, ids=lambda path: path.stem)
def test_o3_is_never_costlier_than_o2_block_by_block(path, random_weights):
    o2 = build(path, 2)
    for weights in (None, random_weights):
        o3 = build(path, 3, weights)
        assert o3.outputs["model"] is not None
        assert o3.search.instructions_after <= o2.search.instructions_after
        assert o3.search.blocks == o2.search.blocks
        assert len(o3.program.ops) <= len(o2.program.ops)
