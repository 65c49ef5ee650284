"""In-place updates: a struct, tuple or array literal built mostly from a dead value's own
elements is made in that value's slots, changing only what changes.

`UpdateBuilder` is a part of `compiler.tir.builder.FunctionBuilder`.  For `let t = S { a:
s.a + 1, b: s.b, c: s.c }` (or `s = ...`, which is what field assignment `s.a = s.a + 1`
means after the checker) where this literal is the last use of `s`, the plain way copies
every field of `s` to the top and then drops the old ones; here the changed fields are
computed on top (reads of `s` copy), then one planned arrangement puts each new element
into the slot of the element it replaces and drops the old one (`swap d` `pop 1` for one
field), and elements of `s` that only change place (a gate that permutes two fields) are
moved where they belong.  The value stays where `s` was: only a `let` or an assignment,
which name it where it stands, take it.

Both ways are built and the one with less code is kept (`FunctionBuilder.cheapest`), so an
update never costs more than the plain literal; each update kept is noted on the function
(`tir.Function.notes`, for `tri build --report`).
"""

from __future__ import annotations

from compiler.check.types import StructType, width
from compiler.syntax import ast
from compiler.tir.stack import Layout, is_garbage
from compiler.tir.walk import subexpressions


class UpdateBuilder:
    def update(self, expr):
        """A temporary holding the value of `expr` built in place of a dead variable, or
        None when `expr` is not such a literal (then the caller evaluates it normally)."""
        plan = self.update_plan(expr)
        if plan is None:
            return None
        value = plan[1]

        def buried() -> int:
            """The plain literal leaves the old value's slots below the new one: about a
            `pick` and a `pop` each, later."""
            return 2 * sum(slot is not None and slot[0].owner is value for slot in self.stack.slots)

        return self.cheapest(lambda: self.expr(expr), lambda: self.build_update(*plan), buried)

    def update_plan(self, expr):
        """(literal, source value, [(element offset, width, source offset or None, part)])
        when `expr` is a literal with parts read from one variable this literal is the
        last use of, on the stack in order; else None."""
        parts = self.literal_parts(expr)
        if parts is None:
            return None
        sources = {}  # the variables parts are read from, in order (dict: a fixed order)
        for _, _, part in parts:
            place = self.place_of(part)
            if place is not None and isinstance(place[3], ast.Var):
                sources[place[0]] = None
        for binding in sources:
            value = self.values.get(binding)
            if value is None or width(binding.type) != width(self.instance.types[expr]):
                continue
            reads = [var for var in variables(expr) if self.analysis.reads.get(var) is binding]
            if not any(self.may_move(value, var) for var in reads):
                continue  # not its last use, or a join keeps its slot
            slots = [value.key(i) for i in range(value.width)]
            start = self.stack.position(slots[0]) if slots[0] in self.stack.slots else None
            if start is None or self.stack.slots[start : start + value.width] != slots:
                continue
            elements, taken = [], set()  # a word of the value stays in one element only
            for offset, part_width, part in parts:
                place = self.place_of(part)
                kept = place is not None and place[0] is binding and part_width == width(place[2])
                words = set(range(place[1], place[1] + part_width)) if kept else set()
                kept = kept and not words & taken
                taken |= words
                elements.append((offset, part_width, place[1] if kept else None, part))
            if sum(source is not None for _, _, source, _ in elements) >= 1:
                return expr, value, elements
        return None

    def literal_parts(self, expr):
        """[(offset in the value, width, expression)] of a struct, tuple or array literal, in
        evaluation order; None for anything else."""
        match expr:
            case ast.StructLiteral():
                struct: StructType = self.instance.types[expr]
                offsets, offset = {}, 0
                for name, field_type in struct.fields:
                    offsets[name] = (offset, width(field_type))
                    offset += width(field_type)
                return [(*offsets[name], value) for name, value in self.order.struct_fields(expr)]
            case ast.TupleExpr() | ast.ArrayExpr():
                result, offset = [], 0
                for element in expr.elements:
                    element_width = width(self.instance.types[element])
                    result.append((offset, element_width, element))
                    offset += element_width
                return result or None
        return None

    def build_update(self, expr, value, elements):
        stack = self.stack
        self.protected.add(value)
        try:
            computed = {}
            for offset, _, source, part in elements:
                if source is None:
                    temp = self.expr(part)
                    computed[offset] = temp
        finally:
            self.protected.discard(value)
        top = stack.position(value.key(value.width - 1))
        if top is None:
            return None
        temps = {temp.key(i) for temp in computed.values() for i in range(temp.width)}
        above = [s for s in stack.slots[top + 1 :] if s not in temps and not is_garbage(s)]
        bottom = top + 1 - value.width
        if stack.slots[bottom : top + 1] != [value.key(i) for i in range(value.width)]:
            return None
        result = stack.new_temp(value.width, "update")
        layout = []
        for offset, part_width, source, _ in elements:
            for i in range(part_width):
                if source is None:
                    layout.append(computed[offset].key(i))
                else:
                    layout.append(value.key(source + i))
        stack.touch(value)
        stack.conform(Layout(stack.slots[:bottom] + layout + above, set(stack.in_ram)))
        mapping = {key: result.key(i) for i, key in enumerate(layout)}
        stack.slots = [mapping.get(slot, slot) for slot in stack.slots]
        stack.kill(value)
        changed = sum(source is None for _, _, source, _ in elements)
        note = f"{value.name} ({changed} of {len(elements)} parts changed)"
        self.notes.append(("updated in place", note))
        return result


def variables(expr):
    """Every variable read in `expr` (not inside inlined calls)."""
    if isinstance(expr, ast.Var):
        yield expr
    for part in subexpressions(expr):
        yield from variables(part)
