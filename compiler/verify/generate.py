"""Random straight-line blocks and random mutations of them, for tests and benchmarks.

Input: a `random.Random` and a length.  Output: tuples of `vm.tasm.Op`s.

* `compiled_block` imitates what a compiler emits for expressions: operands
  fetched with `dup`, constants, field arithmetic (with `push -1 mul` for
  negation), comparisons, u32 arithmetic on values made u32 by `split`, range
  checks written as `split ... assert`, spills to RAM, I/O, hashing, X-field
  products, clean-up `pop`s and `swap`s.  Most of its blocks succeed on most
  u32 entry states, so that mutants are compared on runs that do something.
* `random_block` is any sequence of straight-line instructions.
* `mutate` inserts, deletes or replaces one instruction, or changes one argument.
"""

from __future__ import annotations

import random

from compiler.verify.symbolic import CONTROL_FLOW
from vm.field import P
from vm.isa import ARGUMENT_RANGE, Arg, instruction_set
from vm.tasm import Op

# fmt: off
INTERESTING_CONSTANTS = (
    0, 1, 2, 3, 5, 7, 10, 255, 256, 2**16, 2**31, 2**32 - 1, 2**32, P - 1, P - 2,
)
# fmt: on


def straight_line_names(isa: str = "rel") -> list[str]:
    return sorted(name for name in instruction_set(isa) if name not in CONTROL_FLOW)


def make_op(name: str, argument: int | None = None, isa: str = "rel") -> Op:
    return Op(instruction_set(isa)[name], argument)


def random_constant(generator: random.Random) -> int:
    roll = generator.random()
    if roll < 0.5:
        return generator.choice(INTERESTING_CONSTANTS)
    if roll < 0.8:
        return generator.randrange(1 << 32)
    return generator.randrange(P)


def random_argument(generator: random.Random, name: str, isa: str = "rel") -> int | None:
    kind = instruction_set(isa)[name].arg
    if kind is Arg.FIELD:
        return random_constant(generator)
    if kind in ARGUMENT_RANGE:
        return generator.choice(ARGUMENT_RANGE[kind])
    return None


# Weights of the instructions `random_instruction` picks: the common ones more often.
# fmt: off
COMMON = {
    "push": 6, "pop": 3, "dup": 6, "swap": 4, "pick": 2, "place": 2, "add": 4, "addi": 2,
    "mul": 4, "eq": 2, "split": 2, "lt": 2, "and": 1, "xor": 1, "div_mod": 1, "pow": 1,
    "invert": 1, "log_2_floor": 1, "pop_count": 1, "assert": 1, "write_io": 1, "read_io": 1,
    "divine": 1, "read_mem": 1, "write_mem": 1, "nop": 1,
}
# fmt: on


def random_instruction(generator: random.Random, isa: str = "rel") -> Op:
    names = straight_line_names(isa)
    weights = [COMMON.get(name, 0.3) for name in names]
    name = generator.choices(names, weights)[0]
    return make_op(name, random_argument(generator, name, isa), isa)


def random_block(generator: random.Random, length: int, isa: str = "rel") -> tuple[Op, ...]:
    return tuple(random_instruction(generator, isa) for _ in range(length))


def mutate(generator: random.Random, ops: tuple[Op, ...], isa: str = "rel") -> tuple[Op, ...]:
    """One random insertion, deletion, replacement or argument change."""
    ops = list(ops)
    with_argument = [index for index, op in enumerate(ops) if op.argument is not None]
    choice = generator.choice(("insert", "delete", "replace", "argument"))
    if choice == "argument" and with_argument:
        index = generator.choice(with_argument)
        op = ops[index]
        argument = random_argument(generator, op.instruction.name, isa)
        if op.instruction.arg is Arg.FIELD and generator.random() < 0.5:
            argument = (op.argument + generator.choice((-1, 1))) % P
        ops[index] = make_op(op.instruction.name, argument, isa)
    elif choice == "delete" and ops:
        del ops[generator.randrange(len(ops))]
    elif choice == "replace" and ops:
        ops[generator.randrange(len(ops))] = random_instruction(generator, isa)
    else:
        ops.insert(generator.randrange(len(ops) + 1), random_instruction(generator, isa))
    return tuple(ops)


class _Builder:
    """Emits instructions while tracking which stack words are known to be u32."""

    def __init__(self, generator: random.Random):
        self.generator = generator
        self.ops: list[Op] = []
        self.types: list[bool] = []  # the words this block pushed, bottom first: is u32?

    def emit(self, name: str, argument: int | None = None) -> None:
        self.ops.append(make_op(name, argument))

    def is_u32(self, index: int) -> bool:
        return index < len(self.types) and self.types[-1 - index]

    def pop_types(self, count: int) -> None:
        del self.types[max(0, len(self.types) - count) :]

    def fetch(self, want_u32: bool) -> None:
        """Push a copy of some word (made u32 with split if asked), or a constant."""
        generator = self.generator
        if generator.random() < 0.3:
            value = random_constant(generator)
            if want_u32:
                value %= 1 << 32
            self.emit("push", value)
            self.types.append(value < 1 << 32)
            return
        index = generator.randrange(min(len(self.types) + 4, 15))
        self.emit("dup", index)
        self.types.append(self.is_u32(index))
        if want_u32 and not self.types[-1]:
            self.emit("split")
            self.emit("swap", 1)
            self.emit("pop", 1)

    def step(self) -> None:
        generator = self.generator
        roll = generator.random()
        if roll < 0.25:  # field arithmetic
            self.fetch(False)
            self.fetch(False)
            pattern = generator.choice(("add", "mul", "sub", "neg_add", "addi"))
            if pattern == "sub":
                for name, argument in (("push", P - 1), ("mul", None), ("add", None)):
                    self.emit(name, argument)
            elif pattern == "neg_add":
                self.emit("swap", 1)
                self.emit("push", P - 1)
                self.emit("mul")
                self.emit("add")
            elif pattern == "addi":
                self.emit("pop", 1)
                self.emit("addi", random_constant(generator))
            else:
                self.emit(pattern)
            self.pop_types(2)
            self.types.append(False)
        elif roll < 0.45:  # u32 arithmetic
            self.fetch(True)
            self.fetch(True)
            name = generator.choice(("lt", "and", "xor", "div_mod", "pow", "lt"))
            if name == "div_mod":
                self.emit(name)
                self.pop_types(2)
                self.types += [True, True]
                return
            self.emit(name)
            self.pop_types(2)
            self.types.append(name != "pow")
        elif roll < 0.52:  # u32 unary
            self.fetch(True)
            self.emit("addi", 1)
            self.emit(generator.choice(("log_2_floor", "pop_count")))
        elif roll < 0.6:  # comparison, maybe asserted
            self.fetch(False)
            self.emit("dup", 0)
            if generator.random() < 0.5:
                self.emit("addi", generator.choice((0, 1)))
            self.emit("eq")
            self.pop_types(2)
            if generator.random() < 0.4:
                self.emit("assert")
            else:
                self.types.append(True)
        elif roll < 0.66:  # a u32 range check written with split
            self.fetch(False)
            for name, argument in (
                ("split", None),
                ("pop", 1),
                ("push", 0),
                ("eq", None),
                ("assert", None),
            ):
                self.emit(name, argument)
            self.pop_types(1)
        elif roll < 0.72:  # spill to RAM and load back
            address = generator.choice((0, 1, 100, 2**32, P - 1, generator.randrange(1000)))
            count = generator.randint(1, 3)
            self.emit("push", address)
            self.emit("write_mem" if generator.random() < 0.5 else "read_mem", count)
            self.emit("pop", 1)
            if self.ops[-2].instruction.name == "write_mem":
                self.pop_types(count)
            else:
                self.types += [False] * count
        elif roll < 0.78:  # I/O
            name = generator.choice(("read_io", "divine", "write_io"))
            count = generator.randint(1, 2)
            self.emit(name, count)
            if name == "write_io":
                self.pop_types(count)
            else:
                self.types += [False] * count
        elif roll < 0.82:
            self.fetch(False)
            self.emit("invert")
            self.types[-1] = False
        elif roll < 0.85:
            self.emit("hash")
            self.pop_types(10)
            self.types += [False] * 5
        elif roll < 0.88:  # X-field arithmetic: what it takes and leaves from vm.isa
            row = instruction_set()[generator.choice(("xx_mul", "xx_add", "xb_mul"))]
            self.emit(row.name)
            self.pop_types(row.stack_touched())
            self.types += [False] * (row.stack_touched() + row.stack_delta())
        else:  # clean-up and shuffles
            name = generator.choice(("pop", "swap", "pick", "place", "pop"))
            index = generator.randint(1, min(max(len(self.types), 1), 5 if name == "pop" else 8))
            self.emit(name, index)
            if name == "pop":
                self.pop_types(index)
            else:  # forget which words are u32 rather than track the shuffle
                self.types = [False] * len(self.types)


def compiled_block(generator: random.Random, length: int) -> tuple[Op, ...]:
    """A block of about `length` instructions that looks like compiler output."""
    builder = _Builder(generator)
    while len(builder.ops) < length:
        builder.step()
    return tuple(builder.ops[: max(length, 1)])
