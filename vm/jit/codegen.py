"""Code generation: `Program` -> the LLVM IR of one native function (vm.jit.layout).

`generate(program, symbol)` returns IR text.  The program is cut into units
of bounded size (vm.jit.units), each an LLVM function, so that compiling
costs a bounded amount per instruction; the function `symbol` calls the unit
that holds `control[IP]` until one halts, fails, asks for service or hands
off, and calls the next when a unit leaves for an address in another
(`Status.CONTINUE`).  A unit loads the machine registers from `control`,
jumps to the block at `control[IP]`, and from there runs compiled blocks with
native control flow: fall-through and `skiz` are branches, `call` pushes onto
the jump stack and branches, `return` and `recurse` switch over the
addresses a `call` of this program can have pushed.

Checkpoint blocks begin with the guard of their region (vm.jit.blocks): enough
steps left and a deep enough op stack (else HANDOFF: the interpreter runs to
the next checkpoint), enough room in every buffer the region may append to
(else SERVICE: the runtime grows it and calls again).  Every block then
counts itself once and runs its instructions with no depth or capacity
tests.  Inside a block the op-stack pointer is a compile-time offset from its
value at block entry, and stack words are cached as SSA values: loaded at most
once, stored only when the block is left or before a check.  The top `WINDOW`
words stay in SSA registers across blocks (LLVM turns them into phis), so a
loop keeps its working values in machine registers; memory holds the rest,
and the exit writes the window back.  RAM is read through a page cache, with
a helper call only when the cache misses (vm.jit.memory); Tip5 with its
records, u32 entries, X-field products and inverses and field powers are
calls to shared helpers compiled once (vm.jit.helpers, vm.jit.records),
which keeps each program's IR small.  The buffers are `noalias` arguments.

Instructions are emitted by `vm.jit.instructions` and `vm.jit.coprocessor`
through the `Context` below; a check that fails leaves through `fail_if` with
the state as it was before the instruction, as the interpreter's handlers do.
"""

from __future__ import annotations

from llvmlite import ir

from vm.field import P
from vm.isa import Failure
from vm.jit import arith, helpers, memory
from vm.jit.arith import I32, I64, I64_POINTER, constant
from vm.jit.blocks import MINIMUM_DEPTH, BlockMap, Guard, following, skip_target, split_blocks
from vm.jit.coprocessor import REPEATED
from vm.jit.layout import BUFFERS, ERROR_KINDS, STATE_WORDS, U32_KINDS, Control, Status
from vm.jit.units import DEFAULT_LIMIT, Piece, Unit, UnitMap, partition
from vm.tasm import Op, Program

COLD_WEIGHTS = (1, 1 << 20)  # branch weights: a failing check or guard is rare
# Registers kept as SSA values; the others stay in `control` and are loaded where used,
# so that the exits do not merge a dozen values from every exit site.
HOT = (Control.SP, Control.BUDGET, Control.JUMP_LENGTH)
# The top words of the op stack live in SSA registers across blocks (memory has the rest),
# so that a loop keeps its working values in machine registers.
WINDOW = 4


def _function_type() -> ir.FunctionType:
    return ir.FunctionType(I64, [I64_POINTER] * (len(BUFFERS) + 2))


class Context:
    """What instruction emitters see while one unit's function is generated: the op stack,
    registers, buffers and exits.

    The op-stack length is `base + offset`: `base` is the SSA value loaded at
    block entry and `offset` a Python int that `push` and `pop` move.
    """

    def __init__(self, units: UnitMap, unit: Unit, module: ir.Module, name: str):
        self.program = units.blocks.program
        self.blocks = units.blocks
        self.units = units
        self.unit = unit
        self.module = module
        self.function = ir.Function(module, _function_type(), name)
        self.function.linkage = "internal"
        control, *buffers, self.helper_table = self.function.args
        for argument in self.function.args:
            argument.add_attribute("noalias")
        self.buffers = dict(zip(BUFFERS, buffers))
        self.cold = module.add_metadata(["branch_weights", *map(I32, COLD_WEIGHTS)])
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
            piece.address: self.function.append_basic_block(f"block{piece.address}")
            for piece in unit.pieces
        }
        self.owns_end = units.unit_of[self.program.length] == unit.index
        if self.owns_end:
            self.labels[self.program.length] = self.function.append_basic_block("overflow")
        self.exit_block = self.function.append_basic_block("exit")
        self.entry = entry
        self.base = self.top = None
        self.offset = 0
        self.cache: dict[int, ir.Value] = {}
        self.dirty: set[int] = set()
        self.op: Op | None = None
        self.address = 0
        self.repeat = 1  # how many equal instructions the current emitter stands for
        self.sponge_fresh = False  # a sponge_init ran since the sponge was last used

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

    # --- shared helpers: field power, X-field, RAM, records --------------------------------

    def call(self, name: str, arguments: list):
        """Call a shared helper (vm.jit.helpers)."""
        return helpers.call(self.builder, self.helper_table, name, arguments)

    def field_power(self, base, exponent):
        return self.call("field_power", [base, exponent])

    def _scratch(self, index: int = 0):
        return self.builder.gep(self.scratch, [constant(0), constant(index)])

    def call_out(self, name: str, arguments: list, results: int) -> tuple:
        """Call a helper that writes `results` words through a pointer after `arguments`."""
        self.call(name, [*arguments, self._scratch()])
        return tuple(self.builder.load(self._scratch(k)) for k in range(results))

    def _x_call(self, name: str, words: list) -> tuple:
        return self.call_out(name, words, 3)

    def x_mul(self, a, b) -> tuple:
        return self._x_call("x_mul", [*a, *b])

    def x_inverse(self, a) -> tuple:
        return self._x_call("x_inverse", list(a))

    def _page(self, address, create: bool):
        """The offset of the RAM page of `address` (vm.jit.memory)."""
        buffers = self.buffers
        names = ("ram_pages", "ram_index", "ram_cache")
        arguments = [self.control, *(buffers[name] for name in names)]
        page = self.builder.lshr(address, constant(memory.PAGE_BITS))
        return memory.page_offset(
            self.builder, lambda values: self.call("ram_page", values), arguments, page, create
        )

    def _address(self, pointer, offset: int):
        return pointer if offset % P == 0 else self.plus(pointer, offset)

    def ram_read(self, pointer, offset: int = 0):
        """The RAM word at field address pointer + offset."""
        address = self._address(pointer, offset)
        page = self._page(address, create=False)
        pages = self.buffers["ram_pages"]
        return self.builder.load(memory.cell_pointer(self.builder, pages, page, address))

    def ram_write(self, pointer, offset: int, value) -> None:
        address = self._address(pointer, offset)
        page = self._page(address, create=True)
        pages = self.buffers["ram_pages"]
        self.builder.store(value, memory.cell_pointer(self.builder, pages, page, address))
        memory.mark_written(self.builder, pages, page, address)

    def log_u32(self, kind: str, lhs, rhs) -> None:
        """Record the u32 entry (kind, lhs, rhs); rhs is always below 2^32."""
        code = constant(U32_KINDS.index(kind) << 32)
        table = self.buffers["u32_table"]
        self.call("u32_record", [self.control, table, lhs, self.builder.or_(code, rhs)])

    def _record_permutation(self, source, target) -> None:
        buffers = self.buffers
        records = [buffers[name] for name in ("permutation_log", "permutation_index", "cascade")]
        self.call("tip5_record", [self.control, *records, source, target])

    def permute(self, words: list) -> list:
        """Record the 16-word input and permute it; returns the first 5 output words."""
        for index, word in enumerate(words):
            self.builder.store(word, self._scratch(index))
        self._record_permutation(self._scratch(), self._scratch())
        return [self.builder.load(self._scratch(index)) for index in range(5)]

    def permute_sponge(self) -> None:
        """Record the sponge state and permute it in place."""
        sponge = self.word_pointer("sponge", 0)
        self._record_permutation(sponge, sponge)

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

    def label(self, address: int) -> ir.Block:
        """The block for `address`: its code in this unit, or an exit to the unit holding it
        (the state is synced on every edge, so the exit only names the address)."""
        if address not in self.labels:
            transfer = self.function.append_basic_block(f"transfer{address}")
            self.labels[address] = transfer
            here = self.builder.block
            self.builder.position_at_end(transfer)
            self.builder.store(constant(address), self._control_pointer(Control.IP))
            self.builder.store(constant(Status.CONTINUE), self.status)
            self.builder.branch(self.exit_block)
            self.builder.position_at_end(here)
        return self.labels[address]

    def goto(self, address: int) -> None:
        self._leave_block()
        self.builder.branch(self.label(address))

    def branch_if(self, condition, address_if_true: int, address_if_false: int) -> None:
        self._leave_block()
        self.builder.cbranch(condition, self.label(address_if_true), self.label(address_if_false))

    def switch(self, value, addresses: tuple[int, ...]) -> None:
        """Branch to the block whose address equals `value`, an address pushed by a `call`
        of this program: one of `addresses`, so with one candidate, `value` is not needed."""
        self._leave_block()
        if len(addresses) == 1:
            self.builder.branch(self.label(addresses[0]))
            return
        unknown = self.function.append_basic_block(f"unknown{self.address}")
        switch = self.builder.switch(value, unknown)  # the state is synced
        for address in addresses:
            switch.add_case(constant(address), self.label(address))
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
            (Control.RAM_PAGES, guard.ram_writes, Control.RAM_PAGE_CAPACITY),
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
        self.sponge_fresh = False

    def emit_piece(self, piece: Piece, emitters: dict) -> None:
        block = piece.block
        self.builder.position_at_end(self.labels[piece.address])
        self._start_block(piece.address)
        if piece.first:
            if block.start in self.blocks.checkpoints:
                self._guard(block.start, self.blocks.guards[block.start])
            budget = self.register(Control.BUDGET)
            self.set_register(Control.BUDGET, self.builder.sub(budget, constant(block.length)))
            counter = self.word_pointer("counts", block.index)
            self.builder.store(self.add(self.builder.load(counter), 1), counter)
        position = piece.start
        while position < piece.end:
            self.op = self.program.ops[block.op_indices[position]]
            self.address = block.addresses[position]
            name = self.op.instruction.name
            self.repeat = 1  # a run of equal dot steps is emitted once (vm.jit.coprocessor)
            if name in REPEATED:
                while (
                    position + self.repeat < piece.end
                    and self._name(block, position + self.repeat) == name
                ):
                    self.repeat += 1
            emitters[name](self, self.op)
            position += self.repeat
        if not piece.last:
            self.goto(piece.following)
        elif not self.op.instruction.flow.ends_block:
            self.goto(self.following())

    def _name(self, block, position: int) -> str:
        return self.program.ops[block.op_indices[position]].instruction.name

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
        for address in self.unit.entries:
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


def _emit_unit(units: UnitMap, unit: Unit, module: ir.Module, name: str, every_emitter):
    context = Context(units, unit, module, name)
    for piece in unit.pieces:
        context.emit_piece(piece, every_emitter)
    if context.owns_end:
        context.emit_overflow()
    context.emit_dispatch()
    return context.function


def _emit_main(module: ir.Module, symbol: str, units: UnitMap, functions: list) -> None:
    """`symbol`: call the unit holding control[IP] until a unit returns another status than
    CONTINUE, and return that; HANDOFF for an address no unit holds (it is interpreted)."""
    main = ir.Function(module, _function_type(), symbol)
    for argument in main.args:
        argument.add_attribute("noalias")
    arguments = list(main.args)
    entry = main.append_basic_block("entry")
    builder = ir.IRBuilder(entry)
    loop = main.append_basic_block("dispatch")
    done = main.append_basic_block("done")
    unknown = main.append_basic_block("not_compiled")
    builder.branch(loop)
    builder.position_at_end(loop)
    ip = builder.load(builder.gep(arguments[0], [constant(Control.IP)]))
    switch = builder.switch(ip, unknown)
    results = []
    for unit, function in zip(units.units, functions):
        calling = main.append_basic_block(f"unit{unit.index}")
        for address in unit.entries:
            switch.add_case(constant(address), calling)
        builder.position_at_end(calling)
        status = builder.call(function, arguments)
        results.append((status, calling))
        onward = builder.icmp_unsigned("==", status, constant(Status.CONTINUE))
        builder.cbranch(onward, loop, done)
    builder.position_at_end(unknown)
    builder.ret(constant(Status.HANDOFF))
    builder.position_at_end(done)
    status = builder.phi(I64, "status")
    for value, block in results:
        status.add_incoming(value, block)
    builder.ret(status)


def generate(
    program: Program,
    symbol: str,
    blocks: BlockMap | None = None,
    checkpoints: frozenset[int] | None = None,
    unit_limit: int = DEFAULT_LIMIT,
) -> str:
    """The IR text of the native function `symbol` that runs the regions of `checkpoints`
    (default: all) of `program`, in units of at most `unit_limit` instructions."""
    blocks = blocks or split_blocks(program)
    units = partition(blocks, checkpoints, unit_limit)
    module = ir.Module(name=symbol)
    every_emitter = emitters()
    functions = [
        _emit_unit(units, unit, module, f"{symbol}.unit{unit.index}", every_emitter)
        for unit in units.units
    ]
    _emit_main(module, symbol, units, functions)
    return str(module)
