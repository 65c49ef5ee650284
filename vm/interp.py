"""The TASM interpreter: `Program` + inputs -> `Run` (docs/vm.md, The machine).

`execute` builds one step function per instruction address (vm.handlers),
then runs the fetch-execute loop until `halt`, a VM error, or the step limit.
The loop counts how often each address executes; those visit counts, the set
of u32 entries and the set of Tip5 permutation inputs are all that
`vm.tables` needs to compute the nine table heights.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import repeat

from vm.field import P
from vm.handlers import HANDLERS, Fault, Halt, Site
from vm.isa import STEP_LIMIT_KIND, Failure
from vm.ram import RamImage
from vm.tasm import Program

DEFAULT_MAX_STEPS = 1 << 26  # about 67 million cycles: a bound so that no input hangs the tool


def step_limit_message(max_steps: int) -> str:
    """The message of a run stopped by its step limit, on every engine and target."""
    return f"the run did not halt within {max_steps} steps (--max-steps)"


@dataclass(frozen=True)
class VMError:
    """Why a run stopped early: Triton VM's error kind and where it happened."""

    kind: str
    ip: int
    instruction: str
    cycle: int
    message: str
    # the return addresses on the jump stack when it stopped, outermost first: the calls
    # (and loop and branch subroutines) the failing instruction ran inside
    calls: tuple[int, ...] = ()

    def __str__(self) -> str:
        where = f"at ip {self.ip} ('{self.instruction}'), cycle {self.cycle}"
        return f"{self.kind} {where}: {self.message}"


@dataclass
class Machine:
    """The mutable state of one run (docs/vm.md, The machine)."""

    program: Program
    stack: list[int]
    ram: dict[int, int]
    public_input: deque
    secret_input: deque
    secret_digests: deque
    output: list[int] = field(default_factory=list)
    jump_stack: list[tuple[int, int]] = field(default_factory=list)
    sponge: tuple[int, ...] | None = None
    u32_entries: set[tuple[str, int, int]] = field(default_factory=set)
    permutation_inputs: set[tuple[int, ...]] = field(default_factory=set)


@dataclass
class Run:
    """What a run produced: output, final state, and the effects tables count."""

    program: Program
    output: list[int]
    cycles: int
    stack: list[int]
    ram: dict[int, int]
    visits: list[int]  # executions per word address
    u32_entries: set[tuple[str, int, int]]
    permutation_inputs: set[tuple[int, ...]]
    error: VMError | None

    @property
    def halted(self) -> bool:
        return self.error is None


def _words(values: Iterable[int]) -> list[int]:
    """Input words may be written in (-p, p); they are stored canonical.  (Checked by the
    smallest and largest word, so that a large RAM image costs two passes in C.)"""
    result = list(values)
    if not result:
        return result
    low, high = min(result), max(result)
    if not -P < low or not high < P:
        wrong = next(value for value in result if not -P < value < P)
        raise ValueError(f"input value {wrong} is outside (-p, p)")
    return result if low >= 0 else [value % P for value in result]


def initial_machine(
    program: Program,
    public_input: Iterable[int] = (),
    secret_input: Iterable[int] = (),
    secret_digests: Iterable[Iterable[int]] = (),
    ram: Mapping[int, int] | RamImage | None = None,
    digest: Sequence[int] | None = None,
) -> Machine:
    """The machine at the start of a run; `ram` is a mapping or a `vm.ram.RamImage`.
    `digest`: the five words under the stack (default: the program's digest, as the VM
    starts; a caller that sets the whole stack itself passes anything and saves the
    hash)."""
    digests = [tuple(_words(digest)) for digest in secret_digests]
    if any(len(digest) != 5 for digest in digests):
        raise ValueError("a secret digest has exactly 5 words")
    if isinstance(ram, RamImage):
        memory = ram.cells()
    else:
        ram = ram or {}
        memory = dict(zip(_words(ram.keys()), _words(ram.values())))
    return Machine(
        program=program,
        stack=[*reversed(program.digest if digest is None else digest), *([0] * 11)],
        ram=memory,
        public_input=deque(_words(public_input)),
        secret_input=deque(_words(secret_input)),
        secret_digests=deque(digests),
    )


def step_functions(machine: Machine) -> list:
    """One step function per word address (a call returns the next instruction pointer);
    addresses without an instruction overflow.

    The functions hold the machine's containers (stack, RAM, streams, ...): a
    caller that runs one program many times may refill those in place and pass
    the same functions to `run_machine` again (compiler.verify.concrete does).
    """
    program = machine.program
    length = program.length

    def overflow():
        raise Fault(
            Failure.INSTRUCTION_POINTER_OVERFLOW, f"no instruction at address {length} or beyond"
        )

    steps = [overflow] * (length + 1)
    ops, addresses = program.ops, program.addresses

    def build(index: int):
        """The step of the `index`-th instruction, made and put in place."""
        op, address = ops[index], addresses[index]
        following = addresses[index + 1] if index + 1 < len(ops) else length
        skip = (
            addresses[index + 2]
            if index + 2 < len(ops)
            else (length if index + 1 < len(ops) else None)
        )
        site = Site(
            op=op,
            address=address,
            next_address=following,
            min_depth=op.instruction.minimum_depth(op.argument),
            skip_address=skip,
        )
        step = steps[address] = HANDLERS[op.instruction.name](machine, site)
        return step

    # Each step is made the first time its address runs: a run that executes a few
    # instructions of a large program (the JIT interprets only the cold code) does not
    # pay for the rest.
    for index, address in enumerate(addresses):
        steps[address] = partial(_first_step, build, index)
    return steps


def _first_step(build, index: int) -> int:
    return build(index)()


def execute(
    program: Program,
    public_input: Iterable[int] = (),
    secret_input: Iterable[int] = (),
    secret_digests: Iterable[Iterable[int]] = (),
    ram: Mapping[int, int] | RamImage | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
) -> Run:
    """Run `program` until halt, an error, or `max_steps` executed instructions; `ram` is
    the initial RAM, a mapping or a `vm.ram.RamImage`."""
    machine = initial_machine(program, public_input, secret_input, secret_digests, ram)
    return run_machine(machine, max_steps)


def run_machine(machine: Machine, max_steps: int = DEFAULT_MAX_STEPS, steps=None) -> Run:
    """Run a prepared machine from ip 0; see `execute` (and `step_functions`)."""
    program = machine.program
    steps = step_functions(machine) if steps is None else steps
    visits = [0] * (program.length + 1)
    ip = 0
    error = None
    try:
        for _ in repeat(None, max_steps):
            following = steps[ip]()
            visits[ip] += 1
            ip = following
        raise Fault(STEP_LIMIT_KIND, step_limit_message(max_steps))
    except Halt:
        visits[ip] += 1
    except Fault as fault:
        index = program.op_index.get(ip)
        text = program.ops[index].text if index is not None else "<end of program>"
        calls = tuple(after for after, _ in machine.jump_stack)
        error = VMError(fault.kind, ip, text, sum(visits), fault.message, calls)
    return Run(
        program=program,
        output=machine.output,
        cycles=sum(visits),
        stack=machine.stack,
        ram=machine.ram,
        visits=visits,
        u32_entries=machine.u32_entries,
        permutation_inputs=machine.permutation_inputs,
        error=error,
    )
