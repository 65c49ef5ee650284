"""The writer behind `tests/source_generator.py`: random well-typed source text.

`Writer` writes one file's structs, functions and `main` from a `random.Random`, choosing
each expression by the type it must have and each statement from what is in scope (names,
field paths, array words, loop counters, mutable places), so every file it writes checks.
It records the language features it used (`Writer.features`).  The types it works with
are the small dataclasses here, spelled as source by `spell`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

P = 2**64 - 2**32 + 1
EDGE_WORDS = (0, 1, P - 1, 2**32 - 1, 2**32)
MODULE_NAME = "fuzzlib"
RAM_BASES = (100, 200, 300)

FIELD, U32, BOOL, DIGEST = "Field", "U32", "Bool", "Digest"
IMPORTS = (
    "vm.io.io",
    "vm.io.mem",
    "vm.core.convert",
    "vm.core.field",
    "vm.core.u32",
    "vm.core.assert",
    "vm.crypto.hash",
    "vm.crypto.merkle",
)


@dataclass(frozen=True)
class StructType:
    name: str
    fields: tuple  # ((name, type), ...)


@dataclass(frozen=True)
class TupleType:
    items: tuple


@dataclass(frozen=True)
class ArrayType:
    element: str
    size: int


def spell(type_) -> str:
    """The type as source text."""
    if isinstance(type_, StructType):
        return type_.name
    if isinstance(type_, TupleType):
        return "(" + ", ".join(spell(item) for item in type_.items) + ")"
    if isinstance(type_, ArrayType):
        return f"[{type_.element}; {type_.size}]"
    return type_


def word_count(type_) -> int:
    if isinstance(type_, StructType):
        return sum(word_count(t) for _, t in type_.fields)
    if isinstance(type_, TupleType):
        return sum(word_count(t) for t in type_.items)
    if isinstance(type_, ArrayType):
        return type_.size
    return 5 if type_ == DIGEST else 1


def leaf_types(type_) -> list[str]:
    """The scalar type of each word, in layout order (first component first)."""
    if isinstance(type_, StructType):
        return [leaf for _, t in type_.fields for leaf in leaf_types(t)]
    if isinstance(type_, TupleType):
        return [leaf for t in type_.items for leaf in leaf_types(t)]
    if isinstance(type_, ArrayType):
        return [type_.element] * type_.size
    return [FIELD] * 5 if type_ == DIGEST else [type_]


class Writer:
    """Writes one file; every choice comes from `rng`."""

    def __init__(self, rng: random.Random, module: bool, copies: bool = True, size=1.0):
        self.rng = rng
        self.module = module
        self.copies = copies
        self.size = size
        self.structs: list[StructType] = []
        self.functions: list[tuple[str, list, object]] = []  # name, parameter types, result
        self.lines: list[str] = []
        self.counter = 0
        self.features: set[str] = set()
        self.base = rng.choice(RAM_BASES)

    def scaled(self, count: int) -> int:
        """A statement or function count, scaled by the size asked for (at least 1)."""
        return max(1, round(count * self.size))

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    # --- types ----------------------------------------------------------------------------
    def make_structs(self) -> None:
        rng = self.rng
        for index in range(rng.randrange(1, 4)):
            fields = [("count", FIELD)]
            for _ in range(rng.randrange(1, 4)):
                fields.append((self.fresh("f"), rng.choice([FIELD, FIELD, U32, BOOL])))
            if self.structs and rng.random() < 0.4:
                fields.append((self.fresh("inner"), rng.choice(self.structs)))
            self.structs.append(StructType(f"S{index}", tuple(fields)))
        wide = [(f"w{k}", FIELD) for k in range(rng.randrange(8, 11))]
        wide.insert(rng.randrange(len(wide)), ("rounds", U32))
        self.structs.append(StructType("Wide", tuple(wide)))
        for struct in self.structs:
            self.lines.append(f"struct {struct.name} {{")
            self.lines += [f"    {name}: {spell(t)}," for name, t in struct.fields]
            self.lines += ["}", ""]

    def random_type(self, compound: float = 0.4):
        rng = self.rng
        if rng.random() >= compound:
            return rng.choice([FIELD, FIELD, FIELD, U32, U32, BOOL])
        roll = rng.randrange(5)
        if roll == 0:
            return TupleType((rng.choice([FIELD, U32]), rng.choice([FIELD, U32, BOOL])))
        if roll == 1:
            return ArrayType(rng.choice([FIELD, U32]), rng.randrange(2, 5))
        if roll == 2:
            return DIGEST
        return rng.choice(self.structs[:-1])

    # --- expressions ----------------------------------------------------------------------
    def readables(self, scope: list) -> list[tuple[str, object]]:
        """Every (text, type) readable from the scope: names, field paths, array words."""
        found = []

        def walk(text, type_):
            found.append((text, type_))
            if isinstance(type_, StructType):
                for name, t in type_.fields:
                    walk(f"{text}.{name}", t)
            elif isinstance(type_, ArrayType) and "[" not in text:
                for index in range(type_.size):
                    found.append((f"{text}[{index}]", type_.element))

        for name, type_, _ in scope:
            walk(name, type_)
        return found

    def expr(self, type_, scope: list, depth: int) -> str:
        rng = self.rng
        names = [text for text, t in self.readables(scope) if t == type_]
        calls = [f for f in self.functions if f[2] == type_]
        if depth <= 0 or rng.random() < 0.3:
            if names and rng.random() < 0.85:
                return rng.choice(names)
            return self.literal(type_, scope)
        if calls and rng.random() < 0.15:
            return self.call(rng.choice(calls), scope, depth - 1)
        d = depth - 1
        if type_ == FIELD:
            return self.field_expr(scope, d, names)
        if type_ == U32:
            return self.u32_expr(scope, d, names)
        if type_ == BOOL:
            roll = rng.randrange(5)
            if roll == 0:
                return f"({self.expr(FIELD, scope, d)} == {self.expr(FIELD, scope, d)})"
            if roll == 1:
                return f"({self.expr(U32, scope, d)} == {self.expr(U32, scope, d)})"
            if roll <= 3:
                self.features.add("u32 comparison")
                return f"({self.expr(U32, scope, d)} < {self.expr(U32, scope, d)})"
            return rng.choice(names) if names else self.literal(BOOL, scope)
        if type_ == DIGEST:
            if rng.random() < 0.25:
                self.features.add("ram block")
                return f"mem.read_block({self.address(scope)})"
            self.features.add("hash")
            words = [self.expr(FIELD, scope, d) for _ in range(rng.randrange(1, 4))]
            return f"hash.tip5({', '.join(words + ['0'] * (10 - len(words)))})"
        if isinstance(type_, TupleType) and type_.items == (U32, U32) and rng.random() < 0.5:
            if rng.random() < 0.5:
                self.features.add("division")
                return f"({self.expr(U32, scope, d)} /% {self.expr(U32, scope, d)})"
            self.features.add("split")
            return f"convert.split({self.expr(FIELD, scope, d)})"
        return self.literal(type_, scope, d)

    def field_expr(self, scope: list, d: int, names: list) -> str:
        rng = self.rng
        roll = rng.randrange(12)
        if roll <= 1:
            return f"({self.expr(FIELD, scope, d)} + {self.expr(FIELD, scope, d)})"
        if roll <= 3:
            return f"({self.expr(FIELD, scope, d)} * {self.expr(FIELD, scope, d)})"
        if roll == 4:
            return f"field.sub({self.expr(FIELD, scope, d)}, {self.expr(FIELD, scope, d)})"
        if roll == 5:
            return f"field.neg({self.expr(FIELD, scope, d)})"
        if roll == 6 and rng.random() < 0.3:
            self.features.add("inverse")
            return f"field.inv({self.expr(FIELD, scope, d)})"
        if roll <= 8:
            self.features.add("conversion")
            return f"convert.as_field({self.expr(U32, scope, d)})"
        if roll == 9:
            self.features.add("ram")
            return f"mem.read({self.address(scope)})"
        if roll == 10:
            return f"({self.expr(FIELD, scope, d)} + {rng.choice([1, 2, 7, 4294967295])})"
        return rng.choice(names) if names else self.literal(FIELD, scope)

    def u32_expr(self, scope: list, d: int, names: list) -> str:
        rng = self.rng
        roll = rng.randrange(10)
        self.features.add("conversion")
        if roll <= 2:  # mostly of a name: an input word is often in range, a sum rarely
            words = [text for text, t in self.readables(scope) if t == FIELD]
            if words and rng.random() < 0.6:
                return f"convert.as_u32({rng.choice(words)})"
            return f"convert.as_u32({self.expr(FIELD, scope, d)})"
        if roll == 3:
            return f"({self.expr(U32, scope, d)} & {self.expr(U32, scope, d)})"
        if roll == 4:
            return f"({self.expr(U32, scope, d)} ^ {self.expr(U32, scope, d)})"
        if roll == 5:
            return f"u32.popcount({self.expr(U32, scope, d)})"
        if roll == 6 and rng.random() < 0.4:
            return f"u32.log2({self.expr(U32, scope, d)})"
        if roll == 7:
            left, right = self.expr(U32, scope, d), self.expr(U32, scope, d)
            return f"convert.as_u32(convert.as_field({left}) + convert.as_field({right}))"
        return rng.choice(names) if names else self.literal(U32, scope)

    def literal(self, type_, scope: list, depth: int = 0) -> str:
        rng = self.rng
        if type_ == FIELD:
            if rng.random() < 0.1:
                return str(rng.choice([4294967295, 4294967296, P - 1]))
            return str(rng.choice([0, 1, 2, 3, 5, 10]))
        if type_ == U32:
            value = 4294967295 if rng.random() < 0.06 else rng.choice([0, 1, 2, 3, 7, 255])
            return f"convert.as_u32({value})"
        if type_ == BOOL:
            return rng.choice(["true", "false"])
        if type_ == DIGEST:
            return f"hash.tip5({self.expr(FIELD, scope, 0)}, 0, 0, 0, 0, 0, 0, 0, 0, 1)"
        if isinstance(type_, StructType):
            parts = [f"{name}: {self.expr(t, scope, depth)}" for name, t in type_.fields]
            return f"{type_.name} {{ {', '.join(parts)} }}"
        if isinstance(type_, TupleType):
            return "(" + ", ".join(self.expr(t, scope, depth) for t in type_.items) + ")"
        if isinstance(type_, ArrayType):
            items = [self.expr(type_.element, scope, depth) for _ in range(type_.size)]
            return "[" + ", ".join(items) + "]"
        raise AssertionError(type_)

    def address(self, scope: list) -> str:
        """A RAM address: the file's base plus a constant or a loop counter (below 8)."""
        counters = [name for name, t, kind in scope if kind == "counter"]
        if counters and self.rng.random() < 0.4:
            return f"{self.base} + convert.as_field({self.rng.choice(counters)})"
        return f"{self.base} + {self.rng.randrange(24)}"

    def call(self, function, scope: list, depth: int) -> str:
        name, params, _ = function
        self.features.add("call")
        return f"{name}({', '.join(self.expr(t, scope, depth) for t in params)})"

    # --- statements -----------------------------------------------------------------------
    def block(self, scope, depth, count, indent, result, loops=0, extend=False) -> list:
        """`count` statements; with `extend`, the names they declare are added to `scope`."""
        rng = self.rng
        scope = scope if extend else list(scope)
        lines: list[str] = []
        for _ in range(count):
            roll = rng.randrange(22)
            if roll <= 3 or not scope:
                type_ = self.random_type()
                name = self.fresh("v")
                mutable = rng.random() < 0.35
                value = self.expr(type_, scope, 2)
                lines.append(
                    f"{indent}let {'mut ' if mutable else ''}{name}: {spell(type_)} = {value}"
                )
                scope.append((name, type_, "mutable" if mutable else "fixed"))
            elif roll <= 5:
                lines += self.assignment(scope, indent)
            elif roll <= 7:
                lines += self.struct_copy(scope, indent)
            elif roll == 8:
                lines.append(f"{indent}io.write({self.expr(FIELD, scope, 2)})")
            elif roll == 9 and depth > 0:
                lines += self.if_chain(scope, depth, indent, result, loops)
            elif roll == 10 and depth > 0 and loops < 2:
                lines += self.loop(scope, depth, indent, result, loops)
            elif roll == 11 and depth > 0:
                lines += self.match(scope, depth, indent, result, loops)
            elif roll == 12 and result is not None:
                self.features.add("early return")
                lines.append(f"{indent}if {self.expr(BOOL, scope, 1)} {{")
                lines.append(f"{indent}    return {self.expr(result, scope, 1)}")
                lines.append(f"{indent}}}")
            elif roll == 13:
                lines += self.assertion(scope, indent)
            elif roll == 14:
                self.features.add("ram")
                lines.append(
                    f"{indent}mem.write({self.address(scope)}, {self.expr(FIELD, scope, 2)})"
                )
            elif roll == 15:
                lines += self.destructure(scope, indent)
            elif roll == 16:
                lines += self.secrets(scope, indent)
            elif roll == 17 and loops == 0:
                lines += self.sponge(scope, indent)
            elif roll == 18 and loops == 0:
                lines += self.merkle(scope, indent)
            elif roll == 19:
                units = [f for f in self.functions if f[2] is None]
                if units:
                    lines.append(indent + self.call(rng.choice(units), scope, 1))
            else:
                lines += self.write_value(scope, indent)
        return lines

    def assignment(self, scope: list, indent: str) -> list:
        rng = self.rng
        targets = [
            (text, t)
            for text, t in self.readables([entry for entry in scope if entry[2] == "mutable"])
        ]
        if not targets:
            return []
        text, type_ = rng.choice(targets)
        if "[" in text:
            self.features.add("array update")
        elif "." in text:
            self.features.add("field update")
        return [f"{indent}{text} = {self.expr(type_, scope, 2)}"]

    def struct_copy(self, scope: list, indent: str) -> list:
        """`let seen = t.f` `let mut next: T = t` `next.f = t.f + k`: the shape of bug (a)."""
        rng = self.rng
        structs = [(name, t) for name, t, kind in scope if isinstance(t, StructType)]
        if not structs:
            return []
        name, type_ = rng.choice(structs)
        self.features.add("struct copy")
        fields = [(f, t) for f, t in type_.fields if t in (FIELD, U32)]
        seen, copy = self.fresh("seen"), self.fresh("next")
        first = next(f for f, t in type_.fields if t == FIELD)
        value = name
        if not self.copies:  # the same value, built field by field
            value = ", ".join(f"{f}: {name}.{f}" for f, _ in type_.fields)
            value = f"{type_.name} {{ {value} }}"
        lines = [
            f"{indent}let {seen}: Field = {name}.{first}",
            f"{indent}let mut {copy}: {type_.name} = {value}",
        ]
        for f, t in rng.sample(fields, rng.randrange(1, len(fields) + 1)):
            if t == FIELD:
                value = f"{name}.{f} + {self.expr(FIELD, scope + [(seen, FIELD, 'fixed')], 1)}"
            else:
                value = f"convert.as_u32(convert.as_field({name}.{f}) + {rng.randrange(1, 4)})"
            lines.append(f"{indent}{copy}.{f} = {value}")
        scope += [(seen, FIELD, "fixed"), (copy, type_, "mutable")]
        return lines

    def if_chain(self, scope, depth, indent, result, loops) -> list:
        rng = self.rng
        lines = [f"{indent}if {self.expr(BOOL, scope, 1)} {{"]
        lines += self.block(scope, depth - 1, rng.randrange(1, 4), indent + "    ", result, loops)
        for _ in range(rng.choice([0, 0, 1, 2])):
            self.features.add("else if")
            lines.append(f"{indent}}} else if {self.expr(BOOL, scope, 1)} {{")
            lines += self.block(
                scope, depth - 1, rng.randrange(1, 3), indent + "    ", result, loops
            )
        if rng.random() < 0.6:
            lines.append(f"{indent}}} else {{")
            lines += self.block(
                scope, depth - 1, rng.randrange(1, 3), indent + "    ", result, loops
            )
        lines.append(f"{indent}}}")
        return lines

    def loop(self, scope, depth, indent, result, loops) -> list:
        rng = self.rng
        counter = self.fresh("i")
        if rng.random() < 0.4:
            header = f"for {counter} in 0..{rng.randrange(1, 5)}"
        else:
            self.features.add("bounded loop")
            ends = [text for text, t in self.readables(scope) if t in (FIELD, U32)]
            end = rng.choice(ends) if ends and rng.random() < 0.8 else self.expr(FIELD, scope, 1)
            start = rng.choice(["0", "0", "1", "convert.as_u32(1)"])
            header = f"for {counter} in {start}..{end} bounded {rng.choice([4, 8, 16])}"
        lines = [f"{indent}{header} {{"]
        inner = [*scope, (counter, U32, "counter")]
        lines += self.block(
            inner, depth - 1, rng.randrange(1, 4), indent + "    ", result, loops + 1
        )
        lines.append(f"{indent}}}")
        return lines

    def match(self, scope, depth, indent, result, loops) -> list:
        rng = self.rng
        self.features.add("match")
        structs = [(n, t) for n, t, _ in scope if isinstance(t, StructType)]
        inner = indent + "    "
        if structs and rng.random() < 0.3:
            name, type_ = rng.choice(structs)
            bound = self.fresh("m")
            test = rng.random() < 0.3
            first = type_.fields[0][0]
            pattern = [f"{first}: {rng.choice([0, 1])}" if test else f"{first}: {bound}"]
            pattern += [f"{f}: _" for f, _ in type_.fields[1:]]
            lines = [
                f"{indent}match {name} {{",
                f"{inner}{type_.name} {{ {', '.join(pattern)} }} => {{",
            ]
            arm_scope = scope if test else scope + [(bound, FIELD, "fixed")]
            lines += self.block(
                arm_scope, depth - 1, rng.randrange(1, 3), inner + "    ", result, loops
            )
            return lines + [f"{inner}}}", f"{indent}}}"]
        type_ = rng.choice([FIELD, U32, BOOL])
        lines = [f"{indent}match {self.expr(type_, scope, 1)} {{"]
        if type_ == BOOL:
            patterns = ["true", "false"] if rng.random() < 0.5 else ["true", "_"]
        else:
            patterns = [str(v) for v in rng.sample([0, 1, 2, 3, 4294967295], 2)] + ["_"]
        for pattern in patterns:
            lines.append(f"{inner}{pattern} => {{")
            lines += self.block(
                scope, depth - 1, rng.randrange(1, 3), inner + "    ", result, loops
            )
            lines.append(f"{inner}}}")
        return lines + [f"{indent}}}"]

    def assertion(self, scope, indent) -> list:
        rng = self.rng
        self.features.add("assert")
        roll = rng.randrange(4)
        if roll == 0:  # not `false`: code after it would be unreachable (E0215)
            condition = self.expr(BOOL, scope, 1)
            return [f"{indent}assert.is_true({'true' if condition == 'false' else condition})"]
        if roll == 1:  # half of them hold on every input, the others rarely
            left = self.expr(FIELD, scope, 1)
            right = left if rng.random() < 0.5 else self.expr(FIELD, scope, 1)
            return [f"{indent}assert.eq({left}, {right})"]
        if roll == 2:
            limit = rng.choice([2, 16, 1000, 4294967295])
            return [f"{indent}assert.is_true({self.expr(U32, scope, 1)} < convert.as_u32({limit}))"]
        self.features.add("digest")
        left = self.expr(DIGEST, scope, 1)
        right = left if rng.random() < 0.6 else self.expr(DIGEST, scope, 1)
        return [f"{indent}assert.digest({left}, {right})"]

    def destructure(self, scope, indent) -> list:
        rng = self.rng
        tuples = [(n, t) for n, t, _ in scope if isinstance(t, TupleType) or t == DIGEST]
        if tuples and rng.random() < 0.6:
            name, type_ = rng.choice(tuples)
            value = name
        else:
            type_ = rng.choice([DIGEST, TupleType((U32, U32)), TupleType((FIELD, BOOL))])
            value = self.expr(type_, scope, 2)
        items = leaf_types(type_) if type_ == DIGEST else list(type_.items)
        names = [self.fresh("p") if rng.random() < 0.85 else "_" for _ in items]
        scope += [(n, t, "fixed") for n, t in zip(names, items) if n != "_"]
        return [f"{indent}let ({', '.join(names)}) = {value}"]

    def secrets(self, scope, indent) -> list:
        rng = self.rng
        self.features.add("divine")
        roll = rng.randrange(3)
        if roll == 0:
            name = self.fresh("s")
            scope.append((name, FIELD, "fixed"))
            return [f"{indent}let {name}: Field = io.divine()"]
        if roll == 1:
            names = [self.fresh("s") for _ in range(3)]
            scope += [(n, FIELD, "fixed") for n in names]
            return [f"{indent}let ({', '.join(names)}) = io.divine3()"]
        name = self.fresh("sd")
        scope.append((name, DIGEST, "fixed"))
        return [f"{indent}let {name}: Digest = io.divine5()"]

    def sponge(self, scope, indent) -> list:
        self.features.add("sponge")
        name = self.fresh("sq")
        lines = [f"{indent}hash.sponge_init()"]
        for _ in range(self.rng.randrange(1, 3)):
            words = [self.expr(FIELD, scope, 1) for _ in range(10)]
            lines.append(f"{indent}hash.sponge_absorb({', '.join(words)})")
        lines.append(f"{indent}let {name}: [Field; 10] = hash.sponge_squeeze()")
        scope.append((name, ArrayType(FIELD, 10), "fixed"))
        return lines

    def merkle(self, scope, indent) -> list:
        self.features.add("merkle")
        index, parent = self.fresh("up"), self.fresh("node")
        words = ", ".join(self.expr(FIELD, scope, 1) for _ in range(5))
        line = f"{indent}let ({index}, {parent}) = merkle.step({self.expr(U32, scope, 1)}, {words})"
        scope += [(index, U32, "fixed"), (parent, DIGEST, "fixed")]
        return [line]

    def write_value(self, scope, indent: str) -> list:
        """Statements writing every word of a new value of a random type."""
        type_ = self.random_type(0.5)
        name = self.fresh("out")
        lines = [f"{indent}let {name}: {spell(type_)} = {self.expr(type_, scope, 2)}"]
        return lines + self.write_name(name, type_, indent)

    def write_name(self, name: str, type_, indent: str) -> list:
        if type_ == FIELD:
            return [f"{indent}io.write({name})"]
        if type_ == U32:
            return [f"{indent}io.write(convert.as_field({name}))"]
        if type_ == BOOL:
            return [
                f"{indent}if {name} {{",
                f"{indent}    io.write(1)",
                f"{indent}}} else {{",
                f"{indent}    io.write(0)",
                f"{indent}}}",
            ]
        if isinstance(type_, StructType):
            return [
                line for f, t in type_.fields for line in self.write_name(f"{name}.{f}", t, indent)
            ]
        if isinstance(type_, ArrayType):
            return [
                line
                for k in range(type_.size)
                for line in self.write_name(f"{name}[{k}]", type_.element, indent)
            ]
        items = leaf_types(type_) if type_ == DIGEST else list(type_.items)
        parts = [self.fresh("w") for _ in items]
        lines = [f"{indent}let ({', '.join(parts)}) = {name}"]
        return lines + [
            line for part, t in zip(parts, items) for line in self.write_name(part, t, indent)
        ]

    # --- functions and files --------------------------------------------------------------
    def function(self, name: str, public: bool = False) -> None:
        rng = self.rng
        params = [(self.fresh("a"), self.random_type(0.5)) for _ in range(rng.randrange(4))]
        result = self.random_type(0.45) if rng.random() < 0.85 else None
        scope = [(n, t, "fixed") for n, t in params]
        signature = ", ".join(f"{n}: {spell(t)}" for n, t in params)
        arrow = f" -> {spell(result)}" if result is not None else ""
        self.lines.append(f"{'pub ' if public else ''}fn {name}({signature}){arrow} {{")
        count = self.scaled(rng.randrange(2, 7))
        self.lines += self.block(scope, 2, count, "    ", result, extend=True)
        if result is not None:
            self.lines += self.tail(result, scope)
        self.lines += ["}", ""]
        self.functions.append((name, [t for _, t in params], result))

    def tail(self, result, scope) -> list:
        """The function's result: an expression, or a valued `if` / `else if` chain."""
        rng = self.rng

        def value():  # a statement starting with `[` would index the line before it
            text = self.expr(result, scope, 2)
            return f"({text})" if text.startswith("[") else text

        if rng.random() < 0.7:
            return [f"    {value()}"]
        self.features.add("valued if")
        lines = [f"    if {self.expr(BOOL, scope, 1)} {{", f"        {value()}"]
        for _ in range(rng.randrange(2)):
            lines += [f"    }} else if {self.expr(BOOL, scope, 1)} {{", f"        {value()}"]
        return lines + ["    } else {", f"        {value()}", "    }"]

    def copy_function(self, name: str, struct: StructType, public: bool = False) -> None:
        """The shape of bug (a): a field of parameter t read, then `let mut next = t`
        and field updates, `next` returned."""
        scope = [("t", struct, "fixed"), ("k", FIELD, "fixed")]
        self.lines.append(
            f"{'pub ' if public else ''}fn {name}(t: {struct.name}, k: Field) -> {struct.name} {{"
        )
        body = self.struct_copy(scope, "    ")
        extra = 0 if struct.name == "Wide" else self.rng.randrange(0, 3)
        body += self.block(scope, 1, extra, "    ", struct, extend=True)
        copy = next(n for n, t, kind in reversed(scope) if t == struct and kind == "mutable")
        self.lines += body + [f"    {copy}", "}", ""]
        self.functions.append((name, [struct, FIELD], struct))

    def wide_functions(self) -> None:
        """A wide struct through helpers, and 16 to 24 `mem.read(base + k)` arguments with
        the struct to one helper (the shape of bug (b))."""
        rng = self.rng
        wide = self.structs[-1]
        fields = [f for f, t in wide.fields if t == FIELD]
        self.copy_function("wide_round", wide)
        count = rng.randrange(16, 25)
        words = ", ".join(f"x{k}: Field" for k in range(count))
        self.lines.append(f"fn wide_mix(s: Wide, {words}) -> Wide {{")
        self.lines.append("    let mut next: Wide = s")
        for k in range(count):
            target = fields[k % len(fields)]
            other = f" * x{(k + 1) % count}" if rng.random() < 0.3 else ""
            self.lines.append(f"    next.{target} = next.{target} + x{k}{other}")
        self.lines += ["    next", "}", ""]
        self.functions.append(("wide_mix", [wide] + [FIELD] * count, wide))
        reads = ", ".join(f"mem.read(base + {k})" for k in range(count))
        public = "pub " if self.module else ""
        self.lines += [
            f"{public}fn wide_absorb(s: Wide, base: Field) -> Wide {{",
            "    let first: Wide = wide_round(s, base)",
            f"    let mixed: Wide = wide_mix(first, {reads})",
            f"    wide_round(mixed, {rng.randrange(1, 9)})",
            "}",
            "",
        ]
        self.functions.append(("wide_absorb", [wide, FIELD], wide))
        words = ", ".join(f"s.{f}" for f in (fields + ["0"] * 10)[:10]).replace("s.0", "0")
        self.lines += [
            f"{public}fn wide_digest(s: Wide) -> Digest {{",
            f"    hash.tip5({words})",
            "}",
            "",
        ]
        self.functions.append(("wide_digest", [wide], DIGEST))
        self.features.add("wide struct")

    def helpers(self, public: bool) -> None:
        rng = self.rng
        if rng.random() < 0.75:
            self.copy_function(self.fresh("bump"), rng.choice(self.structs[:-1]), public)
        if rng.random() < (1.0 if self.module else 0.3):
            self.wide_functions()
        for _ in range(self.scaled(rng.randrange(1, 4))):
            self.function(self.fresh("g"), public)

    def main(self, public_words: int) -> None:
        rng = self.rng
        self.lines.append("fn main() {")
        scope = []
        for _ in range(public_words):
            name = self.fresh("x")
            self.lines.append(f"    let {name}: Field = io.read()")
            scope.append((name, FIELD, "fixed"))
        body = self.block(scope, 3, self.scaled(rng.randrange(3, 10)), "    ", None, extend=True)
        for name, params, result in self.functions:
            if result is not None or rng.random() < 0.5:
                value = self.call((name, params, result), scope, 2)
                if result is None:
                    body.append(f"    {value}")
                else:
                    out = self.fresh("r")
                    body.append(f"    let {out}: {spell(result)} = {value}")
                    body += self.write_name(out, result, "    ")
        self.lines += body + ["}", ""]

    def header(self, kind: str, name: str, extra: tuple = ()) -> list:
        uses = [f"use {module}" for module in (*extra, *IMPORTS)]
        return [f"{kind} {name}", "", *uses, ""]
