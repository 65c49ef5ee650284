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
    Habit("", r"!", "there is no '!' operator", "write c == false"),
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
