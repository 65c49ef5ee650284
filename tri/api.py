"""The small public API: assemble, run and measure programs.

`run_tasm(text, ...)` and `execute(program, ...)` return a `Result`: the
public output, the cycle count, the nine table heights, the padded height
and the VM error if the run failed; `run(program, ...)` returns the run
record itself (for `vm.attribution`).  Initial RAM is a mapping, (address, value)
pairs, or a `vm.ram.RamImage`: a large RAM built once and reused, which the JIT copies
into its native pages in bulk.  The command line is a thin layer over these
functions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from vm import interp, jit, tables, tasm
from vm.interp import DEFAULT_MAX_STEPS, VMError
from vm.jit import tiers
from vm.ram import RamImage
from vm.tables import Heights


@dataclass(frozen=True)
class Inputs:
    """Everything a run consumes besides the program (docs/vm.md, The machine)."""

    public: tuple[int, ...] = ()
    secret: tuple[int, ...] = ()
    digests: tuple[tuple[int, ...], ...] = ()
    ram: tuple[tuple[int, int], ...] | RamImage = ()  # (address, value) pairs, or an image


@dataclass(frozen=True)
class Result:
    output: list[int]
    cycles: int
    heights: Heights
    error: VMError | None
    stack: list[int]

    @property
    def padded_height(self) -> int:
        return self.heights.padded_height

    def as_json(self) -> dict:
        return {
            "output": self.output,
            "cycles": self.cycles,
            "heights": self.heights.as_dict(),
            "padded_height": self.padded_height,
            "error": error_json(self.error),
        }


def error_json(error: VMError | None) -> dict | None:
    """A run's error as `tri run --json` prints it (None: the run halted)."""
    if error is None:
        return None
    return {
        "kind": error.kind,
        "ip": error.ip,
        "instruction": error.instruction,
        "cycle": error.cycle,
        "message": error.message,
        "location": None,  # the source line, for a compiled .tri program (tri run)
    }


def assemble(text: str, isa: str = "rel") -> tasm.Program:
    return tasm.parse(text, isa)


ENGINES = {
    "auto": jit.execute_auto,  # the interpreter, or the JIT for long runs (vm.jit)
    "jit": jit.execute,  # raises vm.jit.JitUnavailable without llvmlite
    "tiered": tiers.execute_tiered,  # hot functions compiled alone (vm.jit.tiers)
    "interp": interp.execute,
}


def run(
    program: tasm.Program,
    inputs: Inputs = Inputs(),
    max_steps: int = DEFAULT_MAX_STEPS,
    engine: str = "auto",
) -> interp.Run:
    """The run record of `program` on `engine` ("auto", "jit" or "interp"): visits per
    address and the co-processor effects, as `vm.tables` and `vm.attribution` read them."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}")
    return ENGINES[engine](
        program,
        public_input=inputs.public,
        secret_input=inputs.secret,
        secret_digests=inputs.digests,
        ram=inputs.ram if isinstance(inputs.ram, RamImage) else dict(inputs.ram),
        max_steps=max_steps,
    )


def result_of(record: interp.Run) -> Result:
    return Result(record.output, record.cycles, tables.heights(record), record.error, record.stack)


def execute(
    program: tasm.Program,
    inputs: Inputs = Inputs(),
    max_steps: int = DEFAULT_MAX_STEPS,
    engine: str = "auto",
) -> Result:
    """Run `program` on `engine` ("auto", "jit" or "interp"); every engine gives the same result."""
    return result_of(run(program, inputs, max_steps, engine))


def run_tasm(
    text: str,
    public_input: Iterable[int] = (),
    secret_input: Iterable[int] = (),
    secret_digests: Iterable[Iterable[int]] = (),
    ram: Mapping[int, int] | RamImage | None = None,
    isa: str = "rel",
    max_steps: int = DEFAULT_MAX_STEPS,
    engine: str = "auto",
) -> Result:
    """Assemble and run TASM text in one call."""
    inputs = Inputs(
        tuple(public_input),
        tuple(secret_input),
        tuple(tuple(digest) for digest in secret_digests),
        ram if isinstance(ram, RamImage) else tuple((ram or {}).items()),
    )
    return execute(assemble(text, isa), inputs, max_steps, engine)
