"""RAM as a native hash table: the IR that reads and writes it, and its layout.

Input: field-element addresses and values as i64 SSA values; output: IR that
looks them up in, or stores them into, an open-addressing table of
`capacity` (a power of two) slots.  Slot i is the word pair
`table[2i] = address, table[2i + 1] = value`; an empty slot holds the address
`EMPTY`, which is no field element.  The home slot of an address is the top
bits of `address * MULTIPLIER` (Fibonacci hashing), probed linearly.

A missing address reads as 0 and is not inserted (tasm.md §6).  The table is
never full: the runtime doubles it before a block could push it past half
full, so every probe loop ends.  The same `emit_*` functions build the
shared helpers that compiled programs call and the runtime's bulk insert, so
all agree on where an address lives.
"""

from __future__ import annotations

from llvmlite import ir

from vm.jit import arith
from vm.jit.arith import I64, constant

EMPTY = (1 << 64) - 1
MULTIPLIER = 0x9E3779B97F4A7C15
MAXIMUM_LOAD = 2  # the table holds at most capacity / MAXIMUM_LOAD addresses


def _home(builder: ir.IRBuilder, address, shift):
    return builder.lshr(builder.mul(address, constant(MULTIPLIER)), shift)


def _probe(builder: ir.IRBuilder, table, mask, shift, address, name: str):
    """Emit the probe loop; returns (slot, key pointer, key, blocks for found/empty)."""
    start = builder.block
    function = start.function
    loop = function.append_basic_block(f"{name}.probe")
    advance = function.append_basic_block(f"{name}.advance")
    found = function.append_basic_block(f"{name}.found")
    empty = function.append_basic_block(f"{name}.empty")
    home = _home(builder, address, shift)
    builder.branch(loop)
    builder.position_at_end(loop)
    slot = builder.phi(I64, f"{name}.slot")
    slot.add_incoming(home, start)
    key_pointer = builder.gep(table, [builder.shl(slot, constant(1))])
    key = builder.load(key_pointer)
    builder.cbranch(builder.icmp_unsigned("==", key, address), found, advance)
    builder.position_at_end(advance)
    next_slot = builder.and_(builder.add(slot, constant(1)), mask)
    slot.add_incoming(next_slot, advance)
    builder.cbranch(builder.icmp_unsigned("==", key, constant(EMPTY)), empty, loop)
    return key_pointer, found, empty


def emit_read(builder: ir.IRBuilder, table, mask, shift, address, name: str = "ram"):
    """The value at `address`, or 0 if it was never written."""
    key_pointer, found, empty = _probe(builder, table, mask, shift, address, name)
    done = builder.function.append_basic_block(f"{name}.read")
    builder.position_at_end(found)
    value = builder.load(builder.gep(key_pointer, [constant(1)]))
    builder.branch(done)
    builder.position_at_end(empty)
    builder.branch(done)
    builder.position_at_end(done)
    result = builder.phi(I64, f"{name}.value")
    result.add_incoming(value, found)
    result.add_incoming(constant(0), empty)
    return result


def emit_write(builder: ir.IRBuilder, table, mask, shift, address, value, name: str = "ram"):
    """Store `value` at `address`; returns 1 (i64) if the address was new, else 0."""
    key_pointer, found, empty = _probe(builder, table, mask, shift, address, name)
    done = builder.function.append_basic_block(f"{name}.written")
    builder.position_at_end(found)
    builder.store(value, builder.gep(key_pointer, [constant(1)]))
    builder.branch(done)
    builder.position_at_end(empty)
    builder.store(address, key_pointer)
    builder.store(value, builder.gep(key_pointer, [constant(1)]))
    builder.branch(done)
    builder.position_at_end(done)
    added = builder.phi(I64, f"{name}.added")
    added.add_incoming(constant(0), found)
    added.add_incoming(constant(1), empty)
    return added


def read_function(module: ir.Module, name: str = "ram_read") -> ir.Function:
    """`i64 name(i64* table, i64 mask, i64 shift, i64 pointer, i64 offset)`: the word at
    field address pointer + offset (`emit_read` as a function)."""
    pointer_type = ir.PointerType(I64)
    function_type = ir.FunctionType(I64, [pointer_type, I64, I64, I64, I64])
    function = ir.Function(module, function_type, name)
    table, mask, shift, pointer, offset = function.args
    builder = ir.IRBuilder(function.append_basic_block("entry"))
    address = arith.add(builder, pointer, offset)
    builder.ret(emit_read(builder, table, mask, shift, address))
    return function


def write_function(module: ir.Module, name: str = "ram_write") -> ir.Function:
    """`i64 name(i64* table, i64 mask, i64 shift, i64 pointer, i64 offset, i64 value)`:
    store at field address pointer + offset; returns 1 if the address was new."""
    pointer_type = ir.PointerType(I64)
    function_type = ir.FunctionType(I64, [pointer_type, I64, I64, I64, I64, I64])
    function = ir.Function(module, function_type, name)
    table, mask, shift, pointer, offset, value = function.args
    builder = ir.IRBuilder(function.append_basic_block("entry"))
    address = arith.add(builder, pointer, offset)
    builder.ret(emit_write(builder, table, mask, shift, address, value))
    return function


def emit_insert_many(module: ir.Module, name: str = "ram_insert_many") -> ir.Function:
    """`i64 name(i64* pairs, i64 count, i64* table, i64 mask, i64 shift)`: store `count`
    (address, value) pairs into the table; returns how many addresses were new."""
    pointer = ir.PointerType(I64)
    function_type = ir.FunctionType(I64, [pointer, I64, pointer, I64, I64])
    function = ir.Function(module, function_type, name)
    pairs, count, table, mask, shift = function.args
    entry = function.append_basic_block("entry")
    loop = function.append_basic_block("loop")
    body = function.append_basic_block("body")
    done = function.append_basic_block("done")
    builder = ir.IRBuilder(entry)
    builder.branch(loop)
    builder.position_at_end(loop)
    index = builder.phi(I64, "index")
    added = builder.phi(I64, "added")
    index.add_incoming(constant(0), entry)
    added.add_incoming(constant(0), entry)
    builder.cbranch(builder.icmp_unsigned("<", index, count), body, done)
    builder.position_at_end(body)
    address = builder.load(builder.gep(pairs, [builder.shl(index, constant(1))]))
    offset = builder.add(builder.shl(index, constant(1)), constant(1))
    value = builder.load(builder.gep(pairs, [offset]))
    new = emit_write(builder, table, mask, shift, address, value, "insert")
    index.add_incoming(builder.add(index, constant(1)), builder.block)
    added.add_incoming(builder.add(added, new), builder.block)
    builder.branch(loop)
    builder.position_at_end(done)
    builder.ret(added)
    return function
