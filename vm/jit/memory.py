"""RAM in native code: pages of cells, a hash index of the pages, and a page cache.

Input: field-element addresses as i64 SSA values; output: IR that finds the
page holding an address, and the shared helpers that look pages up, create
them and rebuild the index.  The layout (vm.jit.layout):

- `ram_pages`: pages of `PAGE_STRIDE` words, `[page number, written mask,
  PAGE_WORDS cells]`; page p holds addresses `p * PAGE_WORDS` to
  `p * PAGE_WORDS + PAGE_WORDS - 1`.  Page 0 (offset 0) is the *zero page*: it
  is never written, and reads of a page that does not exist read it.  Pages are
  appended in the order they are first written; a page's offset never changes,
  even when the runtime moves `ram_pages` to a larger buffer.
- `ram_index`: open addressing over page numbers, slots of two words
  `(page number + 1, page offset)`, 0 for an empty slot, home slot by Fibonacci
  hashing, probed linearly, never more than half full.
- `ram_cache`: `CACHE_ENTRIES` pairs `(page number, page offset)`, direct-mapped
  by the page number's low bits, filled by every lookup that finds a page, so
  that the usual access -- near the last ones -- costs a compare and a load.

The written mask of a page has bit i set when cell i was written (or given as
initial RAM): a run's RAM is exactly those cells, as the interpreter's
dictionary holds exactly the addresses written.  A missing cell reads as 0 and
is not created.
"""

from __future__ import annotations

from llvmlite import ir

from vm.jit.arith import I64, I64_POINTER, constant
from vm.jit.layout import (
    CACHE_ENTRIES,
    PAGE_BITS,
    PAGE_CELLS,
    PAGE_KEY,
    PAGE_STRIDE,
    Control,
)

MULTIPLIER = 0x9E3779B97F4A7C15  # Fibonacci hashing: 2^64 / golden ratio, odd

PAGE_TYPE = ir.FunctionType(I64, [I64_POINTER] * 4 + [I64, I64])  # control, pages, index, cache
REINDEX_TYPE = ir.FunctionType(ir.VoidType(), [I64_POINTER] * 3)  # control, pages, index


def home_slot(builder: ir.IRBuilder, key, shift):
    """The home slot of a key in a table of 2^(64 - shift) slots."""
    return builder.lshr(builder.mul(key, constant(MULTIPLIER)), shift)


def _control(builder: ir.IRBuilder, control, register: Control):
    return builder.gep(control, [constant(register)])


def _cache_entry(builder: ir.IRBuilder, cache, page):
    return builder.gep(
        cache, [builder.shl(builder.and_(page, constant(CACHE_ENTRIES - 1)), constant(1))]
    )


def page_offset(builder: ir.IRBuilder, function_table, arguments: list, page, create: bool):
    """Emit the lookup of `page`: the cache, else the helper; returns the page's word offset
    (0, the zero page, for a page that does not exist when not `create`).

    `arguments` are the helper's pointers (control, pages, index, cache); `function_table`
    is a callable that emits the helper call from them."""
    cache = arguments[3]
    entry = _cache_entry(builder, cache, page)
    hit = builder.icmp_unsigned("==", builder.load(entry), page)
    start = builder.block
    function = start.function
    found = function.append_basic_block(f"{start.name}.cached")
    missed = function.append_basic_block(f"{start.name}.lookup")
    joined = function.append_basic_block(f"{start.name}.page")
    builder.cbranch(hit, found, missed)
    builder.position_at_end(found)
    cached = builder.load(builder.gep(entry, [constant(1)]))
    builder.branch(joined)
    builder.position_at_end(missed)
    looked_up = function_table(arguments + [page, constant(int(create))])
    builder.branch(joined)
    builder.position_at_end(joined)
    offset = builder.phi(I64)
    offset.add_incoming(cached, found)
    offset.add_incoming(looked_up, missed)
    return offset


def cell_pointer(builder: ir.IRBuilder, pages, offset, address):
    """The word of `address` in the page at `offset`."""
    within = builder.and_(address, constant((1 << PAGE_BITS) - 1))
    return builder.gep(pages, [builder.add(builder.add(offset, constant(PAGE_CELLS)), within)])


def mark_written(builder: ir.IRBuilder, pages, offset, address) -> None:
    within = builder.and_(address, constant((1 << PAGE_BITS) - 1))
    mask = builder.gep(pages, [builder.add(offset, constant(1))])
    builder.store(builder.or_(builder.load(mask), builder.shl(constant(1), within)), mask)


def _probe(builder: ir.IRBuilder, control, index, key, name: str):
    """Emit the probe loop for `key` (page number + 1): returns (slot pointer, block where it
    was found, block where an empty slot was reached)."""
    start = builder.block
    function = start.function
    loop = function.append_basic_block(f"{name}.probe")
    advance = function.append_basic_block(f"{name}.advance")
    found = function.append_basic_block(f"{name}.found")
    empty = function.append_basic_block(f"{name}.empty")
    shift = builder.load(_control(builder, control, Control.RAM_INDEX_SHIFT))
    mask = builder.load(_control(builder, control, Control.RAM_INDEX_MASK))
    home = home_slot(builder, key, shift)
    builder.branch(loop)
    builder.position_at_end(loop)
    slot = builder.phi(I64, f"{name}.slot")
    slot.add_incoming(home, start)
    slot_pointer = builder.gep(index, [builder.shl(slot, constant(1))])
    stored = builder.load(slot_pointer)
    builder.cbranch(builder.icmp_unsigned("==", stored, key), found, advance)
    builder.position_at_end(advance)
    slot.add_incoming(builder.and_(builder.add(slot, constant(1)), mask), advance)
    builder.cbranch(builder.icmp_unsigned("==", stored, constant(0)), empty, loop)
    return slot_pointer, found, empty


def page_function(module: ir.Module, name: str) -> ir.Function:
    """`i64 name(control, pages, index, cache, i64 page, i64 create)`: the offset of the
    page, created if `create` and missing (else 0, the zero page), and cached."""
    function = ir.Function(module, PAGE_TYPE, name)
    control, pages, index, cache, page, create = function.args
    builder = ir.IRBuilder(function.append_basic_block("entry"))
    key = builder.add(page, constant(1))
    slot_pointer, found, empty = _probe(builder, control, index, key, "page")
    absent = function.append_basic_block("absent")
    new = function.append_basic_block("new")
    remember = function.append_basic_block("remember")
    builder.position_at_end(found)
    existing = builder.load(builder.gep(slot_pointer, [constant(1)]))
    builder.branch(remember)
    builder.position_at_end(empty)
    builder.cbranch(builder.icmp_unsigned("==", create, constant(0)), absent, new)
    builder.position_at_end(absent)
    builder.ret(constant(0))
    builder.position_at_end(new)
    count_pointer = _control(builder, control, Control.RAM_PAGES)
    count = builder.load(count_pointer)
    created = builder.mul(count, constant(PAGE_STRIDE))
    builder.store(builder.add(count, constant(1)), count_pointer)
    builder.store(page, builder.gep(pages, [builder.add(created, constant(PAGE_KEY))]))
    builder.store(key, slot_pointer)
    builder.store(created, builder.gep(slot_pointer, [constant(1)]))
    builder.branch(remember)
    builder.position_at_end(remember)
    offset = builder.phi(I64, "offset")
    offset.add_incoming(existing, found)
    offset.add_incoming(created, new)
    entry = _cache_entry(builder, cache, page)
    builder.store(page, entry)
    builder.store(offset, builder.gep(entry, [constant(1)]))
    builder.ret(offset)
    return function


def reindex_function(module: ir.Module, name: str) -> ir.Function:
    """`void name(control, pages, index)`: enter every page but the zero page into an empty
    index (after the runtime has made it larger, or filled pages with initial RAM)."""
    function = ir.Function(module, REINDEX_TYPE, name)
    control, pages, index = function.args
    entry = function.append_basic_block("entry")
    loop = function.append_basic_block("loop")
    body = function.append_basic_block("body")
    done = function.append_basic_block("done")
    builder = ir.IRBuilder(entry)
    count = builder.load(_control(builder, control, Control.RAM_PAGES))
    builder.branch(loop)
    builder.position_at_end(loop)
    number = builder.phi(I64, "number")
    number.add_incoming(constant(1), entry)
    builder.cbranch(builder.icmp_unsigned("<", number, count), body, done)
    builder.position_at_end(body)
    offset = builder.mul(number, constant(PAGE_STRIDE))
    page = builder.load(builder.gep(pages, [builder.add(offset, constant(PAGE_KEY))]))
    key = builder.add(page, constant(1))
    slot_pointer, found, empty = _probe(builder, control, index, key, "reindex")
    builder.position_at_end(found)  # a page is entered once: never reached
    builder.branch(empty)
    builder.position_at_end(empty)
    builder.store(key, slot_pointer)
    builder.store(offset, builder.gep(slot_pointer, [constant(1)]))
    number.add_incoming(builder.add(number, constant(1)), empty)
    builder.branch(loop)
    builder.position_at_end(done)
    builder.ret_void()
    return function
