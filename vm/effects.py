"""What a run leaves for the tables, and its RAM, held as arrays when native code kept them.

A run's u32 entries and Tip5 permutation inputs are sets (`vm.tables` counts
distinct ones), its RAM a dictionary.  The interpreter adds tuples to Python
sets as it goes; the JIT keeps them in native structures (vm.jit.records), and
a run with a million u32 operations would spend more time turning 200,000
rows into tuples, and counting their table rows one by one, than running.  So
a native run hands them over as these:

- `U32Entries` and `PermutationInputs` are read-only sets (`collections.abc.Set`)
  of the same tuples the interpreter would hold, so they compare equal to its
  sets and can be iterated; the tuples are only made when someone asks;
- `u32_table_rows`, `permutation_array` and `cascade_bitmap` are what
  `vm.tables` reads: computed from the arrays directly, or counted by native
  code already (the u32 table's height, the cascade limbs of every input);
- `RamCells` is a read-only mapping from address to value, equal to the
  interpreter's dictionary; its arrays are only extracted, and the dictionary only
  built, when someone reads it.

Each set holds the tuples the interpreter had collected before native code took
over (`known`) and the distinct rows native code kept (`rows`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Set

import numpy as np

from vm.isa import U32_KINDS  # in the order the JIT's log encodes them (`kind << 32 | rhs`)
from vm.ram import RamCellsSource, RamImage

_KIND_CODE = {kind: code for code, kind in enumerate(U32_KINDS)}
_POW = _KIND_CODE["pow"]


def unique_rows(rows: np.ndarray) -> np.ndarray:
    """The distinct rows of a 2-D array (in sorted order)."""
    if len(rows) < 2:
        return rows.copy()
    ordered = rows[np.lexsort(rows.T[::-1])]
    fresh = np.empty(len(ordered), dtype=bool)
    fresh[0] = True
    np.any(ordered[1:] != ordered[:-1], axis=1, out=fresh[1:])
    return ordered[fresh]


class _ArraySet(Set):
    """A set of tuples given as Python tuples (`known`) plus distinct array rows: an array,
    or a function that makes it, called when the rows are first needed (counting the
    tables may not need them)."""

    def __init__(self, known: Set, rows: np.ndarray | Callable[[], np.ndarray]):
        self._known = frozenset(known)
        self._made = rows if isinstance(rows, np.ndarray) else None
        self._make = None if isinstance(rows, np.ndarray) else rows
        self._tuples: frozenset | None = None

    @property
    def _rows(self) -> np.ndarray:
        if self._made is None:
            self._made = self._make()
            self._make = None
        return self._made

    def _decode(self, rows: np.ndarray) -> Iterator[tuple]:
        raise NotImplementedError

    def _encode(self, entries) -> np.ndarray:
        raise NotImplementedError

    def tuples(self) -> frozenset:
        if self._tuples is None:
            self._tuples = self._known.union(self._decode(self._rows))
        return self._tuples

    def array(self) -> np.ndarray:
        """Every distinct entry as one array row."""
        if not self._known:
            return self._rows
        return unique_rows(np.concatenate([self._encode(self._known), self._rows]))

    def __contains__(self, entry) -> bool:
        return entry in self.tuples()

    def __iter__(self):
        return iter(self.tuples())

    def __len__(self) -> int:
        return len(self.array())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self)} entries)"


class U32Entries(_ArraySet):
    """Distinct u32 table entries `(kind, lhs, rhs)`; rows are `(lhs, kind << 32 | rhs)`.
    `table_rows`, if given, is the u32 table's height of `rows` alone, counted natively."""

    def __init__(self, known: Set, rows, table_rows: int | None = None):
        super().__init__(known, rows)
        self._table_rows = table_rows

    def _decode(self, rows: np.ndarray) -> Iterator[tuple]:
        codes = rows[:, 1]
        kinds = map(U32_KINDS.__getitem__, (codes >> np.uint64(32)).tolist())
        return zip(kinds, rows[:, 0].tolist(), (codes & np.uint64(0xFFFFFFFF)).tolist())

    def _encode(self, entries) -> np.ndarray:
        return np.array(
            [(lhs, _KIND_CODE[kind] << 32 | rhs) for kind, lhs, rhs in entries], dtype=np.uint64
        ).reshape(-1, 2)

    def table_rows(self) -> int:
        return u32_table_rows(self)


class PermutationInputs(_ArraySet):
    """Distinct Tip5 permutation inputs: 16-word tuples, one array row each.  `cascade`, if
    given, marks every cascade limb the `rows` look up: 65,536 bits in 1,024 words."""

    def __init__(self, known: Set, rows: np.ndarray, cascade: np.ndarray | None = None):
        super().__init__(known, rows)
        self._cascade = cascade

    def _decode(self, rows: np.ndarray) -> Iterator[tuple]:
        return map(tuple, rows.tolist())

    def _encode(self, entries) -> np.ndarray:
        return np.array(list(entries), dtype=np.uint64).reshape(-1, 16)


def u32_table_rows(entries) -> int:
    """The u32 table's height: per distinct entry, 1 if its dominant operand is 0, else
    that operand's bit length + 1; the dominant operand is the exponent of a `pow`,
    else the larger operand (docs/vm.md, How tables are counted)."""
    if not isinstance(entries, U32Entries):
        entries = U32Entries(entries, np.zeros((0, 2), dtype=np.uint64))
    if entries._table_rows is not None and not entries._known:
        return entries._table_rows
    rows = entries.array()
    if not len(rows):
        return 0
    codes = rows[:, 1]
    right = codes & np.uint64(0xFFFFFFFF)
    left = rows[:, 0]
    is_pow = (codes >> np.uint64(32)) == np.uint64(_POW)
    dominant = np.where(is_pow, right, np.maximum(left, right))
    # every dominant operand is below 2^32 (u32 operands; a pow's exponent), exact in float64
    _, exponent = np.frexp(dominant.astype(np.float64))
    return int(np.where(dominant == 0, 1, exponent.astype(np.int64) + 1).sum())


def permutation_array(inputs) -> np.ndarray:
    """Every distinct permutation input as a row of 16 words."""
    if isinstance(inputs, PermutationInputs):
        return inputs.array()
    return np.array(list(inputs), dtype=np.uint64).reshape(-1, 16)


def cascade_bitmap(inputs) -> np.ndarray | None:
    """One bool per 16-bit limb, set for the cascade limbs every input looks up, if native
    code marked them (else None: `vm.tables` computes them from `permutation_array`)."""
    if not isinstance(inputs, PermutationInputs) or inputs._cascade is None or inputs._known:
        return None
    return np.unpackbits(inputs._cascade.view(np.uint8), bitorder="little").view(bool)


class RamCells(Mapping, RamCellsSource):
    """A run's RAM as parallel arrays of addresses and values, read as a dictionary: the
    arrays, or a function that makes them, called when the RAM is first read (most runs'
    RAM is never read)."""

    def __init__(self, arrays: tuple[np.ndarray, np.ndarray] | Callable[[], tuple]):
        self._arrays = arrays if isinstance(arrays, tuple) else None
        self._make = None if isinstance(arrays, tuple) else arrays
        self._cells: dict[int, int] | None = None

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(addresses, values), in no particular order."""
        if self._arrays is None:
            self._arrays = self._make()
            self._make = None
        return self._arrays

    def cells(self) -> dict[int, int]:
        if self._cells is None:
            addresses, values = self.arrays()
            self._cells = dict(zip(addresses.tolist(), values.tolist()))
        return self._cells

    def ram_image(self) -> RamImage:
        """The cells as a `vm.ram.RamImage` (to start another run with), without a dictionary."""
        return RamImage.from_arrays(*self.arrays())

    def __getitem__(self, address: int) -> int:
        return self.cells()[address]

    def __iter__(self):
        return iter(self.cells())

    def __len__(self) -> int:
        return len(self.arrays()[0])

    def __repr__(self) -> str:
        return f"RamCells({len(self)} cells)"
