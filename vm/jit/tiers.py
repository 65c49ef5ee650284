"""The tiered engine: interpret, count entries per function, compile hot functions alone.

Input: an assembled `Program` and its inputs; output: the interpreter's `Run`, exact in
output, failure, cycles and every table (vm.jit.runtime keeps the record for compiled
code), plus `Tiers`, what ran where.

A *function* is the code from a `call` target to the next one in address order (address
0 starts the program's own): a TASM subroutine, which is what the compiler makes of a
function, a loop body (its iterations arrive by `recurse`) and a branch.  Its checkpoints
(vm.jit.blocks) are its start and the return addresses of the calls it makes.

While the run interprets, every arrival at a function's start -- a call, or a loop's next
iteration -- is counted.  No native code is considered before the run has lasted
`FIRST_LOOK_CYCLES` (a short run never touches LLVM, as with `auto`); after that, a
function entered `HOT_ENTRIES` times is compiled alone (vm.jit.runtime, `Options.
checkpoints`: exactly its checkpoints), and later arrivals at any of its checkpoints run
natively, from interpreted code or from another compiled part without leaving the
native state.  A hot function is compiled together with the functions it calls,
transitively, as long as the group stays within `LARGEST_FUNCTION` words (`Tiers.group`):
a call from one compiled part into another goes through the runtime's loop in Python, so a
loop body and the small functions it calls are one native unit.  A function larger than
that limit is never compiled; one whose compilation fails is tried again after `BACKOFF`
times as many entries, at most `TRIES` times, then blacklisted.

The tiers of a program are kept for the next run of the same program in this process
(what is compiled and the entries counted: a model that runs the same program once per
block pays the first look once), and compiled parts are cached in memory and on disk like
whole programs (vm.jit.compiler), so a part compiled once on a machine loads in
milliseconds.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from vm.interp import DEFAULT_MAX_STEPS, Run
from vm.isa import Flow
from vm.ram import RamImage
from vm.tasm import Program

FIRST_LOOK_CYCLES = 1 << 16  # interpreted before any native code is considered (~15 ms)
HOT_ENTRIES = 56  # entries that make a function hot (LuaJIT's loop threshold; docs/vm.md)
LARGEST_FUNCTION = 4_000  # words: larger functions stay interpreted
BACKOFF = 4  # a failed compile is retried after this many times the entries
TRIES = 3  # compile attempts before a function is blacklisted


@dataclass
class Function:
    """A TASM subroutine: its start, end (exclusive), checkpoints and what the run did."""

    start: int
    end: int
    name: str
    checkpoints: tuple[int, ...]
    entries: int = 0  # arrivals at its start in interpreted code
    attempts: int = 0
    next_attempt: int = HOT_ENTRIES
    tier: str = "interpreted"  # "native" once compiled, "blacklisted" after TRIES failures
    reason: str = ""  # why it is blacklisted

    @property
    def size(self) -> int:
        return self.end - self.start


@dataclass
class Tiers:
    """The dispatch table of one run (vm.jit.runtime.run): its functions, the compiled
    parts and the checkpoints the interpreter watches."""

    program: Program
    hot_entries: int = HOT_ENTRIES
    first_look: int = FIRST_LOOK_CYCLES
    compile_function: object = None  # (program, checkpoints) -> CompiledProgram; for tests
    functions: dict[int, Function] = field(default_factory=dict)  # by start
    modules: dict = field(default_factory=dict)  # checkpoint -> CompiledProgram
    entries: frozenset[int] = frozenset()
    watch: frozenset[int] = frozenset()
    cycles: int = 0  # cycles interpreted so far, over all runs that used these tiers

    def __post_init__(self):
        from vm.jit.blocks import split_blocks

        self.blocks = split_blocks(self.program)
        starts = self.starts = sorted({0, *(self.blocks.call_targets)})
        length = self.program.length
        names = self.program.label_at()
        checkpoints = sorted(self.blocks.checkpoints)
        for position, start in enumerate(starts):
            end = starts[position + 1] if position + 1 < len(starts) else length
            low, high = bisect.bisect_left(checkpoints, start), bisect.bisect_left(checkpoints, end)
            name = names.get(start, [f"@{start}"])[0]
            own = tuple(checkpoints[low:high])
            self.functions[start] = Function(start, end, name, own, next_attempt=self.hot_entries)
        self.watch = frozenset(start for start in self.functions if start in self.blocks.by_start)
        self.callees = {start: [] for start in self.functions}  # call targets, in address order
        for op, address in zip(self.program.ops, self.program.addresses):
            if op.instruction.flow is Flow.CALL and op.argument in self.functions:
                caller = self.callees[self.function_of(address).start]
                if op.argument not in caller:
                    caller.append(op.argument)

    def module(self, ip: int):
        return self.modules[ip]

    def arrive(self, ip: int) -> None:
        """Control reached `ip` in interpreted code: count a function's entry, compile it
        once it is hot."""
        function = self.functions.get(ip)
        if function is None:
            return
        function.entries += 1
        if function.tier != "interpreted":
            return
        if function.entries >= function.next_attempt and self.cycles >= self.first_look:
            self._compile(function)

    def _compile(self, function: Function) -> None:
        from vm.jit import runtime

        if function.size > LARGEST_FUNCTION:
            function.tier, function.reason = "blacklisted", "too large"
            return
        group = self.group(function)
        checkpoints = tuple(sorted(c for member in group for c in member.checkpoints))
        function.attempts += 1
        try:
            if self.compile_function is not None:
                compiled = self.compile_function(self.program, checkpoints)
            else:
                options = runtime.Options(checkpoints=checkpoints)
                compiled = runtime.compile_program(self.program, options)
        except Exception as error:  # noqa: BLE001 - LLVM's failures have no common type
            if function.attempts >= TRIES:
                function.tier, function.reason = "blacklisted", f"{type(error).__name__}: {error}"
            else:
                function.next_attempt = function.entries * BACKOFF
            return
        for member in group:
            member.tier = "native"
            for checkpoint in member.checkpoints:
                self.modules[checkpoint] = compiled
        self.entries = frozenset(self.modules)
        self.watch = self.watch | self.entries

    def group(self, function: Function) -> list[Function]:
        """The function and what it calls, transitively, in call order, as long as the
        whole stays within `LARGEST_FUNCTION` words: compiled together, so that its calls
        stay in native code (a call into another compiled part goes through the runtime)."""
        group, seen, pending, size = [], set(), [function], 0
        while pending:
            member = pending.pop(0)
            if member.start in seen or size + member.size > LARGEST_FUNCTION:
                continue
            seen.add(member.start)
            group.append(member)
            size += member.size
            pending.extend(self.functions[target] for target in self.callees[member.start])
        return group

    def function_of(self, address: int) -> Function:
        starts = self.starts
        return self.functions[starts[bisect.bisect_right(starts, address) - 1]]


@dataclass(frozen=True)
class TieredRun:
    """A run's record and what ran where."""

    run: Run
    tiers: Tiers


def execute_tiered(
    program: Program,
    public_input: Iterable[int] = (),
    secret_input: Iterable[int] = (),
    secret_digests: Iterable[Iterable[int]] = (),
    ram: Mapping[int, int] | RamImage | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
    tiers: Tiers | None = None,
) -> Run:
    """The `tiered` engine (see the module docstring); the interpreter's `Run`."""
    inputs = (public_input, secret_input, secret_digests, ram)
    return run_tiered(program, *inputs, max_steps, tiers).run


def run_tiered(
    program: Program,
    public_input: Iterable[int] = (),
    secret_input: Iterable[int] = (),
    secret_digests: Iterable[Iterable[int]] = (),
    ram: Mapping[int, int] | RamImage | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
    tiers: Tiers | None = None,
) -> TieredRun:
    """The run and the tiers it used: `tiers`, else the program's own, kept for the next run
    of the same program in this process (what is compiled, and the entries counted)."""
    from vm.jit import available, runtime

    if tiers is None:
        tiers = _program_tiers(program)
    if not available():
        tiers.first_look = max_steps + 1  # nothing is ever compiled
    from vm.jit import _Run

    run = _Run(program, (public_input, secret_input, secret_digests, ram), max_steps, False)
    if 0 in tiers.watch:
        tiers.arrive(0)
    while True:  # interpreted until a compiled checkpoint comes up
        before = run.cycles
        run.interpret(max_steps, until=tiers.watch)
        tiers.cycles += run.cycles - before
        if run.finished:
            return TieredRun(run.record(), tiers)
        if run.ip not in tiers.entries:
            tiers.arrive(run.ip)
        if run.ip in tiers.entries:
            native = runtime.run(tiers, run.machine, run.ip, run.visits, max_steps)
            return TieredRun(native, tiers)


_TIERS: dict[str, Tiers] = {}
KEPT_PROGRAMS = 64  # programs whose tiers this process keeps


def _program_tiers(program: Program) -> Tiers:
    from vm.jit import runtime

    key = runtime.program_key(program)
    found = _TIERS.get(key)
    if found is None:
        if len(_TIERS) >= KEPT_PROGRAMS:
            del _TIERS[next(iter(_TIERS))]
        found = _TIERS[key] = Tiers(program)
    return found
