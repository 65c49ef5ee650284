"""Running compiled programs: a `Machine` in, the interpreter's `Run` out.

`run(compiled, machine, ...)` converts the interpreter's machine state into
native buffers (`NativeState`), calls the compiled function until it halts,
fails or hands off, grows buffers in between when a block asks for room, and
converts the result back.  Block counts become per-address visit counts; the
u32 and permutation logs are de-duplicated with numpy into the same sets the
interpreter records; RAM comes back as a dict.  So `vm.tables.heights` works
on the result unchanged.

Two exits reach back into the interpreter (`interpret`):

- FAILED: the state is as it was before the failing instruction; the
  interpreter's handler runs it again, which raises the same error kind (this
  is checked) with the interpreter's exact message.
- HANDOFF: a checkpoint's region could run out of steps or op stack; the
  interpreter runs it up to the next checkpoint, stopping exactly where the
  reference stops (TooShallow, StepLimitExceeded) if it does, and compiled
  code takes over again from there.
"""

from __future__ import annotations

import ctypes
from collections import deque
from dataclasses import dataclass
from functools import lru_cache
from itertools import repeat

import numpy as np

from vm import effects
from vm.handlers import Fault, Halt
from vm.interp import STEP_LIMIT_KIND, Machine, Run, VMError, step_functions
from vm.jit import compiler, memory
from vm.jit.blocks import BlockMap, split_blocks
from vm.jit.layout import (
    BUFFERS,
    DIGEST_WORDS,
    ERROR_KINDS,
    STATE_WORDS,
    U32_LOG_WORDS,
    Control,
    Status,
)
from vm.jit.support import support
from vm.tasm import Program

_FUNCTION_TYPE = ctypes.CFUNCTYPE(ctypes.c_int64, *[ctypes.c_void_p] * (len(BUFFERS) + 2))
_MINIMUM_CAPACITY = 1024
_BUDGET_LIMIT = 1 << 62  # steps per native call: an i64, and more than any run takes
_LOG_CAPACITY = 1 << 15  # u32 entries logged before the first de-duplication (512 KiB)


class JitInternalError(RuntimeError):
    """The compiled code and the interpreter disagree: a bug in the JIT, never a user error."""


@dataclass(frozen=True)
class CompiledProgram:
    program: Program
    blocks: BlockMap
    function: ctypes._CFuncPtr
    seconds: float  # time to compile or load it
    source: str  # "memory", "disk" or "compiled"


def program_key(program: Program) -> str:
    """The cache key of a program: its digest and ISA (the same words are one program)."""
    return _key(program.isa, program.digest, program.length)


@lru_cache(maxsize=4096)
def _key(isa: str, digest: tuple[int, ...], length: int) -> str:
    return compiler.key_for("program", isa, digest, length)


_compiled: dict[str, CompiledProgram] = {}


def compile_program(program: Program) -> CompiledProgram:
    """Compile `program`, or load it from the in-process or on-disk cache."""
    from vm.jit.codegen import generate

    key = program_key(program)
    if key in _compiled:
        cached = _compiled[key]
        return CompiledProgram(program, cached.blocks, cached.function, 0.0, "memory")
    blocks = split_blocks(program)
    symbol = f"tri_program_{key[:24]}"
    compiled = compiler.load(key, symbol, lambda: generate(program, symbol, blocks))
    function = _FUNCTION_TYPE(compiled.address)
    result = CompiledProgram(program, blocks, function, compiled.seconds, compiled.source)
    _compiled[key] = result
    return result


# --- native state ------------------------------------------------------------------------------


def _capacity(needed: int, current: int = 0) -> int:
    capacity = max(current, _MINIMUM_CAPACITY)
    while capacity < needed:
        capacity *= 2
    return capacity


def _words(values, minimum: int = 1) -> np.ndarray:
    """A uint64 array of `values`, at least `minimum` long so that it has an address."""
    array = np.zeros(max(minimum, len(values)), dtype=np.uint64)
    array[: len(values)] = values
    return array


class NativeState:
    """The registers (`control`) and buffers of one run, in the layout of vm.jit.layout."""

    def __init__(self, machine: Machine, blocks: BlockMap, budget: int):
        self.blocks = blocks
        self.control = np.zeros(len(Control), dtype=np.int64)
        registers = self.control
        stack = machine.stack
        self.stack = _words(stack, _capacity(2 * len(stack)))
        registers[Control.SP] = len(stack)
        pairs = [word for pair in machine.jump_stack for word in pair]
        self.jump = _words(pairs, 2 * _capacity(len(pairs)))
        registers[Control.JUMP_LENGTH] = len(machine.jump_stack)
        self.counts = np.zeros(max(1, len(blocks.blocks)), dtype=np.int64)
        self.public = _words(list(machine.public_input))
        registers[Control.PUBLIC_LENGTH] = len(machine.public_input)
        self.secret = _words(list(machine.secret_input))
        registers[Control.SECRET_LENGTH] = len(machine.secret_input)
        self.digests = _words([word for digest in machine.secret_digests for word in digest])
        registers[Control.DIGEST_COUNT] = len(machine.secret_digests)
        self.output = _words([], _MINIMUM_CAPACITY)
        self.u32_log = _words([], U32_LOG_WORDS * _LOG_CAPACITY)
        self.permutation_log = _words([], STATE_WORDS * _LOG_CAPACITY // 16)
        self.sponge = _words(machine.sponge or (), STATE_WORDS)
        registers[Control.SPONGE_READY] = machine.sponge is not None
        registers[Control.BUDGET] = min(budget, _BUDGET_LIMIT)  # more is handed off, not lost
        self.ram = np.empty(0, dtype=np.uint64)
        self._resize_ram(_capacity(memory.MAXIMUM_LOAD * (len(machine.ram) + 64)), machine.ram)
        self._set_capacities()

    def _set_capacities(self) -> None:
        registers = self.control
        registers[Control.STACK_CAPACITY] = len(self.stack)
        registers[Control.JUMP_CAPACITY] = len(self.jump) // 2
        registers[Control.OUTPUT_CAPACITY] = len(self.output)
        registers[Control.U32_CAPACITY] = len(self.u32_log) // U32_LOG_WORDS
        registers[Control.PERMUTATION_CAPACITY] = len(self.permutation_log) // STATE_WORDS

    def arguments(self) -> list[int]:
        buffers = [_address(getattr(self, name)) for name in BUFFERS]
        return [_address(self.control), *buffers, _address(support().table)]

    # --- growing buffers when a block asks (Status.SERVICE) ----------------------------

    def _resize_ram(self, capacity: int, cells) -> None:
        pairs = np.array(list(cells.items()) if isinstance(cells, dict) else cells, np.uint64)
        table = np.full(2 * capacity, memory.EMPTY, dtype=np.uint64)
        shift = 64 - (capacity.bit_length() - 1)
        count = len(pairs)
        if count:
            pairs = np.ascontiguousarray(pairs.reshape(-1, 2))
            support().insert_many(pairs.ctypes.data, count, table.ctypes.data, capacity - 1, shift)
        self.ram = table
        self.control[Control.RAM_COUNT] = count
        self.control[Control.RAM_MASK] = capacity - 1
        self.control[Control.RAM_SHIFT] = shift
        self.control[Control.RAM_LIMIT] = capacity // memory.MAXIMUM_LOAD

    def ram_cells(self) -> np.ndarray:
        pairs = self.ram.reshape(-1, 2)
        return pairs[pairs[:, 0] != memory.EMPTY]

    def serve(self, ip: int) -> None:
        """Make room for everything the region of checkpoint `ip` may append."""
        guard = self.blocks.guards[ip]
        registers = self.control
        self.stack = _grown(self.stack, int(registers[Control.SP]) + guard.growth)
        jump_words = 2 * (int(registers[Control.JUMP_LENGTH]) + guard.calls)
        self.jump = _grown(self.jump, jump_words)
        output_words = int(registers[Control.OUTPUT_LENGTH]) + guard.outputs
        self.output = _grown(self.output, output_words)
        self.u32_log = self._compacted("u32_log", Control.U32_LENGTH, U32_LOG_WORDS, guard)
        self.permutation_log = self._compacted(
            "permutation_log", Control.PERMUTATION_LENGTH, STATE_WORDS, guard
        )
        limit = int(registers[Control.RAM_LIMIT])
        if int(registers[Control.RAM_COUNT]) + guard.ram_accesses > limit:
            needed = memory.MAXIMUM_LOAD * (int(registers[Control.RAM_COUNT]) + guard.ram_accesses)
            self._resize_ram(_capacity(needed, 2 * (limit * memory.MAXIMUM_LOAD)), self.ram_cells())
        self._set_capacities()

    def _compacted(self, name: str, length: Control, width: int, guard) -> np.ndarray:
        """De-duplicate a full log; double it if it is still more than half full."""
        log = getattr(self, name)
        count = int(self.control[length])
        extra = guard.u32_entries if name == "u32_log" else guard.permutations
        capacity = len(log) // width
        if count + extra <= capacity:
            return log
        rows = _unique_rows(log, count, width)
        self.control[length] = len(rows)
        if 2 * (len(rows) + extra) > capacity:
            capacity = _capacity(2 * (len(rows) + extra), 2 * capacity)
        compacted = np.zeros(width * capacity, dtype=np.uint64)
        compacted[: rows.size] = rows.reshape(-1)
        return compacted

    # --- back to the interpreter's form ------------------------------------------------

    def u32_entries(self, known=frozenset()) -> effects.U32Entries:
        """The logged u32 entries and the `known` ones, as the interpreter's set of tuples."""
        rows = _unique_rows(self.u32_log, int(self.control[Control.U32_LENGTH]), U32_LOG_WORDS)
        return effects.U32Entries(known, rows)

    def permutation_inputs(self, known=frozenset()) -> effects.PermutationInputs:
        """The logged permutation inputs and the `known` ones, as a set of 16-tuples."""
        count = int(self.control[Control.PERMUTATION_LENGTH])
        rows = _unique_rows(self.permutation_log, count, STATE_WORDS)
        return effects.PermutationInputs(known, rows)

    def visits(self) -> np.ndarray:
        """Executions per address (length L + 1): each address as often as its block."""
        block_of = np.array(self.blocks.block_of_address, dtype=np.int64)
        counts = np.append(self.counts, 0)  # index -1: L and argument words
        return counts[block_of]

    def update(self, machine: Machine, effects_too: bool = True) -> None:
        """Write the native state back into `machine`, in place (output is appended):
        the interpreter's step functions hold on to its containers.  Without
        `effects_too` the logged u32 entries and permutation inputs stay in the logs
        (for a run that ends here: `u32_entries` and `permutation_inputs` hand them over)."""
        registers = self.control
        machine.stack[:] = self.stack[: registers[Control.SP]].tolist()
        jump = self.jump[: 2 * registers[Control.JUMP_LENGTH]].tolist()
        machine.jump_stack[:] = list(zip(jump[0::2], jump[1::2]))
        cells = self.ram_cells()
        machine.ram.clear()
        machine.ram.update(zip(cells[:, 0].tolist(), cells[:, 1].tolist()))
        public = self.public[registers[Control.PUBLIC_POSITION] : registers[Control.PUBLIC_LENGTH]]
        _refill(machine.public_input, public.tolist())
        secret = self.secret[registers[Control.SECRET_POSITION] : registers[Control.SECRET_LENGTH]]
        _refill(machine.secret_input, secret.tolist())
        digests = self.digests[: DIGEST_WORDS * registers[Control.DIGEST_COUNT]]
        rows = digests.reshape(-1, DIGEST_WORDS)[registers[Control.DIGEST_POSITION] :]
        _refill(machine.secret_digests, map(tuple, rows.tolist()))
        machine.output.extend(self.output[: registers[Control.OUTPUT_LENGTH]].tolist())
        ready = bool(registers[Control.SPONGE_READY])
        machine.sponge = tuple(self.sponge.tolist()) if ready else None
        if effects_too:
            machine.u32_entries.update(self.u32_entries())
            machine.permutation_inputs.update(self.permutation_inputs())


def _refill(queue: deque, items) -> None:
    queue.clear()
    queue.extend(items)


def _address(array: np.ndarray) -> int:
    return array.ctypes.data


def _grown(array: np.ndarray, needed: int) -> np.ndarray:
    if needed <= len(array):
        return array
    grown = np.zeros(_capacity(needed, 2 * len(array)), dtype=array.dtype)
    grown[: len(array)] = array
    return grown


def _unique_rows(log: np.ndarray, count: int, width: int) -> np.ndarray:
    """The distinct rows of the first `count` rows of a log."""
    return effects.unique_rows(log[: count * width].reshape(count, width))


# --- the interpreter, for the ends of runs -------------------------------------------------------


@dataclass
class Stop:
    """Where `interpret` stopped: at `ip`, finished (halt or error) or paused."""

    ip: int
    finished: bool
    error: VMError | None = None


def interpret(machine, steps, ip, visits, steps_allowed, max_steps, final, until=frozenset()):
    """Run the interpreter's step functions from `ip`, counting into `visits`.

    It stops after `halt` or an error, when a step lands on an address in
    `until`, or after `steps_allowed` steps: with StepLimitExceeded if `final`,
    else paused.  The error record is built as `vm.interp.run_machine` builds it.
    """
    program = machine.program
    try:
        for _ in repeat(None, steps_allowed):
            following = steps[ip]()
            visits[ip] += 1
            ip = following
            if ip in until:
                return Stop(ip, False)
        if not final:
            return Stop(ip, False)
        raise Fault(STEP_LIMIT_KIND, f"the run did not halt within {max_steps} steps (--max-steps)")
    except Halt:
        visits[ip] += 1
        return Stop(ip, True)
    except Fault as fault:
        index = program.op_index.get(ip)
        text = program.ops[index].text if index is not None else "<end of program>"
        return Stop(ip, True, VMError(fault.kind, ip, text, sum(visits), fault.message))


# --- the run -------------------------------------------------------------------------------------


def _call(compiled: CompiledProgram, state: NativeState, ip: int) -> tuple[Status, int]:
    """Run compiled code from checkpoint `ip` until it halts, fails or hands off."""
    state.control[Control.IP] = ip
    while True:
        status = Status(compiled.function(*state.arguments()))
        ip = int(state.control[Control.IP])
        if status != Status.SERVICE:
            return status, ip
        state.serve(ip)


def _native_visits(compiled: CompiledProgram, state: NativeState, status, ip) -> list[int]:
    native = state.visits()
    if status == Status.FAILED and 0 <= ip < compiled.program.length:
        block = compiled.blocks.blocks[compiled.blocks.block_of_address[ip]]
        for address in block.addresses[block.addresses.index(ip) :]:
            native[address] -= 1  # the block was counted; from `ip` on it did not run
    return native.tolist()


def run(compiled: CompiledProgram, machine: Machine, ip: int, visits: list[int], max_steps: int):
    """Continue the run of `machine` from checkpoint `ip` natively; `visits` so far."""
    steps = None  # the interpreter's step functions, made when first needed
    checkpoints = compiled.blocks.checkpoints
    while True:
        state = NativeState(machine, compiled.blocks, max_steps - sum(visits))
        status, ip = _call(compiled, state, ip)
        visits = [
            old + new for old, new in zip(visits, _native_visits(compiled, state, status, ip))
        ]
        if status == Status.HALTED:  # the effects stay arrays: see vm.effects
            state.update(machine, effects_too=False)
            return _record(compiled, machine, visits, state)
        state.update(machine)
        left = max_steps - sum(visits)
        steps = steps or step_functions(machine)
        if status == Status.FAILED:
            stop = interpret(machine, steps, ip, visits, left, max_steps, True)
            _check_failure(state, ip, stop)
        else:  # HANDOFF: interpret up to the next checkpoint, then go native again
            stop = interpret(machine, steps, ip, visits, left, max_steps, True, checkpoints)
        if stop.finished:
            error = stop.error
            break
        ip = stop.ip
    return _record(compiled, machine, visits, None, error)


def _record(compiled, machine, visits, state: NativeState | None, error=None) -> Run:
    """The run's record; with `state`, its logged effects join the machine's."""
    u32_entries, permutation_inputs = machine.u32_entries, machine.permutation_inputs
    if state is not None:
        u32_entries = state.u32_entries(u32_entries)
        permutation_inputs = state.permutation_inputs(permutation_inputs)
    return Run(
        program=compiled.program,
        output=machine.output,
        cycles=sum(visits),
        stack=machine.stack,
        ram=machine.ram,
        visits=visits,
        u32_entries=u32_entries,
        permutation_inputs=permutation_inputs,
        error=error,
    )


def _check_failure(state: NativeState, ip: int, stop: Stop) -> None:
    kind = ERROR_KINDS[state.control[Control.DETAIL]]
    error = stop.error
    if error is None or error.kind != kind or error.ip != ip:
        found = "no error" if error is None else f"{error.kind} at ip {error.ip}"
        raise JitInternalError(f"the JIT stopped with {kind} at ip {ip}; the interpreter: {found}")
