"""The builder's expressions: evaluating an expression leaves its value on top of the stack.

`ExpressionBuilder` is a part of `compiler.tir.builder.FunctionBuilder` (it uses the
function's stack model, liveness analysis and evaluation order): variable reads (copied,
or moved at their last use), operators with Triton's operand order, builtins from
compiler.builtins, calls, tuples, structs and arrays, constant and run-time indexing.
"""

from __future__ import annotations

from compiler.builtins import Builtin
from compiler.check.bodies import ConstRef, LocalRef
from compiler.check.types import XFIELD, ArrayType, width
from compiler.sourcemap import origin_of
from compiler.syntax import ast
from compiler.tir.constants import fold
from compiler.tir.ops import Call, Op, from_tasm
from compiler.tir.ranges import U32_MAX, bound
from compiler.tir.stack import CompileLimit, Layout, Value, is_garbage
from vm.field import P


class ExpressionBuilder:
    def expr(self, expr) -> Value | None:
        """Evaluate `expr` onto the stack; the ops it emits carry its origin."""
        stack = self.stack
        outer = stack.origin
        stack.origin = origin_of(self.instance, expr)
        try:
            return self.expression(expr)
        finally:
            stack.origin = outer

    def expression(self, expr) -> Value | None:
        if self.pointer_sites and expr in self.pointer_sites:
            return self.pointer_address(expr)
        if isinstance(expr, ast.Binary | ast.Call):
            constant = self.constant(expr)
            if constant is not None:
                return self.stack.push_constant(constant)
        match expr:
            case ast.IntLiteral():
                return self.stack.push_constant(expr.value % P)
            case ast.BoolLiteral():
                return self.stack.push_constant(int(expr.value))
            case ast.Var():
                return self.var(expr)
            case ast.Binary():
                return self.binary(expr)
            case ast.Call():
                return self.call(expr)
            case ast.TupleExpr() | ast.ArrayExpr():
                return self.stack.adopt(self.operands(list(expr.elements)))
            case ast.StructLiteral():
                return self.struct_literal(expr)
            case ast.Index():
                return self.index(expr)
            case ast.Inlined():
                return self.inlined(expr)
        raise CompileLimit(f"unsupported expression {type(expr).__name__}")

    def constant(self, expr) -> int | None:
        """The value of an operand known at compile time (compiler.tir.constants): literals,
        `const`s, sizes, immutable names bound to constants, and what folds from them."""
        return fold(expr, self.instance, self.known)

    def known(self, var: ast.Var) -> int | None:
        """The value of an immutable name bound to a constant (it takes no stack slot)."""
        return self.constants.get(self.analysis.reads.get(var))

    def let_bounds(self, var: ast.Var) -> list[int] | None:
        """`known_bounds` without the bounds of mutable names (what `--report` tells apart)."""
        flow, self.flow = self.flow, {}
        try:
            return self.known_bounds(var)
        finally:
            self.flow = flow

    def known_bounds(self, var: ast.Var) -> list[int] | None:
        """Upper bounds of a variable's words (compiler.tir.ranges), as its `let` gave them."""
        binding = self.analysis.reads.get(var)
        if binding in self.constants:
            return [self.constants[binding]]
        reference = self.instance.variables.get(var)
        found = _least(self.bounds.get(binding), self.flow.get(binding))
        if found is None or not isinstance(reference, LocalRef):
            return None
        return found[reference.offset : reference.offset + width(reference.type)]

    def inlined(self, expr: ast.Inlined) -> Value | None:
        """A call replaced by the callee's body: its statements, the last one's value on top,
        right above what was there before (the body's dead names and garbage removed)."""
        stack = self.stack
        position, before = self.position, list(stack.slots)
        unit = width(self.instance.types[expr]) == 0
        value = self.statements(expr.body.statements, None if unit else "value")
        self.position = position
        for statement in expr.body.statements:
            for binding in self.analysis.lets.get(statement, ()):
                # only what the name owns: a loop alias (FunctionBuilder.loop_alias) names
                # a frame's word, which outlives the body
                named = self.values.get(binding)
                if named is not None and self.bindings.get(named) is binding:
                    stack.kill(named)
        common = 0
        advanced = self.advanced_keys() if self.pointer_fused else {}
        while common < min(len(before), len(stack.slots)) and stack.slots[common] in (
            before[common],
            advanced.get(before[common], before[common]),
        ):
            common += 1
        result = set() if value is None else {value.key(i) for i in range(value.width)}
        region = [s for s in stack.slots[common:] if s not in result and not is_garbage(s)]
        if len(region) + len(result) < len(stack.slots) - common:
            keys = [] if value is None else [value.key(i) for i in range(value.width)]
            layout = Layout(stack.slots[:common] + region + keys, set(stack.in_ram))
            stack.conform(layout)
        return value

    def literal(self, expr) -> int | None:
        """The value of a literal or constant operand that costs nothing to fold."""
        return self.constant(expr)

    def var(self, expr: ast.Var) -> Value:
        reference = self.instance.variables[expr]
        if isinstance(reference, ConstRef):
            return self.stack.push_constant(reference.value % P)
        binding = self.analysis.reads[expr]
        if binding in self.constants:
            return self.stack.push_constant(self.constants[binding])
        return self.read_place(binding, reference.offset, width(reference.type), expr)

    def read_place(self, binding, offset: int, count: int, expr) -> Value:
        if binding in self.views:  # a name for held words (compiler/tir/aliases.py)
            return self.read_view(binding, offset, count)
        value = self.values[binding]
        last = expr is not None and self.analysis.is_last_use(expr)
        move = self.may_move(value, expr) or self.may_move_words(value, expr)
        temp = self.stack.read(value, offset, count, move)
        if last and value.kind == "var" and value not in self.protected:
            self.stack.kill(value)
        return temp

    def may_move(self, value: Value, var) -> bool:
        return (
            var is not None
            and self.analysis.is_last_use(var)
            and value.kind == "var"
            and not value.ram_home
            and not any(value in context.kept for context in self.contexts[-1:])
            and value not in self.protected
        )

    def may_move_words(self, value: Value, var) -> bool:
        """The words a read takes are not read again (other words of the value may be):
        they are moved, the rest stays.  Not for a value of the entry layout of an enclosing
        branch or loop, whose join or next iteration expects all of its words."""
        return (
            var is not None
            and self.analysis.is_words_last_use(var)
            and value.kind == "var"
            and not value.ram_home
            and not any(value in context.entry for context in self.contexts)
            and value not in self.protected
        )

    def movable_place(self, expr):
        """(value, offset, width) when `expr` is a last use that may be moved, all on the stack."""
        place = self.place_of(expr)
        if place is None:
            return None
        binding, offset, type_, var = place
        value = self.values.get(binding)
        if value is None or not self.may_move(value, var):
            return None
        count = width(type_)
        keys = [value.key(offset + i) for i in range(count)]
        if any(key in self.stack.in_ram for key in keys):
            return None
        return value, offset, count

    def in_place(self, expr) -> Value | None:
        """A value that is moved (its last use) and about to be named: it can stay where
        it is.  Returns it relabelled as a temporary, or None (evaluate normally)."""
        place = self.movable_place(expr)
        if place is None:
            return None
        value, offset, count = place
        temp = self.stack.new_temp(count, value.name)
        mapping = {value.key(offset + i): temp.key(i) for i in range(count)}
        self.stack.slots = [mapping.get(slot, slot) for slot in self.stack.slots]
        self.stack.kill(value)
        return temp

    def place_of(self, expr):
        """(binding, offset, type) when `expr` names part of a variable statically."""
        match expr:
            case ast.Var():
                reference = self.instance.variables.get(expr)
                if isinstance(reference, LocalRef):
                    return self.analysis.reads[expr], reference.offset, reference.type, expr
            case ast.Index():
                inner = self.place_of(expr.base)
                index = self.constant(expr.index)
                if inner is not None and index is not None:
                    binding, offset, array, var = inner
                    if index < array.length:
                        element = width(array.element)
                        return binding, offset + index * element, array.element, var
        return None

    def operands(self, parts: list) -> int:
        """Evaluate operands in order onto the stack; a leading run of moved places that
        already sit on top, in order, costs nothing.  Returns the total width.  Two selects
        on one condition are one comparison and a swap (compiler/tir/select_pairs.py)."""
        if len(parts) == 2:
            paired = self.select_pair(*parts)
            if paired is not None:
                return paired
        stack = self.stack
        places = []
        for part in parts:
            place = self.movable_place(part)
            if place is None:
                break
            places.append(place)
        if len(places) == len(parts) > 1:
            # every operand is moved: one arrangement for all of them
            keys = [v.key(o + i) for v, o, c in places for i in range(c)]
            stack.arrange(keys)
        while places:
            keys = [v.key(o + i) for v, o, c in places for i in range(c)]
            if stack.slots[len(stack.slots) - len(keys) :] == keys:
                break
            places.pop()
        total = 0
        if places:
            for value, _, _ in places:
                stack.touch(value)
            total = len(keys)
            stack.adopt(total)
            for value, _, _ in places:
                stack.kill(value)
        for part in parts[len(places) :]:
            value = self.expr(part)
            total += 0 if value is None else value.width
        return total

    def apply(self, op, consumes: int, produces: int) -> Value | None:
        return self.stack.apply(op, consumes, produces)

    def copy(self, temp: Value) -> Value:
        return self.stack.read(temp, 0, temp.width, move=False)

    def fail(self) -> None:
        """Code that always fails (a bound exceeded at compile time)."""
        self.stack.push_constant(0)
        self.apply(Op("Assert", 1), 1, 0)

    def binary(self, expr: ast.Binary) -> Value:
        operator = expr.operator
        left_type = self.instance.types[expr.left]
        if operator == "+" and left_type != XFIELD:
            for constant_side, other in ((expr.right, expr.left), (expr.left, expr.right)):
                constant = self.literal(constant_side)
                if constant is not None:
                    self.expr(other)
                    if constant == 0:
                        return self.stack.adopt(1)
                    return self.apply(Op("AddI", constant), 1, 1)
        swapped = self.order.swapped(expr)
        self.operands(self.order.operands(expr))
        if left_type == XFIELD:
            op = {"+": Op("XAdd"), "*": Op("XMul"), "*.": Op("ExtMul")}[operator]
            return self.apply(op, 6 if operator != "*." else 4, 3)
        match operator:
            case "+":
                return self.apply(Op("Add"), 2, 1)
            case "*":
                return self.apply(Op("Mul"), 2, 1)
            case "==":
                return self.apply(Op("Eq"), 2, 1)
            case "&":
                return self.apply(Op("And"), 2, 1)
            case "^":
                return self.apply(Op("Xor"), 2, 1)
            case "<":
                if not swapped:
                    self.stack.swap(1)
                return self.apply(Op("Lt"), 2, 1)
            case "/%":
                if not swapped:
                    self.stack.swap(1)
                return self.apply(Op("DivMod"), 2, 2)
        raise CompileLimit(f"unsupported operator {operator}")

    def call(self, expr: ast.Call) -> Value | None:
        target = self.instance.calls[expr]
        if self.pointer_fused and expr.arguments and expr.arguments[0] in self.pointer_fused:
            done, value = self.fused_access(expr, target.name == "ram_write")
            if done:
                return value
        swapped = self.order.swapped(expr)
        if isinstance(target, Builtin) and target.name in ("sub", "neg"):
            folded = self.fold_negation(target, expr)
            if folded is not None:
                return folded
        if isinstance(target, Builtin) and target.name == "as_u32":
            if bound(expr.arguments[0], self.instance, self.known_bounds) <= U32_MAX:
                if bound(expr.arguments[0], self.instance, self.let_bounds) > U32_MAX:
                    self.notes.append(("checks dropped", "as_u32 by mutable names' bounds"))
                return self.stack.adopt(self.operands(expr.arguments))  # it cannot fail
        total = self.operands(self.order.operands(expr))
        if isinstance(target, Builtin):
            return self.builtin(target, total, swapped)
        callee = self.checked.instances[target]
        result = width(callee.result)
        return self.apply(Call(target, total, result), total, result)

    def fold_negation(self, builtin: Builtin, expr: ast.Call) -> Value | None:
        """sub(c, x) = -x + c and neg(c): a constant costs no push of its own."""
        if builtin.name == "neg":
            constant = self.literal(expr.arguments[0])
            return None if constant is None else self.stack.push_constant(-constant % P)
        first, second = expr.arguments
        constant = self.literal(first)
        if constant is None:
            return None
        self.expr(second)
        self.stack.emit(Op("Push", P - 1))
        self.stack.emit(Op("Mul"))
        return self.apply(Op("AddI", constant), 1, 1)

    def builtin(self, builtin: Builtin, consumes: int, swapped: bool) -> Value | None:
        lines = builtin.tasm[1:] if swapped else builtin.tasm
        ops = [from_tasm(line) for line in lines]
        produces = width(builtin.result)
        growth = height = 0
        for op in ops:
            taken, given = op.effect()
            height += given - taken
            growth = max(growth, height)
        stack = self.stack
        stack.make_room(growth)
        for op in ops:
            stack.emit(op)
        if consumes:
            del stack.slots[len(stack.slots) - consumes :]
        if not produces:
            return None
        temp = stack.new_temp(produces, builtin.name)
        stack.slots.extend(temp.key(i) for i in range(produces))
        return temp

    def struct_literal(self, expr: ast.StructLiteral) -> Value:
        struct = self.instance.types[expr]
        order = self.order.struct_fields(expr)
        declared = [name for name, _ in struct.fields]
        if [name for name, _ in order] == declared:
            return self.stack.adopt(self.operands([value for _, value in order]))
        parts = {}
        for name, value in order:
            parts[name] = self.expr(value)
        # evaluated in source order; lay the fields out in declaration order
        total = sum(p.width for p in parts.values())
        prefix = self.stack.slots[: len(self.stack.slots) - total]
        keys = [parts[name].key(i) for name in declared for i in range(parts[name].width)]
        self.stack.conform(Layout(prefix + keys, set(self.stack.in_ram)))
        return self.stack.adopt(width(struct))

    def extract(self, temp: Value, offset: int, count: int) -> Value:
        """Keep elements offset .. offset+count-1 of a temporary on top, drop the rest."""
        stack = self.stack
        prefix = stack.slots[: len(stack.slots) - temp.width]
        keys = [temp.key(offset + i) for i in range(count)]
        stack.conform(Layout(prefix + keys, set(stack.in_ram)))
        return stack.adopt(count)

    def index(self, expr: ast.Index) -> Value:
        array: ArrayType = self.instance.types[expr.base]
        element = width(array.element)
        place = self.place_of(expr)
        if place is not None:
            binding, offset, type_, var = place
            return self.read_place(binding, offset, width(type_), var)
        index = self.constant(expr.index)
        stack = self.stack
        if index is not None:
            base = self.expr(expr.base)
            if index >= array.length:
                stack.drop(base)
                self.fail()
                for _ in range(element):
                    stack.push_constant(0)
                return stack.adopt(element)
            return self.extract(base, index * element, element)
        # a run-time index: the array lives in RAM, element i at a computed address
        base_place = self.place_of(expr.base)
        if base_place is not None:
            binding, offset, _, _ = base_place
            value = self.values[binding]
            if not value.ram_home:
                stack.home_in_ram(value)
        else:
            temp = self.expr(expr.base)
            value = Value("indexed", temp.width, "var")
            stack.rename(temp, value)
            value.ram_home = True
            stack.spill(value)
            offset = 0
        position = self.expr(expr.index)
        stack.push_constant(array.length)
        self.copy(position)
        self.apply(Op("Lt"), 2, 1)  # st0 = index < st1 = length
        self.apply(Op("Assert", 1), 1, 0)
        # address of the element's first word: base + width - 1 - offset - index * element
        first = stack.address(value, offset)
        if element != 1:
            stack.push_constant(element)
            self.apply(Op("Mul"), 2, 1)
        stack.emit(Op("Push", P - 1))
        stack.emit(Op("Mul"))
        self.apply(Op("AddI", first), 1, 1)
        stack.make_room(element + 1)
        remaining = element
        while remaining:
            chunk = min(5, remaining)
            stack.emit(Op("ReadMem", chunk))
            remaining -= chunk
        stack.emit(Op("Pop", 1))
        del stack.slots[-1]
        temp = stack.new_temp(element)
        stack.slots.extend(temp.key(i) for i in range(element))
        if base_place is None:
            stack.kill(value)
        return temp


def _least(a: list[int] | None, b: list[int] | None) -> list[int] | None:
    """The tighter of two valid bounds, word by word."""
    if a is None or b is None or len(a) != len(b):
        return b if a is None else a
    return [min(x, y) for x, y in zip(a, b, strict=True)]
