"""A large initial RAM as sorted arrays, built once and reused: `RamImage`.

Input: RAM cells as a mapping {address: value}, or as segments (start address, words) of
consecutive cells, each word in (-p, p) (stored canonical, as the interpreter stores input
words); output: `RamImage`, the distinct addresses in increasing order and
their values, two read-only uint64 arrays.  `overlay` puts the cells of another image or
mapping over an image (theirs win) in linear time, without touching each cell in Python,
so a model's weights are laid out once and each run adds its own cells.

Every engine takes an image wherever it takes a `ram=` mapping, with the same meaning:
the interpreter makes its dictionary of it (`cells`), the JIT copies the arrays into its
native pages (vm.jit.state); until then its machine holds the image as `RamOverlay` (the
image plus any cells written since, a mapping equal to the interpreter's dictionary).
Initial RAM changes no table height: the RAM table counts the accesses instructions make
(vm.cost), not the cells a run starts with.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

import numpy as np

from vm.field import P

_P = np.uint64(P)
_EMPTY = np.zeros(0, dtype=np.uint64)


def _outside(value) -> ValueError:
    return ValueError(f"input value {value} is outside (-p, p)")


def canonical_words(words) -> np.ndarray:
    """A uint64 array of `words` (numpy integers or Python ints in (-p, p)), canonical."""
    if isinstance(words, np.ndarray) and words.dtype.kind in "iu":
        if words.dtype.kind == "u":
            array = words.astype(np.uint64, copy=False)
            if len(array) and array.max() >= _P:
                raise _outside(int(array[array >= _P][0]))
            return array
        signed = words.astype(np.int64, copy=False)  # every int64 is above -p
        array = signed.astype(np.uint64)
        negative = signed < 0
        if negative.any():
            array = array.copy()
            array[negative] += _P  # 2^64 + v + p wraps to v + p, in [p - 2^63, p)
        return array
    values = words if isinstance(words, list | tuple) else list(words)
    try:
        array = np.fromiter(values, dtype=np.uint64, count=len(values))
    except OverflowError:  # a negative word, or one of 2^64 or more
        for value in values:
            if not -P < value < P:
                raise _outside(value) from None
        return np.fromiter((value % P for value in values), dtype=np.uint64, count=len(values))
    if len(array) and array.max() >= _P:
        raise _outside(int(array[array >= _P][0]))
    return array


def _frozen(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


class RamImage:
    """RAM cells as sorted distinct addresses and their values (uint64, canonical)."""

    __slots__ = ("addresses", "values", "_hash")

    def __init__(self, addresses: np.ndarray = _EMPTY, values: np.ndarray = _EMPTY):
        """From arrays already sorted, distinct and canonical (see `from_cells`,
        `from_segments` for anything else)."""
        if addresses.shape != values.shape or addresses.ndim != 1:
            raise ValueError("a RAM image has one value per address")
        self.addresses = _frozen(np.array(addresses, dtype=np.uint64))
        self.values = _frozen(np.array(values, dtype=np.uint64))
        self._hash = None

    @staticmethod
    def of(ram: RamImage | Mapping[int, int] | None) -> RamImage:
        """An image of `ram` (an image is returned as it is)."""
        if isinstance(ram, RamImage):
            return ram
        return RamImage.from_cells(ram or {})

    @staticmethod
    def from_cells(cells: Mapping[int, int]) -> RamImage:
        """The image of a mapping; of two keys that are the same field element (-1 and
        p - 1), the later one's value is kept, as the interpreter's dictionary keeps it."""
        if isinstance(cells, RamCellsSource):
            return cells.ram_image()
        addresses = canonical_words(list(cells.keys()))
        return _sorted_image(addresses, canonical_words(list(cells.values())))

    @staticmethod
    def from_arrays(addresses: np.ndarray, values: np.ndarray) -> RamImage:
        """The image of cells given as parallel arrays in any order (a later cell wins)."""
        return _sorted_image(canonical_words(addresses), canonical_words(values))

    @staticmethod
    def from_segments(segments: Iterable[tuple[int, object]]) -> RamImage:
        """The image of (start address, words) segments; a later segment's cells win."""
        starts, lengths, parts = [], [], []
        for start, words in segments:
            values = canonical_words(words)
            first = int(canonical_words([start])[0])
            if first + len(values) > P:
                raise ValueError(f"the segment at {start} of {len(values)} words passes p - 1")
            starts.append(first)
            lengths.append(len(values))
            parts.append(values)
        if not parts:
            return RamImage()
        counts = np.array(lengths, dtype=np.int64)
        offsets = np.repeat(np.array(starts, dtype=np.uint64) - _offsets(counts), counts)
        addresses = offsets + np.arange(int(counts.sum()), dtype=np.uint64)
        return _sorted_image(addresses, np.concatenate(parts))

    def overlay(self, other: RamImage | Mapping[int, int]) -> RamImage:
        """This image with the cells of `other` put over it (theirs win)."""
        top = RamImage.of(other)
        if not len(top):
            return self
        if not len(self):
            return top
        positions = np.searchsorted(self.addresses, top.addresses)
        inside = positions < len(self.addresses)
        hit = positions[inside][self.addresses[positions[inside]] == top.addresses[inside]]
        kept = np.ones(len(self.addresses), dtype=bool)
        kept[hit] = False
        addresses, values = self.addresses[kept], self.values[kept]
        places = np.searchsorted(addresses, top.addresses)
        merged = RamImage.__new__(RamImage)
        merged.addresses = _frozen(np.insert(addresses, places, top.addresses))
        merged.values = _frozen(np.insert(values, places, top.values))
        merged._hash = None
        return merged

    def cells(self) -> dict[int, int]:
        """The interpreter's dictionary of the image (a new one each call)."""
        return dict(zip(self.addresses.tolist(), self.values.tolist()))

    def get(self, address: int, default: int = 0) -> int:
        if not 0 <= address < P:
            return default
        position = int(np.searchsorted(self.addresses, np.uint64(address)))
        if position < len(self.addresses) and int(self.addresses[position]) == address:
            return int(self.values[position])
        return default

    def __len__(self) -> int:
        return len(self.addresses)

    def __eq__(self, other) -> bool:
        if not isinstance(other, RamImage):
            return NotImplemented
        return np.array_equal(self.addresses, other.addresses) and np.array_equal(
            self.values, other.values
        )

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash((self.addresses.tobytes(), self.values.tobytes()))
        return self._hash

    def __repr__(self) -> str:
        return f"RamImage({len(self)} cells)"


def _offsets(counts: np.ndarray) -> np.ndarray:
    """The index of each segment's first word among all words."""
    ends = np.cumsum(counts)
    return (ends - counts).astype(np.uint64)


def _sorted_image(addresses: np.ndarray, values: np.ndarray) -> RamImage:
    """The image of cells in any order, a later cell winning over an earlier one."""
    if len(addresses) > 1 and not (addresses[1:] > addresses[:-1]).all():
        order = np.argsort(addresses, kind="stable")
        addresses, values = addresses[order], values[order]
        last = np.ones(len(addresses), dtype=bool)
        last[:-1] = addresses[1:] != addresses[:-1]
        addresses, values = addresses[last], values[last]
    return RamImage(addresses, values)


class RamCellsSource:
    """A mapping that can give its cells as an image without a dictionary (a run's RAM)."""

    def ram_image(self) -> RamImage:
        raise NotImplementedError


class RamOverlay(Mapping, RamCellsSource):
    """A machine's RAM as an image and the cells written since (what the interpreter's
    handlers use: `get` and `[]=`), read as a dictionary equal to the interpreter's."""

    def __init__(self, image: RamImage):
        self.image = image
        self.written: dict[int, int] = {}

    def get(self, address: int, default: int = 0) -> int:
        value = self.written.get(address, _ABSENT)
        return self.image.get(address, default) if value is _ABSENT else value

    def __setitem__(self, address: int, value: int) -> None:
        self.written[address] = value

    def ram_image(self) -> RamImage:
        return self.image.overlay(self.written) if self.written else self.image

    def __getitem__(self, address: int) -> int:
        value = self.get(address, _ABSENT)
        if value is _ABSENT:
            raise KeyError(address)
        return value

    def __iter__(self) -> Iterator[int]:
        return iter(self.ram_image().addresses.tolist())

    def __len__(self) -> int:
        return len(self.ram_image())

    def __repr__(self) -> str:
        return f"RamOverlay({len(self.image)} cells, {len(self.written)} written)"


_ABSENT = object()
