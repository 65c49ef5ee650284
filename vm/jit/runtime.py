"""Running compiled programs: a `Machine` in, the interpreter's `Run` out.

`run(compiled, machine, ...)` converts the interpreter's machine state into
native buffers (vm.jit.state), calls the compiled function until it halts,
fails or hands off, grows buffers in between when a block asks for room, and
converts the result back.  Block counts become per-address visit counts; the
u32 entries, permutation inputs and RAM, kept natively, come back as the
sets and mapping of vm.effects, equal to what the interpreter records and
already counted for the tables.  So `vm.tables.heights` works on the result
unchanged.

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
from dataclasses import dataclass
from functools import lru_cache, partial

import numpy as np

from vm.handlers import Fault, Halt
from vm.interp import (
    STEP_LIMIT_KIND,
    Machine,
    Run,
    VMError,
    initial_machine,
    step_functions,
    step_limit_message,
)
from vm.jit import compiler
from vm.jit.blocks import BlockMap, split_blocks
from vm.jit.layout import BUFFERS, ERROR_KINDS, Control, Status
from vm.jit.state import (
    Capacities,
    NativePermutationInputs,
    NativeRam,
    NativeState,
    NativeU32Entries,
)
from vm.jit.units import DEFAULT_LIMIT
from vm.tasm import Program

_FUNCTION_TYPE = ctypes.CFUNCTYPE(ctypes.c_int64, *[ctypes.c_void_p] * (len(BUFFERS) + 2))


class JitInternalError(RuntimeError):
    """The compiled code and the interpreter disagree: a bug in the JIT, never a user error."""


@dataclass(frozen=True)
class Options:
    """How a program is compiled.  `tiered`: only regions that may run more than once
    (vm.jit.blocks: `hot_checkpoints`); the interpreter runs the rest.  Without it every
    region is compiled (the tests use that to exercise the code generator everywhere).
    `unit_limit`: instructions per native function (vm.jit.units).  `checkpoints`: exactly
    these regions, sorted (the tiered engine compiles one function at a time, vm.jit.tiers)."""

    tiered: bool = True
    unit_limit: int = DEFAULT_LIMIT
    checkpoints: tuple[int, ...] | None = None


@dataclass(frozen=True)
class CompiledProgram:
    program: Program
    blocks: BlockMap
    function: ctypes._CFuncPtr
    entries: frozenset[int]  # the checkpoints whose regions are compiled
    seconds: float  # time to compile or load it
    source: str  # "memory", "disk" or "compiled"

    # A compiled program is its own dispatch table (`run`): every entry is its own, and
    # nothing is watched beyond them (vm.jit.tiers has several programs and watches more).
    @property
    def watch(self) -> frozenset[int]:
        return self.entries

    def module(self, ip: int) -> CompiledProgram:
        return self

    def arrive(self, ip: int) -> None:
        """Control reached checkpoint `ip` outside compiled code (a tiered run counts it)."""


def program_key(program: Program, options: Options = Options()) -> str:
    """The cache key of a program: its digest and ISA (the same words are one program),
    and the options it is compiled with."""
    return _key(program.isa, program.digest, program.length, options)


@lru_cache(maxsize=4096)
def _key(isa: str, digest: tuple[int, ...], length: int, options: Options) -> str:
    return compiler.key_for("program", isa, digest, length, options)


_compiled: dict[str, CompiledProgram] = {}


def compile_program(program: Program, options: Options = Options()) -> CompiledProgram:
    """Compile `program`, or load it from the in-process or on-disk cache."""
    from vm.jit.codegen import generate

    key = program_key(program, options)
    if key in _compiled:
        cached = _compiled[key]
        return CompiledProgram(
            program, cached.blocks, cached.function, cached.entries, 0.0, "memory"
        )
    blocks = split_blocks(program)
    if options.checkpoints is not None:
        entries = frozenset(options.checkpoints)
    else:
        entries = blocks.hot_checkpoints if options.tiered else blocks.checkpoints
    symbol = f"tri_program_{key[:24]}"
    build = partial(generate, program, symbol, blocks, entries, options.unit_limit)
    compiled = compiler.load(key, symbol, build)
    function = _FUNCTION_TYPE(compiled.address)
    result = CompiledProgram(program, blocks, function, entries, compiled.seconds, compiled.source)
    _compiled[key] = result
    return result


# --- the interpreter, for the ends of runs -------------------------------------------------------


@dataclass
class Stop:
    """Where `interpret` stopped: at `ip`, finished (halt or error) or paused."""

    ip: int
    finished: bool
    error: VMError | None = None
    steps: int = 0  # cycles interpreted in this call


def interpret(
    machine, steps, ip, visits, steps_allowed, max_steps, final, until=frozenset(), cycles_before=0
):
    """Run the interpreter's step functions from `ip`, counting into `visits`.

    It stops after `halt` or an error, when a step lands on an address in
    `until`, or after `steps_allowed` steps: with StepLimitExceeded if `final`,
    else paused.  The error record is built as `vm.interp.run_machine` builds it;
    `cycles_before` are cycles of the run that `visits` does not hold.
    """
    taken = 0
    try:
        for taken in range(1, steps_allowed + 1):
            following = steps[ip]()
            visits[ip] += 1
            ip = following
            if ip in until:
                return Stop(ip, False, steps=taken)
    except Halt:
        visits[ip] += 1
        return Stop(ip, True, steps=taken)
    except Fault as fault:  # the failing instruction did not complete
        taken -= 1
        error = _error(machine, ip, fault.kind, fault.message, cycles_before + sum(visits))
        return Stop(ip, True, error, steps=taken)
    if not final:
        return Stop(ip, False, steps=taken)
    message = step_limit_message(max_steps)
    error = _error(machine, ip, STEP_LIMIT_KIND, message, cycles_before + sum(visits))
    return Stop(ip, True, error, steps=taken)


def _error(machine, ip: int, kind: str, message: str, cycle: int) -> VMError:
    """The error record, built as `vm.interp.run_machine` builds it."""
    program = machine.program
    index = program.op_index.get(ip)
    text = program.ops[index].text if index is not None else "<end of program>"
    calls = tuple(after for after, _ in machine.jump_stack)
    return VMError(kind, ip, text, cycle, message, calls)


# --- the run -------------------------------------------------------------------------------------


def _call(compiled: CompiledProgram, state: NativeState, ip: int) -> tuple[Status, int]:
    """Run compiled code from `ip` until it halts, fails or hands off; returns the status and
    the address it stopped at."""
    state.control[Control.IP] = ip
    while True:
        status = Status(compiled.function(*state.arguments()))
        ip = int(state.control[Control.IP])
        if status != Status.SERVICE:
            return status, ip
        state.serve(ip)


def _unexecuted_tail(compiled: CompiledProgram, ip: int) -> list[int]:
    """The addresses of the block of a failing instruction at `ip`, from `ip` on: native
    code counted the block, but they did not run."""
    if not 0 <= ip < compiled.program.length:
        return []
    block = compiled.blocks.blocks[compiled.blocks.block_of_address[ip]]
    return list(block.addresses[block.addresses.index(ip) :])


class _Shell:
    """The interpreter's side of the native runs of one program: a machine whose RAM and
    records are views of the current run's native state (vm.jit.state) and whose other
    containers are refilled in place from it, and its step functions, made once per
    program (each the first time its address runs) instead of once per run; and the sizes
    the last run's native structures grew to, for the next run to start with."""

    def __init__(self, program: Program):
        self.machine = initial_machine(program)
        self.views = (NativeRam(None), NativeU32Entries(None), NativePermutationInputs(None))
        machine = self.machine
        machine.ram, machine.u32_entries, machine.permutation_inputs = self.views
        self.steps = step_functions(machine)  # bound to the views
        self.busy = False
        self.capacities = Capacities()  # what the last run's structures grew to

    def attach(self, state: NativeState | None, output: list[int]) -> None:
        for view in self.views:
            view.attach(state)
        self.machine.output[:] = output


_shells: dict[str, _Shell] = {}


def _shell(program: Program) -> _Shell:
    """The program's shell, or a new one if it is in use (a run in another thread)."""
    key = program_key(program)
    shell = _shells.get(key)
    if shell is None or shell.busy or shell.machine.program is not program:
        shell = _Shell(program)
        _shells[key] = shell
    return shell


def run(dispatch, machine: Machine, ip: int, visits: list[int], max_steps: int):
    """Continue the run of `machine` from `ip` natively; `visits` so far (interpreted).

    `dispatch` is a `CompiledProgram`, or several compiled parts of one program
    (vm.jit.tiers.Tiers): `entries`, the checkpoints compiled code runs from; `module(ip)`,
    the compiled program that holds checkpoint `ip`; `watch`, the checkpoints where the
    interpreter stops to call `arrive(ip)` (which may compile more) and to look again.

    One native state serves the whole run, made from `machine`: while the interpreter runs
    a region that is not compiled (up to the first compiled checkpoint, a hand-off) or a
    failing instruction, it runs on the program's shell (`_Shell`), whose RAM and records
    are views of the native ones, and only the stacks, streams, output and sponge move
    between the two.  Cycles run natively are counted per block in the state and added to
    `visits` at the end.
    """
    shell = _shell(dispatch.program)
    state = NativeState(machine, dispatch.blocks, max_steps - sum(visits), shell.capacities)
    shell.busy = True
    try:
        shell.attach(state, machine.output)
        record = _run(dispatch, state, shell, ip, visits, max_steps)
        shell.capacities = state.capacities()
    finally:
        shell.attach(None, [])
        shell.busy = False
    return record


def _run(dispatch, state: NativeState, shell: _Shell, ip: int, visits, max_steps: int) -> Run:
    machine, steps = shell.machine, shell.steps
    native = 0  # cycles counted in the state's blocks
    interpreted = sum(visits)  # cycles counted in `visits`
    error = None
    status = Status.HANDOFF if ip not in dispatch.entries else None
    while True:
        if status is None:
            module = dispatch.module(ip)
            budget = int(state.control[Control.BUDGET])
            status, ip = _call(module, state, ip)
            native += budget - int(state.control[Control.BUDGET])
            if status == Status.HANDOFF and ip not in module.entries:
                dispatch.arrive(ip)  # left for code this module does not hold
                if ip in dispatch.entries:
                    status = None  # another module holds it: no need to leave native state
                    continue
        state.to_machine(machine)
        if status == Status.HALTED:
            break
        if status == Status.FAILED:  # its block was counted whole
            tail = _unexecuted_tail(module, ip)
            for address in tail:
                visits[address] -= 1
            interpreted -= len(tail)
            stop = interpret(machine, steps, ip, visits, 1, max_steps, True, (), native)
            _check_failure(state, ip, stop)
            error = stop.error
            break
        while True:  # interpret up to a compiled checkpoint (counting arrivals on the way)
            left = max_steps - native - interpreted
            watch = dispatch.watch
            stop = interpret(machine, steps, ip, visits, left, max_steps, True, watch, native)
            interpreted += stop.steps
            ip = stop.ip
            if stop.finished or ip in dispatch.entries:
                break
            dispatch.arrive(ip)
            if ip in dispatch.entries:
                break
        if stop.finished:
            error = stop.error
            break
        state.from_machine(machine, max_steps - native - interpreted)
        status = None
    counted = state.visits()
    counted += np.fromiter(visits, dtype=np.int64, count=len(visits))  # the interpreted steps
    visits = counted.tolist()
    return _record(dispatch, machine, visits, state, error)


def _record(compiled, machine, visits, state: NativeState, error=None) -> Run:
    """The run's record: RAM and the records from the native state (the shell's views
    wrote there), copies of the rest from the shell's machine."""
    return Run(
        program=compiled.program,
        output=list(machine.output),
        cycles=sum(visits),
        stack=list(machine.stack),
        ram=state.ram(),
        visits=visits,
        u32_entries=state.u32_entries(),
        permutation_inputs=state.permutation_inputs(),
        error=error,
    )


def _check_failure(state: NativeState, ip: int, stop: Stop) -> None:
    kind = ERROR_KINDS[state.control[Control.DETAIL]]
    error = stop.error
    if error is None or error.kind != kind or error.ip != ip:
        found = "no error" if error is None else f"{error.kind} at ip {error.ip}"
        raise JitInternalError(f"the JIT stopped with {kind} at ip {ip}; the interpreter: {found}")
