"""`tri view FILE`: print a Trident or TASM file with syntax highlighting.

Input: a path; output: the file's text on stdout, coloured with the lexers of
`compiler.syntax.highlight` (`*.tasm` -> TASM, anything else -> Trident).
Colour is used only when stdout is a terminal, `--no-color` is not given and
the NO_COLOR environment variable is unset, so piped output is the plain text.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from pygments import highlight
from pygments.console import colorize
from pygments.formatters.terminal import TERMINAL_COLORS, TerminalFormatter
from pygments.lexer import Lexer
from pygments.token import Comment, Name

from compiler.syntax.highlight import TasmLexer, TridentLexer
from tri.commands.common import EXIT_OK, read_source

# Pygments' terminal colours, plus the token types our lexers use that it leaves plain.
# Each entry is (colour on a light background, colour on a dark background).
COLOR_SCHEME = {
    **TERMINAL_COLORS,
    Name.Label: ("magenta", "brightmagenta"),
    Comment.Special: ("yellow", "yellow"),
}


def register(commands) -> None:
    view = commands.add_parser("view")
    view.add_argument("file", help="a .tri or .tasm file (other extensions are read as Trident)")
    view.add_argument("--no-color", action="store_true", help="print plain text, without colour")
    view.add_argument("--line-numbers", action="store_true", help="number the lines")
    view.set_defaults(handler=command_view)


def lexer_for(path: Path) -> Lexer:
    """The lexer for a file, chosen by its extension."""
    return TasmLexer() if path.suffix == ".tasm" else TridentLexer()


def stdout_is_terminal() -> bool:
    return sys.stdout.isatty()


def render(text: str, lexer: Lexer | None, line_numbers: bool) -> str:
    """`text` coloured with `lexer` (plain when `lexer` is None), optionally numbered."""
    if text and not text.endswith("\n"):
        text += "\n"
    if lexer is not None:
        text = highlight(text, lexer, TerminalFormatter(colorscheme=COLOR_SCHEME))
    if not line_numbers:
        return text
    lines = text.splitlines()
    width = len(str(len(lines)))
    numbered = []
    for number, line in enumerate(lines, start=1):
        gutter = f"{number:>{width}} "
        if lexer is not None:
            gutter = colorize("gray", gutter)
        numbered.append(gutter + line)
    return "".join(line + "\n" for line in numbered)


def command_view(arguments) -> int:
    path = Path(arguments.file)
    text = read_source(path)
    color = arguments.color == "always" or (
        arguments.color == "auto"
        and not arguments.no_color
        and "NO_COLOR" not in os.environ
        and stdout_is_terminal()
    )
    sys.stdout.write(render(text, lexer_for(path) if color else None, arguments.line_numbers))
    return EXIT_OK
