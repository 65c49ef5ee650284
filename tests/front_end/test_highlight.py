"""The Pygments lexers and `tri view`: every source in the repository lexes without
Error tokens, chosen words get the right token types, the plugin entry points resolve,
and `tri view` prints the file (exit 0) or a one-line error (exit 2)."""

from __future__ import annotations

import re
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.token import Comment, Error, Keyword, Name, Number, Operator, Punctuation

from compiler.builtins import BUILTINS
from compiler.syntax.highlight import KEYWORD_GROUPS, TasmLexer, TridentLexer
from compiler.syntax.parser import KEYWORDS, TYPE_KEYWORDS, parse
from tri.cli import main
from tri.commands import view
from vm.isa import ALL_MNEMONICS, RESERVED_WORDS

ROOT = Path(__file__).parents[2]
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")

# Small sources that between them use every token class of each lexer.
TRIDENT_SAMPLES = {
    "program": """\
// A program with I/O declarations, a struct, an event and every statement.
program demo
use std.io.mem
use vm.crypto.merkle

pub input: Field
sec ram: { 0: Field, 8: Digest }

struct Point { pub x: Field, y: U32 }
event Moved { from: Field, to: Field }
const LIMIT: U32 = 4294967295

#[cfg(debug)]
fn helper<N>(values: [Field; N * 2 + 1], flag: Bool) -> (Field, XField) {
    let mut total: Field = 0
    for i in 0..N bounded 64 {
        total = total + values[i] * 3
    }
    let (q, r) = as_u32(total) /% 7
    let mixed = q & r ^ LIMIT
    if mixed < 5 == true { return (total, xfield(1, 2, 3)) } else { }
    (sub(total, 1), xfield(0, 0, 1) *. total)
}

fn main() {
    let p = Point { x: pub_read(), y: 1 }
    let moved = mem.read<2>(p.x)
    reveal Moved { from: p.x, to: moved }
    seal Moved { from: 0, to: 1 }
    match p.y { 0 => { } true => { } _ => { pub_write(p.x) } }
    asm(triton, -1) { push -1 add // a TASM comment
        call helper }
    asm { nop }
    assert_eq(std.crypto.hash.tip5(divine5()), false)
}
""",
    "module": """\
module std.crypto.example

// builtins bound through attributes
#[intrinsic(hash)]
pub fn tip5(a: Field, b: Field) -> Digest

#[requires(x[0] == (1))]
#[pure]
pub fn twice(x: [Field; 2]) -> Field {
    x[0] + x[1]
}
""",
}

TASM_SAMPLES = {
    "annotations": """\
// every debug annotation (docs/vm.md, Assembler)
/* a block
   comment */
start:  push -1 addi +7 push 0042
        hint counter = stack[0]
        hint digest: *Digest<Field> = stack[1..6]
        break
        dup 0 assert error_id -9
_loop-2 :call _loop-2
done:halt
""",
    "unicode label": "écrire: push 1 write_io 1 halt\n",
}


def tokens(lexer, text: str) -> list[tuple]:
    return list(lexer.get_tokens(text))


def error_tokens(lexer, text: str) -> list[tuple]:
    return [(token, value) for token, value in tokens(lexer, text) if token in Error]


def token_of(lexer, text: str, value: str):
    """The token type of the first token whose text is exactly `value`."""
    for token, text_value in tokens(lexer, text):
        if text_value == value:
            return token
    raise AssertionError(f"no token {value!r} in {text!r}")


def repository_sources() -> list[Path]:
    """Every .tri and .tasm file of the standard library and the test programs, now,
    except the invalid programs (some of which hold characters the language rejects)."""
    folders = (ROOT / "stdlib", ROOT / "tests" / "programs")
    paths = (path for folder in folders for path in folder.rglob("*"))
    invalid = ROOT / "tests" / "programs" / "invalid"
    return sorted(
        path for path in paths if path.suffix in (".tri", ".tasm") and invalid not in path.parents
    )


SOURCES = repository_sources()
SAMPLES = [(TridentLexer, text) for text in TRIDENT_SAMPLES.values()] + [
    (TasmLexer, text) for text in TASM_SAMPLES.values()
]


# --- every source lexes cleanly ----------------------------------------------------------------


@pytest.mark.parametrize("path", SOURCES, ids=[str(path.relative_to(ROOT)) for path in SOURCES])
def test_repository_sources_lex_without_errors(path):
    lexer = TasmLexer() if path.suffix == ".tasm" else TridentLexer()
    assert error_tokens(lexer, path.read_text()) == []


@pytest.mark.parametrize(("lexer", "text"), SAMPLES)
def test_samples_lex_without_errors_and_tokens_cover_the_text(lexer, text):
    assert error_tokens(lexer(), text) == []
    assert "".join(value for _, value in tokens(lexer(), text)) == text


@pytest.mark.parametrize("name", TRIDENT_SAMPLES)
def test_trident_samples_are_valid_trident(name):
    parse(TRIDENT_SAMPLES[name])


# --- token types -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("program", Keyword.Namespace),
        ("demo", Name.Namespace),
        ("std.io.mem", Name.Namespace),
        ("fn", Keyword.Declaration),
        ("helper", Name.Function),
        ("struct", Keyword.Declaration),
        ("Point", Name.Class),
        ("Moved", Name.Class),
        ("for", Keyword),
        ("bounded", Keyword),
        ("true", Keyword.Constant),
        ("Field", Keyword.Type),
        ("XField", Keyword.Type),
        ("as_u32", Name.Builtin),
        ("pub_read", Name.Builtin),
        ("#[cfg(debug)]", Name.Decorator),
        ("4294967295", Number.Integer),
        ("/%", Operator),
        ("*.", Operator),
        ("..", Operator),
        ("->", Operator),
        ("=>", Operator),
        ("{", Punctuation),
        ("// a TASM comment", Comment.Single),
        ("std.crypto.hash.", Name.Namespace),
        ("tip5", Name.Function),
        ("triton", Name.Attribute),
    ],
)
def test_trident_token_types(value, expected):
    assert token_of(TridentLexer(), TRIDENT_SAMPLES["program"], value) is expected


def test_asm_bodies_are_lexed_as_tasm():
    text = TRIDENT_SAMPLES["program"]
    assert token_of(TridentLexer(), text, "push") is Keyword
    assert token_of(TridentLexer(), text, "-1") is Number.Integer
    assert token_of(TridentLexer(), text, "helper") is Name.Function  # the fn, first
    assert (Name.Label, "helper") in tokens(TridentLexer(), text)  # the call target


def test_attribute_with_nested_parentheses_is_one_token():
    text = TRIDENT_SAMPLES["module"]
    assert token_of(TridentLexer(), text, "#[requires(x[0] == (1))]") is Name.Decorator


def test_every_keyword_type_and_builtin_is_recognised():
    assert set().union(*KEYWORD_GROUPS.values()) == KEYWORDS
    lexer = TridentLexer()
    for word in KEYWORDS:
        assert token_of(lexer, f"x {word} y", word) in Keyword, word
    for word in TYPE_KEYWORDS:
        assert token_of(lexer, f"x: {word}", word) is Keyword.Type, word
    for name in BUILTINS:
        assert token_of(lexer, f"let x = {name}(a)", name) is Name.Builtin, name


def test_builtin_names_inside_paths_are_not_builtins():
    lexer = TridentLexer()
    assert token_of(lexer, "use std.crypto.hash", "std.crypto.hash") is Name.Namespace
    assert token_of(lexer, "hash.tip5(x)", "hash.") is Name.Namespace
    assert token_of(lexer, "let split_count = 1", "split_count") is Name


def test_call_needs_the_parenthesis_on_the_same_line():
    lexer = TridentLexer()
    assert token_of(lexer, "f(x)", "f") is Name.Function
    assert token_of(lexer, "f\n(x)", "f") is Name


@pytest.mark.parametrize("text", ["a - b", "a / b", "a != b", '"text"', "x @ y", "a | b"])
def test_characters_outside_the_language_are_errors(text):
    assert error_tokens(TridentLexer(), text)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("start", Name.Label),
        ("_loop-2", Name.Label),
        ("push", Keyword),
        ("addi", Keyword),
        ("-1", Number.Integer),
        ("+7", Number.Integer),
        ("-9", Number.Integer),
        ("hint", Keyword.Pseudo),
        ("counter = stack[0]", Comment.Special),
        ("digest: *Digest<Field> = stack[1..6]", Comment.Special),
        ("break", Keyword.Pseudo),
        ("error_id", Keyword.Pseudo),
        ("call", Keyword),
        ("/* a block\n   comment */", Comment.Multiline),
        (":", Punctuation),
    ],
)
def test_tasm_token_types(value, expected):
    assert token_of(TasmLexer(), TASM_SAMPLES["annotations"], value) is expected


def test_call_target_and_unicode_labels():
    assert token_of(TasmLexer(), "call écrire", "écrire") is Name.Label
    assert token_of(TasmLexer(), TASM_SAMPLES["unicode label"], "écrire") is Name.Label


def test_every_mnemonic_and_reserved_word_is_recognised():
    lexer = TasmLexer()
    for mnemonic in ALL_MNEMONICS:
        assert token_of(lexer, f"x: {mnemonic} 1", mnemonic) is Keyword, mnemonic
    for word in RESERVED_WORDS:
        assert token_of(lexer, f"halt {word} halt", word) is Keyword.Pseudo, word


@pytest.mark.parametrize("text", ["push1", "poppop", "push 10pop", "mov ax, bx", "/* open"])
def test_malformed_tasm_yields_errors(text):
    assert error_tokens(TasmLexer(), text)


# --- Pygments plugin registration --------------------------------------------------------------


def test_entry_points_resolve_to_the_lexers():
    registered = {entry.name: entry.load() for entry in entry_points(group="pygments.lexers")}
    assert registered["trident"] is TridentLexer
    assert registered["tasm"] is TasmLexer


def test_lexers_by_alias_and_file_name():
    assert type(get_lexer_by_name("trident")) is TridentLexer
    assert type(get_lexer_by_name("tri")) is TridentLexer
    assert type(get_lexer_by_name("triton-tasm")) is TasmLexer
    assert type(get_lexer_for_filename("main.tri", "program p")) is TridentLexer
    assert type(get_lexer_for_filename("countdown.tasm")) is TasmLexer
    code = (ROOT / "tests" / "programs" / "countdown.tasm").read_text()
    assert type(get_lexer_for_filename("countdown.tasm", code)) is TasmLexer
    # Pygments looks up its own lexers before plugins, and its Turbo Assembler lexer
    # is called `tasm`: ours is reached as `triton-tasm` (see compiler/syntax/highlight.py).
    assert type(get_lexer_by_name("tasm")) is not TasmLexer


# --- tri view ----------------------------------------------------------------------------------


def tri(capsys, *arguments):
    code = main([str(argument) for argument in arguments])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def trident_file(tmp_path):
    path = tmp_path / "demo.tri"
    path.write_text(TRIDENT_SAMPLES["program"])
    return path


def test_view_prints_the_text(capsys, trident_file):
    code, out, err = tri(capsys, "view", trident_file)
    assert (code, err) == (0, "")
    assert ANSI_ESCAPE.sub("", out) == TRIDENT_SAMPLES["program"]


def test_view_without_color_prints_the_source_unchanged(capsys, trident_file, monkeypatch):
    monkeypatch.setattr(view, "stdout_is_terminal", lambda: True)
    code, out, _ = tri(capsys, "view", "--no-color", trident_file)
    assert code == 0
    assert out == TRIDENT_SAMPLES["program"]


@pytest.mark.parametrize("no_color_variable", [None, "1"])
def test_view_colors_a_terminal_unless_no_color_is_set(
    capsys, trident_file, monkeypatch, no_color_variable
):
    monkeypatch.setattr(view, "stdout_is_terminal", lambda: True)
    monkeypatch.delenv("NO_COLOR", raising=False)
    if no_color_variable is not None:
        monkeypatch.setenv("NO_COLOR", no_color_variable)
    code, out, _ = tri(capsys, "view", trident_file)
    assert code == 0
    assert bool(ANSI_ESCAPE.search(out)) == (no_color_variable is None)
    assert ANSI_ESCAPE.sub("", out) == TRIDENT_SAMPLES["program"]


def test_view_numbers_lines(capsys, tmp_path):
    path = tmp_path / "countdown.tasm"
    path.write_text("\n".join(f"push {n}" for n in range(10)))  # no final newline
    code, out, _ = tri(capsys, "view", "--line-numbers", "--no-color", path)
    assert code == 0
    assert out.splitlines()[0] == " 1 push 0"
    assert out.splitlines()[9] == "10 push 9"
    assert out.endswith("\n")


def test_view_chooses_the_lexer_by_extension():
    assert isinstance(view.lexer_for(Path("a.tasm")), TasmLexer)
    assert isinstance(view.lexer_for(Path("a.tri")), TridentLexer)
    assert isinstance(view.lexer_for(Path("notes.txt")), TridentLexer)


def test_view_highlights_tasm_in_a_terminal(capsys, monkeypatch):
    monkeypatch.setattr(view, "stdout_is_terminal", lambda: True)
    monkeypatch.delenv("NO_COLOR", raising=False)
    path = ROOT / "tests" / "programs" / "countdown.tasm"
    code, out, _ = tri(capsys, "view", "--line-numbers", path)
    assert code == 0
    plain = [ANSI_ESCAPE.sub("", line) for line in out.splitlines()]
    assert plain[1] == "2         push 10"


def test_view_of_a_missing_file_is_a_usage_error(capsys, tmp_path):
    code, out, err = tri(capsys, "view", tmp_path / "missing.tri")
    assert (code, out) == (2, "")
    assert err.startswith("error: cannot read ")
    assert len(err.strip().splitlines()) == 1
