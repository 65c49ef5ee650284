"""A run's state in native buffers: from an interpreter `Machine`, and back.

Input: a `Machine`, the program's `BlockMap` and a step budget; output:
`NativeState`, the registers (`control`) and buffers of vm.jit.layout that
compiled code runs on, which it grows when a checkpoint asks for room
(`serve`), and which it turns back into the interpreter's forms: the arrays of
vm.effects for the run's record (`ram`, `u32_entries`, `permutation_inputs`).
The interpreter can run on the same state, for the regions that are not
compiled: a machine's RAM and records can be views of the native ones
(`NativeRam`, `NativeU32Entries`, `NativePermutationInputs`), and `to_machine`
and `from_machine` move the rest (stacks, streams, output, sponge) across.
RAM pages, the u32 set and the permutation set (vm.jit.memory, vm.jit.records)
are filled and rebuilt by native helpers, so that an address or an entry
always lands where compiled code looks for it.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from vm import effects
from vm.interp import Machine
from vm.jit.blocks import BlockMap, Guard
from vm.jit.layout import (
    BUFFERS,
    CACHE_ENTRIES,
    CASCADE_WORDS,
    DIGEST_WORDS,
    NO_PAGE,
    PAGE_BITS,
    PAGE_CELLS,
    PAGE_KEY,
    PAGE_MASK,
    PAGE_STRIDE,
    PAGE_WORDS,
    STATE_WORDS,
    U32_KINDS,
    U32_SLOT_WORDS,
    Control,
)
from vm.jit.support import support
from vm.ram import RamImage

_MINIMUM_CAPACITY = 1024
_BUDGET_LIMIT = 1 << 62  # steps per native call: an i64, and more than any run takes
_FIRST_PAGES = 64  # RAM pages before the first growth (9 KiB)
_FIRST_U32_SLOTS = 1 << 13  # u32 set slots (128 KiB): 4,096 entries before it grows
_FIRST_PERMUTATIONS = 1 << 10  # permutation inputs before the log grows (128 KiB)
_GROWTH = 4  # the sets grow fourfold: each entry is moved about 1/3 times on average


@dataclass(frozen=True)
class Capacities:
    """What the growable structures of a run start with: by default the first sizes above;
    vm.jit.runtime starts a program's run with the sizes its previous run ended with, so
    that runs of one program (a model's inferences) do not grow them again each time."""

    ram_pages: int = _FIRST_PAGES
    u32_slots: int = _FIRST_U32_SLOTS
    permutations: int = _FIRST_PERMUTATIONS


def capacity(needed: int, current: int = 0, minimum: int = _MINIMUM_CAPACITY) -> int:
    """The smallest power-of-two multiple of max(current, minimum) that holds `needed`."""
    result = max(current, minimum)
    while result < needed:
        result *= 2
    return result


def _words(values, minimum: int = 1) -> np.ndarray:
    """A uint64 array of `values`, at least `minimum` long so that it has an address."""
    array = np.zeros(max(minimum, len(values)), dtype=np.uint64)
    array[: len(values)] = values
    return array


def _address(array: np.ndarray) -> int:
    return array.ctypes.data


def _grown(array: np.ndarray, needed: int) -> np.ndarray:
    if needed <= len(array):
        return array
    grown = np.zeros(capacity(needed, 2 * len(array)), dtype=array.dtype)
    grown[: len(array)] = array
    return grown


def _extended(array: np.ndarray, words: int) -> np.ndarray:
    """`array` copied into the start of `words` zeroed words."""
    extended = np.zeros(words, dtype=array.dtype)
    extended[: len(array)] = array
    return extended


def _shift(slots: int) -> int:
    """The Fibonacci-hashing shift of a table of `slots` (a power of two) slots."""
    return 64 - (slots.bit_length() - 1)


def _refill(queue: deque, items) -> None:
    queue.clear()
    queue.extend(items)


class NativeState:
    """The registers (`control`) and buffers of one run, in the layout of vm.jit.layout."""

    def __init__(
        self, machine: Machine, blocks: BlockMap, budget: int, start: Capacities = Capacities()
    ):
        self.blocks = blocks
        self.control = np.zeros(len(Control), dtype=np.int64)
        registers = self.control
        stack = machine.stack
        self.stack = _words(stack, capacity(2 * len(stack)))
        registers[Control.SP] = len(stack)
        pairs = [word for pair in machine.jump_stack for word in pair]
        self.jump = _words(pairs, 2 * capacity(len(pairs)))
        registers[Control.JUMP_LENGTH] = len(machine.jump_stack)
        self.counts = np.zeros(max(1, len(blocks.blocks)), dtype=np.int64)
        self.public = _words(list(machine.public_input))
        registers[Control.PUBLIC_LENGTH] = len(machine.public_input)
        self.secret = _words(list(machine.secret_input))
        registers[Control.SECRET_LENGTH] = len(machine.secret_input)
        self.digests = _words([word for digest in machine.secret_digests for word in digest])
        registers[Control.DIGEST_COUNT] = len(machine.secret_digests)
        self.output = _words([], _MINIMUM_CAPACITY)
        self.sponge = _words(machine.sponge or (), STATE_WORDS)
        registers[Control.SPONGE_READY] = machine.sponge is not None
        registers[Control.BUDGET] = min(budget, _BUDGET_LIMIT)  # more is handed off, not lost
        self._scratch = np.zeros(STATE_WORDS, dtype=np.uint64)
        self._set_capacities()
        self._load_ram(machine.ram, start.ram_pages)
        self._load_u32_entries(machine.u32_entries, start.u32_slots)
        self._load_permutations(machine.permutation_inputs, start.permutations)

    def capacities(self) -> Capacities:
        """The sizes the growable structures have now."""
        return Capacities(
            ram_pages=int(self.control[Control.RAM_PAGE_CAPACITY]),
            u32_slots=len(self.u32_table) // U32_SLOT_WORDS,
            permutations=int(self.control[Control.PERMUTATION_CAPACITY]),
        )

    def _set_capacities(self) -> None:
        registers = self.control
        registers[Control.STACK_CAPACITY] = len(self.stack)
        registers[Control.JUMP_CAPACITY] = len(self.jump) // 2
        registers[Control.OUTPUT_CAPACITY] = len(self.output)

    def arguments(self) -> list[int]:
        buffers = [_address(getattr(self, name)) for name in BUFFERS]
        return [_address(self.control), *buffers, _address(support().table)]

    def _call(self, name: str, *arguments):
        """Call a helper through ctypes (vm.jit.support) with arrays as pointers."""
        values = [_address(a) if isinstance(a, np.ndarray) else a for a in arguments]
        return support().functions[name](*values)

    # --- RAM ---------------------------------------------------------------------------------

    def _set_ram_buffers(self, pages: np.ndarray) -> None:
        """Take `pages` as the page buffer and build a fresh index for its pages."""
        page_capacity = len(pages) // PAGE_STRIDE
        slots = 2 * page_capacity
        self.ram_pages = pages
        self.ram_index = np.zeros(2 * slots, dtype=np.uint64)
        registers = self.control
        registers[Control.RAM_PAGE_CAPACITY] = page_capacity
        registers[Control.RAM_INDEX_MASK] = slots - 1
        registers[Control.RAM_INDEX_SHIFT] = _shift(slots)
        self._call("ram_reindex", self.control, self.ram_pages, self.ram_index)

    def _load_ram(self, ram, first_pages: int) -> None:
        """Pages for the cells of `ram` (a mapping, or `vm.ram.RamOverlay`), in address
        order (page 0 is the zero page), copied from the image's arrays in bulk."""
        image = RamImage.of(ram)
        addresses, values = image.addresses, image.values
        numbers = addresses >> np.uint64(PAGE_BITS)
        fresh = np.ones(len(numbers), dtype=bool)
        np.not_equal(numbers[1:], numbers[:-1], out=fresh[1:])
        starts = np.flatnonzero(fresh)
        count = 1 + len(starts)
        pages = np.zeros(capacity(count, 0, first_pages) * PAGE_STRIDE, dtype=np.uint64)
        table = pages.reshape(-1, PAGE_STRIDE)
        table[0, PAGE_KEY] = NO_PAGE
        table[1:count, PAGE_KEY] = numbers[starts]
        rows = np.cumsum(fresh)  # each cell's page: 1 for the first
        within = (addresses & np.uint64(PAGE_WORDS - 1)).astype(np.int64)
        table[rows, PAGE_CELLS + within] = values
        if len(starts):  # distinct cells of a page: the sum of their bits is their union
            bits = np.left_shift(np.uint64(1), within.astype(np.uint64))
            table[1:count, PAGE_MASK] = np.add.reduceat(bits, starts)
        self.control[Control.RAM_PAGES] = count
        self.ram_cache = np.full(2 * CACHE_ENTRIES, NO_PAGE, dtype=np.uint64)
        self._set_ram_buffers(pages)

    def ram(self) -> effects.RamCells:
        """Every written cell (the initial RAM included), as the interpreter's dictionary;
        taken from the pages only when someone reads it (the pages do not change after the
        run)."""
        count = int(self.control[Control.RAM_PAGES])
        pages = self.ram_pages

        def cells() -> tuple[np.ndarray, np.ndarray]:
            table = pages.reshape(-1, PAGE_STRIDE)[1:count]
            bits = np.arange(PAGE_WORDS, dtype=np.uint64)
            written = ((table[:, PAGE_MASK, None] >> bits) & np.uint64(1)).astype(bool)
            addresses = (table[:, PAGE_KEY, None] << np.uint64(PAGE_BITS)) | bits
            return addresses[written], table[:, PAGE_CELLS:][written]

        return effects.RamCells(cells)

    # --- the u32 set ---------------------------------------------------------------------------

    def _set_u32_table(self, slots: int, source: np.ndarray | None) -> None:
        """A fresh u32 set of `slots` slots holding the entries of the table `source`."""
        registers = self.control
        self.u32_table = np.zeros(U32_SLOT_WORDS * slots, dtype=np.uint64)
        registers[Control.U32_CAPACITY] = slots // 2
        registers[Control.U32_MASK] = slots - 1
        registers[Control.U32_SHIFT] = _shift(slots)
        registers[Control.U32_LENGTH] = registers[Control.U32_ROWS] = 0  # recounted
        if source is not None and len(source):
            count = len(source) // U32_SLOT_WORDS
            self._call("u32_insert_table", self.control, self.u32_table, source, count)

    def _load_u32_entries(self, entries, first_slots: int) -> None:
        known = effects.U32Entries(entries, np.zeros((0, 2), dtype=np.uint64)).array()
        source = known.copy()
        source[:, 0] += np.uint64(1)  # the table's format: lhs + 1, so that 0 is empty
        slots = capacity(4 * len(known), 0, first_slots)
        self._set_u32_table(slots, source.reshape(-1))

    def u32_entries(self) -> effects.U32Entries:
        """The distinct u32 entries, as the interpreter's set of tuples, with their rows."""
        slots = self.u32_table.reshape(-1, U32_SLOT_WORDS)

        def rows() -> np.ndarray:  # only when someone reads the entries: tables need no rows
            found = slots[slots[:, 0] != 0]  # a copy
            found[:, 0] -= np.uint64(1)
            return found

        return effects.U32Entries(frozenset(), rows, int(self.control[Control.U32_ROWS]))

    # --- the permutation set -------------------------------------------------------------------

    def _set_permutation_buffers(self, log: np.ndarray) -> None:
        rows = len(log) // STATE_WORDS
        slots = 2 * rows
        registers = self.control
        self.permutation_log = log
        self.permutation_index = np.zeros(slots, dtype=np.uint64)
        registers[Control.PERMUTATION_CAPACITY] = rows
        registers[Control.PERMUTATION_MASK] = slots - 1
        registers[Control.PERMUTATION_SHIFT] = _shift(slots)
        self._call("permutation_reindex", self.control, log, self.permutation_index)

    def _load_permutations(self, inputs, first_rows: int) -> None:
        known = np.ascontiguousarray(effects.permutation_array(inputs))
        rows = capacity(2 * len(known), 0, first_rows)
        self.cascade = np.zeros(CASCADE_WORDS, dtype=np.uint64)
        self.control[Control.PERMUTATION_LENGTH] = 0
        self._set_permutation_buffers(np.zeros(rows * STATE_WORDS, dtype=np.uint64))
        if len(known):
            arguments = (self.permutation_log, self.permutation_index, self.cascade)
            count = len(known)
            self._call(
                "permutation_insert_rows", self.control, *arguments, known, count, self._scratch
            )

    def permutation_inputs(self) -> effects.PermutationInputs:
        """The distinct permutation inputs, as the interpreter's set of 16-tuples, with the
        cascade limbs they look up."""
        count = int(self.control[Control.PERMUTATION_LENGTH])
        rows = self.permutation_log[: count * STATE_WORDS].reshape(count, STATE_WORDS)
        return effects.PermutationInputs(frozenset(), rows, self.cascade)

    # --- growing buffers when a checkpoint asks (Status.SERVICE) ------------------------------

    def serve(self, ip: int) -> None:
        """Make room for everything the region of checkpoint `ip` may append."""
        self.reserve(self.blocks.guards[ip])

    def reserve(self, guard: Guard) -> None:
        """Make room for everything `guard` may append."""
        registers = self.control
        self.stack = _grown(self.stack, int(registers[Control.SP]) + guard.growth)
        jump_words = 2 * (int(registers[Control.JUMP_LENGTH]) + guard.calls)
        self.jump = _grown(self.jump, jump_words)
        output_words = int(registers[Control.OUTPUT_LENGTH]) + guard.outputs
        self.output = _grown(self.output, output_words)
        self._set_capacities()
        pages = int(registers[Control.RAM_PAGES]) + guard.ram_writes
        page_capacity = int(registers[Control.RAM_PAGE_CAPACITY])
        if pages > page_capacity:
            page_capacity = capacity(pages, _GROWTH * page_capacity, _FIRST_PAGES)
            self._set_ram_buffers(_extended(self.ram_pages, page_capacity * PAGE_STRIDE))
        entries = int(registers[Control.U32_LENGTH]) + guard.u32_entries
        if entries > int(registers[Control.U32_CAPACITY]):
            slots = len(self.u32_table) // U32_SLOT_WORDS
            slots = capacity(2 * entries, _GROWTH * slots, _FIRST_U32_SLOTS)
            self._set_u32_table(slots, self.u32_table)
        inputs = int(registers[Control.PERMUTATION_LENGTH]) + guard.permutations
        rows = int(registers[Control.PERMUTATION_CAPACITY])
        if inputs > rows:
            rows = capacity(inputs, _GROWTH * rows, _FIRST_PERMUTATIONS)
            self._set_permutation_buffers(_extended(self.permutation_log, rows * STATE_WORDS))

    # --- back to the interpreter's form ------------------------------------------------

    def visits(self) -> np.ndarray:
        """Executions per address (length L + 1): each address as often as its block."""
        counts = np.append(self.counts, 0)  # index -1: L and argument words
        return counts[self.blocks.block_of_address_array]

    # --- the interpreter on a native state ---------------------------------------------------

    def to_machine(self, machine: Machine) -> None:
        """Copy what the interpreter keeps in Python from this state into the attached
        machine, in place (its step functions hold its containers); the output compiled
        code wrote moves to the machine's output."""
        registers = self.control
        machine.stack[:] = self.stack[: registers[Control.SP]].tolist()
        jump = self.jump[: 2 * registers[Control.JUMP_LENGTH]].tolist()
        machine.jump_stack[:] = list(zip(jump[0::2], jump[1::2]))
        public = self.public[registers[Control.PUBLIC_POSITION] : registers[Control.PUBLIC_LENGTH]]
        _refill(machine.public_input, public.tolist())
        secret = self.secret[registers[Control.SECRET_POSITION] : registers[Control.SECRET_LENGTH]]
        _refill(machine.secret_input, secret.tolist())
        digests = self.digests[: DIGEST_WORDS * registers[Control.DIGEST_COUNT]]
        rows = digests.reshape(-1, DIGEST_WORDS)[registers[Control.DIGEST_POSITION] :]
        _refill(machine.secret_digests, map(tuple, rows.tolist()))
        machine.output.extend(self.output[: registers[Control.OUTPUT_LENGTH]].tolist())
        registers[Control.OUTPUT_LENGTH] = 0
        ready = bool(registers[Control.SPONGE_READY])
        machine.sponge = tuple(self.sponge.tolist()) if ready else None

    def from_machine(self, machine: Machine, budget: int) -> None:
        """Take back what the interpreter changed in the machine, with `budget` steps left."""
        registers = self.control
        stack = machine.stack
        self.stack = _grown(self.stack, len(stack))
        self.stack[: len(stack)] = stack
        registers[Control.SP] = len(stack)
        pairs = [word for pair in machine.jump_stack for word in pair]
        self.jump = _grown(self.jump, len(pairs))
        self.jump[: len(pairs)] = pairs
        registers[Control.JUMP_LENGTH] = len(machine.jump_stack)
        registers[Control.PUBLIC_POSITION] = registers[Control.PUBLIC_LENGTH] - len(
            machine.public_input
        )
        registers[Control.SECRET_POSITION] = registers[Control.SECRET_LENGTH] - len(
            machine.secret_input
        )
        registers[Control.DIGEST_POSITION] = registers[Control.DIGEST_COUNT] - len(
            machine.secret_digests
        )
        registers[Control.SPONGE_READY] = machine.sponge is not None
        if machine.sponge is not None:
            self.sponge[:] = machine.sponge
        registers[Control.BUDGET] = min(budget, _BUDGET_LIMIT)
        self._set_capacities()

    # --- single accesses, for the views ------------------------------------------------------

    def _page(self, page: int, create: bool) -> int:
        if create:
            self.reserve(Guard(ram_writes=1))
        arguments = (self.control, self.ram_pages, self.ram_index, self.ram_cache)
        return self._call("ram_page", *arguments, page, int(create))

    def ram_read(self, address: int, default: int) -> int:
        offset = self._page(address >> PAGE_BITS, create=False)
        within = address & (PAGE_WORDS - 1)
        if not int(self.ram_pages[offset + PAGE_MASK]) >> within & 1:
            return default
        return int(self.ram_pages[offset + PAGE_CELLS + within])

    def ram_write(self, address: int, value: int) -> None:
        offset = self._page(address >> PAGE_BITS, create=True)
        within = address & (PAGE_WORDS - 1)
        self.ram_pages[offset + PAGE_CELLS + within] = value
        self.ram_pages[offset + PAGE_MASK] |= np.uint64(1 << within)

    def record_u32(self, kind: str, lhs: int, rhs: int) -> None:
        self.reserve(Guard(u32_entries=1))
        code_rhs = U32_KINDS.index(kind) << 32 | rhs
        self._call("u32_record", self.control, self.u32_table, lhs, code_rhs)

    def record_permutation(self, words) -> None:
        self.reserve(Guard(permutations=1))
        source = np.array(words, dtype=np.uint64)
        arguments = (self.permutation_log, self.permutation_index, self.cascade)
        self._call("tip5_record", self.control, *arguments, source, self._scratch)


class _View:
    """A view of the native state of the current run (`attach`ed by vm.jit.runtime; the
    interpreter's step functions hold the view, so that it outlives a run)."""

    def __init__(self, state: NativeState | None):
        self._state = state

    def attach(self, state: NativeState | None) -> None:
        self._state = state


class NativeRam(_View):
    """A machine's RAM as a view of a native state's pages (`get` and `[]=`, what the
    interpreter's handlers use)."""

    def get(self, address: int, default: int = 0) -> int:
        return self._state.ram_read(address, default)

    def __setitem__(self, address: int, value: int) -> None:
        self._state.ram_write(address, value)


class NativeU32Entries(_View):
    """A machine's u32 entries as a view of a native state's set (`add`)."""

    def add(self, entry: tuple[str, int, int]) -> None:
        self._state.record_u32(*entry)


class NativePermutationInputs(_View):
    """A machine's permutation inputs as a view of a native state's set (`add`)."""

    def add(self, words: tuple[int, ...]) -> None:
        self._state.record_permutation(words)
