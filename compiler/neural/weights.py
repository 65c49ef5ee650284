"""The model's weight file: named integer tensors, deterministic bytes, a checksum and an
identity (optimizer.md §7, "weights are code").

Input: an ordered mapping name -> numpy integer array (signed fixed-point integers,
compiler.neural.fixed: the real r is the integer round(r * 2^16)).  Output: a file
(`save_weights`), and back (`load_weights`) a `Weights` with the tensors in file order
and `identity`, the Poseidon2 hash (compiler.neural.poseidon2.hash_bytes) of the whole
file, which is the model's identity.

The format, version 1 (every integer little-endian):

    b"tri-weights 1\\n"             format name and version, one ASCII line
    8 bytes                        the table's length in bytes (unsigned)
    the table                      JSON, sorted keys, no spaces:
                                   [{"name": ..., "shape": [...]}, ...] in tensor order
    the values                     every tensor in table order, row-major, int64
    32 bytes                       sha256 of everything above

The same tensors always give the same bytes.  `load_weights` raises `WeightsError` (one
line: the path and the reason) for a missing or unreadable file, a wrong format or
version, a truncated or overlong file, corrupt bytes (the checksum), names or shapes
other than the model's (`expected`), and values out of bounds: every value must lie in
[-WEIGHT_LIMIT, WEIGHT_LIMIT] = [-2^24, 2^24], a real magnitude of at most 256, so that
a dot product of fewer than 2^14 terms with activations of the same bound stays below
2^62 (n·X·W < 2^62, compiler.neural.fixed); a model's own tighter bounds are its to
check (`fixed.check_design`).

`load_policy_weights` is what `-O3` calls: the weights, or None after a one-line
warning on stderr, so that the build falls back to `-O2`.
"""

from __future__ import annotations

import hashlib
import json
import struct
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from compiler.neural.poseidon2 import hash_bytes

MAGIC = b"tri-weights "
VERSION = 1
WEIGHT_LIMIT = 1 << 24
_LENGTH = struct.Struct("<Q")
_CHECKSUM_BYTES = 32
_VALUE_BYTES = 8


class WeightsError(ValueError):
    """A weight file that cannot be used; `str` is one line: the path and the reason."""

    def __init__(self, path, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = str(path), reason


@dataclass(frozen=True)
class Weights:
    tensors: dict  # name -> numpy int64 array, in file order
    identity: str  # Poseidon2 hash of the file (64 hex digits)
    path: str


def _table(tensors) -> list[dict]:
    return [{"name": name, "shape": list(array.shape)} for name, array in tensors.items()]


def _check_values(path, name: str, values: np.ndarray, limit: int) -> None:
    if values.size and int(np.abs(values).max()) > limit:
        worst = int(values.flat[int(np.abs(values).argmax())])
        raise WeightsError(path, f"tensor {name!r} holds {worst}, outside [-{limit}, {limit}]")


def encode(tensors) -> bytes:
    """The file's bytes for an ordered mapping name -> integer array."""
    parts = []
    for name, array in tensors.items():
        if not isinstance(name, str) or not name:
            raise WeightsError("<tensors>", f"tensor names are non-empty strings, not {name!r}")
        array = np.asarray(array)
        if array.dtype.kind not in "iu":
            raise WeightsError("<tensors>", f"tensor {name!r} is {array.dtype}, not integers")
        values = array.astype(np.int64)
        if not np.array_equal(values, array):
            raise WeightsError("<tensors>", f"tensor {name!r} does not fit in int64")
        _check_values("<tensors>", name, values, WEIGHT_LIMIT)
        parts.append(values.astype("<i8").tobytes(order="C"))
    table = json.dumps(
        _table({name: np.asarray(array) for name, array in tensors.items()}),
        sort_keys=True,
        separators=(",", ":"),
    ).encode("utf-8")
    head = MAGIC + f"{VERSION}\n".encode() + _LENGTH.pack(len(table)) + table
    body = head + b"".join(parts)
    return body + hashlib.sha256(body).digest()


def save_weights(path, tensors) -> str:
    """Write the tensors to `path` (through a temporary file, then a rename); return the
    file's identity."""
    data = encode(tensors)
    path = Path(path)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_bytes(data)
    temporary.replace(path)
    return hash_bytes(data)


def _parse_table(path, data: bytes) -> tuple[list, int]:
    """The tensor table and the offset of the values."""
    line_end = data.find(b"\n", 0, 64)
    if len(data) < len(MAGIC) + 2 and (MAGIC + f"{VERSION}\n".encode()).startswith(data):
        raise WeightsError(path, "truncated (the file ends inside its header)")
    if not data.startswith(MAGIC) or line_end < 0:
        raise WeightsError(path, "not a tri weight file (no 'tri-weights' header)")
    version = data[len(MAGIC) : line_end].decode("ascii", "replace")
    if version != str(VERSION):
        raise WeightsError(path, f"weight format version {version!r}, expected {VERSION}")
    start = line_end + 1
    if len(data) < start + _LENGTH.size:
        raise WeightsError(path, "truncated (the file ends inside its header)")
    (length,) = _LENGTH.unpack_from(data, start)
    start += _LENGTH.size
    if len(data) < start + length:
        raise WeightsError(path, "truncated (the file ends inside its tensor table)")
    try:
        table = json.loads(data[start : start + length].decode("utf-8"))
        entries = [(entry["name"], tuple(int(size) for size in entry["shape"])) for entry in table]
    except (ValueError, KeyError, TypeError) as error:
        raise WeightsError(path, f"corrupt tensor table ({error})") from None
    if any(size < 0 for _, shape in entries for size in shape):
        raise WeightsError(path, "corrupt tensor table (a negative dimension)")
    if len({name for name, _ in entries}) != len(entries):
        raise WeightsError(path, "corrupt tensor table (a name appears twice)")
    return entries, start + length


def decode(path, data: bytes, expected=None, limit: int = WEIGHT_LIMIT) -> dict:
    """The tensors of a file's bytes, checked; see the module docstring."""
    entries, offset = _parse_table(path, data)
    counts = [int(np.prod(shape, dtype=np.int64)) for _, shape in entries]
    size = offset + _VALUE_BYTES * sum(counts) + _CHECKSUM_BYTES
    if len(data) < size:
        raise WeightsError(path, f"truncated ({len(data)} bytes, the table needs {size})")
    if len(data) > size:
        raise WeightsError(path, f"{len(data) - size} bytes after the checksum")
    body = data[:-_CHECKSUM_BYTES]
    if hashlib.sha256(body).digest() != data[-_CHECKSUM_BYTES:]:
        raise WeightsError(path, "corrupt (the sha256 checksum does not match the contents)")
    if expected is not None:
        wanted = [(name, tuple(shape)) for name, shape in expected]
        if entries != wanted:
            raise WeightsError(path, _mismatch(entries, wanted))
    values = np.frombuffer(body, dtype="<i8", offset=offset).astype(np.int64)
    tensors, position = {}, 0
    for (name, shape), count in zip(entries, counts):
        tensor = values[position : position + count].reshape(shape)
        _check_values(path, name, tensor, limit)
        tensors[name] = tensor
        position += count
    return tensors


def _mismatch(found: list, wanted: list) -> str:
    """The first difference between the file's tensors and the model's, in one line."""
    found_names, wanted_names = [n for n, _ in found], [n for n, _ in wanted]
    missing = [name for name in wanted_names if name not in found_names]
    if missing:
        return f"does not match the model: tensor {missing[0]!r} is missing"
    extra = [name for name in found_names if name not in wanted_names]
    if extra:
        return f"does not match the model: unexpected tensor {extra[0]!r}"
    shapes = dict(found)
    for name, shape in wanted:
        if shapes[name] != shape:
            return (
                f"does not match the model: tensor {name!r} has shape {list(shapes[name])}, "
                f"the model needs {list(shape)}"
            )
    return "does not match the model: the tensors are in another order"


def load_weights(path, expected=None, limit: int = WEIGHT_LIMIT) -> Weights:
    """The weights in `path`, checked against `expected` [(name, shape), ...] if given.
    Raises `WeightsError` (see the module docstring)."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise WeightsError(path, "no such weight file") from None
    except OSError as error:
        raise WeightsError(path, f"cannot read the weight file ({error.strerror})") from None
    tensors = decode(path, data, expected, limit)
    return Weights(tensors, hash_bytes(data), str(path))


def load_policy_weights(path, expected=None) -> Weights | None:
    """The weights for `-O3`, or None after `warning: <path>: <reason>; falling back to
    -O2` on stderr when the file cannot be used."""
    try:
        return load_weights(path, expected)
    except WeightsError as error:
        print(f"warning: {error}; falling back to -O2", file=sys.stderr)
        return None
