"""Running a TASM program as WebAssembly: `execute_wasm(program, inputs...) -> WasmRun`.

The program is translated (`vm.wasm.translate`) and compiled by wasmtime once per program
in this process.  Each run gets a fresh store: the initial op stack (the interpreter's,
`vm.interp.initial_machine`) and the input words are written into the module's memories,
RAM and the output are Python containers behind host functions, and the exported `run`
counts every executed instruction against `max_steps` itself.  Wasmtime's fuel is only a
safety bound: running out of it is an internal error, never a result.

The `WasmRun` has the fields of `vm.interp.Run` that the module can know: output, cycles,
final stack and RAM, visits per address, and the `VMError` (same kind, ip, instruction
text, cycle and jump stack as the interpreter's; its message is the interpreter's too: the
module stops before the failing instruction, and the interpreter's handler, run once on
that state, says what failed).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache

import numpy

from vm.handlers import Fault
from vm.interp import (
    DEFAULT_MAX_STEPS,
    STEP_LIMIT_KIND,
    Machine,
    VMError,
    initial_machine,
    step_functions,
    step_limit_message,
)
from vm.isa import Failure
from vm.ram import RamImage
from vm.tasm import Program
from vm.wasm.tip5 import SPONGE_STATE
from vm.wasm.translate import STATUS_KINDS, translate

FUEL_PER_STEP = 1_000_000  # far above what one instruction costs (a Tip5 permutation: ~210,000)
FUEL_FLOOR = 1_000_000
FUEL_CEILING = (1 << 63) - 1
STEP_CEILING = 1 << 62  # the module's step counter is an i64
WORD = 8
PAGE = 1 << 16
U64 = (1 << 64) - 1


@dataclass
class WasmRun:
    """What a WebAssembly run produced; the fields mean what `vm.interp.Run`'s do."""

    program: Program
    output: list[int]
    cycles: int
    stack: list[int]
    ram: dict[int, int]
    visits: list[int]
    error: VMError | None
    fuel: int = 0  # the wasmtime fuel the run consumed

    @property
    def halted(self) -> bool:
        return self.error is None


@cache
def _engine():
    import wasmtime

    config = wasmtime.Config()
    config.consume_fuel = True
    config.wasm_multi_memory = True
    return wasmtime.Engine(config)


_MODULES: dict[Program, object] = {}
_CACHE_LIMIT = 256


def compile_module(program: Program):
    """The compiled wasmtime module of `program`, made once per program in this process."""
    import wasmtime

    module = _MODULES.get(program)
    if module is None:
        if len(_MODULES) >= _CACHE_LIMIT:
            _MODULES.clear()
        module = _MODULES[program] = wasmtime.Module(_engine(), translate(program))
    return module


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _write_words(store, memory, start: int, words: list[int]) -> None:
    end = start + WORD * len(words)
    if end > memory.data_len(store):
        memory.grow(store, (end - memory.data_len(store) + PAGE - 1) // PAGE)
    if words:
        memory.write(store, numpy.array(words, dtype=numpy.uint64).tobytes(), start)


def _read_words(store, memory, start: int, count: int) -> list[int]:
    if not count:
        return []
    data = memory.read(store, start, start + WORD * count)
    return numpy.frombuffer(bytes(data), dtype=numpy.uint64).tolist()


STREAMS_READ = ("public_read", "secret_read", "digests_read")
SPONGE_WORDS = 16
MASK32 = (1 << 32) - 1


def interpreter_message(machine: Machine, ip: int, kind: str) -> str:
    """The interpreter's message for a failure at `ip`: its handler run on the state the
    module stopped in, which is the state before the failing instruction (as the JIT's
    failures are explained), except after a `skiz` with nothing to skip, which has popped
    its condition, a 0, as the interpreter's does.  Where the handler does not fail the
    same way (which tests/vm/test_wasm.py would show), the kind's name stands for the message."""
    program = machine.program
    index = program.op_index.get(ip)
    skipping = kind == Failure.INSTRUCTION_POINTER_OVERFLOW and index is not None
    if skipping and program.ops[index].instruction.name == "skiz":
        machine.stack.append(0)
    try:
        step_functions(machine)[ip]()
    except Fault as fault:
        if fault.kind == kind:
            return fault.message
    return f"{kind} (reported by the wasm target)"


def execute_wasm(
    program: Program,
    public_input: Iterable[int] = (),
    secret_input: Iterable[int] = (),
    secret_digests: Iterable[Iterable[int]] = (),
    ram: Mapping[int, int] | RamImage | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
) -> WasmRun:
    """Run `program` compiled to WebAssembly; see `vm.interp.execute`.  Raises
    `vm.wasm.translate.WasmUnsupported` for a program outside this target's slice."""
    import wasmtime

    module = compile_module(program)
    machine = initial_machine(program, public_input, secret_input, secret_digests, ram)
    memory_cells, output = machine.ram, []

    def ram_read(address: int) -> int:
        return _signed(memory_cells.get(address & U64, 0))

    def ram_write(address: int, value: int) -> None:
        memory_cells[address & U64] = value & U64

    def write(value: int) -> None:
        output.append(value & U64)

    store = wasmtime.Store(_engine())
    max_steps = min(max_steps, STEP_CEILING)
    fuel = min(max(FUEL_FLOOR, FUEL_PER_STEP * max_steps), FUEL_CEILING)
    store.set_fuel(fuel)
    i64 = wasmtime.ValType.i64()
    host = [
        wasmtime.Func(store, wasmtime.FuncType([i64], []), write),
        wasmtime.Func(store, wasmtime.FuncType([i64], [i64]), ram_read),
        wasmtime.Func(store, wasmtime.FuncType([i64, i64], []), ram_write),
    ]
    instance = wasmtime.Instance(store, module, host)
    exports = instance.exports(store)
    stack_memory, jump_memory, data = exports["stack"], exports["jumps"], exports["data"]

    _write_words(store, stack_memory, 0, machine.stack)
    public, secret = list(machine.public_input), list(machine.secret_input)
    digests = [word for digest in machine.secret_digests for word in digest]
    visits_bytes = WORD * (program.length + 1)
    _write_words(store, data, 0, [0] * (program.length + 1) + public + secret + digests)
    public_base, secret_base = visits_bytes, visits_bytes + WORD * len(public)
    digests_base = secret_base + WORD * len(secret)
    arguments = (
        max_steps,
        WORD * len(machine.stack),
        public_base,
        len(public),
        secret_base,
        len(secret),
        digests_base,
        len(machine.secret_digests),
    )
    try:
        exports["run"](store, *arguments)
    except (wasmtime.Trap, wasmtime.WasmtimeError) as trap:  # out of fuel or memory: our bug
        raise RuntimeError(f"the wasm run trapped (an internal error): {trap}") from trap

    status, ip = exports["status"].value(store), exports["ip"].value(store)
    cycles = exports["cycles"].value(store)
    stack = _read_words(store, stack_memory, 0, exports["sp"].value(store) // WORD)
    jumps = _read_words(store, jump_memory, 0, exports["jsp"].value(store) // WORD)
    visits = _read_words(store, data, 0, program.length + 1)
    error = None
    if status:
        index = program.op_index.get(ip)
        text = program.ops[index].text if index is not None else "<end of program>"
        kind = STATUS_KINDS[status - 1]
        calls = tuple(entry >> 32 for entry in jumps)
        if kind == STEP_LIMIT_KIND:
            message = step_limit_message(max_steps)
        else:
            read = {name: exports[name].value(store) for name in STREAMS_READ}
            sponge = None
            if exports["sponge_ready"].value(store):
                sponge = tuple(_read_words(store, exports["hash"], SPONGE_STATE, SPONGE_WORDS))
            failed = Machine(
                program,
                stack,
                dict(memory_cells),
                deque(public[read["public_read"] :]),
                deque(secret[read["secret_read"] :]),
                deque(list(machine.secret_digests)[read["digests_read"] :]),
                jump_stack=[(entry >> 32, entry & MASK32) for entry in jumps],
                sponge=sponge,
            )
            message = interpreter_message(failed, ip, kind)
        error = VMError(kind, ip, text, cycles, message, calls)
    consumed = fuel - store.get_fuel()
    return WasmRun(program, output, cycles, stack, memory_cells, visits, error, consumed)
