"""Random TASM programs that terminate, for differential tests of the VM engines.

`generate(seed, isa, size)` returns a `Case`: program text, the inputs it
reads, a step limit and the error it was built to end in.  The same seed always
gives the same case.  Two seeds in three give valid programs that halt; the
third ends in one error kind (`ERROR_KINDS`, Triton VM's kinds plus our
StepLimitExceeded, in turn), placed after a valid prefix, so that every kind is
reached with a non-trivial state.  `generate_valid` and `generate_failing` pick
the variant explicitly; `SMALL` and `LARGE` are the size presets.

How termination and validity are guaranteed:

- Code is built from *routines* (plain functions and counted loops) and a
  main body.  A routine calls only routines generated before it, except the
  deep-recursion routine, which calls itself under a counter.
- Loop counters live in RAM at reserved addresses (`COUNTER_BASE + k`), which
  data statements never write, so no statement can disturb a loop.
- Every statement leaves the op-stack depth as it found it (16 words at the
  start of main), so nothing is ever too shallow; u32 operands come from
  expressions that are u32 by construction; divisors, logarithms and inverses
  get operands that are non-zero by construction; `assert` gets a 1.
- Public input, secret input and secret digests are counted exactly (per
  routine, times loop iterations) and supplied in that amount.

Values are drawn with edge cases (0, 1, p-1, 2^32-1, 2^32, equal operands) well
represented.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from vm.interp import STEP_LIMIT_KIND
from vm.isa import ALL_MNEMONICS, Arg, Failure, instruction_set

P = 2**64 - 2**32 + 1
COUNTER_BASE = 1 << 48  # loop counters live at COUNTER_BASE + routine number
FIELD_EDGES = (0, 1, 2, P - 1, P - 2, 2**32 - 1, 2**32, 2**32 + 1, 2**63, P // 2)
U32_EDGES = (0, 1, 2, 3, 2**31, 2**32 - 2, 2**32 - 1)
POINTER_EDGES = (0, 1, 5, 100, 2**32 - 2, P - 1, P - 3, P - 9, 2**40)

ERROR_KINDS = (*Failure, STEP_LIMIT_KIND)  # every instruction's kinds (vm.isa), and ours


@dataclass
class Case:
    """A generated program and everything it reads."""

    seed: int
    text: str
    isa: str = "rel"
    public_input: list[int] = field(default_factory=list)
    secret_input: list[int] = field(default_factory=list)
    secret_digests: list[tuple[int, ...]] = field(default_factory=list)
    ram: dict[int, int] = field(default_factory=dict)
    max_steps: int = 1 << 22
    expected_error: str | None = None  # the kind the program was built to end in

    def inputs(self) -> dict:
        """Keyword arguments for `vm.interp.execute` and `vm.jit.execute`."""
        return dict(
            public_input=self.public_input,
            secret_input=self.secret_input,
            secret_digests=self.secret_digests,
            ram=self.ram,
            max_steps=self.max_steps,
        )


@dataclass(frozen=True)
class Size:
    """How much code to generate: statement counts are drawn from these ranges."""

    routines: int = 5  # at most this many routines
    body: int = 6  # statements per routine or loop body, at most
    main: tuple[int, int] = (3, 25)  # statements in main
    cycles: int = 20_000  # stop adding statements beyond about this many cycles


LARGE = Size()
SMALL = Size(routines=3, body=3, main=(2, 8), cycles=6_000)


@dataclass
class Cost:
    """What a piece of code consumes each time it runs."""

    cycles: int = 0
    public: int = 0
    secret: int = 0
    digests: int = 0

    @property
    def reads_nothing(self) -> bool:
        return self.public == self.secret == self.digests == 0

    def add(self, other: Cost, times: int = 1) -> None:
        self.cycles += other.cycles * times
        self.public += other.public * times
        self.secret += other.secret * times
        self.digests += other.digests * times


@dataclass
class Routine:
    name: str
    lines: list[str]
    cost: Cost  # per call, loops included


class Generator:
    """Builds one program; `code` calls append instructions and count their cost."""

    def __init__(self, seed: int, isa: str, size: Size):
        self.random = random.Random(seed)
        self.isa = isa
        self.size = size
        self.cycle_budget = size.cycles
        self.routines: list[Routine] = []
        self.uses_sponge = self.random.random() < 0.4
        self.reads_inputs = True  # False while building code that must run any number of times
        self.lines: list[str] = []
        self.cost = Cost()

    # --- emitting -------------------------------------------------------------------------

    def code(self, text: str) -> None:
        self.lines.append(text)
        self.cost.cycles += sum(word in ALL_MNEMONICS for word in text.split())

    def emit_into(self, lines: list[str], cost: Cost, build) -> None:
        """Run `build()` with output going to `lines` and its cost added to `cost`."""
        saved = self.lines, self.cost
        self.lines, self.cost = lines, cost
        try:
            build()
        finally:
            self.lines, self.cost = saved

    # --- values -----------------------------------------------------------------------------

    def field_constant(self) -> int:
        return (
            self.random.choice(FIELD_EDGES)
            if self.random.random() < 0.5
            else self.random.randrange(P)
        )

    def u32_constant(self) -> int:
        if self.random.random() < 0.5:
            return self.random.choice(U32_EDGES)
        return self.random.randrange(1 << self.random.choice((4, 16, 32)))

    def pointer(self) -> int:
        if self.random.random() < 0.5:
            return self.random.choice(POINTER_EDGES)
        return self.random.randrange(64)

    def field_value(self, depth: int = 2) -> None:
        """Code that pushes one field element."""
        choice = self.random.randrange(12 if depth > 0 else 5)
        if choice in (2, 3) and not self.reads_inputs:
            choice = 0
        if choice == 0:
            self.code(f"push {self.field_constant()}")
        elif choice == 1:
            self.code(f"dup {self.random.randrange(16)}")
        elif choice == 2:
            self.code("read_io 1")
            self.cost.public += 1
        elif choice == 3:
            self.code("divine 1")
            self.cost.secret += 1
        elif choice == 4:
            self.code(f"push {self.pointer()} read_mem 1 pop 1")
        elif choice in (5, 6):
            self.field_value(depth - 1)
            if self.random.random() < 0.2:
                self.code("dup 0")  # equal operands
            else:
                self.field_value(depth - 1)
            self.code(self.random.choice(("add", "mul", "eq", "add", "mul")))
        elif choice == 7:
            self.field_value(depth - 1)
            self.code(f"addi {self.field_constant()}")
        elif choice == 8:
            self.u32_value(depth - 1)
        elif choice == 9:
            self.u32_value(depth - 1)
            self.field_value(depth - 1)
            self.code("pow")
        elif choice == 10:
            self.nonzero_u32(depth - 1)
            self.code("invert")
        else:
            self.code(f"dup {self.random.randrange(16)}")
            self.code(f"dup {self.random.randrange(16)}")
            self.code("mul")

    def u32_value(self, depth: int = 2) -> None:
        """Code that pushes one value below 2^32."""
        choice = self.random.randrange(8 if depth > 0 else 1)
        if choice == 0:
            self.code(f"push {self.u32_constant()}")
        elif choice == 1:
            self.field_value(depth - 1)
            self.code(self.random.choice(("split pop 1", "split swap 1 pop 1")))
        elif choice in (2, 3):
            self.u32_value(depth - 1)
            if self.random.random() < 0.2:
                self.code("dup 0")  # equal operands
            else:
                self.u32_value(depth - 1)
            self.code(self.random.choice(("lt", "and", "xor")))
        elif choice == 4:
            self.u32_value(depth - 1)
            self.code("pop_count")
        elif choice == 5:
            self.nonzero_u32(depth - 1)
            self.code("log_2_floor")
        else:
            self.nonzero_u32(depth - 1)
            self.u32_value(depth - 1)
            self.code(self.random.choice(("div_mod pop 1", "div_mod swap 1 pop 1")))

    def nonzero_u32(self, depth: int = 1) -> None:
        if depth <= 0 or self.random.random() < 0.5:
            self.code(f"push {self.random.choice((1, 2, 7, 2**31, 2**32 - 1))}")
        else:
            self.u32_value(depth - 1)
            self.code("pop_count addi 1")

    def values(self, count: int) -> None:
        for _ in range(count):
            self.field_value(1)

    def sink(self, count: int = 1) -> None:
        """Code that consumes `count` words from the top."""
        choice = self.random.randrange(6)
        if choice == 0 or count > 1 and choice < 3:
            self.code(f"{self.random.choice(('pop', 'write_io'))} {count}")
        elif choice == 1 and count <= 5:
            self.code(f"push {self.pointer()} write_mem {count} pop 1")
        else:
            for _ in range(count):
                index = self.random.randrange(1, 16)
                self.code(
                    self.random.choice(
                        (f"swap {index} pop 1", f"place {index} pop 1", "add", "mul")
                    )
                )

    # --- statements: each leaves the stack depth unchanged -----------------------------------

    def statement(self, routines: list[Routine], counter: int | None = None) -> None:
        kinds = [
            self.arithmetic,
            self.arithmetic,
            self.u32_statement,
            self.shuffle,
            self.memory,
            self.memory,
            self.hashing,
            self.extension_field,
            self.assertion,
            self.conditional,
        ]
        if self.reads_inputs:
            kinds.append(self.io)
        else:
            routines = [routine for routine in routines if routine.cost.reads_nothing]
        if self.uses_sponge:
            kinds.append(self.sponge)
        if routines:
            kinds += [self.call, self.call]
        if counter is not None:
            kinds += [self.counter_memory, self.counter_memory]
        choice = self.random.choice(kinds)
        if choice in (self.call, self.conditional):
            choice(routines)
        elif choice == self.counter_memory:
            choice(counter)
        else:
            choice()

    def arithmetic(self) -> None:
        self.field_value(3)
        self.sink()

    def u32_statement(self) -> None:
        self.u32_value(3)
        self.sink()

    def shuffle(self) -> None:
        first, second = self.random.randrange(16), self.random.randrange(16)
        self.code(
            self.random.choice(
                (
                    f"swap {first}",
                    f"pick {first}",
                    f"place {first}",
                    f"pick {first} place {second}",
                    f"dup {first} swap {max(1, second)} pop 1",
                    "nop",
                )
            )
        )

    def memory(self) -> None:
        count = self.random.randint(1, 5)
        pointer = self.pointer()
        if self.random.random() < 0.5:
            self.values(count)
            self.code(f"push {pointer} write_mem {count} pop 1")
        else:
            self.code(f"push {pointer} read_mem {count} pop 1")
            self.sink(count)

    def counter_memory(self, counter: int) -> None:
        """Write or read at an address computed from the loop counter: many distinct cells."""
        stride = self.random.choice((1, 5, 1000, P - 1))
        self.field_value(1)
        self.code(f"push {counter} read_mem 1 pop 1 push {stride} mul addi {self.pointer()}")
        if self.random.random() < 0.6:
            self.code("write_mem 1 pop 1")
        else:
            self.code("read_mem 1 pop 1 add")
            self.sink()

    def hashing(self) -> None:
        choice = self.random.randrange(4)
        if choice == 2 and not self.reads_inputs:
            choice = 0
        if choice <= 1:
            self.values(10)
            self.code("hash")
            self.sink(5)
        elif choice == 2:
            self.u32_value(1)
            self.values(5)
            self.code("merkle_step")
            self.cost.digests += 1
            self.sink(5)
            self.sink(1)
        else:
            self.code(f"push {self.pointer()}")
            self.field_value(1)
            self.u32_value(1)
            self.values(5)
            self.code("merkle_step_mem")
            self.sink(5)
            self.code("pop 3")

    def sponge(self) -> None:
        choice = self.random.randrange(4)
        if choice == 0:
            self.values(10)
            self.code("sponge_absorb")
        elif choice == 1:
            self.code(f"push {self.pointer()} sponge_absorb_mem pop 1")
        elif choice == 2:
            self.code("sponge_squeeze")
            self.sink(5)
            self.sink(5)
        else:
            self.code("sponge_init")

    def extension_field(self) -> None:
        choice = self.random.randrange(6)
        if choice <= 1:
            self.values(6)
            self.code(self.random.choice(("xx_add", "xx_mul")))
            self.sink(3)
        elif choice == 2:
            self.values(2)
            self.nonzero_u32(1)
            self.code("x_invert")
            self.sink(3)
        elif choice == 3:
            self.values(4)
            self.code("xb_mul")
            self.sink(3)
        elif self.isa == "rel":
            self.values(3)
            self.code(f"push {self.pointer()} push {self.pointer()}")
            self.code(self.random.choice(("xx_dot_step", "xb_dot_step")))
            self.sink(5)
        else:
            self.values(10)
            self.code(self.random.choice(("b_horner_step", "x_horner_step")))
            self.sink(5)
            self.sink(5)

    def io(self) -> None:
        count = self.random.randint(1, 5)
        if self.random.random() < 0.5:
            self.code(f"read_io {count}")
            self.cost.public += count
        else:
            self.code(f"divine {count}")
            self.cost.secret += count
        self.sink(count)

    def assertion(self) -> None:
        choice = self.random.randrange(3)
        if choice == 0:
            self.code("push 1 assert")
        elif choice == 1:
            self.field_value(2)
            self.code("dup 0 eq assert")
        else:
            self.values(5)
            self.code("dup 4 dup 4 dup 4 dup 4 dup 4 assert_vector")
            self.sink(5)

    def conditional(self, routines: list[Routine]) -> None:
        """`skiz` over one depth-neutral instruction that reads no input."""
        if self.random.random() < 0.6:
            self.field_value(1)
        else:
            self.code(f"push {self.random.choice((0, 1))}")
        options = ["nop", f"swap {self.random.randrange(16)}", f"addi {self.field_constant()}"]
        quiet = [  # plain routines only: a loop needs its counter set first
            routine
            for routine in routines
            if routine.cost.reads_nothing and routine.name.startswith("routine")
        ]
        if quiet:
            options.append(f"call {self.random.choice(quiet).name}")
        guarded = self.random.choice(options)
        self.code(f"skiz {guarded}")
        if guarded.startswith("call"):
            routine = next(r for r in quiet if r.name == guarded.split()[1])
            self.cost.cycles += routine.cost.cycles

    def call(self, routines: list[Routine]) -> None:
        routine = self.random.choice(routines)
        if routine.name.startswith(("loop", "deep")):
            iterations = int(routine.name.rsplit("_", 1)[1])
            number = int(routine.name.split("_")[1])
            self.code(f"push {iterations} push {COUNTER_BASE + number} write_mem 1 pop 1")
        self.code(f"call {routine.name}")
        self.cost.add(routine.cost)

    # --- routines -----------------------------------------------------------------------------

    def body(self, routines: list[Routine], statements: int, counter: int | None) -> None:
        for _ in range(statements):
            if self.cost.cycles > self.cycle_budget:
                break
            self.statement(routines, counter)

    def routine(self, number: int) -> Routine:
        """A plain function, a counted loop, a recurse_or_return loop or a deep recursion."""
        earlier = list(self.routines)
        lines: list[str] = []
        cost = Cost()
        kind = self.random.choices(("routine", "loop", "loop", "deep"), (4, 3, 2, 1))[0]
        counter = COUNTER_BASE + number
        read_counter = f"push {counter} read_mem 1 pop 1"
        decrement = f"{read_counter} addi -1 push {counter} write_mem 1 pop 1"
        if kind == "routine":
            name = f"routine_{number}"
            statements = self.random.randint(1, self.size.body)
            self.emit_into(lines, cost, lambda: self.body(earlier, statements, None))
            lines.append("return")
            cost.cycles += 1
            return Routine(name, [f"{name}:", *lines], cost)
        if kind == "deep":
            iterations = self.random.choice((10, 100, 700, 2000))
            name = f"deep_{number}_{iterations}"
            per_level = Cost()

            def deep_level():
                self.code(f"{read_counter} push 0 eq skiz return {decrement}")
                self.field_value(1)
                self.code(f"call {name}")
                self.sink()
                self.code("return")

            self.emit_into(lines, per_level, deep_level)
            cost.add(per_level, iterations)
            cost.cycles += 10  # the last level only checks the counter
            return Routine(name, [f"{name}:", *lines], cost)
        iterations = self.random.choice((1, 2, 3, 7, 12, 40) if number else (50, 300, 1500))
        name = f"loop_{number}_{iterations}"
        per_iteration = Cost()
        statements = self.random.randint(1, self.size.body)
        if self.random.random() < 0.5:

            def loop_body():
                self.code(f"{read_counter} push 0 eq skiz return")
                self.body(earlier, statements, counter)
                self.code(f"{decrement} recurse")

            self.emit_into(lines, per_iteration, loop_body)
        else:

            def ror_body():  # st5 := counter - 1, st6 := 0, then recurse_or_return
                self.body(earlier, statements, counter)
                self.code(f"{decrement} {read_counter} push 0 swap 8 pop 1 swap 6 pop 1")
                self.code("recurse_or_return")

            self.emit_into(lines, per_iteration, ror_body)
        cost.add(per_iteration, iterations)
        cost.cycles += 10
        return Routine(name, [f"{name}:", *lines], cost)

    def build_routines(self) -> None:
        for number in range(self.random.randint(0, self.size.routines)):
            routine = self.routine(number)
            if routine.cost.cycles < self.cycle_budget:
                self.routines.append(routine)

    def text(self, main: list[str]) -> str:
        lines = [*main]
        for routine in self.routines:
            lines.extend(routine.lines)
        return "\n".join(lines) + "\n"


def _inputs(generator: Generator, case: Case, cost: Cost) -> None:
    rng = generator.random
    case.public_input = [generator.field_constant() for _ in range(cost.public)]
    case.secret_input = [generator.field_constant() for _ in range(cost.secret)]
    case.secret_digests = [
        tuple(generator.field_constant() for _ in range(5)) for _ in range(cost.digests)
    ]
    base = generator.pointer()
    case.ram = {(base + offset) % P: rng.randrange(P) for offset in range(rng.randint(0, 8))}


def generate_valid(seed: int, isa: str = "rel", size: Size = LARGE) -> Case:
    """A program that halts, with exactly the inputs it reads."""
    generator = Generator(seed, isa, size)
    generator.build_routines()
    main: list[str] = []
    cost = Cost()

    def main_body():
        if generator.uses_sponge:
            generator.code("sponge_init")
        generator.body(generator.routines, generator.random.randint(*size.main), None)
        generator.code("halt")

    generator.emit_into(main, cost, main_body)
    case = Case(seed, generator.text(main), isa)
    _inputs(generator, case, cost)
    return case


def _failure(generator: Generator, kind: str) -> str:
    """Code that fails with `kind` when it runs at op-stack depth 16 with all input read."""
    rng = generator.random
    big = rng.choice((2**32, 2**32 + 1, P - 1, 2**63))
    if kind == "AssertionFailed":
        return f"push {rng.choice((0, 2, P - 1, 2**32))} assert"
    if kind == "VectorAssertionFailed":
        index = rng.randrange(5)
        values = [rng.randrange(100) for _ in range(5)]
        other = [value + (position == index) for position, value in enumerate(values)]
        return " ".join(f"push {value}" for value in values + other) + " assert_vector"
    if kind == "TooShallow":
        rows = instruction_set(generator.isa).values()
        row = rng.choice([row for row in rows if row.stack_delta(1) < 0])
        count = rng.randint(1, 5)
        argument = f" {count}" if row.arg is Arg.COUNT else ""
        pushes = rng.randrange(-row.stack_delta(count))  # fewer than the instruction removes
        return "push 1 " * pushes + row.name + argument
    if kind == "FailedU32Conversion":
        return rng.choice(
            (
                f"push 5 push {big} lt",
                f"push {big} push 5 and",
                f"push {big} push {big} xor",
                f"push {big} log_2_floor",
                f"push {big} pop_count",
                f"push {big} push 3 pow",
                f"push 7 push {big} div_mod",
                f"push {big} push 7 div_mod",
                f"push {big} push 1 push 2 push 3 push 4 push 5 merkle_step",
                f"push {big} push 1 push 2 push 3 push 4 push 5 merkle_step_mem",
            )
        )
    if kind == "InverseOfZero":
        return rng.choice(("push 0 invert", "push 0 push 0 push 0 x_invert"))
    if kind == "DivisionByZero":
        return f"push 0 push {rng.choice((0, 1, 2**32 - 1))} div_mod"
    if kind == "LogarithmOfZero":
        return "push 0 log_2_floor"
    if kind == "JumpStackIsEmpty":
        return rng.choice(("return", "recurse", "recurse_or_return"))
    if kind == "SpongeNotInitialized":
        return rng.choice(
            ("sponge_squeeze", "push 3 sponge_absorb_mem", "push 0 " * 10 + "sponge_absorb")
        )
    if kind == "EmptyPublicInput":
        return f"read_io {rng.randint(1, 5)}"
    if kind == "EmptySecretInput":
        return f"divine {rng.randint(1, 5)}"
    if kind == "EmptySecretDigestInput":
        return "push 3 push 1 push 2 push 3 push 4 push 5 merkle_step"
    raise ValueError(f"no failure of kind {kind}")


def _last_routine(generator: Generator, name: str, ending: str) -> Routine:
    """A routine placed last in the text, whose code runs into `ending`."""
    lines: list[str] = []
    reads_inputs, generator.reads_inputs = generator.reads_inputs, False
    generator.emit_into(
        lines, Cost(), lambda: generator.body([], generator.random.randint(0, 3), None)
    )
    generator.reads_inputs = reads_inputs
    return Routine(name, [f"{name}:", *lines, ending], Cost())


def generate_failing(seed: int, kind: str, isa: str = "rel", size: Size = LARGE) -> Case:
    """A valid prefix, then code that ends the run with error `kind`."""
    generator = Generator(seed, isa, Size(size.routines, size.body, size.main, size.cycles // 2))
    rng = generator.random
    if kind == "SpongeNotInitialized":
        generator.uses_sponge = False
    if kind == "StepLimitExceeded":
        generator.reads_inputs = False  # the run is cut off anywhere: it must need no input
    generator.build_routines()
    main: list[str] = []
    cost = Cost()

    def main_body():
        if generator.uses_sponge:
            generator.code("sponge_init")
        generator.body(generator.routines, rng.randint(0, size.main[1] // 2), None)

    generator.emit_into(main, cost, main_body)
    case = Case(seed, "", isa, expected_error=kind)
    if kind == "InstructionPointerOverflow":  # run off the end of the program
        ending = rng.choice(("", "push 0 skiz nop", "push 0 skiz", "nop"))
        generator.routines.append(_last_routine(generator, "last", ending))
        main.append("call last")
    elif kind == "StepLimitExceeded":  # never halts: loops for ever, or recurses for ever
        loop = _last_routine(generator, "spin", rng.choice(("recurse", "call spin")))
        generator.routines.append(loop)
        main.append("call spin")
        case.max_steps = rng.randint(0, 2 * cost.cycles + 5000)
    else:
        failure = _failure(generator, kind)
        main.append(failure)
        generator.emit_into(main, Cost(), lambda: generator.body(generator.routines, 2, None))
        main.append("halt")
    case.text = generator.text(main)
    _inputs(generator, case, cost)
    if kind in ("EmptyPublicInput", "EmptySecretInput"):  # fewer words than the read wants
        short = [generator.field_constant() for _ in range(rng.randrange(int(failure.split()[-1])))]
        stream = case.public_input if kind == "EmptyPublicInput" else case.secret_input
        stream.extend(short)
    return case


def generate(seed: int, isa: str | None = None, size: Size = LARGE) -> Case:
    """The case of `seed`: two valid programs in three, and every error kind in turn."""
    isa = isa or ("head" if seed % 5 == 4 else "rel")
    if seed % 3 == 2:
        kind = ERROR_KINDS[(seed // 3) % len(ERROR_KINDS)]
        return generate_failing(seed, kind, isa, size)
    return generate_valid(seed, isa, size)
