"""The builder's `for` loops: trip count, bound check, frame, body, pre-loop spills.

`LoopBuilder` is a part of `compiler.tir.builder.FunctionBuilder`.  The trip count is
max(0, END - START) computed exactly (u32 `lt` or a 64-bit comparison through `split`);
a `bounded N` loop traps when it exceeds N; the frame (`[count]` counting down, or
`[END v]`/`[v]` counting up when the body reads the loop variable) sits on top of the
stack while the body runs; when the body needs room, values it does not use (then values
it only reads) are spilled once before the loop if that is cheaper.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from compiler.check.types import FIELD, U32
from compiler.syntax import ast
from compiler.tir.ops import RECURSE_DEPTH, IfOnly, Loop, Op
from compiler.tir.stack import WINDOW, Value, is_garbage
from compiler.tir.walk import (
    block_live_in,
    contains_return,
    expected_cycles,
    has_loop,
    inside,
    lowered_size,
)
from vm.field import P

CROWDED = 14  # stack height from which an up frame is not sunk (the body would spill)


@dataclass
class LoopInfo:
    """An enclosing loop, for `return` (which forces it to end)."""

    kind: str
    frame: list  # the frame's Values, bottom -> top
    end: int | None
    step: int = 1  # what the test adds to an "up" frame's variable
    held: frozenset = frozenset()  # the values in the entry's slots (tir/aliases.py)


class BodyBuilds:
    """A loop body built several ways from the same start: what the builder looked like
    before the first build (stack, emitted ops, loop count, notes, spills), so that each
    build starts from there, and the figures the builds are compared by."""

    def __init__(self, builder, statement, kind: str, pinned: list, end, guard, step: int):
        self.builder, self.statement, self.kind = builder, statement, kind
        self.pinned, self.end, self.guard, self.step = pinned, end, guard, step
        stack = builder.stack
        self.before, self.start, self.count = stack.snapshot(), len(stack.ops), builder.loop_count
        self.notes = len(builder.notes)  # a body built again replaces the last build's notes
        self.spills = stack.spills  # the spills before the body: more means it needed room
        self.iterations = builder.expected_iterations(statement)

    def body(self, sink: bool = False, order=None) -> list:
        """Build the body from where the builder is now."""
        builder = self.builder
        return builder.loop_body(
            self.statement, self.kind, self.pinned, self.end, self.guard, self.step,
            sink=sink, order=order,
        )  # fmt: skip

    def _reset(self) -> None:
        builder, stack = self.builder, self.builder.stack
        stack.restore(self.before)
        del stack.ops[self.start :]
        builder.loop_count = self.count
        del builder.notes[self.notes :]

    def again(self, sink: bool, order=None) -> list:
        """The body built again from the start."""
        self._reset()
        self.builder.stack.spills = self.spills
        return self.body(sink, order)

    def with_spills(self, spilled: list, sink: bool = False) -> list:
        """The body built again after spilling `spilled` before the loop (which then counts
        as the code before the loop)."""
        self._reset()
        stack = self.builder.stack
        stack.spill_many(spilled)
        self.spills = stack.spills
        return self.body(sink)

    def spilled(self) -> bool:
        """Whether the last build spilled (it needed room on the stack)."""
        return self.builder.stack.spills > self.spills

    def cost(self, body) -> float:
        """Expected cycles: the code before the loop, then per iteration the body (each
        branch arm half the time) and the test (compiler.lower.control)."""
        builder, end = self.builder, self.end if self.kind == "up" else None
        loop = Loop(
            "cost", tuple(body), self.kind, end, builder.loop_depth, builder.loop_advanced,
            self.step,
        )  # fmt: skip
        before = builder.stack.ops[self.start :]
        return expected_cycles([loop]) * self.iterations + expected_cycles(before)

    def size(self, body) -> int:
        """Instructions: the body's times the expected iterations, and the code before."""
        before = self.builder.stack.ops[self.start :]
        return lowered_size(body) * self.iterations + lowered_size(before)


class LoopBuilder:
    def for_(self, statement: ast.For) -> None:
        variable = self.analysis.loop_variables[statement]
        used = variable is not None and any(b is variable for b in self.analysis.reads.values())
        start_constant = self.constant(statement.start)
        end_constant = self.constant(statement.end)
        if start_constant is not None and end_constant is not None:
            self.constant_range(statement, variable, used, start_constant, end_constant)
            return
        start = None if start_constant is not None else self.expr(statement.start)
        end = None if end_constant is not None else self.expr(statement.end)
        if start_constant == 0:
            self.range_from_zero(statement, variable, used, end)
            return
        self.general_range(statement, variable, used, start, start_constant, end, end_constant)

    def constant_range(self, statement: ast.For, variable, used: bool, start: int, end: int):
        """`for` over START..END, both constants: the count is known."""
        count = max(0, end - start)
        if statement.bound is not None and count > statement.bound:
            self.fail()
        elif count and used and (plan := self.pointer_plan(statement)):
            self.pointer_loop(statement, plan, start, None, end)
        elif count and used:
            frame = [self.stack.push_constant(start)]
            self.loop(statement, "up", frame, variable, end, guard=None)
        elif count:
            frame = [self.stack.push_constant(count)]
            self.loop(statement, "down", frame, variable, None, guard=None)

    def range_from_zero(self, statement: ast.For, variable, used: bool, end) -> None:
        """`for` over 0..END: max(0, END - 0) = END is the count."""
        if statement.bound is not None:
            self.check_bound(end, statement.bound)
        if used and (plan := self.pointer_plan(statement)):
            self.pointer_loop(statement, plan, 0, end, None)
        elif used:
            v = self.stack.push_constant(0)
            guard = self.copy(end)
            self.loop(statement, "up", [end, v], variable, None, guard=guard)
        else:
            guard = self.copy(end)
            self.loop(statement, "down", [end], variable, None, guard=guard)

    def general_range(self, statement, variable, used, start, start_constant, end, end_constant):
        """`for` over START..END with a count computed at run time (`trip_count`)."""
        bound = statement.bound
        end_first = bound is not None and end is not None and start_constant is not None
        end_first = end_first and start_constant + bound < 2**32 - 1
        if end_first:
            # END <= START + bound, checked first (END of 2^32 or more traps in `lt` too):
            # it fails on the same END as max(0, END - START) <= bound, and then END is a
            # u32, so the count takes one `lt` and is within the bound
            self.check_bound(end, start_constant + bound)
            bound = None
        count = self.trip_count(
            statement, start, start_constant, end, end_constant, used, small=end_first
        )
        if bound is not None:
            self.check_bound(count, bound)
        if not used:
            guard = self.copy(count)
            self.loop(statement, "down", [count], variable, None, guard=guard)
            return
        # up: frame [END v] (or [v] for a constant END), v starting at START
        frame = []
        if end is not None:
            frame.append(self.stack.read(end, 0, 1, move=True))
        if start is not None:
            frame.append(self.stack.read(start, 0, 1, move=True))
        else:
            frame.append(self.stack.push_constant(start_constant))
        self.loop(statement, "up", frame, variable, end_constant, guard=count)

    def loop(self, statement, kind, frame, variable, end, guard) -> None:
        step, self.loop_step = self.loop_step, 1  # a pointer loop's (compiler/tir/pointer_loops.py)
        pinned = self.pin_frame(statement, kind, frame, variable, guard)
        builds = BodyBuilds(self, statement, kind, pinned, end, guard, step)
        innermost = not has_loop(statement.body)
        up = kind == "up" and not self.measuring
        body = self.first_body(builds, up, innermost)
        if builds.spilled() and not self.measuring:
            body = self.body_with_room(builds, body, up, innermost)
        self.emit_loop(statement, kind, body, pinned, end, guard, step)

    def pin_frame(self, statement, kind, frame, variable, guard) -> list:
        """The frame's words as the loop's pinned values (the top one the variable's when
        counting up), with the guard (the count, which `skiz` takes) picked to the top."""
        stack = self.stack
        pinned = []
        for index, temp in enumerate(frame):
            value = Value("loop" if index == len(frame) - 1 else "end", 1, "pinned")
            stack.rename(temp, value)
            pinned.append(value)
        if guard is not None:
            stack.pick(stack.depth(guard.key(0)))
        if variable is not None and kind == "up":
            self.values[variable] = pinned[-1]
        self.loop_frames[statement] = pinned
        return pinned

    def first_body(self, builds: BodyBuilds, up: bool, innermost: bool) -> list:
        """The body with the frame sunk or not, and for an innermost loop the cheapest
        layout (`cheapest_layout`)."""
        stack = self.stack
        # a frame under five words on a stack this deep always crowded the body into spills;
        # one word less deep but for the guard (`skiz` takes it before the body), a loop
        # innermost and nested in another is built both ways and the cheaper kept
        # (`cheapest_layout`; at a function's top level the words moved over the frame
        # changed the spills of the code after the loop, which that choice does not see)
        crowded = len(stack.slots) >= CROWDED
        but_guard = len(stack.slots) - (builds.guard is not None) < CROWDED
        contested = up and crowded and but_guard and innermost and bool(self.loops)
        body = builds.body(sink=up and (not crowded or contested))
        sink = bool(self.loop_depth)
        if builds.spilled() and sink:
            body, sink = builds.again(sink=False), False  # the frame under five words crowds
        if not builds.spilled() and not self.measuring and innermost:
            before = builds.before
            code = (repr(before.slots), repr(sorted(map(repr, before.in_ram))), repr(body))
            key = (builds.statement, builds.kind, sink, *code, repr(stack.ops[builds.start :]))
            body = self.cheapest_layout(
                builds.kind, body, builds.again, builds.cost, builds.spills, sink, key, contested
            )
        return body

    def body_with_room(self, builds: BodyBuilds, body: list, up: bool, innermost: bool) -> list:
        """The body needs room: spill, once before the loop, some of what it does not use
        (least recently used first), then what it only reads (widest first); keep the
        cheapest: code before the loop + body size x expected iterations."""
        unused, read_only = self.unused_in(builds.statement.body, builds.pinned)
        unused.sort(key=lambda v: v.last_access)
        candidates = unused + read_only
        best = (builds.size(body), 0)
        tried = 0
        while tried < len(candidates):
            tried = min(len(candidates), max(1, 2 * tried))
            body = builds.with_spills(candidates[:tried])
            if (size := builds.size(body)) < best[0]:
                best = (size, tried)
            if not builds.spilled() and tried >= len(unused):
                break
        if best[1] != tried:  # else the last build is the cheapest: keep it
            body = builds.with_spills(candidates[: best[1]])
        if up and innermost:
            # with room made, the frame under five words may pay for itself after all,
            # by the expected cycles (which count any spill it adds to the body); where
            # it does not go under (depth 0) that build is the plain one
            plain = builds.cost(body)
            body = builds.with_spills(candidates[: best[1]], sink=True)
            if self.loop_depth and builds.cost(body) >= plain:
                body = builds.with_spills(candidates[: best[1]])
        return body

    def emit_loop(self, statement, kind, body, pinned, end, guard, step) -> None:
        """The loop (under an `IfOnly` on the guard when there is one), then the frame gone."""
        stack = self.stack
        self.loop_count += 1
        label = f"{self.label}__loop__{self.loop_count}"
        end_ = end if kind == "up" else None
        loop = Loop(label, tuple(body), kind, end_, self.loop_depth, self.loop_advanced, step)
        loop = replace(loop, **trip_facts(statement, kind, self.constant))
        stack.note(self.loop_entry.slots, top=0 if guard is None else 1)
        stack.emit(IfOnly((loop,)) if guard is not None else loop)
        stack.restore(self.loop_entry)
        stack.note()
        for value in pinned:
            stack.kill(value)
        stack.pop_garbage()

    def loop_body(
        self, statement, kind, pinned, end, guard, step=1, sink=False, order=None
    ) -> list:
        stack = self.stack
        depth = 0
        if sink:
            sink_frame = self.sink_frame if kind == "up" else self.sink_count
            depth = sink_frame(statement, pinned, guard)
        if order is not None:
            stack.rearrange(with_carried(stack.slots, order))
        if guard is not None:
            stack.kill(guard)
            stack.slots.pop()  # skiz consumes it
        entry = stack.snapshot()
        self.loop_body_flow(statement)
        saved_ops, stack.ops = stack.ops, []
        stack.note()
        outer = self.contexts[-1].kept if self.contexts else frozenset()
        self.enter(outer, entry)
        held = frozenset(s[0] for s in entry.slots if s is not None)
        self.loops.append(LoopInfo(kind, pinned, end, step, held))
        self.spans.append(self.analysis.loop_spans[statement])
        self.returned = False
        self.statements(statement.body.statements, None)
        self.spans.pop()
        live_end = self.analysis.live_after[statement] | block_live_in(
            self.analysis, statement.body, self.analysis.live_after[statement]
        )
        self.kill_dead(live_end)
        advanced = self.restore_pointers(statement, pinned)
        natural = carried(stack.slots)
        stack.conform(entry, dead=self.returned)
        stack.note()
        self.returned = False
        self.loops.pop()
        self.leave()
        body, stack.ops = stack.ops, saved_ops
        self.loop_entry, self.loop_depth, self.loop_advanced = entry, depth, advanced
        # the carried words in the order the body left them, if that is another order of
        # the same words (then entering in that order saves the moves back)
        entered = carried(entry.slots)
        same = len(natural) == len(entered) and set(natural) == set(entered) != set()
        same = same and natural != entered
        self.loop_natural = natural if same else None
        return body

    def cheapest_layout(
        self, kind, body, build, cost, spills: int, sink: bool, key, contested: bool = False
    ) -> list:
        """An innermost loop, built with its frame on top and sunk (a down loop's, and an
        up loop's where `loop` calls the rule `contested`; else an up loop's stays where
        `sink_frame`'s rule put it), each with the carried values in
        their order and in the order the body leaves them;
        the cheapest by `cost` is built last and returned.  The first build, `body`
        (`sink`, in order), is already done.  An enclosing loop builds its body several
        times (compiler.tir.loops.loop's spill choices), so the winner is remembered under
        `key` (the loop, its first build and everything emitted before it) and built
        straight away when the same first build comes again; a remembered choice that no
        longer fits (it spills) is searched again.  Every layout is a correct build of
        the loop, so the memo can only decide between correct ones."""
        remembered = self.layouts.get(key)
        if remembered is not None:
            rebuilt = self.remembered_layout(body, build, spills, sink, remembered)
            if rebuilt is not None:
                return rebuilt
            body = build(sink)
        stack = self.stack
        best = (cost(body), sink, None)
        done = {(sink, None)}
        # up: the rule decides, but where it is `contested` (see `loop`)
        waiting = [(not sink, None)] if kind == "down" or contested else []
        if self.loop_natural is not None:
            waiting.append((sink, tuple(self.loop_natural)))
        last = (sink, None)
        while waiting:
            choice = waiting.pop(0)
            if choice in done:
                continue
            done.add(choice)
            body, last = build(*choice), choice
            if stack.spills > spills or (choice[0] and not self.loop_depth):
                continue
            if (cost_of := cost(body)) < best[0]:
                best = (cost_of, *choice)
            if choice[1] is None and self.loop_natural is not None:
                waiting.append((choice[0], tuple(self.loop_natural)))
        self.layouts[key] = (best[1], best[2] is not None)
        return body if last == best[1:] else build(*best[1:])

    def remembered_layout(self, body, build, spills: int, sink: bool, choice) -> list | None:
        """Build the remembered `choice` (sink, in the order the body leaves the carried
        values) from the first build `body`; None when it no longer applies."""
        chosen_sink, natural = choice
        if chosen_sink != sink:
            body = build(chosen_sink)
        if natural:
            if self.loop_natural is None:
                return None
            body = build(chosen_sink, tuple(self.loop_natural))
        if choice != (sink, False):
            if self.stack.spills > spills or (chosen_sink and not self.loop_depth):
                return None
        return body

    def expected_iterations(self, statement) -> int:
        """The trip count when it is a constant, else the bound (at most 16; 8 without)."""
        start, end = self.constant(statement.start), self.constant(statement.end)
        if start is not None and end is not None:
            return max(0, end - start)
        return min(statement.bound or 8, 16)

    def sink_count(self, statement, pinned, guard) -> int:
        """Put a "down" frame [count] under the words right below it (up to another frame
        or an early return's flag, at most 14 words): the body then works on them where
        they are, and the test is `pick k` `addi -1` `dup 0` `place k+1` `skiz` `recurse`.
        Returns k, or 0 where the frame stays on top."""
        stack = self.stack
        frame = pinned[0].key(0)
        top = [guard.key(0)] if guard is not None else []
        height = len(stack.slots) - len(top)
        if stack.slots[height - 1] != frame or stack.slots[height:] != top:
            return 0
        below = stack.slots[: height - 1]
        movable = movable_under(below, WINDOW - 2)
        if movable == 0:
            return 0
        if top:
            stack.pick(1)  # the guard under the frame, to stay on top
        stack.place(movable + len(top))
        return movable

    def sink_frame(self, statement, pinned, guard) -> int:
        """Put an "up" frame [END v] under five words, where `recurse_or_return` tests it
        (4 cycles per iteration instead of 6), when that saves more than it costs: the
        moves (and padding) before the loop against 2 cycles per expected iteration.
        Returns the frame's depth: RECURSE_DEPTH, or 0 where it stays on top."""
        stack = self.stack
        if len(pinned) != 2:
            return 0
        frame = [value.key(0) for value in pinned]
        top = [guard.key(0)] if guard is not None else []
        height = len(stack.slots) - len(top)
        if stack.slots[height - 2 : height] != frame or stack.slots[height:] != top:
            return 0
        below = stack.slots[: height - 2]
        movable = movable_under(below, RECURSE_DEPTH)
        if movable == 0:
            return 0
        padding = RECURSE_DEPTH - movable
        before, start, spills = stack.snapshot(), len(stack.ops), stack.spills
        stack.make_room(padding)
        if stack.spills != spills or stack.slots != before.slots:
            stack.restore(before)
            del stack.ops[start:]
            stack.spills = spills
            return 0
        if padding == 0:
            # [w5 .. w1 END v (g)] -> [END v w5 .. w1 (g)]: two `place 6` (g set aside)
            if top:
                stack.place(7)
            stack.place(6)
            stack.place(6)
            if top:
                stack.pick(7)
        else:
            # garbage on top, then the words under the frame (deepest first), then the
            # guard over it all: every word moved sits at the same depth when its turn comes
            for _ in range(padding):
                stack.push(0, None)
            for _ in range(movable):
                stack.pick(len(stack.slots) - 1 - (len(below) - movable))
            if top:
                stack.pick(RECURSE_DEPTH)
        cost = len(stack.ops) - start + (1 if padding else 0)  # and a `pop` after the loop
        if cost >= 2 * self.expected_iterations(statement):
            stack.restore(before)
            del stack.ops[start:]
            return 0
        return RECURSE_DEPTH

    def unused_in(self, block: ast.Block, frame: list) -> tuple[list, list]:
        """Values on the stack that a loop body never names, and those it only reads
        (widest first): spilling them before the loop costs once, not per iteration."""
        read = {b for var, b in self.analysis.reads.items() if inside(var, block)}
        written = {b for var, b in self.analysis.targets.items() if inside(var, block)}
        returns = any(contains_return(s) for s in block.statements)
        unused, read_only = [], []
        for value in self.stack.values():
            if value in frame or not self.stack.on_stack(value) or value.kind == "temp":
                continue
            binding = self.bindings.get(value)
            if binding is not None and binding not in read | written:
                unused.append(value)
            elif binding is not None and binding not in written and not value.ram_home:
                read_only.append(value)
            elif binding is None and value.kind == "pinned" and not returns:
                unused.append(value)
        read_only.sort(key=lambda v: (-v.width, v.last_access))
        return unused, read_only

    def trip_count(
        self, statement, start, start_constant, end, end_constant, keep, small=False
    ) -> Value:
        """max(0, END - START) = (START < END) * (END - START) as a temporary on top;
        START and END are consumed unless `keep`.  `small`: both are known u32."""
        stack = self.stack

        def operand(temp, constant, move=False):
            if temp is None:
                return stack.push_constant(constant)
            return stack.read(temp, 0, 1, move=move)

        start_type = self.instance.types.get(statement.start, FIELD)
        end_type = self.instance.types.get(statement.end, FIELD)
        small = small or (
            (start_type == U32 or (start_constant is not None and start_constant < 2**32))
            and (end_type == U32 or (end_constant is not None and end_constant < 2**32))
        )
        operand(end, end_constant)
        operand(start, start_constant)
        if small:
            self.apply(Op("Lt"), 2, 1)  # st0 = START < st1 = END
        else:
            stack.swap(1)
            self.less_than_64()
        operand(end, end_constant, move=not keep)
        operand(start, start_constant, move=not keep)
        stack.emit(Op("Push", P - 1))
        stack.emit(Op("Mul"))
        self.apply(Op("Add"), 2, 1)
        return self.apply(Op("Mul"), 2, 1)

    def less_than_64(self) -> Value:
        """[a b] -> [a < b] for any field elements, through split (15 instructions)."""
        stack = self.stack
        stack.make_room(4)
        for op in (
            Op("Split"),
            Op("Pick", 2),
            Op("Split"),
            Op("Dup", 2),
            Op("Dup", 1),
            Op("Lt"),
            Op("Swap", 3),
            Op("Pop", 2),
            Op("Dup", 2),
            Op("Dup", 1),
            Op("Lt"),
            Op("Swap", 3),
            Op("Eq"),
            Op("Mul"),
            Op("Add"),
        ):
            stack.emit(op)
        del stack.slots[len(stack.slots) - 2 :]
        temp = stack.new_temp(1, "less")
        stack.slots.append(temp.key(0))
        return temp

    def check_bound(self, count: Value, bound: int) -> None:
        """Trap unless count <= bound (count >= 2^32 traps in `lt` too)."""
        stack = self.stack
        stack.push_constant(bound + 1)
        self.copy(count)
        self.apply(Op("Lt"), 2, 1)
        self.apply(Op("Assert", 1), 1, 0)


def movable_under(below: list, limit: int) -> int:
    """How many of the top slots of `below` (at most `limit`) may go over a loop frame:
    up to another loop's frame or an early return's (pinned); 0 when the top one is
    garbage (on top of the body's stack it would be popped and pushed again)."""
    if not below or is_garbage(below[-1]):
        return 0
    movable = 0
    while movable < min(limit, len(below)):
        slot = below[len(below) - 1 - movable]
        if not is_garbage(slot) and slot[0].kind == "pinned":
            break
        movable += 1
    return movable


def carried(slots: list) -> list:
    """The keys of `slots` a loop body may carry in any order: variables, in slot order
    (not loop frames or an early return's, which are pinned; not temporaries, not
    garbage)."""
    return [
        slot for slot in slots if not is_garbage(slot) and slot[0].kind not in ("pinned", "temp")
    ]


def trip_facts(statement, kind: str, constant) -> dict:
    """The Loop's `trips` (a constant trip count) and `count_u32` (a "down" count below
    2^32 at entry: constant, or at most a `bounded` limit or a constant END, both checked
    before the loop).  Neither for a loop a `return` may end early (it writes the frame)."""
    if contains_return(statement):
        return {}
    start, end = constant(statement.start), constant(statement.end)
    trips = max(0, end - start) if start is not None and end is not None else None
    limits = [n for n in (trips, statement.bound, end) if n is not None]
    return {"trips": trips, "count_u32": kind == "down" and min(limits, default=P) < 2**32 - 1}


def with_carried(slots: list, order: list) -> list:
    """`slots` with its carried keys (see `carried`) replaced, position by position, by
    `order` (the same keys in another order); garbage is "any"."""
    rest = iter(order)
    chosen = set(order)
    return [None if is_garbage(slot) else next(rest) if slot in chosen else slot for slot in slots]
