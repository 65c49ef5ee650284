"""The Triton VM instruction set, as one table.

Every fact about an instruction that is static is a field of one `Instruction`
row below: mnemonic, opcode, size, argument kind; net op-stack
change and how deep the instruction reads and changes the stack; RAM reads and
writes, hash-table rows; the u32-table entries it records; the public
and secret words it reads or writes; whether it touches the sponge; its
control-flow class; every error kind it can raise; and the little a rewrite needs to
know of what it computes (a stack move, commutative, a 0-or-1 result).  The assembler,
interpreter, table counter, cost model, JIT, TIR table, lowering, peephole and
symbolic executor read these rows.  `tests/vm/test_isa_facts.py` checks every row
against what the handlers do, and the copies a few modules keep (the
verifier's constants and error kinds, the JIT's error codes) against the rows.

Quantities that depend on the argument are `Amount`s: `N` is the argument
(the count of `pop n`, the index of `dup i`), so `pop n` changes `N` words and
`write_mem n` reads `N + 1`.

Two instruction sets exist (docs/vm.md, The machine): REL (every release from v0.42 to
v7.0.0) and HEAD (master after v7.0.0).  They differ only in opcodes 80 and 88.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, StrEnum
from functools import cache


class Arg(Enum):
    """What kind of argument an instruction takes."""

    NONE = "none"
    FIELD = "field"  # push, addi: any field element
    COUNT = "count"  # pop, divine, read_mem, write_mem, read_io, write_io: 1..5
    INDEX = "index"  # pick, place, dup, swap: 0..15
    LABEL = "label"  # call: a label, encoded as its absolute address


ARGUMENT_RANGE = {Arg.COUNT: range(1, 6), Arg.INDEX: range(0, 16)}

ISAS = ("rel", "head")

OP_STACK_MINIMUM = 16  # the op stack never holds fewer words (docs/vm.md, The machine)
HASH_ROWS_PER_PERMUTATION = 6  # hash-table rows of one Tip5 permutation: its 6-state trace

# The u32-table entry kinds (docs/vm.md, How tables are counted), in the order the JIT's
# log encodes them.
U32_KINDS = ("split", "lt", "and", "log2", "pow", "popcount")
STEP_LIMIT_KIND = "StepLimitExceeded"  # the run loop's, not an instruction's: the run was cut off


class Failure(StrEnum):
    """The error kinds an instruction can raise, named as the reference names them
    (docs/vm.md, Errors).  A member equals its name as a string."""

    ASSERTION_FAILED = "AssertionFailed"
    VECTOR_ASSERTION_FAILED = "VectorAssertionFailed"
    TOO_SHALLOW = "TooShallow"
    FAILED_U32_CONVERSION = "FailedU32Conversion"
    INVERSE_OF_ZERO = "InverseOfZero"
    DIVISION_BY_ZERO = "DivisionByZero"
    LOGARITHM_OF_ZERO = "LogarithmOfZero"
    JUMP_STACK_IS_EMPTY = "JumpStackIsEmpty"
    SPONGE_NOT_INITIALIZED = "SpongeNotInitialized"
    EMPTY_PUBLIC_INPUT = "EmptyPublicInput"
    EMPTY_SECRET_INPUT = "EmptySecretInput"
    EMPTY_SECRET_DIGEST_INPUT = "EmptySecretDigestInput"
    INSTRUCTION_POINTER_OVERFLOW = "InstructionPointerOverflow"


class Flow(Enum):
    """Where control goes after an instruction."""

    STRAIGHT = "straight"  # to the next instruction
    SKIZ = "skiz"  # to the next one, or over it
    CALL = "call"  # to the label; the address after it is pushed on the jump stack
    RETURN = "return"
    RECURSE = "recurse"
    RECURSE_OR_RETURN = "recurse_or_return"
    HALT = "halt"

    @property
    def ends_block(self) -> bool:
        """A control instruction: the last of a straight-line block."""
        return self is not Flow.STRAIGHT

    @property
    def falls_through(self) -> bool:
        """The instruction after it in program order may run next (for `call`: after the
        callee returns)."""
        return self in (Flow.STRAIGHT, Flow.SKIZ, Flow.CALL)


@dataclass(frozen=True)
class Amount:
    """`fixed + per_argument * argument`: a count that may depend on the argument."""

    fixed: int = 0
    per_argument: int = 0

    def at(self, argument: int | None) -> int:
        if not self.per_argument:
            return self.fixed
        return self.fixed + self.per_argument * argument

    def __add__(self, other: int) -> Amount:
        return Amount(self.fixed + other, self.per_argument)

    def __neg__(self) -> Amount:
        return Amount(-self.fixed, -self.per_argument)

    def __pos__(self) -> Amount:
        return self

    def __bool__(self) -> bool:
        """Not 0 for some argument."""
        return bool(self.fixed or self.per_argument)

    @property
    def negative(self) -> bool:
        """Below 0 for every argument (1..5 or 0..15: the argument is never negative)."""
        return self.fixed < 0 or (self.fixed == 0 and self.per_argument < 0)


N = Amount(0, 1)  # the argument itself
NONE_AMOUNT = Amount()


def _amount(value: int | Amount) -> Amount:
    return value if isinstance(value, Amount) else Amount(value)


AMOUNTS = (
    "delta", "reads", "changes", "ram_reads", "ram_writes",
    "public_input", "public_output", "secret_input", "secret_digests",
)  # fmt: skip
EFFECT_AMOUNTS = AMOUNTS[3:]  # what it does beyond the op stack: RAM, public and secret words


@dataclass(frozen=True)
class Instruction:
    """One row of the instruction table (see the module docstring).

    `reads` is how many words from the top the instruction reads, moves or
    compares (`dup 15` reads 16, `merkle_step` 6: st0..st5); `changes` how many
    top words it removes or rewrites: every entry word below that depth is left
    as it was, `delta` places lower.  For the no-ops `pick 0`, `place 0`,
    `swap 0` and `addi 0` both are one more than needed.
    """

    name: str
    opcode: int
    arg: Arg = Arg.NONE
    delta: Amount = NONE_AMOUNT
    reads: Amount = NONE_AMOUNT
    changes: Amount = NONE_AMOUNT
    ram_reads: Amount = NONE_AMOUNT
    ram_writes: Amount = NONE_AMOUNT
    hash_rows: int = 0
    u32_entries: tuple[str, ...] = ()  # entry kinds one successful execution records
    public_input: Amount = NONE_AMOUNT  # words read from the public input
    public_output: Amount = NONE_AMOUNT  # words appended to the public output
    secret_input: Amount = NONE_AMOUNT  # words read from the secret input
    secret_digests: Amount = NONE_AMOUNT  # 5-word digests read from the secret digests
    sponge: bool = False  # reads or sets the sponge state
    flow: Flow = Flow.STRAIGHT
    failures: frozenset[Failure] = frozenset()  # every error kind it can raise
    isa: str = "both"  # "both", "rel" or "head"
    # what it computes, as far as a rewrite needs to know
    rearranges: bool = False  # only copies, moves or drops stack words: makes no new value
    commutative: bool = False  # swapping st0 and st1 first changes nothing it does
    boolean_result: bool = False  # its result (st0) is 0 or 1

    def __post_init__(self) -> None:
        for name in AMOUNTS:  # rows may give a plain int for a fixed amount
            object.__setattr__(self, name, _amount(getattr(self, name)))

    @property
    def size(self) -> int:
        """Program words: the opcode, and the argument if there is one."""
        return 1 if self.arg is Arg.NONE else 2

    @property
    def u32(self) -> bool:
        """A u32 instruction (opcode bit 2): one that records u32-table entries."""
        return bool(self.u32_entries)

    @property
    def effect_free(self) -> bool:
        """Cannot fail and does nothing but change the op stack: no RAM, I/O, sponge, hash or
        u32-table rows, and control goes straight on."""
        effects = (getattr(self, name) for name in EFFECT_AMOUNTS)
        return (
            not (self.failures or self.sponge or self.hash_rows or self.u32_entries or any(effects))
            and self.flow is Flow.STRAIGHT
        )

    @property
    def permutations(self) -> int:
        """Tip5 permutations per execution."""
        return self.hash_rows // HASH_ROWS_PER_PERMUTATION

    def stack_delta(self, argument: int | None = None) -> int:
        """Net change of the op-stack length when executed with `argument`."""
        return self.delta.at(argument)

    def stack_read(self, argument: int | None = None) -> int:
        return self.reads.at(argument)

    def stack_changed(self, argument: int | None = None) -> int:
        return self.changes.at(argument)

    def stack_touched(self, argument: int | None = None) -> int:
        """Entry words the instruction reads, moves or removes: what must be there."""
        return max(self.reads.at(argument), self.changes.at(argument))

    def minimum_depth(self, argument: int | None = None) -> int:
        """The op-stack length it needs before it runs, else TooShallow (16 - min(0, delta))."""
        return OP_STACK_MINIMUM - min(0, self.stack_delta(argument))

    def ram_accesses(self, argument: int | None = None) -> int:
        """RAM-table rows one execution adds: reads and writes, not de-duplicated."""
        return self.ram_reads.at(argument) + self.ram_writes.at(argument)

    def op_stack_rows(self, argument: int | None = None) -> int:
        """Op-stack-table rows one execution adds: |delta|."""
        return abs(self.stack_delta(argument))


# --- the rows ----------------------------------------------------------------------------------

F = Failure
_U32_CHECK = (F.FAILED_U32_CONVERSION,)
_NO_SPONGE = (F.SPONGE_NOT_INITIALIZED,)


def _row(name, opcode, arg=Arg.NONE, delta=0, fails=(), **facts) -> Instruction:
    """A row; every instruction whose delta is negative can also fail with TooShallow."""
    delta = _amount(delta)
    failures = frozenset(fails) | ({F.TOO_SHALLOW} if delta.negative else frozenset())
    return Instruction(name, opcode, arg, delta, failures=failures, **facts)


# fmt: off
INSTRUCTIONS: tuple[Instruction, ...] = (
    # stack manipulation
    _row("push", 1, Arg.FIELD, +1),
    _row("pop", 3, Arg.COUNT, -N, changes=N, rearranges=True),
    _row("divine", 9, Arg.COUNT, +N, secret_input=N, fails=(F.EMPTY_SECRET_INPUT,)),
    _row("pick", 17, Arg.INDEX, reads=N + 1, changes=N + 1, rearranges=True),
    _row("place", 25, Arg.INDEX, reads=N + 1, changes=N + 1, rearranges=True),
    _row("dup", 33, Arg.INDEX, +1, reads=N + 1, rearranges=True),
    _row("swap", 41, Arg.INDEX, reads=N + 1, changes=N + 1, rearranges=True),
    # control flow
    _row("halt", 0, flow=Flow.HALT),
    _row("nop", 8, rearranges=True),
    _row("skiz", 2, delta=-1, reads=1, changes=1, flow=Flow.SKIZ,
         fails=(F.INSTRUCTION_POINTER_OVERFLOW,)),
    _row("call", 49, Arg.LABEL, flow=Flow.CALL),
    _row("return", 16, flow=Flow.RETURN, fails=(F.JUMP_STACK_IS_EMPTY,)),
    _row("recurse", 24, flow=Flow.RECURSE, fails=(F.JUMP_STACK_IS_EMPTY,)),
    _row("recurse_or_return", 32, reads=7, flow=Flow.RECURSE_OR_RETURN,
         fails=(F.JUMP_STACK_IS_EMPTY,)),
    _row("assert", 10, delta=-1, reads=1, changes=1, fails=(F.ASSERTION_FAILED,)),
    # memory
    _row("read_mem", 57, Arg.COUNT, +N, reads=1, changes=1, ram_reads=N),
    _row("write_mem", 11, Arg.COUNT, -N, reads=N + 1, changes=N + 1, ram_writes=N),
    # hashing
    _row("hash", 18, delta=-5, reads=10, changes=10, hash_rows=6),
    _row("assert_vector", 26, delta=-5, reads=10, changes=5, fails=(F.VECTOR_ASSERTION_FAILED,)),
    _row("sponge_init", 40, hash_rows=1, sponge=True),
    _row("sponge_absorb", 34, delta=-10, reads=10, changes=10, hash_rows=6, sponge=True,
         fails=_NO_SPONGE),
    _row("sponge_absorb_mem", 48, reads=1, changes=5, ram_reads=10, hash_rows=6, sponge=True,
         fails=_NO_SPONGE),
    _row("sponge_squeeze", 56, delta=+10, hash_rows=6, sponge=True, fails=_NO_SPONGE),
    # base-field arithmetic
    _row("add", 42, delta=-1, reads=2, changes=2, commutative=True),
    _row("addi", 65, Arg.FIELD, reads=1, changes=1),
    _row("mul", 50, delta=-1, reads=2, changes=2, commutative=True),
    _row("invert", 64, reads=1, changes=1, fails=(F.INVERSE_OF_ZERO,)),
    _row("eq", 58, delta=-1, reads=2, changes=2, commutative=True,
         boolean_result=True),
    # u32 arithmetic
    _row("split", 4, delta=+1, reads=1, changes=1, u32_entries=("split",)),
    _row("lt", 6, delta=-1, reads=2, changes=2, u32_entries=("lt",), fails=_U32_CHECK,
         boolean_result=True),
    _row("and", 14, delta=-1, reads=2, changes=2, u32_entries=("and",), fails=_U32_CHECK,
         commutative=True),
    _row("xor", 22, delta=-1, reads=2, changes=2, u32_entries=("and",), fails=_U32_CHECK,
         commutative=True),
    _row("log_2_floor", 12, reads=1, changes=1, u32_entries=("log2",),
         fails=(*_U32_CHECK, F.LOGARITHM_OF_ZERO)),
    _row("pow", 30, delta=-1, reads=2, changes=2, u32_entries=("pow",), fails=_U32_CHECK),
    _row("div_mod", 20, reads=2, changes=2, u32_entries=("lt", "split"),
         fails=(*_U32_CHECK, F.DIVISION_BY_ZERO)),
    _row("pop_count", 28, reads=1, changes=1, u32_entries=("popcount",), fails=_U32_CHECK),
    # extension-field arithmetic
    _row("xx_add", 66, delta=-3, reads=6, changes=6),
    _row("xx_mul", 74, delta=-3, reads=6, changes=6),
    _row("x_invert", 72, reads=3, changes=3, fails=(F.INVERSE_OF_ZERO,)),
    _row("xb_mul", 82, delta=-1, reads=4, changes=4),
    # input / output
    _row("read_io", 73, Arg.COUNT, +N, public_input=N, fails=(F.EMPTY_PUBLIC_INPUT,)),
    _row("write_io", 19, Arg.COUNT, -N, reads=N, changes=N, public_output=N),
    # many-in-one
    _row("merkle_step", 36, reads=6, changes=6, hash_rows=6, u32_entries=("split",),
         secret_digests=1, fails=(*_U32_CHECK, F.EMPTY_SECRET_DIGEST_INPUT)),
    _row("merkle_step_mem", 44, reads=8, changes=8, ram_reads=5, hash_rows=6,
         u32_entries=("split",), fails=_U32_CHECK),
    _row("xx_dot_step", 80, reads=5, changes=5, ram_reads=6, isa="rel"),
    _row("xb_dot_step", 88, reads=5, changes=5, ram_reads=4, isa="rel"),
    _row("b_horner_step", 80, reads=10, changes=10, ram_reads=1, isa="head"),
    _row("x_horner_step", 88, reads=10, changes=10, ram_reads=3, isa="head"),
)
# fmt: on

# Words that may not be used as label names besides the mnemonics (docs/vm.md, Assembler).
RESERVED_WORDS = frozenset({"hint", "error_id", "error_message", "break"})


@cache
def instruction_set(isa: str = "rel") -> dict[str, Instruction]:
    """The instructions of one ISA, by mnemonic."""
    if isa not in ISAS:
        raise ValueError(f"unknown ISA {isa!r}; expected one of {', '.join(ISAS)}")
    return {row.name: row for row in INSTRUCTIONS if row.isa in ("both", isa)}


@cache
def by_opcode(isa: str = "rel") -> dict[int, Instruction]:
    """The instructions of one ISA, by opcode."""
    return {row.opcode: row for row in instruction_set(isa).values()}


BY_NAME: dict[str, Instruction] = {row.name: row for row in INSTRUCTIONS}
"""Every row of both ISAs by mnemonic (the mnemonics are distinct across ISAs)."""

ALL_MNEMONICS = frozenset(BY_NAME)
CONTROL = frozenset(row.name for row in INSTRUCTIONS if row.flow.ends_block)
"""Mnemonics of the control instructions: skiz, call, return, recurse,
recurse_or_return and halt.  Each ends a straight-line block."""
FIELD_ARGUMENT = frozenset(row.name for row in INSTRUCTIONS if row.arg is Arg.FIELD)
"""Mnemonics whose argument is a field element (push, addi)."""
MOVES = frozenset(row.name for row in INSTRUCTIONS if row.rearranges)
"""The stack moves: dup, swap, pick, place, pop and nop."""
COMMUTATIVE = frozenset(row.name for row in INSTRUCTIONS if row.commutative)
"""add, mul, eq, and, xor."""
BOOLEAN_RESULT = frozenset(row.name for row in INSTRUCTIONS if row.boolean_result)
"""eq and lt."""
