"""Memory groups: neighbouring reads (or writes) of RAM at one base address done with one
`read_mem`/`write_mem` per five words, as hand-written code does.

`MemoryGroupBuilder` is a part of `compiler.tir.builder.FunctionBuilder`.  A run of
statements such as

    let id: Field = mem.read(addr)
    let owner: Digest = mem.read_block(addr + 1)
    let amount: Field = mem.read(addr + 6)

reads the seven words addr .. addr + 6.  Statement by statement that is a copy of the
address, an `addi`, a `read_mem` and a `pop 1` per read; as a group it is `addi 6`
`read_mem 5` `read_mem 2` `pop 1`: the words land on the stack highest address deepest,
which is the order of a single read's own words (a block's element i at addr + 4 - i),
so each name takes its words where they stand.  Writes are the mirror: the values are
evaluated highest address first, then `write_mem` stores the words under the pointer
at p, p + 1, ...

A group is two or more consecutive statements of one kind (`let NAME = mem.read(..)` or
`mem.read_block(..)`; or `mem.write(.., v)`, `mem.write_block(.., v)` as statements)
whose addresses are one name plus constants (no statement of a group assigns a name), and
whose words, all together, cover a range with no gap and no word twice, of at most `WIDEST`
words.  Reads cannot fail and change nothing, so reading them in another order is the
same; writes of words at distinct addresses commute, and a group of writes takes only values
that are names or constants (their evaluation cannot fail or read RAM), so evaluating them
first is the same too.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.builtins import Builtin
from compiler.check.bodies import LocalRef
from compiler.check.types import width
from compiler.syntax import ast
from compiler.tir.ops import Op
from compiler.tir.ranges import bounds
from vm.field import P

READS = {"ram_read": 1, "ram_read_block": 5}
WRITES = {"ram_write": 1, "ram_write_block": 5}
WIDEST = 15  # words of a group: with the pointer, all within the 16 reachable slots
CHUNK = 5  # words one read_mem / write_mem moves


@dataclass
class Access:
    statement: object  # the Let or ExprStatement
    call: ast.Call
    base: ast.Var  # the address's name, as written in this statement
    offset: int  # the address is base + offset
    words: int
    reading: bool


class MemoryGroupBuilder:
    def memory_group(self, statements: list, index: int) -> list[Access] | None:
        """The group of reads or writes starting at statements[index], or None."""
        first = self.memory_access(statements[index])
        if first is None:
            return None
        group = [first]
        for statement in statements[index + 1 :]:
            access = self.memory_access(statement)
            if access is None or access.reading != first.reading:
                break
            if self.element_read(access.base) != self.element_read(first.base):
                break
            group.append(access)
        while len(group) >= 2 and not _contiguous(group):
            group.pop()
        return group if len(group) >= 2 else None

    def memory_access(self, statement) -> Access | None:
        """A read bound by `let NAME = ...` or a write as a statement, at name + constant."""
        if isinstance(statement, ast.Let):
            if not isinstance(statement.pattern, ast.PatternName):
                return None
            if self.pointer_aliases and set(self.analysis.lets[statement]) & self.pointer_aliases:
                return None
            call, table = statement.value, READS
        elif isinstance(statement, ast.ExprStatement):
            call, table = statement.expr, WRITES
        else:
            return None
        if not isinstance(call, ast.Call) or not call.arguments:
            return None
        target = self.instance.calls.get(call)
        if not isinstance(target, Builtin) or target.name not in table:
            return None
        if call.arguments[0] in self.pointer_fused:
            return None
        if table is WRITES and not self.simple_value(call.arguments[1]):
            return None
        place = self.base_and_offset(call.arguments[0])
        if place is None:
            return None
        return Access(statement, call, *place, table[target.name], table is READS)

    def base_and_offset(self, address) -> tuple[ast.Var, int] | None:
        """(name, c) for an address `name`, `name + c` or `c + name` of a one-word name that
        takes a slot."""
        offset = 0
        if isinstance(address, ast.Binary) and address.operator == "+":
            for constant, other in ((address.right, address.left), (address.left, address.right)):
                value = self.constant(constant)
                if value is not None and isinstance(other, ast.Var):
                    address, offset = other, value
                    break
            else:
                return None
        if not isinstance(address, ast.Var) or self.constant(address) is not None:
            return None
        reference = self.instance.variables.get(address)
        if not isinstance(reference, LocalRef) or self.analysis.reads.get(address) is None:
            return None
        if width(reference.type) != 1 or offset >= 1 << 20:
            return None
        return address, offset

    def element_read(self, var: ast.Var) -> tuple:
        """The variable and the element a name reads (`r.a` and `r.b` differ)."""
        return self.analysis.reads[var], self.instance.variables[var].offset

    def simple_value(self, expr) -> bool:
        """A value whose evaluation cannot fail or touch RAM: a name (or part) or a constant."""
        if self.constant(expr) is not None:
            return True
        return isinstance(expr, ast.Var) and isinstance(self.instance.variables.get(expr), LocalRef)

    # --- building -------------------------------------------------------------------------------
    def read_group(self, group: list[Access]) -> None:
        """`let`s of the group: one pass of read_mem over the words, each name on its own."""
        stack = self.stack
        low = min(access.offset for access in group)
        total = sum(access.words for access in group)
        found = [bounds(a.statement.value, self.instance, self.known_bounds) for a in group]
        last = max(group, key=lambda access: self.analysis.numbers[access.statement])
        self.expr(last.base)  # its last use in the group: moved when dead after it
        # room for the words while the base is still a slot at the top (read_mem takes it):
        # a spill made with the base left out of the slots would reach one word too high
        stack.make_room(total - 1)
        del stack.slots[-1]
        self.emit_offset(low + total - 1)
        for words in _chunks(total):
            stack.emit(Op("ReadMem", words))
        stack.emit(Op("Pop", 1))
        live = self.analysis.live_after[group[-1].statement]
        for access in sorted(group, key=lambda access: -access.offset):
            temp = stack.new_temp(access.words, "read")
            stack.slots.extend(temp.key(i) for i in range(access.words))
            binding = self.analysis.lets[access.statement][0]
            if binding is None or binding not in live:
                stack.kill(temp)
                continue
            stack.rename(temp, self.variable(binding))
        for access, known in zip(group, found, strict=True):
            binding = self.analysis.lets[access.statement][0]
            if binding is not None and known is not None and not access.statement.mutable:
                self.bounds[binding] = known
            self.record_flow(access.statement, known)
        self.notes.append(("memory grouped", f"{len(group)} reads, {total} words"))
        self.settle()

    def write_group(self, group: list[Access]) -> None:
        """The group's writes: the values highest address first, then write_mem."""
        stack = self.stack
        low = min(access.offset for access in group)
        total = sum(access.words for access in group)
        ordered = sorted(group, key=lambda access: -access.offset)
        last = max(group, key=lambda access: self.analysis.numbers[access.statement])
        parts = [access.call.arguments[1] for access in ordered] + [last.base]
        pushed = self.group_values(parts, self.analysis.live_after[group[-1].statement])
        assert pushed == total + 1, "a group's values are its words"
        del stack.slots[len(stack.slots) - pushed :]
        self.emit_offset(low)
        for words in _chunks(total):
            stack.emit(Op("WriteMem", words))
        stack.emit(Op("Pop", 1))
        self.notes.append(("memory grouped", f"{len(group)} writes, {total} words"))
        self.settle()

    def group_values(self, parts: list, live) -> int:
        """Push `parts` (names and constants) in this order, which is not the order they are
        written in: a name's words are moved when it is dead after the whole group (the
        liveness of single uses assumes the source order), copied otherwise; the names
        moved die once all are on the stack.  Returns the words pushed."""
        stack, total, moved = self.stack, 0, []
        for part in parts:
            constant = self.constant(part)
            if constant is not None:
                stack.push_constant(constant % P)
                total += 1
                continue
            reference = self.instance.variables[part]
            binding = self.analysis.reads[part]
            if binding in self.views:  # held words (compiler/tir/aliases.py): a copy
                self.read_view(binding, reference.offset, width(reference.type))
                total += width(reference.type)
                continue
            value = self.values[binding]
            move = binding not in live and self.movable(value)
            stack.read(value, reference.offset, width(reference.type), move)
            if move:
                moved.append(value)
            total += width(reference.type)
        for value in moved:
            stack.kill(value)
        return total

    def movable(self, value) -> bool:
        """Whether the words of `value` may leave their slots (see `may_move_words`)."""
        return (
            value.kind == "var"
            and not value.ram_home
            and value not in self.protected
            and not any(
                value in context.entry or value in context.kept for context in self.contexts
            )
        )

    def emit_offset(self, offset: int) -> None:
        if offset:
            self.stack.emit(Op("AddI", offset))


def _contiguous(group: list[Access]) -> bool:
    ranges = sorted((access.offset, access.words) for access in group)
    total = sum(words for _, words in ranges)
    if total > WIDEST:
        return False
    return all(
        offset + words == following
        for (offset, words), (following, _) in zip(ranges, ranges[1:], strict=False)
    )


def _chunks(total: int) -> list[int]:
    return [min(CHUNK, total - start) for start in range(0, total, CHUNK)]
