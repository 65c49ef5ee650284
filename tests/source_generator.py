"""Random well-typed programs and modules in the language, deterministic by seed.

`generate(seed)` returns a `GeneratedProgram`: the source text, its kind (`program` or
`module`), and input cases that include edge words (0, 1, p-1, 2^32-1, 2^32) and inputs
made to fail (a short public input, no secret words, no digests).  The same seed gives
byte-identical text and cases, so a seed is a complete reproducer, and the generator can
feed benchmarks and training as well as tests.

What the programs contain: structs (nested, and one wide state of 8 or more fields),
tuples and arrays as parameters, results and locals; `let mut` copies of a struct whose
fields are then updated after a field of the original was read (`let mut next: T = t`
`next.count = t.count + k`), often; constant and bounded loops with runtime ends, early
returns, `match`, `if` / `else if` chains and valued `if`s; Field and U32 arithmetic with
`convert.as_u32` / `as_field` / `split`, U32 comparisons, `&`, `^` and `/%`; RAM reads and
writes (words and blocks); Tip5 hashing, the sponge and Merkle steps; secret input and
digests; assertions that can fail.

A module (`module fuzzlib`) has `pub fn` functions: among them one that passes a wide
struct through helpers and one that passes 16 to 24 `mem.read(base + k)` words, with a
struct, to a helper.  `GeneratedProgram.harness` is a program that imports the module
and calls one public function, chosen by its first input word, the way a user calls a
library function; each module case names its function and carries its arguments, so the
module built alone can be called with the same words (`Case.arguments`).

`generate(seed, kind=..., cases=..., copies=..., size=...)` forces the kind, sets the number
of cases, writes struct copies as literals instead (`copies=False`, to look past bug (a))
and scales the number of statements (`size`).  The writing itself is `source_writer.Writer`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from source_writer import (
    BOOL,
    DIGEST,
    FIELD,
    MODULE_NAME,
    RAM_BASES,
    U32,
    ArrayType,
    P,
    StructType,
    TupleType,
    Writer,
    leaf_types,
    spell,
    word_count,
)

EDGE_WORDS = (0, 1, P - 1, 2**32 - 1, 2**32)


@dataclass(frozen=True)
class Case:
    """One run's inputs.  For a module case, `function` is the public function called and
    `arguments` its words, one tuple per parameter; `public` is then the harness's input:
    the function's index, then every argument word."""

    public: tuple = ()
    secret: tuple = ()
    digests: tuple = ()  # tuples of five words
    ram: tuple = ()  # (address, value) pairs
    function: str | None = None
    arguments: tuple = ()

    def flags(self) -> list[str]:
        """The inputs as `tri run` options."""
        words = []
        if self.public:
            words += ["--input", ",".join(map(str, self.public))]
        if self.secret:
            words += ["--secret", ",".join(map(str, self.secret))]
        for digest in self.digests:
            words += ["--digest", ",".join(map(str, digest))]
        if self.ram:
            words += ["--ram", ",".join(f"{address}={value}" for address, value in self.ram)]
        return words


@dataclass(frozen=True)
class GeneratedProgram:
    seed: int
    kind: str  # "program" or "module"
    name: str  # the header's name: the file is NAME.tri
    text: str
    cases: tuple
    harness: str | None = None  # for a module: a program that calls its public functions
    public_functions: tuple = ()  # for a module: (name, (parameter types, ...)) in order
    features: frozenset = field(default_factory=frozenset)


def _word(rng: random.Random) -> int:
    roll = rng.random()
    if roll < 0.15:
        return rng.choice(EDGE_WORDS)
    if roll < 0.75:
        return rng.randrange(13)
    if roll < 0.88:
        return rng.randrange(2**32)
    return rng.randrange(P)


def _worlds(rng: random.Random, base: int, count: int) -> list[tuple]:
    """(secret, digests, ram) for `count` cases: the first five all of one edge word."""
    worlds = []
    for index in range(count):
        if index < len(EDGE_WORDS):
            edge = EDGE_WORDS[index]
            secret, digests = (edge,) * 16, ((edge,) * 5,) * 6
        else:
            secret = tuple(_word(rng) for _ in range(16))
            digests = tuple(tuple(_word(rng) for _ in range(5)) for _ in range(6))
        addresses = sorted(rng.sample(range(base, base + 24), rng.randrange(6)))
        worlds.append((secret, digests, tuple((a, _word(rng)) for a in addresses)))
    return worlds


def _program_cases(rng: random.Random, words: int, base: int, count: int) -> tuple:
    cases = []
    for index, (secret, digests, ram) in enumerate(_worlds(rng, base, count)):
        edge = index < len(EDGE_WORDS)
        public = tuple(EDGE_WORDS[index] if edge else _word(rng) for _ in range(words))
        cases.append(Case(public, secret, digests, ram))
    complete = cases[-1]
    cases.append(Case(complete.public[:-1], complete.secret, complete.digests, complete.ram))
    cases.append(Case(complete.public, (), complete.digests, complete.ram))
    cases.append(Case(complete.public, complete.secret, (), complete.ram))
    return tuple(cases)


def _argument_words(raw: list[int], types: list[str]) -> tuple:
    """The words a module function is called with: what the harness makes of `raw`."""
    valid = []
    for word, type_ in zip(raw, types):
        if type_ == BOOL:
            valid.append(1 if word == 1 else 0)
        else:
            valid.append(word % 2**32 if type_ == U32 else word)
    return tuple(valid)


def _module_cases(rng, functions, base: int, count: int) -> tuple:
    cases = []
    for index, (name, params, _) in enumerate(functions):
        for number, (secret, digests, ram) in enumerate(_worlds(rng, base, count)):
            raw, arguments = [], []
            for type_ in params:
                if type_ == FIELD and rng.random() < 0.5:  # a RAM base, as a caller passes
                    words = [rng.choice(RAM_BASES + (0, P - 1))]
                elif number < len(EDGE_WORDS):
                    words = [EDGE_WORDS[number]] * word_count(type_)
                else:
                    words = [_word(rng) for _ in range(word_count(type_))]
                raw += words
                arguments.append(_argument_words(words, leaf_types(type_)))
            cases.append(Case((index, *raw), secret, digests, ram, name, tuple(arguments)))
    return tuple(cases)


def _harness(writer: Writer, public: list) -> str:
    """A program that calls the public function its first input word names."""
    lines = writer.header("program", "harness", (MODULE_NAME,))
    lines += ["fn main() {", "    let which: Field = io.read()"]
    for index, (name, params, result) in enumerate(public):
        lines.append(f"    {'if' if index == 0 else '} else if'} which == {index} {{")
        arguments = []
        for type_ in params:
            if type_ == DIGEST:
                arguments.append(writer.fresh("d"))
                lines.append(f"        let {arguments[-1]}: Digest = io.read5()")
                continue
            leaves = []
            for leaf in leaf_types(type_):
                leaves.append(writer.fresh("h"))
                value = {
                    FIELD: "io.read()",
                    U32: "convert.as_u32(io.read())",
                    BOOL: "io.read() == 1",
                }[leaf]
                lines.append(f"        let {leaves[-1]}: {leaf} = {value}")
            arguments.append(_build(type_, iter(leaves)))
        call = f"{MODULE_NAME}.{name}({', '.join(arguments)})"
        if result is None:
            lines.append(f"        {call}")
        else:
            lines.append(f"        let result = {call}")
            lines += writer.write_name("result", result, "        ")
    return "\n".join(lines + ["    }", "}", ""])


def _build(type_, leaves) -> str:
    """A value of `type_` from leaf names, as the harness writes it (struct types qualified)."""
    if isinstance(type_, StructType):
        parts = ", ".join(f"{f}: {_build(t, leaves)}" for f, t in type_.fields)
        return f"{MODULE_NAME}.{type_.name} {{ {parts} }}"
    if isinstance(type_, TupleType):
        return "(" + ", ".join(_build(t, leaves) for t in type_.items) + ")"
    if isinstance(type_, ArrayType):
        return "[" + ", ".join(next(leaves) for _ in range(type_.size)) + "]"
    return next(leaves)


def generate(
    seed: int, kind: str | None = None, cases: int = 10, copies: bool = True, size: float = 1.0
) -> GeneratedProgram:
    """The program (or, with `kind="module"`, the module) of `seed`, with its input cases:
    `cases` per program or per public function, plus three made to fail for a program.
    `copies=False` writes each `let mut next: T = t` as a literal of t's fields instead
    (the same meaning), to look past bug (a) while it stands.  `size` scales the number of
    functions and statements (0.5: about half as many, for cheaper builds)."""
    rng = random.Random(seed)
    if kind is None:
        kind = "module" if rng.random() < 0.25 else "program"
    module = kind == "module"
    writer = Writer(rng, module, copies, size)
    writer.make_structs()
    writer.helpers(public=module)
    if module:
        name = MODULE_NAME
        text_lines = writer.header("module", name) + writer.lines
        public = [
            f
            for f in writer.functions
            if f[0] not in ("wide_round", "wide_mix")
            and not (f[0].startswith("bump") and rng.random() < 0.5)
        ]
        public = [f for f in writer.functions if f in public]
        text = "\n".join(text_lines).rstrip() + "\n"
        text = _publish(text, [f[0] for f in public])
        return GeneratedProgram(
            seed,
            kind,
            name,
            text,
            _module_cases(rng, public, writer.base, cases),
            _harness(writer, public),
            tuple((f[0], tuple(map(spell, f[1]))) for f in public),
            frozenset(writer.features),
        )
    words = rng.randrange(3, 9)
    writer.main(words)
    text = "\n".join(writer.header("program", "fuzz") + writer.lines).rstrip() + "\n"
    return GeneratedProgram(
        seed,
        kind,
        "fuzz",
        text,
        _program_cases(rng, words, writer.base, cases),
        features=frozenset(writer.features),
    )


def _publish(text: str, names: list[str]) -> str:
    """Marks the module's structs and the chosen functions `pub` (and only those)."""
    lines = []
    for line in text.split("\n"):
        if line.startswith("struct "):
            line = "pub " + line
        elif line.startswith("pub fn ") and line[7:].split("(")[0] not in names:
            line = line[4:]
        elif line.startswith("fn ") and line[3:].split("(")[0] in names:
            line = "pub " + line
        lines.append(line)
    return "\n".join(lines)
