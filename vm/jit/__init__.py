"""The JIT: TASM programs compiled to native code with llvmlite, exact as the interpreter.

Input: an assembled `Program` and its inputs; output: the same `vm.interp.Run`
the interpreter returns -- output, cycles, final stack and RAM, visit counts,
u32 entries, permutation inputs and error -- so `vm.tables.heights` gives the
same nine heights.  Stages: `blocks` (basic blocks, checkpoints and their
guards) -> `codegen` + `instructions` (LLVM IR; `arith`, `memory`, `tip5_ir`
emit field arithmetic, the RAM hash table and Tip5) -> `compiler` (LLVM, the
in-process and on-disk caches) -> `runtime` (native buffers, the call loop,
the `Run`).

Engines: `interp`, `jit` and `auto` (`tri run --engine`).  `auto` is the
ski-rental rule: interpret until the run has lasted about as long as getting
native code would take, then switch.  It interprets `FIRST_LOOK_CYCLES`
without touching LLVM (most runs end there), then estimates the cost of native
code -- importing llvmlite, compiling or loading the shared Tip5 code, and
compiling or loading this program, each cheap when cached -- and interprets
until `INTERPRETER_SPEED` times that estimate.  A run still going then moves
to compiled code at the next checkpoint (vm.jit.blocks), keeping everything
counted so far: no work is repeated, and no run takes much more than twice as
long as the better engine would have.  Without llvmlite, `auto` is the
interpreter and `jit` raises `JitUnavailable`.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterable, Mapping
from functools import cache

from vm import interp
from vm.interp import DEFAULT_MAX_STEPS, Machine, Run
from vm.ram import RamImage, RamOverlay
from vm.tasm import Program

FIRST_LOOK_CYCLES = 1 << 16  # interpreted before the JIT is even considered (~15 ms)
INTERPRETER_SPEED = 4_000_000  # cycles per second, to turn compile seconds into cycles
IMPORT_SECONDS = 0.1  # importing llvmlite and setting up LLVM
SUPPORT_SECONDS = 1.5  # compiling the shared Tip5 code (once per machine: it is cached)
LOAD_SECONDS = 0.005  # loading cached object code
COMPILE_SECONDS = (0.03, 0.0004)  # compiling a program: fixed + per word


class JitUnavailable(RuntimeError):
    """The JIT was asked for, but llvmlite cannot be imported."""


@cache
def available() -> bool:
    """Whether llvmlite is installed (checked without importing it)."""
    return importlib.util.find_spec("llvmlite") is not None


def _require() -> None:
    if not available():
        raise JitUnavailable(
            "the JIT needs llvmlite, which is not installed (pip install llvmlite)"
        )


def compile_program(program: Program):
    """Compile `program` (or load it from a cache): a `vm.jit.runtime.CompiledProgram`."""
    _require()
    from vm.jit import runtime

    return runtime.compile_program(program)


def is_cached(program: Program) -> bool:
    """Whether the program's native code is in this process or in the disk cache."""
    if not available():
        return False
    from vm.jit import compiler, runtime

    return compiler.is_cached(runtime.program_key(program))


def native_code_seconds(program: Program) -> float:
    """About how long it takes to get native code for `program` in this process."""
    from vm.jit import compiler, runtime

    seconds = 0.0 if "llvmlite.binding" in sys.modules else IMPORT_SECONDS
    if not compiler.is_cached(compiler.key_for("support")):
        seconds += SUPPORT_SECONDS
    if compiler.is_cached(runtime.program_key(program)):
        return seconds + LOAD_SECONDS
    fixed, per_word = COMPILE_SECONDS
    return seconds + fixed + per_word * program.length


class _Run:
    """A run in progress: the machine, the visits so far, and where it stands."""

    def __init__(self, program: Program, inputs: tuple, max_steps: int, native_ram: bool):
        """`native_ram`: the run is to move to native code at once, so its initial RAM is
        kept as an image (`vm.ram.RamOverlay`) that goes to native pages in bulk, instead of
        being made the interpreter's dictionary first."""
        self.program = program
        public, secret, digests, ram = inputs
        if native_ram:
            self.machine: Machine = interp.initial_machine(program, public, secret, digests)
            self.machine.ram = RamOverlay(RamImage.of(ram))
        else:
            self.machine = interp.initial_machine(program, *inputs)
        self.visits = [0] * (program.length + 1)
        self.max_steps = max_steps
        self.steps = None
        self.cycles = 0  # interpreted so far
        self.ip, self.finished, self.error = 0, False, None

    def interpret(self, cycles: int, until=frozenset()) -> None:
        """Interpret up to `cycles` more cycles (stopping early at an address in `until`)."""
        from vm.jit import runtime

        allowed = min(cycles, self.max_steps - self.cycles)
        final = self.cycles + allowed == self.max_steps
        if self.steps is None:
            self.steps = interp.step_functions(self.machine)
        stop = runtime.interpret(
            self.machine, self.steps, self.ip, self.visits, allowed, self.max_steps, final, until
        )
        self.ip, self.finished, self.error = stop.ip, stop.finished, stop.error
        self.cycles += stop.steps

    def finish_natively(self, options=None) -> Run:
        from vm.jit import runtime

        compiled = runtime.compile_program(self.program, options or runtime.Options())
        # (up to a compiled checkpoint, the runtime interprets on the native state)
        return runtime.run(compiled, self.machine, self.ip, self.visits, self.max_steps)

    def record(self) -> Run:
        machine = self.machine
        return Run(
            program=self.program,
            output=machine.output,
            cycles=self.cycles,
            stack=machine.stack,
            ram=machine.ram,
            visits=self.visits,
            u32_entries=machine.u32_entries,
            permutation_inputs=machine.permutation_inputs,
            error=self.error,
        )


def execute(
    program: Program,
    public_input: Iterable[int] = (),
    secret_input: Iterable[int] = (),
    secret_digests: Iterable[Iterable[int]] = (),
    ram: Mapping[int, int] | RamImage | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
    trial_cycles: int = 0,
    options=None,
) -> Run:
    """Run `program` natively (after `trial_cycles` interpreted ones); the interpreter's `Run`.
    `options` (a `vm.jit.runtime.Options`) say what is compiled: by default the regions
    that may run more than once (the interpreter runs the rest).  `ram` (a mapping or a
    `vm.ram.RamImage`) goes to native pages in bulk; the run's RAM is only extracted from
    them when it is read."""
    _require()
    inputs = (public_input, secret_input, secret_digests, ram)
    run = _Run(program, inputs, max_steps, native_ram=not trial_cycles)
    if trial_cycles:
        run.interpret(trial_cycles)
    return run.record() if run.finished else run.finish_natively(options)


def execute_auto(
    program: Program,
    public_input: Iterable[int] = (),
    secret_input: Iterable[int] = (),
    secret_digests: Iterable[Iterable[int]] = (),
    ram: Mapping[int, int] | RamImage | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
) -> Run:
    """The `auto` engine: interpret, and move to the JIT once that pays (see above)."""
    inputs = (public_input, secret_input, secret_digests, ram)
    if not available():
        return interp.execute(program, *inputs, max_steps=max_steps)
    run = _Run(program, inputs, max_steps, native_ram=False)
    run.interpret(FIRST_LOOK_CYCLES)
    if run.finished:
        return run.record()
    trial = int(INTERPRETER_SPEED * native_code_seconds(program))
    run.interpret(max(0, trial - FIRST_LOOK_CYCLES))
    return run.record() if run.finished else run.finish_natively()
