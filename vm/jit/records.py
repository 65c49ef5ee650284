"""The effect records in native code: the u32 entry set and the permutation-input set.

Input: nothing but the layouts of vm.jit.layout; output: the shared helpers
(LLVM IR functions, compiled once per machine in vm.jit.support) that keep
the two records the interpreter keeps as Python sets (vm.interp.Machine) and
count what the tables need from them, so that a run's records are never
sorted or converted to count them:

- `u32_record(control, table, lhs, kind << 32 | rhs)` adds a u32 entry to an
  open-addressing set of slots `(lhs + 1, kind << 32 | rhs)` (0: empty; lhs
  is below p, so lhs + 1 is never 0); a new entry adds 1 to
  `control[U32_LENGTH]` and its rows (the bit length of the
  dominant operand + 1, or 1) to `control[U32_ROWS]`.
  `u32_insert_table(control, table, source, slots)` enters every entry of
  another table of that format (to grow the table, or to add entries the
  interpreter recorded).
- `tip5_record(control, log, index, cascade, input, output)` permutes the 16
  words at `input` into `output` (they may be the same buffer).  A new input
  is appended to `log` (16 words a row), its row number + 1 kept in the
  open-addressing `index`, and the permutation sets the bits of its cascade
  limbs in `cascade` (vm.jit.tip5_ir); a repeated input is only permuted.
  `permutation_insert_rows(control, log, index, cascade, rows, count, scratch)`
  records `count` inputs (rows of 16 words) the interpreter had recorded;
  `permutation_reindex(control, log, index)` rebuilds the index of a log
  (after the runtime made both larger).

A set is never more than half full: the runtime grows it (a checkpoint's
guard asks for room for everything its region may add, vm.jit.blocks).
"""

from __future__ import annotations

from llvmlite import ir

from vm.jit.arith import I1, I64, I64_POINTER, constant
from vm.jit.layout import POW_CODE, STATE_WORDS, U32_SLOT_WORDS, Control
from vm.jit.memory import MULTIPLIER, home_slot

VOID = ir.VoidType()
U32_RECORD_TYPE = ir.FunctionType(VOID, [I64_POINTER, I64_POINTER, I64, I64])
U32_INSERT_TABLE_TYPE = ir.FunctionType(VOID, [I64_POINTER, I64_POINTER, I64_POINTER, I64])
TIP5_RECORD_TYPE = ir.FunctionType(VOID, [I64_POINTER] * 6)
REINDEX_TYPE = ir.FunctionType(VOID, [I64_POINTER] * 3)
INSERT_ROWS_TYPE = ir.FunctionType(VOID, [I64_POINTER] * 5 + [I64, I64_POINTER])
PERMUTE_TYPE = ir.FunctionType(VOID, [I64_POINTER, I64_POINTER])
PERMUTE_MARKING_TYPE = ir.FunctionType(VOID, [I64_POINTER] * 3)

RHS_MULTIPLIER = 0xD6E8FEB86659FD93  # mixes the second word of a u32 entry into its hash
# A permutation input's hash: a sum of its words times distinct odd constants, then mixed.
WORD_MULTIPLIERS = tuple((MULTIPLIER * (2 * index + 3)) % 2**64 | 1 for index in range(16))


def _control(builder: ir.IRBuilder, control, register: Control):
    return builder.gep(control, [constant(register)])


def _load_control(builder: ir.IRBuilder, control, register: Control):
    return builder.load(_control(builder, control, register))


def _increment(builder: ir.IRBuilder, control, register: Control, amount) -> None:
    pointer = _control(builder, control, register)
    builder.store(builder.add(builder.load(pointer), amount), pointer)


def u32_rows(builder: ir.IRBuilder, lhs, code_rhs):
    """The u32 table rows of one entry: the dominant operand's bit length + 1, or 1 if it is
    0; the dominant operand is a `pow`'s exponent, else the larger operand."""
    rhs = builder.and_(code_rhs, constant(0xFFFFFFFF))
    is_pow = builder.icmp_unsigned("==", builder.lshr(code_rhs, constant(32)), constant(POW_CODE))
    larger = builder.select(builder.icmp_unsigned(">", lhs, rhs), lhs, rhs)
    dominant = builder.select(is_pow, rhs, larger)
    bits = builder.sub(constant(64), builder.ctlz(dominant, I1(0)))
    return builder.add(bits, constant(1))  # 0 has bit length 0: 1 row


def _emit_u32_insert(builder: ir.IRBuilder, control, table, lhs, code_rhs) -> None:
    """Add (lhs, code_rhs) to the set unless it is there; leaves the builder after it."""
    function = builder.block.function
    key = builder.add(lhs, constant(1))
    shift = _load_control(builder, control, Control.U32_SHIFT)
    mask = _load_control(builder, control, Control.U32_MASK)
    mixed = builder.xor(lhs, builder.mul(code_rhs, constant(RHS_MULTIPLIER)))
    home = home_slot(builder, mixed, shift)
    start = builder.block
    loop = function.append_basic_block("u32.probe")
    compare = function.append_basic_block("u32.compare")
    advance = function.append_basic_block("u32.advance")
    insert = function.append_basic_block("u32.insert")
    done = function.append_basic_block("u32.done")
    builder.branch(loop)
    builder.position_at_end(loop)
    slot = builder.phi(I64, "slot")
    slot.add_incoming(home, start)
    pointer = builder.gep(table, [builder.mul(slot, constant(U32_SLOT_WORDS))])
    stored = builder.load(pointer)
    builder.cbranch(builder.icmp_unsigned("==", stored, key), compare, advance)
    builder.position_at_end(compare)
    second = builder.load(builder.gep(pointer, [constant(1)]))
    builder.cbranch(builder.icmp_unsigned("==", second, code_rhs), done, advance)
    builder.position_at_end(advance)
    slot.add_incoming(builder.and_(builder.add(slot, constant(1)), mask), advance)
    builder.cbranch(builder.icmp_unsigned("==", stored, constant(0)), insert, loop)
    builder.position_at_end(insert)
    builder.store(key, pointer)
    builder.store(code_rhs, builder.gep(pointer, [constant(1)]))
    _increment(builder, control, Control.U32_LENGTH, constant(1))
    _increment(builder, control, Control.U32_ROWS, u32_rows(builder, lhs, code_rhs))
    builder.branch(done)
    builder.position_at_end(done)


def u32_record_function(module: ir.Module, name: str) -> ir.Function:
    function = ir.Function(module, U32_RECORD_TYPE, name)
    control, table, lhs, code_rhs = function.args
    builder = ir.IRBuilder(function.append_basic_block("entry"))
    _emit_u32_insert(builder, control, table, lhs, code_rhs)
    builder.ret_void()
    return function


def _counted_loop(builder: ir.IRBuilder, count, name: str):
    """Open `for i in range(count)`; returns (i, close) where close() ends the body."""
    function = builder.block.function
    entry = builder.block
    loop = function.append_basic_block(f"{name}.loop")
    body = function.append_basic_block(f"{name}.body")
    done = function.append_basic_block(f"{name}.done")
    builder.branch(loop)
    builder.position_at_end(loop)
    index = builder.phi(I64, f"{name}.index")
    index.add_incoming(constant(0), entry)
    builder.cbranch(builder.icmp_unsigned("<", index, count), body, done)
    builder.position_at_end(body)

    def close() -> None:
        index.add_incoming(builder.add(index, constant(1)), builder.block)
        builder.branch(loop)
        builder.position_at_end(done)

    return index, close


def u32_insert_table_function(module: ir.Module, name: str) -> ir.Function:
    """`void name(control, table, source, slots)`: add every entry of the table `source`."""
    function = ir.Function(module, U32_INSERT_TABLE_TYPE, name)
    control, table, source, slots = function.args
    builder = ir.IRBuilder(function.append_basic_block("entry"))
    index, close = _counted_loop(builder, slots, "slots")
    pointer = builder.gep(source, [builder.mul(index, constant(U32_SLOT_WORDS))])
    key = builder.load(pointer)
    occupied = function.append_basic_block("occupied")
    next_slot = function.append_basic_block("next_slot")
    builder.cbranch(builder.icmp_unsigned("==", key, constant(0)), next_slot, occupied)
    builder.position_at_end(occupied)
    code_rhs = builder.load(builder.gep(pointer, [constant(1)]))
    _emit_u32_insert(builder, control, table, builder.sub(key, constant(1)), code_rhs)
    builder.branch(next_slot)
    builder.position_at_end(next_slot)
    close()
    builder.ret_void()
    return function


# --- permutation inputs ----------------------------------------------------------------------


def _state_hash(builder: ir.IRBuilder, words: list, shift):
    total = constant(0)
    for word, multiplier in zip(words, WORD_MULTIPLIERS):
        total = builder.add(total, builder.mul(word, constant(multiplier)))
    return home_slot(builder, builder.xor(total, builder.lshr(total, constant(29))), shift)


def _probe_rows(builder: ir.IRBuilder, control, log, index, words: list):
    """Emit the search for `words` in the log; returns (slot pointer, found block, empty
    block), the builder in neither."""
    function = builder.block.function
    shift = _load_control(builder, control, Control.PERMUTATION_SHIFT)
    mask = _load_control(builder, control, Control.PERMUTATION_MASK)
    home = _state_hash(builder, words, shift)
    start = builder.block
    loop = function.append_basic_block("row.probe")
    compare = function.append_basic_block("row.compare")
    advance = function.append_basic_block("row.advance")
    found = function.append_basic_block("row.found")
    empty = function.append_basic_block("row.empty")
    builder.branch(loop)
    builder.position_at_end(loop)
    slot = builder.phi(I64, "slot")
    slot.add_incoming(home, start)
    slot_pointer = builder.gep(index, [slot])
    stored = builder.load(slot_pointer)
    builder.cbranch(builder.icmp_unsigned("==", stored, constant(0)), empty, compare)
    builder.position_at_end(compare)
    row = builder.mul(builder.sub(stored, constant(1)), constant(STATE_WORDS))
    differ = constant(0)
    for position, word in enumerate(words):
        logged = builder.load(builder.gep(log, [builder.add(row, constant(position))]))
        differ = builder.or_(differ, builder.xor(logged, word))
    builder.cbranch(builder.icmp_unsigned("==", differ, constant(0)), found, advance)
    builder.position_at_end(advance)
    slot.add_incoming(builder.and_(builder.add(slot, constant(1)), mask), advance)
    builder.branch(loop)
    return slot_pointer, found, empty


def _append_row(builder: ir.IRBuilder, control, log, slot_pointer, words: list) -> None:
    count_pointer = _control(builder, control, Control.PERMUTATION_LENGTH)
    count = builder.load(count_pointer)
    row = builder.mul(count, constant(STATE_WORDS))
    for position, word in enumerate(words):
        builder.store(word, builder.gep(log, [builder.add(row, constant(position))]))
    builder.store(builder.add(count, constant(1)), slot_pointer)
    builder.store(builder.add(count, constant(1)), count_pointer)


def tip5_record_function(
    module: ir.Module, name: str, permute: ir.Function, permute_marking: ir.Function
) -> ir.Function:
    """`void name(control, log, index, cascade, input, output)`: see the module docstring."""
    function = ir.Function(module, TIP5_RECORD_TYPE, name)
    control, log, index, cascade, source, target = function.args
    builder = ir.IRBuilder(function.append_basic_block("entry"))
    words = [builder.load(builder.gep(source, [constant(k)])) for k in range(STATE_WORDS)]
    slot_pointer, found, empty = _probe_rows(builder, control, log, index, words)
    builder.position_at_end(found)
    builder.call(permute, [source, target])
    builder.ret_void()
    builder.position_at_end(empty)
    _append_row(builder, control, log, slot_pointer, words)
    builder.call(permute_marking, [source, target, cascade])
    builder.ret_void()
    return function


def permutation_insert_rows_function(
    module: ir.Module, name: str, record: ir.Function
) -> ir.Function:
    """`void name(control, log, index, cascade, rows, count, scratch)`: record every row."""
    function = ir.Function(module, INSERT_ROWS_TYPE, name)
    control, log, index, cascade, rows, count, scratch = function.args
    builder = ir.IRBuilder(function.append_basic_block("entry"))
    row, close = _counted_loop(builder, count, "rows")
    source = builder.gep(rows, [builder.mul(row, constant(STATE_WORDS))])
    builder.call(record, [control, log, index, cascade, source, scratch])
    close()
    builder.ret_void()
    return function


def permutation_reindex_function(module: ir.Module, name: str) -> ir.Function:
    """`void name(control, log, index)`: enter every logged row into an empty index."""
    function = ir.Function(module, REINDEX_TYPE, name)
    control, log, index = function.args
    builder = ir.IRBuilder(function.append_basic_block("entry"))
    count = _load_control(builder, control, Control.PERMUTATION_LENGTH)
    shift = _load_control(builder, control, Control.PERMUTATION_SHIFT)
    mask = _load_control(builder, control, Control.PERMUTATION_MASK)
    row, close = _counted_loop(builder, count, "rows")
    start = builder.gep(log, [builder.mul(row, constant(STATE_WORDS))])
    words = [builder.load(builder.gep(start, [constant(k)])) for k in range(STATE_WORDS)]
    home = _state_hash(builder, words, shift)
    entry = builder.block
    loop = function.append_basic_block("free.probe")
    advance = function.append_basic_block("free.advance")
    place = function.append_basic_block("free.place")
    builder.branch(loop)
    builder.position_at_end(loop)
    slot = builder.phi(I64, "slot")
    slot.add_incoming(home, entry)
    slot_pointer = builder.gep(index, [slot])
    free = builder.icmp_unsigned("==", builder.load(slot_pointer), constant(0))
    builder.cbranch(free, place, advance)
    builder.position_at_end(advance)
    slot.add_incoming(builder.and_(builder.add(slot, constant(1)), mask), advance)
    builder.branch(loop)
    builder.position_at_end(place)
    builder.store(builder.add(row, constant(1)), slot_pointer)
    close()
    builder.ret_void()
    return function
