"""Habits from Rust (and C) that are syntax errors here, and what to write instead.

Input: the line of a syntax error, split at its column (`before` the offending
character, `after` from it).  Output: the message and hint of the first rule whose
`before` pattern matches the end of `before` and whose `after` pattern matches the
start of `after` (compiler.syntax.parser uses them for E0001, E0002 and E0004).
The rules are data, one line each, most specific first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property


@dataclass(frozen=True)
class Habit:
    before: str  # a regex matched against the end of the text before the error ("" = any)
    after: str  # a regex matched at the error's position
    message: str
    hint: str

    @cached_property
    def patterns(self) -> tuple:
        return re.compile(f"(?:{self.before})$") if self.before else None, re.compile(self.after)


_BOUNDED = "'for i in 0..n bounded N { ... }' (every loop has a bound)"
_DECIMAL = "write the value in decimal"
_BOOL = "conditions are Bool values or Fields; combine them by nesting ifs"

HABITS: tuple[Habit, ...] = (
    Habit("", r"/\*", "there are no block comments", "start each comment line with //"),
    Habit("", r"!=", "there is no '!=' operator", "write (a == b) == false"),
    Habit(
        r"\b(println|print|eprintln|eprint|dbg|format|write|writeln)",
        r"!",
        "there is no printing: a program's output is public field elements",
        "write each value with io.write(x) (use vm.io.io)",
    ),
    Habit(
        r"\bvec",
        r"!",
        "there are no vectors",
        "arrays have a length fixed when compiled: let v: [Field; 2] = [1, 2]",
    ),
    Habit(
        r"\b(panic|unreachable|todo|unimplemented)",
        r"!",
        "there are no macros; a program stops with a failed assertion",
        "write assert(false), or assert.eq(a, b) to check a value",
    ),
    Habit(
        r"\b(assert|assert_eq|assert_ne|debug_assert)",
        r"!",
        "there are no macros: assertions are functions",
        "write assert.eq(a, b) (use vm.core.assert) or assert(c)",
    ),
    Habit(r"\w", r"!\s*[(\[{]", "there are no macros", "call a function: f(x)"),
    Habit("", r"!", "there is no '!' operator", "write c == false"),
    Habit(
        "",
        "[\"']",
        "there are no strings or characters: every value is a field element",
        "write numbers; io.write(x) outputs them, assert.eq(a, b) checks them",
    ),
    Habit(
        r"^\s*",
        r"impl\b",
        "there are no impl blocks or methods",
        "write functions that take the struct: fn area(s: Shape) -> Field",
    ),
    Habit(
        r"^\s*(pub\s+)?",
        r"enum\b",
        "there are no enums",
        "use constants (const RED: Field = 0) and match on them",
    ),
    Habit(
        r"=\s*",
        r"if\b",
        "an if is a value only at the end of a block (a function's or a branch's), not in a let "
        "or an assignment",
        "end a function with the if (fn pick(c: Bool) -> Field { if c { 1 } else { 2 } }) "
        "and call it, or let mut y = 2 then if c { y = 1 }",
    ),
    Habit(r"&", r"&", "there is no '&&' operator", f"{_BOOL}: if a {{ if b {{ ... }} }}"),
    Habit("", r"&&", "there is no '&&' operator", f"{_BOOL}: if a {{ if b {{ ... }} }}"),
    Habit("", r"\|\|", "there is no '||' operator", f"{_BOOL}: if a {{ ... }} else if b"),
    Habit("", r"\|", "there is no '|' operator", "U32 values have '&' and '^'"),
    Habit("", r"%", "there is no '%' operator", "a /% b gives (quotient, remainder) of U32s"),
    Habit(
        "", r">>|<<", "there are no shift operators", "multiply, or divide with /%, by pow(2, n)"
    ),
    Habit(r"<", r"<", "there are no shift operators", "multiply, or divide with /%, by pow(2, n)"),
    Habit("", r">=", "there is no '>=' operator", "write (a < b) == false (U32 values)"),
    Habit("", r">", "there is no '>' operator", "write b < a (U32 values)"),
    Habit(r"<", r"=", "there is no '<=' operator", "write (b < a) == false (U32 values)"),
    Habit(r"[+*]", r"=", "there are no compound assignments", "write x = x + e"),
    Habit(r"\[[^\]]*", r";", "there is no [value; N] array literal", "write each element"),
    Habit(
        r"^\s*\[[^\]]*",
        r",",
        "a line that starts with '[' continues the statement before it, as an index",
        "put an array literal that starts a line in parentheses: ([a, b])",
    ),
    Habit("", r";\s*(//.*)?$", "a statement needs no ';'", "a line ends a statement: drop it"),
    Habit("", r";", "';' does not separate statements", "put each statement on its own line"),
    Habit(r"^\s*while\b.*", r"\{", "there is no 'while' loop", f"write {_BOUNDED}"),
    Habit(r"^\s*loop\s*", r"\{", "there is no 'loop'", f"write {_BOUNDED}"),
    Habit(r"\w\.", r"\d", "tuples have no numbered fields", "destructure it: let (a, b) = t"),
    Habit(r"\b0", r"[xX][0-9a-fA-F]", "there are no hexadecimal literals", _DECIMAL),
    Habit(r"\b0", r"[bB][01]", "there are no binary literals", _DECIMAL),
    Habit(r"\b0", r"[oO][0-7]", "there are no octal literals", _DECIMAL),
    Habit(r"\d", r"_", "there are no digit separators in literals", "write the digits alone: 1000"),
    Habit(
        r"\d",
        r"(u|i)(8|16|32|64|128)\b",
        "integer literals take no type suffix",
        "a literal is a Field; convert.as_u32(5) makes a U32",
    ),
    Habit(
        r"\w\s+",
        r"as\b",
        "there is no 'as' conversion",
        "write convert.as_u32(x) (a range check) or convert.as_field(x)",
    ),
)


def habit_at(line: str, column: int) -> Habit | None:
    """The habit a syntax error at `column` (1-based) of `line` looks like, if any."""
    before, after = line[: column - 1], line[column - 1 :]
    for habit in HABITS:
        head, tail = habit.patterns
        if tail.match(after) and (head is None or head.search(before)):
            return habit
    return None
