"""Names that take no slot: immutable `let`s that name words already on the stack.

`AliasBuilder` is a part of `compiler.tir.builder.FunctionBuilder`.  Two kinds:

* a loop alias: `let row = convert.as_field(i)` (or `let row = i`) with i an enclosing up
  loop's variable names i's word in the loop frame, which holds it unchanged for the whole
  body (the frame's test advances it after the body);
* a held view: `let a = c` or `let (a0, .., an) = c`, immutable, with c an immutable name
  whose value was on the stack when the innermost enclosing loop began and is read after
  this `let`.  Such a value stays where it is for the whole body: nothing may
  move it (the next iteration expects it there) and it is live to the body's end, so the
  new names read its words in place.  An inlined call's parameters are such `let`s:
  `digest.equal(candidate, key)` in a loop compares candidate's words where they are,
  instead of copying all five first (std.crypto.auth.verify_threshold).  A value in RAM
  at the loop's start gets no views: one `read_mem` of all its words is cheaper than one
  per word.

Each view is noted for `tri build --report` under `named in place` (`a0, a1 = c`).
A view is `(value, offset)` in `views`, never in `values`: reads through it copy and never
kill (the value has its own name, whose liveness decides), and every other use of a
binding's value (moves, in-place updates, pointer loops) finds none and does without.
"""

from __future__ import annotations

from compiler.builtins import Builtin
from compiler.check.bodies import LocalRef
from compiler.check.types import Primitive, StructType, TupleType
from compiler.syntax import ast
from compiler.tir.ranges import bounds
from compiler.tir.walk import part_offsets

NOTE = "named in place"  # the section of `tri build --report` (compiler.report)


def has_array(t) -> bool:
    """Whether a value of type `t` holds an array (indexed at run time, from RAM)."""
    match t:
        case Primitive():
            return False
        case TupleType():
            return any(has_array(element) for element in t.elements)
        case StructType():
            return any(has_array(field) for _, field in t.fields)
    return True  # an ArrayType


def _shown(binding) -> str:
    """A name as written (the inliner marks the names it copies with `'`)."""
    return binding.name.split("'")[0]


class AliasBuilder:
    def loop_alias(self, statement: ast.Let) -> bool:
        """`let row = convert.as_field(i)` (or `let row = i`) with i an enclosing loop's
        variable: row names i's word in the loop frame, so it takes no slot and no copy."""
        if statement.mutable or not isinstance(statement.pattern, ast.PatternName):
            return False
        value = statement.value
        if isinstance(value, ast.Call) and len(value.arguments) == 1:
            target = self.instance.calls.get(value)
            if isinstance(target, Builtin) and target.name == "as_field":
                value = value.arguments[0]
        if not isinstance(value, ast.Var):
            return False
        frame = self.values.get(self.analysis.reads.get(value))
        if frame is None or frame.kind != "pinned" or frame.name != "loop":
            return False
        binding = self.analysis.lets[statement][0]
        if binding is not None:
            self.values[binding] = frame
            known = bounds(statement.value, self.instance, self.known_bounds)
            if known is not None:
                self.bounds[binding] = known
        return True

    def held_view(self, statement: ast.Let) -> bool:
        """`let a = c` or `let (a0, .., an) = c` naming the words of a value the innermost
        loop holds in place (see the module docstring): the names become views."""
        source_var = statement.value
        if statement.mutable or not self.loops or not isinstance(source_var, ast.Var):
            return False
        source = self.analysis.reads.get(source_var)
        reference = self.instance.variables.get(source_var)
        if source is None or source.mutable or not isinstance(reference, LocalRef):
            return False
        held = self.held(source)
        if held is None or has_array(reference.type):
            return False
        value, base = held
        if source not in self.analysis.live_after[statement]:
            return False  # the value may die in the body: the names could outlive it
        bindings = self.analysis.lets[statement]
        if isinstance(statement.pattern, ast.PatternName):
            offsets = [0]
        elif isinstance(statement.pattern, ast.PatternTuple):
            offsets, _ = part_offsets(reference.type, len(bindings))
        else:
            return False
        start = base + reference.offset
        named = ", ".join(_shown(binding) for binding in bindings if binding is not None)
        self.notes.append((NOTE, f"{named} = {_shown(source)}"))
        for binding, offset in zip(bindings, offsets, strict=True):
            if binding is not None:
                self.views[binding] = (value, start + offset)
                self.values.pop(binding, None)  # a value of an earlier build of the body
        return True

    def held(self, source) -> tuple | None:
        """(value, offset) of `source`'s words, when the innermost loop holds them in place:
        a view's, or the value `source` owns if it was there when the loop began."""
        if source in self.views:
            return self.views[source]
        value = self.values.get(source)
        if value is None or value.kind != "var" or self.bindings.get(value) is not source:
            return None
        if value not in self.loops[-1].held:
            return None
        return value, 0

    def read_view(self, binding, offset: int, count: int):
        """A copy of `count` words of a view's value from `offset` on top."""
        value, base = self.views[binding]
        return self.stack.read(value, base + offset, count, move=False)
