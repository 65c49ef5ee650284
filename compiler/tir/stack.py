"""The stack manager: a model of the operand stack that emits the TIR keeping it true.

The builder never writes a `dup` or `swap` itself; it asks `Stack` to read a
variable, apply an op, rename a value, conform to a layout.  `Stack` keeps,
for the current function's part of the stack (bottom -> top), what each slot
holds: element `i` of a `Value` (a variable or a temporary), or garbage
(`None`: a dead value not popped yet).  Every method emits exactly the ops
that make the machine match the model afterwards.

Window: only the top 16 slots are addressable (`dup`/`swap`/`pick` 0..15).
Invariant: every slot that is not a temporary is at depth <= 15.  Before a
push would break it, `make_room` drops deep garbage and spills the least
recently used variable to RAM (docs/backend.md, Spills: `pick d` then
`push addr` `write_mem n` `pop 1`, up to five contiguous elements at once).
Temporaries may sink below the window: they are only ever consumed from the
top.  Spill slots are handed out from 2^30 upward, one region per value,
never reused (no recursion, so a value's slot is never live twice).  Element
`j` of a value of width `w` lives at `base + w - 1 - j`, so that `read_mem`
and `write_mem` move contiguous elements in stack order.

`conform(layout)` rearranges the stack into a previously recorded layout (the
join points of branches and loop back edges): it spills or reloads what must
change place, pops and moves with `swap`/`pick`/`place` (planned by
compiler.tir.planner), and fills "any" slots; a region too deep for stack moves
goes through RAM (`write_mem` from the top, `read_mem` back in order).  It is
used for branch and loop ends and for function epilogues.

`facts()` is what the model knows about the stack at a point: its height, which slots
are garbage and which hold values below 2^32 (`u32_elements`, from the builder's
types); `note()` emits it as a `Facts` annotation for the block contracts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from compiler.tir.ops import Call, Facts, Op
from compiler.tir.planner import compatible, plan

WINDOW = 16  # addressable slots: st0 .. st15
SPILL_BASE = 1 << 30
SCRATCH_BASE = 1 << 29


def is_garbage(slot) -> bool:
    """A slot holding nothing useful: a filler (None) or a dead value's ghost."""
    return slot is None or slot[0].kind == "dead"


def _ram_order(key) -> tuple:
    """Elements in RAM by address: the same order on every run (sets of keys hash by
    identity, so their iteration order changes from run to run)."""
    value, index = key
    return (-1 if value.ram is None else value.ram, index)


def _ghost_key(slot):
    return (slot[0].ghost, slot[1])


class CompileLimit(Exception):
    """The stack manager cannot compile a construct (reported as a diagnostic)."""


@dataclass(eq=False)
class Value:
    """What occupies slots: a variable (`kind` "var", "pinned") or a temporary ("temp").

    "pinned" values (loop frames, the early-return flag and value) are never moved
    by a read and never die inside the construct that made them.
    """

    name: str
    width: int
    kind: str = "temp"
    ram: int | None = None  # base address of its RAM home, once it has one
    last_access: int = 0
    ram_home: bool = False  # lives in RAM for good (indexed at run time)
    owner: Value | None = None  # for a ghost ("dead"): the value it was
    _ghost: Value | None = None

    def key(self, index: int) -> tuple:
        return (self, index)

    @property
    def ghost(self) -> Value:
        """The garbage left where this value was: keeps track of whose slot it is."""
        if self._ghost is None:
            self._ghost = Value(self.name + "~", self.width, "dead", owner=self)
        return self._ghost

    def __repr__(self) -> str:
        return f"{self.name}:{self.kind}"


@dataclass
class Layout:
    """A recorded stack layout: slots (key or None = any) and the elements in RAM."""

    slots: list
    in_ram: set = field(default_factory=set)


class Allocator:
    """Hands out RAM regions for spills; shared by every function of a build."""

    def __init__(self, base: int = SPILL_BASE):
        self.next = base

    def take(self, width: int) -> int:
        address = self.next
        self.next += width
        return address


class Stack:
    def __init__(self, allocator: Allocator):
        self.slots: list = []
        self.in_ram: set = set()
        self.ops: list = []
        self.allocator = allocator
        self.clock = 0
        self.keep: frozenset = frozenset()  # values whose garbage slots stay (a join needs them)
        self.spills = 0  # spill sequences emitted so far
        self.distance = lambda value: 0  # to its next use (the builder sets it): spill far ones
        self.u32_elements = lambda value: frozenset()  # known below 2^32 (the builder sets it)
        self.origin = None  # the construct being compiled: stamped on each op (emit)

    # --- basics ------------------------------------------------------------------------------
    def emit(self, op) -> None:
        """Append `op`, stamped with the current origin (compiler.sourcemap) if it has none."""
        origin = self.origin
        if origin is not None:
            kind = type(op)
            if kind is Op and op.origin is None:
                op = Op(op.name, op.arg, origin)
            elif kind is Call and op.origin is None:
                op = Call(op.label, op.consumes, op.produces, origin)
        self.ops.append(op)

    def depth_of(self, position: int) -> int:
        return len(self.slots) - 1 - position

    def position(self, key) -> int | None:
        for position in range(len(self.slots) - 1, -1, -1):
            if self.slots[position] == key:
                return position
        return None

    def depth(self, key) -> int:
        position = self.position(key)
        if position is None:
            raise AssertionError(f"{key} is not on the stack")
        return self._reachable(self.depth_of(position))

    def _reachable(self, depth: int) -> int:
        if depth >= WINDOW:
            raise CompileLimit(f"a value sits at depth {depth}, beyond the 16 addressable slots")
        return depth

    def touch(self, value: Value) -> None:
        self.clock += 1
        value.last_access = self.clock

    def snapshot(self) -> Layout:
        return Layout(list(self.slots), set(self.in_ram))

    def restore(self, layout: Layout) -> None:
        self.slots = list(layout.slots)
        self.in_ram = set(layout.in_ram)

    def on_stack(self, value: Value) -> list[int]:
        """Element indices of `value` currently on the stack."""
        return [s[1] for s in self.slots if s is not None and s[0] is value]

    def present(self, value: Value) -> bool:
        return any(s is not None and s[0] is value for s in self.slots) or any(
            key[0] is value for key in self.in_ram
        )

    def values(self) -> list[Value]:
        seen: dict = {}
        for slot in self.slots:
            if not is_garbage(slot):
                seen.setdefault(slot[0], None)
        for key in sorted(self.in_ram, key=_ram_order):  # a set: give it a fixed order
            seen.setdefault(key[0], None)
        return list(seen)

    def address(self, value: Value, index: int) -> int:
        if value.ram is None:
            value.ram = self.allocator.take(value.width)
        return value.ram + value.width - 1 - index

    def facts(self, slots: list | None = None, top: int = 0) -> Facts:
        """What is known about the stack `slots` (default: now), with `top` more words on
        top that the model no longer lists (a condition the next control op consumes)."""
        slots = self.slots if slots is None else slots
        garbage, u32 = [], []
        for depth, slot in enumerate(reversed(slots), start=top):
            if is_garbage(slot):
                garbage.append(depth)
            elif slot[1] in self.u32_elements(slot[0]):
                u32.append(depth)
        return Facts(height=len(slots) + top, garbage=tuple(garbage), u32=tuple(u32))

    def note(self, slots: list | None = None, top: int = 0) -> None:
        """Emit the facts of `slots` (default: now): at the ends of straight-line runs."""
        self.emit(self.facts(slots, top))

    # --- raw moves (emit and update the model) -----------------------------------------------
    def swap(self, depth: int) -> None:
        if depth == 0:
            return
        self._reachable(depth)
        self.emit(Op("Swap", depth))
        top, other = len(self.slots) - 1, len(self.slots) - 1 - depth
        self.slots[top], self.slots[other] = self.slots[other], self.slots[top]

    def pick(self, depth: int) -> None:
        if depth == 0:
            return
        self._reachable(depth)
        self.emit(Op("Swap", 1) if depth == 1 else Op("Pick", depth))
        self.slots.append(self.slots.pop(len(self.slots) - 1 - depth))

    def place(self, depth: int) -> None:
        if depth == 0:
            return
        self._reachable(depth)
        self.emit(Op("Swap", 1) if depth == 1 else Op("Place", depth))
        top = self.slots.pop()
        self.slots.insert(len(self.slots) - depth, top)

    def pop(self, count: int) -> None:
        while count > 0:
            chunk = min(count, 5)
            self.emit(Op("Pop", chunk))
            del self.slots[len(self.slots) - chunk :]
            count -= chunk

    def dup(self, depth: int, key) -> None:
        self._reachable(depth)
        self.emit(Op("Dup", depth))
        self.slots.append(key)

    def push(self, constant: int, key) -> None:
        self.emit(Op("Push", constant))
        self.slots.append(key)

    # --- values ------------------------------------------------------------------------------
    def new_temp(self, width: int, name: str = "t") -> Value:
        return Value(name, width, "temp")

    def push_constant(self, constant: int) -> Value:
        self.make_room(1)
        temp = self.new_temp(1)
        self.push(constant, temp.key(0))
        return temp

    def apply(self, op, consumes: int, produces: int) -> Value | None:
        """Emit `op`, which takes the top `consumes` slots and leaves `produces` new ones
        (a call ends a straight-line run: facts on both sides)."""
        self.make_room(max(0, produces - consumes))
        boundary = isinstance(op, Call)
        if boundary:
            self.note()
        self.emit(op)
        if consumes:
            del self.slots[len(self.slots) - consumes :]
        temp = self.new_temp(produces) if produces else None
        if temp is not None:
            self.slots.extend(temp.key(i) for i in range(produces))
        if boundary:
            self.note()
        return temp

    def adopt(self, width: int, name: str = "t") -> Value:
        """The top `width` slots become one new temporary (e.g. several operands merged)."""
        temp = self.new_temp(width, name)
        start = len(self.slots) - width
        for i in range(width):
            self.slots[start + i] = temp.key(i)
        return temp

    def rename(self, temp: Value, value: Value, offset: int = 0, count: int | None = None) -> None:
        """Elements offset.. of `temp` become elements 0.. of `value` (no code)."""
        count = temp.width - offset if count is None else count
        mapping = {temp.key(offset + i): value.key(i) for i in range(count)}
        self.slots = [mapping.get(slot, slot) for slot in self.slots]
        self.touch(value)

    def kill(self, value: Value) -> None:
        """`value` is dead: its slots become garbage, its RAM copy is forgotten."""
        self.slots = [_ghost_key(s) if s is not None and s[0] is value else s for s in self.slots]
        self.in_ram = {key for key in self.in_ram if key[0] is not value}

    def kill_elements(self, value: Value, indices) -> None:
        keys = {value.key(i) for i in indices}
        self.slots = [_ghost_key(s) if s in keys else s for s in self.slots]

    def pop_garbage(self) -> None:
        """Pop garbage on top, except the slots of values in `keep` (a join layout has them)."""
        count = 0
        while count < len(self.slots):
            slot = self.slots[len(self.slots) - 1 - count]
            if not is_garbage(slot) or (slot is not None and slot[0].owner in self.keep):
                break
            count += 1
        self.pop(count)

    def drop(self, temp: Value | None) -> None:
        """Pop a temporary that is on top."""
        if temp is not None:
            self.kill(temp)
            self.pop_garbage()

    def read(self, value: Value, offset: int, width: int, move: bool) -> Value:
        """Push elements offset .. offset+width-1 of `value` (moved if `move`) as a temporary."""
        self.touch(value)
        temp = self.new_temp(width, value.name)
        keys = [value.key(offset + i) for i in range(width)]
        if move and width > 1 and not any(key in self.in_ram for key in keys):
            self.arrange(keys)
        if move and self.slots[len(self.slots) - width :] == keys:
            start = len(self.slots) - width
            for i in range(width):
                self.slots[start + i] = temp.key(i)
            return temp
        i = 0
        while i < width:
            key = keys[i]
            if key not in self.in_ram and not move:
                self.make_room(1, protect={value})
            if key in self.in_ram:
                run = 1
                while run < 5 and i + run < width and keys[i + run] in self.in_ram:
                    run += 1
                self.make_room(run + 1, protect={value})
                self.reload(value, offset + i, run, [temp.key(i + k) for k in range(run)])
                if move and not value.ram_home:
                    self.in_ram.difference_update(keys[i : i + run])
                i += run
                continue
            if move:
                self.pick(self.depth(key))
                self.slots[-1] = temp.key(i)
            else:
                self.dup(self.depth(key), temp.key(i))
            i += 1
        return temp

    def arrange(self, keys: list) -> None:
        """Move the elements `keys` (all on the stack) to the top in this order; the rest
        keeps its order.  Uses the planner, so rotations cost one `place`."""
        chosen = set(keys)
        rest = [slot for slot in self.slots if slot not in chosen]
        target = [None if is_garbage(slot) else slot for slot in rest] + list(keys)
        self.rearrange(target)

    def rearrange(self, target: list) -> None:
        """Make the slots match `target` (same keys, None = any) with planned moves, or
        through RAM when the moves would reach below st15."""
        current = [None if is_garbage(slot) else slot for slot in self.slots]
        moves = plan(current, target)
        if any(argument >= WINDOW for move, argument in moves if move != "pop"):
            self.through_ram(current, target)
            return
        for move, argument in moves:
            match move:
                case "swap":
                    self.swap(argument)
                case "pick":
                    self.pick(argument)
                case "place":
                    self.place(argument)
                case "pop":
                    self.pop(argument)

    def through_ram(self, current: list, target: list) -> None:
        """Rearrange a region too deep for stack moves: write it to a scratch region from
        the top (`write_mem` reaches any depth), then read the target back in order."""
        prefix = 0
        while prefix < min(len(current), len(target)) and current[prefix] == target[prefix]:
            prefix += 1
        region = current[prefix:]
        base = self.allocator.take(len(region))
        address = {}
        for i, key in enumerate(reversed(region)):  # the top goes to base
            if key is not None:
                address[key] = base + i
        self.emit(Op("Push", base))
        remaining = len(region)
        while remaining:
            chunk = min(5, remaining)
            self.emit(Op("WriteMem", chunk))
            remaining -= chunk
        self.emit(Op("Pop", 1))
        del self.slots[prefix:]
        wanted = target[prefix:]
        j = 0
        while j < len(wanted):
            key = wanted[j]
            if key is None:
                self.push(0, None)
                j += 1
                continue
            run = 1
            while (
                run < 5
                and j + run < len(wanted)
                and wanted[j + run] is not None
                and address[wanted[j + run]] == address[key] - run
            ):
                run += 1
            self.emit(Op("Push", address[key]))
            self.emit(Op("ReadMem", run))
            self.emit(Op("Pop", 1))
            self.slots.extend(wanted[j : j + run])
            j += run

    def reload(self, value: Value, index: int, count: int, labels: list) -> None:
        """Push elements index .. index+count-1 of `value` from RAM, labelled `labels`."""
        self.emit(Op("Push", self.address(value, index)))
        self.emit(Op("ReadMem", count))
        self.emit(Op("Pop", 1))
        self.slots.extend(labels)

    def spill(self, value: Value, indices=None) -> None:
        """Write the on-stack elements of `value` (or `indices`) to its RAM home."""
        indices = sorted(self.on_stack(value) if indices is None else indices)
        runs: list[list[int]] = []
        for index in indices:
            if runs and runs[-1][-1] == index - 1 and len(runs[-1]) < 5:
                runs[-1].append(index)
            else:
                runs.append([index])
        self.spills += len(runs)
        for run in reversed(runs):
            keys = [value.key(i) for i in run]
            if self.slots[len(self.slots) - len(run) :] != keys:
                for key in keys:
                    self.pick(self.depth(key))
            self.emit(Op("Push", self.address(value, run[-1])))
            self.emit(Op("WriteMem", len(run)))
            self.emit(Op("Pop", 1))
            del self.slots[len(self.slots) - len(run) :]
            self.in_ram.update(keys)

    def spill_many(self, values: list[Value]) -> None:
        """Spill several values; those without a RAM home yet get adjacent regions, so
        that up to five of their elements go out with one `write_mem`."""
        fresh = [v for v in values if v.ram is None and self.on_stack(v)]
        if len(fresh) < 2 or any(len(self.on_stack(v)) != v.width for v in fresh):
            for value in values:
                self.spill(value)
            return
        # element order: value by value, element 0 first; addresses decrease along it
        elements = [(v, j) for v in fresh for j in range(v.width)]
        base = self.allocator.take(len(elements))
        for v in reversed(fresh):
            v.ram = base
            base += v.width
        self.spills += 1
        for start in range(0, len(elements), 5):
            run = elements[start : start + 5]
            for key in run:
                self.pick(self.depth(key))
            self.emit(Op("Push", self.address(*run[-1])))
            self.emit(Op("WriteMem", len(run)))
            self.emit(Op("Pop", 1))
            del self.slots[len(self.slots) - len(run) :]
            self.in_ram.update(run)
        for value in values:
            if value not in fresh:
                self.spill(value)

    def home_in_ram(self, value: Value) -> None:
        """Keep `value` in RAM for good (it is indexed at run time)."""
        value.ram_home = True
        if self.on_stack(value):
            self.spill(value)

    # --- the window ---------------------------------------------------------------------------
    def make_room(self, count: int, protect=frozenset()) -> None:
        """Before pushing `count` slots: keep every non-temporary slot at depth <= 15."""
        while True:
            limit = len(self.slots) + count - WINDOW
            offender = next(
                (
                    i
                    for i in range(max(0, min(limit, len(self.slots))))
                    if is_garbage(self.slots[i]) or self.slots[i][0].kind != "temp"
                ),
                None,
            )
            if offender is None:
                return
            if is_garbage(self.slots[-1]):
                self.pop(1)
                continue
            if is_garbage(self.slots[offender]):
                self.pick(self.depth_of(offender))
                self.pop(1)
                continue
            # in slot order, not a set's (Values hash by identity, so a set's order changes
            # from run to run): `max` keeps the first, the deepest, of equally good ones
            candidates = [
                v
                for v in dict.fromkeys(s[0] for s in self.slots[offender:] if not is_garbage(s))
                if v.kind != "temp" and v not in protect
            ]
            if not candidates:
                candidates = [self.slots[offender][0]]
            victim = max(candidates, key=lambda v: (self.distance(v), -v.last_access))
            self.spill(victim)

    def enforce_window(self) -> None:
        """After temporaries became variables: spill from the top what went out of reach."""
        while any(
            is_garbage(self.slots[i]) or self.slots[i][0].kind != "temp"
            for i in range(max(0, len(self.slots) - WINDOW))
        ):
            if is_garbage(self.slots[-1]):
                self.pop_garbage()
                continue
            value, index = self.slots[-1]
            if value.kind == "temp":
                raise CompileLimit("a variable went out of reach below temporaries")
            run = [index]
            while (
                len(run) < 5
                and len(run) < len(self.slots)
                and self.slots[len(self.slots) - 1 - len(run)] == value.key(run[-1] - 1)
            ):
                run.append(run[-1] - 1)
            self.spill(value, run)

    # --- conform -------------------------------------------------------------------------------
    def conform(self, target: Layout, dead: bool = False) -> None:
        """Rearrange the stack (and RAM) into `target`; `dead` allows dummy values for
        keys that no longer exist (a path that has returned early)."""
        needed = {key for key in target.slots if not is_garbage(key)}
        # elements the target keeps in RAM
        to_spill: dict = {}
        for slot in self.slots:
            if slot is not None and slot in target.in_ram:
                to_spill.setdefault(slot[0], []).append(slot[1])
        for value, indices in to_spill.items():
            self.spill(value, indices)
        # everything else not needed is garbage
        self.slots = [s if s in needed else None for s in self.slots]
        self.in_ram = {key for key in self.in_ram if key in target.in_ram or key in needed}
        missing = [key for key in target.slots if not is_garbage(key) and key not in self.slots]
        self._solve(target.slots, missing, dead)
        self.in_ram = set(target.in_ram)
        self.slots = list(target.slots)

    def _solve(self, target: list, missing: list, dead: bool) -> None:
        target = [None if is_garbage(key) else key for key in target]
        # bring back what is in RAM (or invent it on a dead path)
        by_value: dict = {}
        for key in missing:
            if key in self.in_ram:
                by_value.setdefault(key[0], []).append(key[1])
            elif dead:
                self.push(0, key)
            else:
                raise AssertionError(f"conform: {key} is neither on the stack nor in RAM")
        for value, indices in by_value.items():
            indices.sort()
            start = 0
            while start < len(indices):
                run = 1
                while (
                    run < 5
                    and start + run < len(indices)
                    and indices[start + run] == indices[start] + run
                ):
                    run += 1
                first = indices[start]
                self.reload(value, first, run, [value.key(first + k) for k in range(run)])
                self.in_ram.difference_update(value.key(first + k) for k in range(run))
                start += run
        while len(self.slots) < len(target):
            self.push(0, None)
        self.rearrange(target)
        self.slots = [None if is_garbage(slot) else slot for slot in self.slots]
        if len(self.slots) != len(target) or not compatible(self.slots, target):
            raise AssertionError(f"conform failed: {self.slots} vs {target}")
