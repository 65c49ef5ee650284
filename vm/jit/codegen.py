"""Code generation: `Program` -> the LLVM IR of one native function (vm.jit.layout).

`generate(program, symbol)` returns IR text.  The function loads the machine
registers from `control`, jumps to the block at `control[IP]`, and from there
runs compiled blocks with native control flow: fall-through and `skiz` are
branches, `call` pushes onto the jump stack and branches, `return` and
`recurse` switch over the addresses a `call` of this program can have pushed.

Checkpoint blocks begin with the guard of their region (vm.jit.blocks): enough
steps left and a deep enough op stack (else HANDOFF: the interpreter runs to
the next checkpoint), enough room in every buffer the region may append to
(else SERVICE: the runtime grows the buffer and calls again).  Every block
then counts itself once and runs its instructions with no depth or capacity
tests.  Inside a block the op-stack pointer is a compile-time offset from its
value at block entry, and stack words are cached as SSA values: loaded at most
once, stored only when the block is left or before a check.  The top `WINDOW`
words stay in SSA registers across blocks (LLVM turns them into phis), so a
loop keeps its working values in machine registers; memory holds the rest,
and the exit writes the window back.  RAM accesses, Tip5, X-field products
and inverses and field powers are calls to shared helpers compiled once
(vm.jit.helpers), which keeps each program's IR, and so its compile time,
small.  The buffers are `noalias` arguments.

Instructions are emitted by `vm.jit.instructions` and `vm.jit.coprocessor`
through the `Context` below; a check that fails leaves through `fail_if` with
the state as it was before the instruction, as the interpreter's handlers do.
"""

from __future__ import annotations

from llvmlite import ir

from vm.field import P
from vm.isa import Failure
from vm.jit import arith, helpers
from vm.jit.arith import I32, I64, I64_POINTER, constant
from vm.jit.blocks import (
    MINIMUM_DEPTH,
    Block,
    BlockMap,
    Guard,
    following,
    skip_target,
    split_blocks,
)
from vm.jit.layout import (
    BUFFERS,
    ERROR_KINDS,
    STATE_WORDS,
    U32_KINDS,
    U32_LOG_WORDS,
    Control,
    Status,
)
from vm.tasm import Op, Program

COLD_WEIGHTS = (1, 1 << 20)  # branch weights: a failing check or guard is rare
# Registers kept as SSA values; the others stay in `control` and are loaded where used,
# so that the exits do not merge a dozen values from every exit site.
HOT = (Control.SP, Control.BUDGET, Control.JUMP_LENGTH)
# The top words of the op stack live in SSA registers across blocks (memory has the rest),
# so that a loop keeps its working values in machine registers.
WINDOW = 4


class Context:
    """What instruction emitters see: the op stack, registers, buffers and exits.

    The op-stack length is `base + offset`: `base` is the SSA value loaded at
    block entry and `offset` a Python int that `push` and `pop` move.
    """

    def __init__(self, program: Program, blocks: BlockMap, symbol: str):
        self.program = program
        self.blocks = blocks
        self.module = ir.Module(name=symbol)
        argument_types = [I64_POINTER] * (len(BUFFERS) + 2)
        self.function = ir.Function(self.module, ir.FunctionType(I64, argument_types), symbol)
        control, *buffers, self.helper_table = self.function.args
        for argument in self.function.args:
            argument.add_attribute("noalias")
        self.buffers = dict(zip(BUFFERS, buffers))
        self.cold = self.module.add_metadata(["branch_weights", *map(I32, COLD_WEIGHTS)])
        entry = self.function.append_basic_block("entry")
        self.builder = ir.IRBuilder(entry)
        self.registers = {
            register: self.builder.alloca(I64, name=register.name.lower()) for register in HOT
        }
        self.status = self.builder.alloca(I64, name="status")
        self.scratch = self.builder.alloca(ir.ArrayType(I64, STATE_WORDS), name="scratch")
        self.control = control
        for register in HOT:
            self.builder.store(self._control_load(register), self.registers[register])
        self.window = [self.builder.alloca(I64, name=f"st{depth}") for depth in range(WINDOW)]
        length = self.builder.load(self.registers[Control.SP])
        for depth, register in enumerate(self.window):
            word = self.builder.gep(buffers[0], [self.builder.sub(length, constant(depth + 1))])
            self.builder.store(self.builder.load(word), register)
        self.labels = {
            block.start: self.function.append_basic_block(f"block{block.start}")
            for block in blocks.blocks
        }
        self.labels[program.length] = self.function.append_basic_block("overflow")
        self.exit_block = self.function.append_basic_block("exit")
        self.entry = entry
        self.base = self.top = None
        self.offset = 0
        self.cache: dict[int, ir.Value] = {}
        self.dirty: set[int] = set()
        self.op: Op | None = None
        self.address = 0

    # --- registers, buffers, constants ------------------------------------------------------

    def _control_pointer(self, register: Control):
        return self.builder.gep(self.control, [constant(register)])

    def _control_load(self, register: Control):
        return self.builder.load(self._control_pointer(register))

    def register(self, register: Control):
        """A register's value: SSA for the hot ones, else a load from `control`."""
        if register in self.registers:
            return self.builder.load(self.registers[register])
        return self._control_load(register)

    def set_register(self, register: Control, value) -> None:
        pointer = self.registers.get(register)
        self.builder.store(
            value, pointer if pointer is not None else self._control_pointer(register)
        )

    def read_only(self, register: Control):
        return self._control_load(register)

    def word_pointer(self, buffer: str, index):
        if isinstance(index, int):
            index = constant(index)
        return self.builder.gep(self.buffers[buffer], [index])

    def load(self, buffer: str, index):
        return self.builder.load(self.word_pointer(buffer, index))

    def store(self, buffer: str, index, value) -> None:
        self.builder.store(value, self.word_pointer(buffer, index))

    def add(self, a, b):
        if isinstance(b, int):
            return a if b == 0 else self.builder.add(a, constant(b))
        return self.builder.add(a, b)

    # --- the op stack -----------------------------------------------------------------------
    # Positions count from the stack length at block entry: st_d is at `offset - 1 - d`.

    def _slot(self, position: int):
        return self.builder.gep(self.top, [constant(position)])

    def value(self, depth: int):
        position = self.offset - 1 - depth
        if position not in self.cache:
            self.cache[position] = self.builder.load(self._slot(position))
        return self.cache[position]

    def set(self, depth: int, value) -> None:
        position = self.offset - 1 - depth
        self.cache[position] = value
        self.dirty.add(position)

    def push(self, value) -> None:
        self.set(-1, value)
        self.offset += 1

    def pop(self, count: int = 1) -> None:
        self.offset -= count
        for position in [position for position in self.cache if position >= self.offset]:
            del self.cache[position]  # above the top: never needed again
            self.dirty.discard(position)

    def sync(self) -> None:
        """Make the state exact here: the top `WINDOW` words in the window registers, every
        other changed word in memory.  Run before anything can leave the block."""
        for depth, register in enumerate(self.window):
            self.builder.store(self.value(depth), register)
        below = self.offset - WINDOW
        for position in sorted(position for position in self.dirty if position < below):
            self.builder.store(self.cache[position], self._slot(position))
        self.dirty = {position for position in self.dirty if position >= below}

    # --- field helpers for emitters ------------------------------------------------------

    def plus(self, value, amount: int):
        """value + amount in the field: pointer arithmetic wraps mod p."""
        return arith.add(self.builder, value, constant(amount % P))

    def minus(self, value, amount: int):
        return arith.sub(self.builder, value, constant(amount % P))

    def not_u32(self, value):
        return self.builder.icmp_unsigned(">=", value, constant(1 << 32))

    def stack_length(self):
        return self.add(self.base, self.offset)

    # --- shared helpers: field power, X-field, RAM ------------------------------------

    def call(self, name: str, arguments: list):
        """Call a shared helper (vm.jit.helpers)."""
        return helpers.call(self.builder, self.helper_table, name, arguments)

    def field_power(self, base, exponent):
        return self.call("field_power", [base, exponent])

    def _x_call(self, name: str, words: list) -> tuple:
        out = self.builder.gep(self.scratch, [constant(0), constant(0)])
        self.call(name, [*words, out])
        return tuple(self.builder.load(self.builder.gep(out, [constant(k)])) for k in range(3))

    def x_mul(self, a, b) -> tuple:
        return self._x_call("x_mul", [*a, *b])

    def x_inverse(self, a) -> tuple:
        return self._x_call("x_inverse", list(a))

    def _ram_arguments(self, pointer, offset: int) -> list:
        if self.ram_registers is None:  # loaded once per block
            mask, shift = self.read_only(Control.RAM_MASK), self.read_only(Control.RAM_SHIFT)
            self.ram_registers = [self.buffers["ram"], mask, shift]
        return [*self.ram_registers, pointer, constant(offset % P)]

    def ram_read(self, pointer, offset: int = 0):
        """The RAM word at field address pointer + offset."""
        return self.call("ram_read", self._ram_arguments(pointer, offset))

    def ram_write(self, pointer, offset: int, value) -> None:
        arguments = [*self._ram_arguments(pointer, offset), value]
        added = self.call("ram_write", arguments)
        self.set_register(Control.RAM_COUNT, self.add(self.register(Control.RAM_COUNT), added))

    # --- effect logs ----------------------------------------------------------------------

    def log_u32(self, kind: str, lhs, rhs) -> None:
        """Record the u32 entry (kind, lhs, rhs); rhs is always below 2^32."""
        length = self.register(Control.U32_LENGTH)
        position = self.builder.mul(length, constant(U32_LOG_WORDS))
        self.store("u32_log", position, lhs)
        code = constant(U32_KINDS.index(kind) << 32)
        self.store("u32_log", self.add(position, 1), self.builder.or_(code, rhs))
        self.set_register(Control.U32_LENGTH, self.add(length, 1))

    def permute(self, words: list, into_sponge: bool = False) -> list:
        """Log the 16-word input and permute it; returns the first 5 output words.

        With `into_sponge` the output goes to the sponge buffer and nothing is returned.
        """
        length = self.register(Control.PERMUTATION_LENGTH)
        position = self.builder.mul(length, constant(STATE_WORDS))
        for index, word in enumerate(words):
            self.store("permutation_log", self.add(position, index), word)
        self.set_register(Control.PERMUTATION_LENGTH, self.add(length, 1))
        source = self.word_pointer("permutation_log", position)
        if into_sponge:
            self.call("tip5_permute", [source, self.buffers["sponge"]])
            return []
        target = self.builder.gep(self.scratch, [constant(0), constant(0)])
        self.call("tip5_permute", [source, target])
        return [
            self.builder.load(self.builder.gep(self.scratch, [constant(0), constant(index)]))
            for index in range(5)
        ]

    # --- exits and control flow -----------------------------------------------------------

    def _leave(self, status: Status, ip: int, detail: int | None = None) -> None:
        """Go to the exit with `status`; the state must be synced (`sync`).  Only the hot
        registers, the window and the status merge there: the rest is stored where it
        changes."""
        builder = self.builder
        builder.store(constant(ip), self._control_pointer(Control.IP))
        if detail is not None:
            builder.store(constant(detail), self._control_pointer(Control.DETAIL))
        self.set_register(Control.SP, self.stack_length())
        builder.store(constant(status), self.status)
        builder.branch(self.exit_block)

    def _cold_branch(self, condition, name: str):
        """Branch to a new cold block if `condition`; returns it, positioned after the branch."""
        cold = self.function.append_basic_block(f"{name}{self.address}")
        warm = self.function.append_basic_block(f"continue{self.address}")
        branch = self.builder.cbranch(condition, cold, warm)
        branch.set_metadata("prof", self.cold)
        return cold, warm

    def fail_if(self, condition, kind: str, *more) -> None:
        """Stop with error `kind` if `condition`, at the current instruction, before it has
        changed anything.  `more` adds (condition, kind) pairs, tested in order after the
        first: one branch serves them all, and the first that holds names the kind."""
        checks = [(condition, kind), *zip(more[0::2], more[1::2])]
        builder = self.builder
        failed = checks[0][0]
        for extra, _ in checks[1:]:
            failed = builder.or_(failed, extra)
        self.sync()  # here, not on the cold path: one set of stores serves every exit
        cold, warm = self._cold_branch(failed, "fail")
        builder.position_at_end(cold)
        detail = constant(ERROR_KINDS.index(checks[-1][1]))
        for check, name in reversed(checks[:-1]):
            detail = builder.select(check, constant(ERROR_KINDS.index(name)), detail)
        builder.store(detail, self._control_pointer(Control.DETAIL))
        self._leave(Status.FAILED, self.address)
        builder.position_at_end(warm)

    def halt(self) -> None:
        self.sync()
        self._leave(Status.HALTED, self.address)

    def _leave_block(self) -> None:
        self.sync()
        self.set_register(Control.SP, self.stack_length())

    def goto(self, address: int) -> None:
        self._leave_block()
        self.builder.branch(self.labels[address])

    def branch_if(self, condition, address_if_true: int, address_if_false: int) -> None:
        self._leave_block()
        self.builder.cbranch(condition, self.labels[address_if_true], self.labels[address_if_false])

    def switch(self, value, addresses: tuple[int, ...]) -> None:
        """Branch to the block whose address equals `value`, an address pushed by a `call`
        of this program: one of `addresses`, so with one candidate, `value` is not needed."""
        self._leave_block()
        if len(addresses) == 1:
            self.builder.branch(self.labels[addresses[0]])
            return
        unknown = self.function.append_basic_block(f"unknown{self.address}")
        switch = self.builder.switch(value, unknown)  # the state is synced
        for address in addresses:
            switch.add_case(constant(address), self.labels[address])
        self.builder.position_at_end(unknown)
        self._leave(Status.FAILED, self.address, ERROR_KINDS.index("InternalReturnAddress"))

    def following(self) -> int:
        return following(self.program, self.program.op_index[self.address])

    def skip_target(self) -> int | None:
        return skip_target(self.program, self.program.op_index[self.address])

    # --- blocks ---------------------------------------------------------------------------

    def _guard(self, start: int, guard: Guard) -> None:
        """At a checkpoint: HANDOFF unless the steps left and the op stack suffice for the
        region, SERVICE unless every buffer has room for what the region may append."""
        builder = self.builder
        budget = self.register(Control.BUDGET)
        handoff = builder.icmp_signed("<", budget, constant(guard.steps))
        if guard.need > MINIMUM_DEPTH:
            shallow = builder.icmp_signed("<", self.base, constant(guard.need))
            handoff = builder.or_(handoff, shallow)
        cold, warm = self._cold_branch(handoff, "handoff")
        builder.position_at_end(cold)
        self._leave(Status.HANDOFF, start)
        builder.position_at_end(warm)
        wants = [
            (Control.SP, guard.growth, Control.STACK_CAPACITY),
            (Control.JUMP_LENGTH, guard.calls, Control.JUMP_CAPACITY),
            (Control.RAM_COUNT, guard.ram_accesses, Control.RAM_LIMIT),
            (Control.OUTPUT_LENGTH, guard.outputs, Control.OUTPUT_CAPACITY),
            (Control.U32_LENGTH, guard.u32_entries, Control.U32_CAPACITY),
            (Control.PERMUTATION_LENGTH, guard.permutations, Control.PERMUTATION_CAPACITY),
        ]
        short = None
        for register, amount, capacity in wants:
            if amount:
                current = self.base if register == Control.SP else self.register(register)
                exceeds = builder.icmp_signed(
                    ">", self.add(current, amount), self.read_only(capacity)
                )
                short = exceeds if short is None else builder.or_(short, exceeds)
        if short is not None:
            cold, warm = self._cold_branch(short, "service")
            builder.position_at_end(cold)
            self._leave(Status.SERVICE, start)
            builder.position_at_end(warm)

    def _start_block(self, address: int) -> None:
        self.address = address
        self.base = self.register(Control.SP)
        self.top = self.word_pointer("stack", self.base)
        self.offset = 0
        self.cache = {-1 - depth: self.builder.load(word) for depth, word in enumerate(self.window)}
        self.dirty = set(self.cache)  # the window is not in memory
        self.ram_registers = None

    def emit_block(self, block: Block, emitters: dict) -> None:
        self.builder.position_at_end(self.labels[block.start])
        self._start_block(block.start)
        if block.start in self.blocks.checkpoints:
            self._guard(block.start, self.blocks.guards[block.start])
        budget = self.register(Control.BUDGET)
        self.set_register(Control.BUDGET, self.builder.sub(budget, constant(block.length)))
        counter = self.word_pointer("counts", block.index)
        self.builder.store(self.add(self.builder.load(counter), 1), counter)
        for index, address in zip(block.op_indices, block.addresses):
            self.op, self.address = self.program.ops[index], address
            emitters[self.op.instruction.name](self, self.op)
        if not self.op.instruction.flow.ends_block:
            self.goto(self.following())

    def emit_overflow(self) -> None:
        """The pseudo-block at address L: one more step fails with InstructionPointerOverflow."""
        length = self.program.length
        self.builder.position_at_end(self.labels[length])
        self._start_block(length)
        if length in self.blocks.call_targets or length in self.blocks.call_returns:
            self._guard(length, Guard(steps=1))
        self._leave(Status.FAILED, length, ERROR_KINDS.index(Failure.INSTRUCTION_POINTER_OVERFLOW))

    def emit_dispatch(self) -> None:
        builder = self.builder
        builder.position_at_end(self.entry)
        ip = self.register(Control.IP)
        self._start_block(-1)
        unknown = self.function.append_basic_block("unknown_entry")
        switch = builder.switch(ip, unknown)
        for address in sorted(self.blocks.checkpoints):
            switch.add_case(constant(address), self.labels[address])
        builder.position_at_end(unknown)
        self._leave(Status.FAILED, -1, ERROR_KINDS.index("InternalReturnAddress"))
        builder.position_at_end(self.exit_block)
        for register in HOT:
            builder.store(builder.load(self.registers[register]), self._control_pointer(register))
        length = builder.load(self.registers[Control.SP])
        for depth, register in enumerate(self.window):
            word = self.word_pointer("stack", builder.sub(length, constant(depth + 1)))
            builder.store(builder.load(register), word)
        builder.ret(builder.load(self.status))


def emitters() -> dict:
    """The IR emitter of every instruction, by mnemonic (vm.jit.instructions, .coprocessor)."""
    from vm.jit import coprocessor, instructions

    return {**instructions.EMITTERS, **coprocessor.EMITTERS}


def generate(program: Program, symbol: str, blocks: BlockMap | None = None) -> str:
    """The IR text of the native function `symbol` that runs `program`."""
    blocks = blocks or split_blocks(program)
    context = Context(program, blocks, symbol)
    every_emitter = emitters()
    for block in blocks.blocks:
        context.emit_block(block, every_emitter)
    context.emit_overflow()
    context.emit_dispatch()
    return str(context.module)
