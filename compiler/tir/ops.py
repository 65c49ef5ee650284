"""The TIR operations, as one table (docs/backend.md, TIR), and the op values built from it.

TIR is stack-explicit: the builder has already decided every `dup`, `swap` and
`pop`, so a straight-line TIR op is one Triton instruction or a short fixed
sequence of them.  Control flow stays structured: `IfElse`, `IfOnly` and `Loop`
hold their bodies, which the lowering turns into deferred subroutines.

Every fact about an op is a field of its row in `OPS`: tier, argument kind,
stack effect (`consumes` elements from the top and `produces` elements in
their place, as functions of the argument), and its TASM (`tasm`: a template
in which `ARG` stands for the argument).  Its side effects are not written
here: they are those of its template's instructions, read from `vm.isa`
(`template_effects`).  The builder, effect checker, printer, lowering and
cost model read the rows.

Besides the 54 ops of RC's TIR we have `Pick`, `Place` and `AddI` (newer Triton
instructions the stack manager and peephole need), `XAdd`/`XMul` (the
XField `+`/`*`, which RC wrongly lowers to `add`/`mul`, docs/backend.md C13) and
`Facts`, an annotation with no TASM that carries the stack manager's knowledge to
the block contracts.
`Lt`, `DivMod` and `Pow` have Triton's operand order: the builder emits the
`Swap(1)` (or pushes the operands in swapped order) that the source order
needs (docs/backend.md C1-C3).  `Or`, `Shl` and `Shr` are never built; their
lowerings are correct ones (RC's `Or` is not an instruction and its `Shr`
reverses the operands).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from vm.field import P
from vm.isa import BY_NAME, Failure

ARG = object()  # stands for the op's argument in a TASM template

# Side-effect kinds, in the words block contracts use (lower/blocks.py).
INPUT = "input"  # consumes public input
SECRET = "secret"  # consumes secret input or secret digests
OUTPUT = "output"  # appends to the public output
RAM_READ = "ram_read"
RAM_WRITE = "ram_write"
FAILS = "fails"  # may stop the run (assertions, u32 checks, inverse of 0, ...)
HASH = "hash"  # uses the hash co-processor (deterministic)
SPONGE = "sponge"  # reads or changes the sponge state

STATEFUL = frozenset({INPUT, SECRET, OUTPUT, RAM_WRITE, SPONGE})  # order-sensitive effects

# Failures that TIR's structure rules out: the effect checker keeps every op within the
# function's part of the stack, and control flow is structured.
STRUCTURAL_FAILURES = frozenset(
    {Failure.TOO_SHALLOW, Failure.JUMP_STACK_IS_EMPTY, Failure.INSTRUCTION_POINTER_OVERFLOW}
)


def instruction_effects(mnemonic: str) -> frozenset[str]:
    """The side-effect kinds of one TASM instruction, from its `vm.isa` row."""
    row = BY_NAME[mnemonic]
    kinds = {
        INPUT: bool(row.public_input),
        SECRET: bool(row.secret_input or row.secret_digests),
        OUTPUT: bool(row.public_output),
        RAM_READ: bool(row.ram_reads),
        RAM_WRITE: bool(row.ram_writes),
        FAILS: bool(row.failures - STRUCTURAL_FAILURES),
        HASH: row.permutations > 0 and not row.sponge,
        SPONGE: row.sponge,
    }
    return frozenset(kind for kind, present in kinds.items() if present)


def template_effects(instructions) -> frozenset[str]:
    """The side-effect kinds of a sequence of (mnemonic, argument) pairs."""
    return frozenset().union(*(instruction_effects(mnemonic) for mnemonic, _ in instructions))


def _fixed(consumes: int, produces: int) -> tuple[Callable, Callable]:
    return (lambda arg: consumes), (lambda arg: produces)


@dataclass(frozen=True)
class OpInfo:
    """One row of the TIR op table."""

    name: str
    tier: int
    arg: str  # "none", "value" (a field element), "count" (1..5), "index" (0..15), "width",
    # "label", "structured" (an op holding bodies), "text"
    consumes: Callable[[int | None], int] | None  # None: structural (computed from bodies)
    produces: Callable[[int | None], int] | None
    tasm: tuple | Callable | None = None  # template of (mnemonic, argument) pairs
    effects: frozenset[str] = frozenset()  # those of the template's instructions
    built: bool = True  # whether our builder ever emits it
    comment: str = ""


# The argument at which a row's side effects are read off a template that depends on it
# (`Assert`, `Reveal`, `Seal`, `RamWrite`, `Or`); a test checks every other argument agrees.
REPRESENTATIVE_ARGUMENT = {"count": 1, "width": 1, "index": 0, "value": 0}


def _row(name, tier, arg, effect, tasm=None, built=True, comment="") -> OpInfo:
    consumes, produces = effect if effect is not None else (None, None)
    template = tasm(REPRESENTATIVE_ARGUMENT.get(arg)) if callable(tasm) else tasm or ()
    effects = template_effects(template)
    return OpInfo(name, tier, arg, consumes, produces, tasm, effects, built, comment)


def _count(n: int) -> Callable:
    return lambda arg: n


def _reveal(arg: int) -> tuple:
    # arg = tag * 16 + field count: push tag, write it, then write each field
    tag, count = divmod(arg, 16)
    return (("push", tag), ("write_io", 1), *(("write_io", 1),) * count)


def _seal(arg: int) -> tuple:
    tag, count = divmod(arg, 16)
    return (*(("push", 0),) * (9 - count), ("push", tag), ("hash", None), ("write_io", 5))


def _or(arg) -> tuple:
    # a | b = a + b - (a & b) for u32 a, b: the sum is below p, and `and` checks both
    return (
        ("dup", 1),
        ("dup", 1),
        ("and", None),
        ("push", P - 1),
        ("mul", None),
        ("add", None),
        ("add", None),
    )


OPS_LIST: tuple[OpInfo, ...] = (
    # --- tier 0: structure --------------------------------------------------------------
    _row("Call", 0, "label", None, comment="call a function or compiler block"),
    _row("Return", 0, "none", _fixed(0, 0), (("return", None),)),
    _row("Halt", 0, "none", _fixed(0, 0), (("halt", None),), built=False),
    _row("IfElse", 0, "structured", None, comment="condition consumed; both bodies"),
    _row("IfOnly", 0, "structured", None, comment="condition consumed; one body"),
    _row("Loop", 0, "structured", None, comment="counted loop subroutine; frame on top"),
    _row("FnStart", 0, "label", _fixed(0, 0)),
    _row("FnEnd", 0, "none", _fixed(0, 0)),
    _row("Entry", 0, "label", _fixed(0, 0)),
    _row("Comment", 0, "text", _fixed(0, 0), ()),
    _row("Asm", 0, "structured", None, built=False),
    # --- tier 1: universal --------------------------------------------------------------
    _row("Push", 1, "value", _fixed(0, 1), (("push", ARG),)),
    _row("Pop", 1, "count", (lambda n: n, _count(0)), (("pop", ARG),)),
    _row("Dup", 1, "index", (lambda d: d + 1, lambda d: d + 2), (("dup", ARG),)),
    _row("Swap", 1, "index", (lambda d: d + 1, lambda d: d + 1), (("swap", ARG),)),
    _row("Add", 1, "none", _fixed(2, 1), (("add", None),)),
    _row(
        "Sub",
        1,
        "none",
        _fixed(2, 1),
        (("push", P - 1), ("mul", None), ("add", None)),
        built=False,
        comment="st1 - st0",
    ),
    _row("Mul", 1, "none", _fixed(2, 1), (("mul", None),)),
    _row("Neg", 1, "none", _fixed(1, 1), (("push", P - 1), ("mul", None)), built=False),
    _row("Invert", 1, "none", _fixed(1, 1), (("invert", None),)),
    _row("Eq", 1, "none", _fixed(2, 1), (("eq", None),)),
    _row("Lt", 1, "none", _fixed(2, 1), (("lt", None),), comment="st0 < st1"),
    _row("And", 1, "none", _fixed(2, 1), (("and", None),)),
    _row("Or", 1, "none", _fixed(2, 1), _or, built=False),
    _row("Xor", 1, "none", _fixed(2, 1), (("xor", None),)),
    _row("PopCount", 1, "none", _fixed(1, 1), (("pop_count", None),)),
    _row("Split", 1, "none", _fixed(1, 2), (("split", None),)),
    _row("DivMod", 1, "none", _fixed(2, 2), (("div_mod", None),), comment="st0 div/mod st1"),
    _row(
        "Shl",
        1,
        "none",
        _fixed(2, 1),
        (("push", 2), ("pow", None), ("mul", None)),
        built=False,
        comment="st1 * 2^st0",
    ),
    _row(
        "Shr",
        1,
        "none",
        _fixed(2, 1),
        (("push", 2), ("pow", None), ("swap", 1), ("div_mod", None), ("pop", 1)),
        built=False,
        comment="st1 div 2^st0",
    ),
    _row("Log2", 1, "none", _fixed(1, 1), (("log_2_floor", None),)),
    _row("Pow", 1, "none", _fixed(2, 1), (("pow", None),), comment="st0 ^ st1"),
    _row("ReadIo", 1, "count", (_count(0), lambda n: n), (("read_io", ARG),)),
    _row("WriteIo", 1, "count", (lambda n: n, _count(0)), (("write_io", ARG),)),
    _row("ReadMem", 1, "count", (_count(1), lambda n: n + 1), (("read_mem", ARG),)),
    _row("WriteMem", 1, "count", (lambda n: n + 1, _count(1)), (("write_mem", ARG),)),
    _row(
        "Assert",
        1,
        "count",
        (lambda n: 1 if n == 1 else 10, lambda n: 0 if n == 1 else 5),
        lambda n: (("assert", None),) if n == 1 else (("assert_vector", None),),
        comment="1: assert; 5: assert_vector",
    ),
    _row("Hash", 1, "none", _fixed(10, 5), (("hash", None),)),
    _row(
        "Reveal",
        1,
        "width",
        (lambda a: a % 16, _count(0)),
        _reveal,
        built=False,
        comment="argument tag * 16 + field count",
    ),
    _row("Seal", 1, "width", (lambda a: a % 16, _count(0)), _seal, built=False),
    _row(
        "RamRead",
        1,
        "width",
        (_count(1), lambda w: w),
        (("read_mem", ARG), ("pop", 1)),
        built=False,
    ),
    _row(
        "RamWrite",
        1,
        "width",
        (lambda w: w + 1, _count(0)),
        lambda w: (("pick", w), ("write_mem", w), ("pop", 1)),
        built=False,
        comment="address deepest, as in ram_write(addr, v)",
    ),
    # --- tier 2: provable ---------------------------------------------------------------
    _row("Hint", 2, "count", (_count(0), lambda n: n), (("divine", ARG),)),
    _row("SpongeInit", 2, "none", _fixed(0, 0), (("sponge_init", None),)),
    _row("SpongeAbsorb", 2, "none", _fixed(10, 0), (("sponge_absorb", None),)),
    _row("SpongeSqueeze", 2, "none", _fixed(0, 10), (("sponge_squeeze", None),)),
    _row(
        "SpongeLoad",
        2,
        "none",
        _fixed(5, 5),
        (("sponge_absorb_mem", None),),
        comment="pointer on top, st1..st4 overwritten",
    ),
    _row("MerkleStep", 2, "none", _fixed(6, 6), (("merkle_step", None),)),
    _row(
        "MerkleLoad",
        2,
        "none",
        _fixed(8, 8),
        (("merkle_step_mem", None),),
        built=False,
    ),
    # --- tier 3: recursion --------------------------------------------------------------
    _row("ExtMul", 3, "none", _fixed(4, 3), (("xb_mul", None),), comment="XField *. Field"),
    _row("ExtInvert", 3, "none", _fixed(3, 3), (("x_invert", None),)),
    _row("FoldExt", 3, "none", _fixed(5, 5), (("xx_dot_step", None),), built=False),
    _row("FoldBase", 3, "none", _fixed(5, 5), (("xb_dot_step", None),), built=False),
    _row("ProofBlock", 3, "structured", None, built=False),
    # --- ours ---------------------------------------------------------------------------
    _row("Pick", 1, "index", (lambda d: d + 1, lambda d: d + 1), (("pick", ARG),)),
    _row("Place", 1, "index", (lambda d: d + 1, lambda d: d + 1), (("place", ARG),)),
    _row("AddI", 1, "value", _fixed(1, 1), (("addi", ARG),)),
    _row("XAdd", 3, "none", _fixed(6, 3), (("xx_add", None),)),
    _row("XMul", 3, "none", _fixed(6, 3), (("xx_mul", None),)),
    _row("Facts", 0, "facts", _fixed(0, 0), (), comment="annotation: no TASM (class Facts)"),
)

OPS: dict[str, OpInfo] = {row.name: row for row in OPS_LIST}
TIR_SPEC_OPS = 54  # the ops of RC's TIR; the rest of the table is ours
EXTRA_OPS = ("Pick", "Place", "AddI", "XAdd", "XMul", "Facts")


# --- op values -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Op:
    """A straight-line op: a row of the table and its argument, and the source construct
    it was built for (a compiler.sourcemap.Origin; not part of its identity)."""

    name: str
    arg: int | None = None
    origin: object = field(default=None, compare=False, repr=False)

    @property
    def info(self) -> OpInfo:
        return OPS[self.name]

    def effect(self) -> tuple[int, int]:
        """(consumed, produced): how many top elements it reads and leaves in their place."""
        info = OPS[self.name]
        return info.consumes(self.arg), info.produces(self.arg)

    def __str__(self) -> str:
        if self.arg is None:
            return self.name
        if self.name in ("Push", "AddI"):
            return f"{self.name}({_signed(self.arg)})"
        return f"{self.name}({self.arg})"


@dataclass(frozen=True)
class Facts(Op):
    """An annotation (no TASM, no stack effect): what the stack manager knows at this
    point of a function, placed by the builder at both ends of every straight-line run.

    `height`: the words of the function's own part of the stack (its parameters and
    everything above them); `garbage`: the depths (0 = top) of slots nobody reads again;
    `u32`: the depths of slots that hold a value below 2^32 (from their types,
    compiler.tir.facts).  compiler.lower.blocks turns them into a block's contract.
    """

    name: str = "Facts"
    arg: None = None
    height: int = 0
    garbage: tuple[int, ...] = ()
    u32: tuple[int, ...] = ()

    def __str__(self) -> str:
        garbage = " ".join(map(str, self.garbage)) or "-"
        u32 = " ".join(map(str, self.u32)) or "-"
        return f"// facts: height {self.height}, garbage {garbage}, u32 {u32}"


@dataclass(frozen=True)
class Call:
    label: str
    consumes: int  # the callee's parameter width
    produces: int  # the callee's result width
    origin: object = field(default=None, compare=False, repr=False)  # the call's Origin

    name = "Call"

    def __str__(self) -> str:
        return f"Call({self.label})"


@dataclass(frozen=True)
class IfElse:
    """Condition on top (consumed); `then` runs when it is non-zero."""

    then: tuple
    otherwise: tuple

    name = "IfElse"


@dataclass(frozen=True)
class IfOnly:
    then: tuple

    name = "IfOnly"


@dataclass(frozen=True)
class Loop:
    """A do-while loop subroutine whose frame sits on top of the stack.

    `kind` "down": frame [r]; run the body, r -= 1, again while r != 0.
    `kind` "up": frame [end v] (or [v] when `end` is a constant); run the body,
    v += 1, again while v != end.  The body must leave the stack as it found it.
    The builder guards a loop that may run zero times.
    `depth`: how many words sit above the frame (0; RECURSE_DEPTH for an "up" frame
    [end v] at st6 st5, which `recurse_or_return` tests in one instruction; for a "down"
    frame, the words the body works on that the builder put over it).
    `advanced`: an "up" loop whose body advances v itself (a pointer loop whose last
    access moves its pointer, compiler/tir/pointer_loops.py); the test only compares.
    `step`: what the test adds to v (-1 for a pointer walking down).
    `trips`: the trip count when it is a constant; `count_u32`: a "down" loop whose count
    is below 2^32 at entry (its parity is one `and`); both unset for a loop that a
    `return` may end early.  `unroll`: 2 runs the body twice per
    test (compiler/optimize/unroll.py; the lowering peels an odd iteration first).
    """

    label: str
    body: tuple
    kind: str = "down"
    end: int | None = None
    depth: int = 0
    advanced: bool = False
    step: int = 1
    trips: int | None = None
    count_u32: bool = False
    unroll: int = 1

    name = "Loop"

    @property
    def frame(self) -> int:
        return 2 if self.kind == "up" and self.end is None else 1


RECURSE_DEPTH = 5  # recurse_or_return compares st5 (the loop variable) with st6 (its end)


@dataclass(frozen=True)
class Comment:
    text: str

    name = "Comment"


@dataclass(frozen=True)
class Asm:
    lines: tuple[str, ...]
    consumes: int
    produces: int

    name = "Asm"


@dataclass(frozen=True)
class ProofBlock:
    body: tuple

    name = "ProofBlock"


STRUCTURED = (IfElse, IfOnly, Loop, ProofBlock)
CONTROL = (Call, IfElse, IfOnly, Loop, ProofBlock, Asm)  # block boundaries


@dataclass
class Function:
    """One compiled function: its label, widths and TIR body (ending in Return)."""

    label: str
    params: int  # parameter width: elements the caller pushed
    result: int  # result width
    body: list = field(default_factory=list)
    source: str = ""  # the instance key it came from
    notes: tuple[tuple[str, str], ...] = ()  # (report section, what the builder did)


@dataclass
class Program:
    """Every function of a build; `entry` is main's label for a program, else None."""

    functions: list[Function]
    entry: str | None
    name: str = ""
    roots: tuple[str, ...] = ()  # for a module built alone: its public functions

    def function(self, label: str) -> Function:
        return next(f for f in self.functions if f.label == label)

    def flat(self) -> list:
        """The program as one op list: Entry, then FnStart ... FnEnd per function."""
        ops: list = []
        if self.entry is not None:
            ops.append(Op("Entry", None))
        for function in self.functions:
            ops.append(Comment(f"FnStart {function.label}"))
            ops.extend(function.body)
            ops.append(Op("FnEnd"))
        return ops


def _signed(value: int) -> str:
    return f"-{P - value}" if value > P // 2 else str(value)


# --- TASM <-> TIR for single instructions ----------------------------------------------------


def _single_instruction_ops() -> dict[str, str]:
    table = {}
    for row in OPS_LIST:
        if isinstance(row.tasm, tuple) and len(row.tasm) == 1:
            mnemonic, argument = row.tasm[0]
            if argument is ARG or argument is None:
                table.setdefault(mnemonic, row.name)
    return table


FROM_MNEMONIC = _single_instruction_ops()
FROM_MNEMONIC["assert"] = "Assert"
FROM_MNEMONIC["assert_vector"] = "Assert"


def from_tasm(line: str) -> Op:
    """The TIR op for one TASM instruction (e.g. a line of a builtin's sequence)."""
    mnemonic, _, argument = line.strip().partition(" ")
    if mnemonic == "assert_vector":
        return Op("Assert", 5)
    if mnemonic == "assert":
        return Op("Assert", 1)
    name = FROM_MNEMONIC[mnemonic]
    if not argument:
        return Op(name)
    return Op(name, int(argument) % P)


def tasm_of(op: Op) -> list[tuple[str, int | None]]:
    """The instructions one straight-line op lowers to: (mnemonic, argument) pairs."""
    template = OPS[op.name].tasm
    if callable(template):
        template = template(op.arg)
    return [(mnemonic, op.arg if argument is ARG else argument) for mnemonic, argument in template]
