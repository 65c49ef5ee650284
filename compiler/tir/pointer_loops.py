"""The builder's pointer loops: the layout of compiler/tir/pointers.py's plans.

`PointerLoopBuilder` is a part of `compiler.tir.builder.FunctionBuilder`.  The loop's
frame is [B + END, B + START] for the plan's first base B (an "up" loop over the
pointer, tested by compiler/lower/control.py like any); another base C with an access
once per iteration gets a pointer of its own, carried by the loop, and any other
base a difference C - B.  A pointer's last access moves it through `read_mem 1`
(then `addi 2`) or `write_mem 1`, which leave it at the next iteration's address:
until the end of the body it is its `advanced` value (addresses after it read it
less 1), then the pointer again; the frame's pointer advanced that way spares the
loop's test its `addi 1` (`Loop.advanced`), a carried one not advanced that way
(spilled, or walking by a stride k: `base + i * k`) is advanced at the end of the body.
"""

from __future__ import annotations

from compiler.syntax import ast
from compiler.tir.ops import Op
from compiler.tir.pointers import PointerPlan, pointer_plan, strided
from compiler.tir.stack import Value
from vm.field import P


class PointerLoopBuilder:
    def pointer_plan(self, statement) -> PointerPlan | None:
        """The loop's plan when counting a pointer pays: each address with the first base
        saves 2 instructions per iteration, and so does each carried pointer's access;
        the end costs 2 before the loop, a carried pointer 1 and a difference 5."""
        key = (statement, frozenset(self.pointer_sites))  # a loop is built many times
        if key not in self.pointer_plans:
            self.pointer_plans[key] = pointer_plan(
                statement, self.instance, self.analysis, self.order, self.pointer_sites
            )
        plan = self.pointer_plans[key]
        if plan is None:
            return None
        walks = sum(plan.uses(key) for key in plan.bases if strided(key))
        saved = (
            2
            * (plan.uses(plan.bases[0]) + len(plan.fused) + walks)
            * self.expected_iterations(statement)
        )
        differences = sum(1 for key in plan.bases[1:] if not plan.carried(key))
        return plan if saved > 2 + 5 * differences + len(plan.bases) else None

    def pointer_loop(self, statement, plan, start: int, end, end_constant) -> None:
        """An "up" loop over the first base's pointer from START to END (END a value on
        the stack, counted by a guard, or `end_constant`), with the other bases' carried
        pointers and differences computed here."""
        stack = self.stack
        live_after = self.analysis.live_after[statement]
        first = plan.bases[0]
        step = first[0]  # +1 for base + i, -1 for field.sub(base, i), c for base + i * c
        differences, carried = self.other_bases(plan, start, live_after)
        self.base(plan, first, None)
        if end is not None:
            self.copy(end)
            if step != 1:
                stack.emit(Op("Push", step % P))
                stack.emit(Op("Mul"))
            last = self.apply(Op("Add"), 2, 1)
        else:
            last = self.apply(Op("AddI", step * end_constant % P), 1, 1)
        pointer = self.base(plan, first, live_after)
        if start:
            pointer = self.apply(Op("AddI", step * start % P), 1, 1)
        guard = None if end is None else stack.read(end, 0, 1, move=True)
        sites = {}
        for site, key in plan.sites.items():
            own = key == first or key in carried
            sites[site] = (statement, key if own else first, differences.get(key))
        self.pointer_sites.update(sites)
        self.carried_pointers.update({(statement, key): value for key, value in carried.items()})
        self.loop_pointers[statement] = [first, *carried]
        self.loop_plans[statement] = plan
        for key, site in plan.fused.items():
            self.pointer_fused[site] = (statement, key)
            self.advanced_pointers[(statement, key)] = Value("advanced", 1, "pinned")
        aliases = plan.aliases - self.pointer_aliases
        self.pointer_aliases |= aliases
        self.notes.append(("loops", f"counts an address ({len(plan.sites)} addresses)"))
        self.loop_step = step
        self.loop(statement, "up", [last, pointer], None, None, guard)
        for site in sites:
            del self.pointer_sites[site]
        for site in plan.fused.values():
            del self.pointer_fused[site]
        self.pointer_aliases -= aliases
        for value in [*differences.values(), *carried.values()]:
            stack.kill(value)
        stack.pop_garbage()

    def other_bases(self, plan, start: int, live_after) -> tuple[dict, dict]:
        """The bases but the first, each as a pointer carried through the loop (advanced
        with the first) or as its difference from the first base: (differences, carried),
        each by base."""
        stack = self.stack
        first = plan.bases[0]
        differences, carried = {}, {}
        for key in plan.bases[1:]:
            if plan.carried(key):
                self.base(plan, key, live_after)
                if start and strided(key):
                    self.stride(plan, key)
                    self.stack.push_constant(start)
                    self.apply(Op("Mul"), 2, 1)
                    self.apply(Op("Add"), 2, 1)
                elif start:
                    self.apply(Op("AddI", key[0] * start % P), 1, 1)
                pointer = Value("pointer", 1, "var")
                stack.rename(stack.adopt(1), pointer)
                carried[key] = pointer
                continue
            self.base(plan, first, None)
            stack.emit(Op("Push", P - 1))
            stack.emit(Op("Mul"))
            self.base(plan, key, live_after)
            difference = Value("pointer difference", 1, "var")
            stack.rename(self.apply(Op("Add"), 2, 1), difference)
            differences[key] = difference
        return differences, carried

    def base(self, plan, key, live_after) -> Value:
        """A base of `plan` on top: its value moved when `live_after` (not None) shows
        it is dead after the loop, which reads it only in addresses; else computed."""
        if live_after is not None and plan.consumable(key, live_after):
            binding, offset = key[1][1], key[1][2]
            value = self.values.get(binding)
            if (
                value is not None
                and binding.width == 1
                and value.kind == "var"
                and (not value.ram_home and self.stack.on_stack(value))
            ):
                temp = self.stack.read(value, offset, 1, move=True)
                self.stack.kill(value)
                return temp
        expression = plan.expressions[key]
        if not isinstance(expression, tuple):
            return self.expr(expression)
        total = self.expr(expression[0])  # the terms of a strided address's base
        for term in expression[1:]:
            self.expr(term)
            total = self.apply(Op("Add"), 2, 1)
        return total

    def stride(self, plan, key) -> Value:
        """A copy of the stride a base walks by, on top (a name's is copied: the loop reads
        it again every iteration)."""
        stride = key[0][1]
        if stride[0] == "int":
            return self.stack.push_constant(stride[1])
        expression = plan.strides[stride]
        binding = self.analysis.reads[expression]
        if binding in self.constants:
            return self.stack.push_constant(self.constants[binding])
        return self.read_place(binding, stride[2], 1, None)

    def pointer_value(self, statement, key) -> Value:
        """A pointer of the loop `statement`: its frame's, or a carried one."""
        if key == self.loop_pointers[statement][0]:
            return self.loop_frames[statement][-1]
        return self.carried_pointers[(statement, key)]

    def pointer_address(self, site) -> Value:
        """An address of a pointer loop: its pointer (less 1 once advanced), plus its
        base's difference from the frame's pointer."""
        statement, key, difference = self.pointer_sites[site]
        advanced = self.advanced_pointers.get((statement, key))
        if advanced is not None and self.stack.present(advanced):
            self.copy(advanced)
            self.apply(Op("AddI", -key[0] % P), 1, 1)
        else:
            self.copy(self.pointer_value(statement, key))
        if difference is None:
            return self.stack.adopt(1)
        self.copy(difference)
        return self.apply(Op("Add"), 2, 1)

    def fused_access(self, expr: ast.Call, write: bool) -> tuple[bool, Value | None]:
        """`mem.read(address)` or `mem.write(address, value)` at a pointer's last address,
        with the pointer itself moved (not copied) to `read_mem 1` / `write_mem 1`, which
        leave it one lower / higher: after `addi 2` for a read, it is the next
        iteration's, set back where it was as the pointer's `advanced` value.  Returns
        (done, value); not done where the pointer is spilled (then the access is built
        as any other)."""
        stack = self.stack
        statement, key = self.pointer_fused[expr.arguments[0]]
        pointer = self.pointer_value(statement, key)
        if pointer.key(0) not in stack.slots:
            return False, None
        if write:
            value = self.expr(expr.arguments[1])
            stack.touch(value)
        else:
            stack.make_room(1)
        if pointer.key(0) in stack.slots:
            depth = stack.depth(pointer.key(0))
            stack.pick(depth)
        else:  # spilled meanwhile: a copy from its RAM home
            self.copy(pointer)
            depth = 1 if write else 0  # nothing to set back
        if write:
            stack.emit(Op("WriteMem", 1))  # the pointer + 1 on top
            if key[0] != 1:
                stack.emit(Op("AddI", (key[0] - 1) % P))
            stack.slots[-2:] = [None]
            depth -= 1  # the value written sat above the pointer
        else:
            stack.emit(Op("ReadMem", 1))  # the pointer - 1 on top
            if key[0] != -1:
                stack.emit(Op("AddI", (key[0] + 1) % P))
            stack.slots[-1:] = [None, None]
            depth += 1  # the word read sits above the pointer
        stack.slots[-1] = self.advanced_pointers[(statement, key)].key(0)
        stack.place(depth)
        return True, None if write else stack.adopt(1, "read")

    def advanced_keys(self) -> dict:
        """The slot of each pointer being built -> the slot of its advanced value (a read
        with the pointer moves it there, where it was: the same place)."""
        keys = {}
        for (statement, key), advanced in self.advanced_pointers.items():
            if statement in self.loop_frames and statement in self.loop_pointers:
                keys[self.pointer_value(statement, key).key(0)] = advanced.key(0)
        return keys

    def restore_pointers(self, statement, pinned) -> bool:
        """At the end of a pointer loop's body: each advanced pointer becomes its pointer
        again (its value is the next iteration's); a carried pointer that was not advanced
        is advanced here.  Whether the frame's pointer was advanced."""
        stack = self.stack
        frame = False
        for key in self.loop_pointers.get(statement, ()):
            pointer = self.pointer_value(statement, key)
            advanced = self.advanced_pointers.get((statement, key))
            if advanced is None or not stack.present(advanced):
                if pointer is not pinned[-1] and strided(key):
                    stack.read(pointer, 0, 1, move=True)  # on top (reloaded if spilled)
                    stack.kill(pointer)
                    self.stride(self.loop_plans[statement], key)
                    stack.rename(self.apply(Op("Add"), 2, 1), pointer)
                elif pointer is not pinned[-1]:
                    self.copy(pointer)
                    self.assign_value(pointer, self.apply(Op("AddI", key[0] % P), 1, 1))
                continue
            if advanced.key(0) not in stack.slots:  # spilled in the body: reload it
                temp = stack.read(advanced, 0, 1, move=False)
                stack.kill(advanced)
                advanced = temp
            stack.kill(pointer)
            stack.rename(advanced, pointer)
            frame = frame or pointer is pinned[-1]
        return frame
