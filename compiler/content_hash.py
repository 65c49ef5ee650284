"""Content hashes of functions: what a function means, not how it is written.

Input: a parsed `ast.Function`.  Output: `function_hash(function) -> Digest`, five field
words of Tip5 (the VM's own hash, `vm.tip5.hash_varlen`) over a normal form of the
function: its syntax tree without spans and comments (so formatting never counts), with
every local name -- parameters, size parameters, `let` and `for` bindings, match fields
-- replaced by its binding's number in order of appearance, resolved by scope (so
renaming a local never counts).  Everything else counts: the function's own name and
visibility, attributes, types, literals, operators, the names of the functions, modules
and constants it uses, and the order of statements.

The normal form is a nested tuple, written with `repr` and packed seven bytes to a
field word (below p), then hashed.  `Digest.text(full)` is the hash as users see it: the
first word in hex, or all five.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from compiler.syntax import ast
from vm.tip5 import hash_varlen

BYTES_PER_WORD = 7  # 2^56 < p: every 7-byte chunk is a field element


@dataclass(frozen=True)
class Digest:
    words: tuple[int, ...]

    def text(self, full: bool = False) -> str:
        shown = self.words if full else self.words[:1]
        return "".join(f"{word:016x}" for word in shown)


def function_hash(function: ast.Function) -> Digest:
    form = _Normalizer().function(function)
    data = repr(form).encode()
    words = [
        int.from_bytes(data[start : start + BYTES_PER_WORD], "little")
        for start in range(0, len(data), BYTES_PER_WORD)
    ]
    return Digest(tuple(hash_varlen([len(data), *words])))


class _Normalizer:
    """Walks one function, numbering local bindings in a stack of scopes."""

    def __init__(self):
        self.scopes: list[dict[str, int]] = [{}]
        self.count = 0

    def bind(self, name: str | None):
        if name is None:
            return None
        self.scopes[-1][name] = self.count
        self.count += 1
        return ("local", self.count - 1)

    def local(self, name: str):
        for scope in reversed(self.scopes):
            if name in scope:
                return ("local", scope[name])
        return None

    def function(self, function: ast.Function):
        sizes = tuple(self.bind(name) for name in function.size_parameters)
        params = tuple((self.bind(p.name), self.node(p.type)) for p in function.params)
        return (
            "fn",
            function.name,
            function.public,
            tuple((a.name, a.argument) for a in function.attributes),
            sizes,
            params,
            self.node(function.return_type),
            self.node(function.body),
        )

    def node(self, value):
        match value:
            case None | bool() | int() | str():
                return value
            case list() | tuple():
                return tuple(self.node(item) for item in value)
            case ast.Block():
                self.scopes.append({})
                statements = tuple(self.node(statement) for statement in value.statements)
                self.scopes.pop()
                return ("block", statements)
            case ast.Let():
                bound = self.node(value.value)  # the value is read before the names exist
                return (
                    "let",
                    value.mutable,
                    self.pattern(value.pattern),
                    self.node(value.type),
                    bound,
                )
            case ast.For():
                start, end = self.node(value.start), self.node(value.end)
                self.scopes.append({})
                variable = self.bind(value.variable)
                body = self.node(value.body)
                self.scopes.pop()
                return ("for", variable, start, end, value.bound, body)
            case ast.MatchArm():
                self.scopes.append({})
                pattern = self.match_pattern(value.pattern)
                body = self.node(value.body)
                self.scopes.pop()
                return ("arm", pattern, body)
            case ast.Var():
                head, _, rest = value.path.partition(".")
                local = self.local(head)
                return ("var", local if local is not None else head, rest)
            case ast.SizeName():
                local = self.local(value.name)
                return ("size", local if local is not None else value.name)
            case _ if dataclasses.is_dataclass(value):
                fields = tuple(
                    (field.name, self.node(getattr(value, field.name)))
                    for field in dataclasses.fields(value)
                    if field.name != "span"
                )
                return (type(value).__name__, fields)
        return repr(value)

    def pattern(self, pattern):
        match pattern:
            case ast.PatternName():
                return ("name", self.bind(pattern.name))
            case ast.PatternTuple():
                return ("tuple", tuple(self.bind(name) for name in pattern.names))
        return ("wild",)

    def match_pattern(self, pattern):
        if isinstance(pattern, tuple):  # (struct name, [(field, pattern)])
            name, fields = pattern
            return (name, tuple((field, self.match_pattern(inner)) for field, inner in fields))
        if isinstance(pattern, str):  # a field bound to a name
            return self.bind(pattern)
        return pattern
