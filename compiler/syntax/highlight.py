"""Pygments lexers for Trident source (`*.tri`) and Triton assembly (`*.tasm`).

Input: source text; output: a Pygments token stream.  The word lists come
from the project's own tables -- keywords and type keywords from
`compiler.syntax.parser`, builtin names from `compiler.builtins.BUILTINS`,
mnemonics and reserved words from `vm.isa` -- so a new keyword, builtin or
instruction is highlighted without touching this file.  The token rules
mirror `grammar.lark` (docs/reference.md) and the TASM syntax (docs/vm.md, Assembler).

Both lexers are registered as Pygments plugins in `pyproject.toml`, so
`pygmentize -l trident FILE.tri` works.  Pygments ships a Turbo Assembler
lexer that owns the alias `tasm` and takes precedence over plugins in
`get_lexer_by_name`; ours is therefore reached as `-l triton-tasm` (or by
file name, where it wins for `*.tasm`).
"""

from __future__ import annotations

import re

from pygments.lexer import RegexLexer, bygroups, this, using, words
from pygments.token import (
    Comment,
    Error,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    Whitespace,
)

from compiler.builtins import BUILTINS
from compiler.syntax.parser import KEYWORDS, TYPE_KEYWORDS
from vm.isa import ALL_MNEMONICS, RESERVED_WORDS

__all__ = ["TasmLexer", "TridentLexer"]


# --- TASM ------------------------------------------------------------------------------------

# A label: a letter or `_`, then letters, digits, `_` and `-` (docs/vm.md, Assembler).
_LABEL = r"[^\W\d][\w-]*"
# `hint name[: Type] = stack[i]` or `stack[i..j]` after the word `hint` (docs/vm.md, Assembler).
_HINT_BODY = (
    r"[a-z_][a-z0-9_]*(?:\s*:\s*\**[A-Za-z_]\w*(?:<[^>\n]*>)?)?"
    r"\s*=\s*stack\s*\[\s*\d+\s*(?:\.\.\s*\d+\s*)?\]"
)
# Mnemonics with an underscore (`write_io`, `sponge_init`, ...) are found in no other
# assembly language: they tell Triton assembly from other `*.tasm` dialects.
_TRITON_ONLY = re.compile(
    r"\b(?:" + "|".join(sorted(name for name in ALL_MNEMONICS if "_" in name)) + r")\b"
)


def _tasm_words(names) -> words:
    """Any of `names` as a whole word: not part of a longer label such as `pop-1`."""
    return words(sorted(names), prefix=r"(?<![\w-])", suffix=r"(?![\w-])")


class TasmLexer(RegexLexer):
    """Triton VM assembly: mnemonics, labels, signed integers, debug annotations."""

    name = "Triton TASM"
    aliases = ["triton-tasm", "ttasm"]
    filenames = ["*.tasm"]
    mimetypes = ["text/x-triton-tasm"]
    url = "https://triton-vm.org"
    # Beats Pygments' own Turbo Assembler lexer for `*.tasm` when no code is given.
    priority = 0.2

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"//[^\n]*", Comment.Single),
            (r"/\*.*?\*/", Comment.Multiline),
            (
                r"(hint)(\s+)(" + _HINT_BODY + ")",
                bygroups(Keyword.Pseudo, Whitespace, Comment.Special),
            ),
            (r"(error_id)(\s+)([+-]?\d+)", bygroups(Keyword.Pseudo, Whitespace, Number.Integer)),
            (_tasm_words(RESERVED_WORDS), Keyword.Pseudo),
            (r"(call)(\s+)(" + _LABEL + ")", bygroups(Keyword, Whitespace, Name.Label)),
            (r"(" + _LABEL + r")(\s*)(:)", bygroups(Name.Label, Whitespace, Punctuation)),
            (_tasm_words(ALL_MNEMONICS), Keyword),
            (r"[+-]?\d+", Number.Integer),
            # Any other word (`push1`, a typo) is shown as an error, as one token.
            (_LABEL, Error),
        ],
    }
    flags = re.MULTILINE | re.DOTALL

    # Pygments turns `analyse_text` into a static method: it takes no `self`.
    def analyse_text(text):
        """High when Triton-only mnemonics occur, so `*.tasm` files pick this lexer."""
        return 0.9 if _TRITON_ONLY.search(text) else 0.0


# --- Trident ---------------------------------------------------------------------------------

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_DOTTED = _NAME + r"(?:\." + _NAME + r")*"
# `#[name]` or `#[name(raw tokens)]`, parentheses nested up to six deep (grammar.lark ATTR_ARGS).
_PARENTHESES = r"\([^()]*\)"
for _ in range(5):
    _PARENTHESES = r"\((?:[^()]|" + _PARENTHESES + r")*\)"
_ATTRIBUTE = r"#\s*\[\s*" + _NAME + r"\s*(?:" + _PARENTHESES + r")?\s*\]"
# A call: the `(` on the same line as the name, optionally after `<sizes>` (docs/reference.md).
_CALL_AHEAD = r"(?=[ \t]*(?:\(|<[^>\n]*>[ \t]*\())"

_NAMESPACE_KEYWORDS = frozenset({"program", "module", "use"})
_DECLARATION_KEYWORDS = frozenset({"fn", "let", "mut", "const", "struct", "event", "pub", "sec"})
_CONSTANT_KEYWORDS = frozenset({"true", "false"})
KEYWORD_GROUPS = {
    Keyword.Namespace: _NAMESPACE_KEYWORDS,
    Keyword.Declaration: _DECLARATION_KEYWORDS,
    Keyword.Constant: _CONSTANT_KEYWORDS,
    Keyword: KEYWORDS - _NAMESPACE_KEYWORDS - _DECLARATION_KEYWORDS - _CONSTANT_KEYWORDS,
}
"""Every keyword of `KEYWORDS`, by the token type it is shown as."""


def _whole_words(names, boundary=r"\b") -> str:
    return words(sorted(names), prefix=boundary, suffix=boundary).get()


class TridentLexer(RegexLexer):
    """Trident source: keywords, types, builtins, attributes, calls and `asm` blocks."""

    name = "Trident"
    aliases = ["trident", "tri"]
    filenames = ["*.tri"]
    mimetypes = ["text/x-trident"]

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"//[^\n]*", Comment.Single),
            (_ATTRIBUTE, Name.Decorator),
            # asm { raw TASM }, asm(+N) { ... }, asm(triton, -N) { ... } (docs/reference.md, asm)
            (
                r"(asm)(\s*)(\([^)]*\))?(\s*)(\{)([^}]*)(\})",
                bygroups(
                    Keyword,
                    Whitespace,
                    using(this, state="asm_annotation"),
                    Whitespace,
                    Punctuation,
                    using(TasmLexer),
                    Punctuation,
                ),
            ),
            (
                r"(program|module|use)(\s+)(" + _DOTTED + ")",
                bygroups(Keyword.Namespace, Whitespace, Name.Namespace),
            ),
            (r"(fn)(\s+)(" + _NAME + ")", bygroups(Keyword.Declaration, Whitespace, Name.Function)),
            (
                r"(struct|event)(\s+)(" + _NAME + ")",
                bygroups(Keyword.Declaration, Whitespace, Name.Class),
            ),
            (r"(reveal|seal)(\s+)(" + _NAME + ")", bygroups(Keyword, Whitespace, Name.Class)),
            *((_whole_words(group), token) for token, group in KEYWORD_GROUPS.items()),
            (_whole_words(TYPE_KEYWORDS), Keyword.Type),
            # A builtin is a global name: not a segment of a dotted path.
            (words(sorted(BUILTINS), prefix=r"(?<![\w.])", suffix=r"(?![\w.])"), Name.Builtin),
            (
                r"((?:" + _NAME + r"\.)*)(" + _NAME + ")" + _CALL_AHEAD,
                bygroups(Name.Namespace, Name.Function),
            ),
            (_NAME, Name),
            (r"[0-9]+", Number.Integer),
            (r"==|=>|->|\.\.|\*\.|/%|[=<>+*&^]", Operator),
            (r"[(){}\[\],:;.#]", Punctuation),
        ],
        "asm_annotation": [
            (r"\s+", Whitespace),
            (r"[+-]?[0-9]+", Number.Integer),
            (_NAME, Name.Attribute),
            (r"[(),]", Punctuation),
        ],
    }
