"""Fuzzing the front end: `tri check` answers any input with diagnostics, never an exception.

Two sources of input: random text (bytes decoded leniently, and strings over the
language's own characters), and token-level mutations (delete, duplicate, swap,
replace) of every valid program and library module we have.
"""

import re
from pathlib import Path

from corpus import PROGRAMS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.diagnostics import CompileError

STDLIB = Path(__file__).parents[2] / "stdlib"
SOURCES = sorted(PROGRAMS.rglob("*.tri")) + sorted(STDLIB.rglob("*.tri"))
TOKEN = re.compile(r"//[^\n]*|\s+|[A-Za-z_][A-Za-z0-9_]*|\d+|/%|\*\.|->|\.\.|==|=>|.", re.S)
VOCABULARY = [
    "fn",
    "let",
    "mut",
    "if",
    "else",
    "for",
    "in",
    "bounded",
    "return",
    "struct",
    "pub",
    "use",
    "module",
    "program",
    "const",
    "true",
    "false",
    "Field",
    "U32",
    "Bool",
    "Digest",
    "XField",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    ";",
    ".",
    "..",
    "->",
    "=",
    "==",
    "<",
    "+",
    "*",
    "*.",
    "&",
    "^",
    "/%",
    "#",
    "_",
    "0",
    "1",
    "4294967296",
    "18446744069414584321",
    "x",
    "main",
    "as_u32",
    "hash",
    "io.read",
    "\n",
    "-",
    "/",
    "!",
    "@",
]


def check_text(text: str, path: Path) -> None:
    """Check `text` as if it were the file at `path`; only CompileError may escape."""
    try:
        check(load_project(path, text=text))
    except CompileError as failure:
        assert failure.diagnostics, "a CompileError carries at least one diagnostic"
        for diagnostic in failure.diagnostics:
            assert diagnostic.code and diagnostic.message and diagnostic.span.line >= 0


@st.composite
def mutated_sources(draw):
    path = draw(st.sampled_from(SOURCES))
    tokens = TOKEN.findall(path.read_text())
    for _ in range(draw(st.integers(1, 4))):
        if not tokens:
            break
        position = draw(st.integers(0, len(tokens) - 1))
        match draw(st.sampled_from(["delete", "duplicate", "swap", "replace", "insert"])):
            case "delete":
                del tokens[position]
            case "duplicate":
                tokens.insert(position, tokens[position])
            case "swap" if position + 1 < len(tokens):
                tokens[position], tokens[position + 1] = tokens[position + 1], tokens[position]
            case "replace":
                tokens[position] = draw(st.sampled_from(VOCABULARY))
            case _:
                tokens.insert(position, " " + draw(st.sampled_from(VOCABULARY)) + " ")
    return path, "".join(tokens)


@settings(max_examples=1400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_sources())
def test_mutated_programs_get_diagnostics_not_exceptions(path_and_text):
    path, text = path_and_text
    check_text(text, path)


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes(data):
    check_text(data.decode("utf-8", errors="replace"), PROGRAMS / "valid" / "fuzz.tri")


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(VOCABULARY), max_size=60).map(" ".join))
def test_random_token_soup(text):
    check_text("program fuzz\n" + text, PROGRAMS / "valid" / "fuzz.tri")
