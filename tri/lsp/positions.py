"""Places in a text as the compiler counts them and as the editor counts them.

The compiler (lark, `compiler.syntax.ast.Span`) numbers lines from 1, ends a line only at
"\\n", counts columns from 1 in characters, and ends a span at its last character; for a
span over several lines only its start and its last line are meaningful.  The Language
Server Protocol numbers lines from 0, ends a line at "\\n", "\\r\\n" or "\\r", counts columns
in code units of the position encoding the client and server agreed on (UTF-16 unless the
client offered another), and ends a range just after its last character.

`SourceText` holds one text and converts between the two through offsets into it (an
offset counts characters from the start of the text), so that a text with a lone "\\r",
a character outside the Basic Multilingual Plane or a stray control character still maps
every place to the one the other side means.  A byte-order mark at the start is not part of
the compiler's text (as when `tri check` reads a file), and `compiler_text` is the text
without it.  `dotted_word_at` finds the name (or dotted
path, `m.f`) under a cursor.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from lsprotocol import types

from compiler.syntax.ast import Span

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"
BYTE_ORDER_MARK = "\ufeff"
_EDITOR_LINE_END = re.compile(r"\r\n|\r|\n")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PATH_CHARACTERS = re.compile(r"[A-Za-z0-9_.]")
_WORD_CHARACTER = re.compile(r"[A-Za-z0-9_]")


def _units(text: str, encoding: str) -> int:
    """How many code units of `encoding` the characters of `text` take."""
    if encoding == UTF32:
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8", errors="surrogatepass"))
    return len(text.encode("utf-16-le", errors="surrogatepass")) // 2


class SourceText:
    """A text, its compiler lines and its editor lines (by their starting offsets)."""

    def __init__(self, text: str, encoding: str = UTF16):
        self.text = text
        self.encoding = encoding if encoding in (UTF8, UTF16, UTF32) else UTF16
        # a byte-order mark is no text to the compiler (compiler.diagnostics.read_text)
        self.skipped = len(text) - len(text.removeprefix(BYTE_ORDER_MARK))
        self.compiler_text = text[self.skipped :]
        starts = [match.end() for match in re.finditer("\n", text)]
        self.compiler_starts = [self.skipped, *starts]
        self.editor_starts = [0] + [match.end() for match in _EDITOR_LINE_END.finditer(text)]

    # --- the compiler's places
    def _compiler_line_end(self, index: int) -> int:
        """The offset of the "\\n" that ends compiler line `index` (0-based), or the end."""
        if index + 1 < len(self.compiler_starts):
            return self.compiler_starts[index + 1] - 1
        return len(self.text)

    def compiler_offset(self, line: int, column: int) -> int:
        """The offset of (line, column), both from 1, kept within its line and the text."""
        if line < 1:
            return self.skipped
        if line > len(self.compiler_starts):
            return len(self.text)
        start = self.compiler_starts[line - 1]
        return min(start + max(column, 1) - 1, self._compiler_line_end(line - 1))

    def compiler_place(self, offset: int) -> tuple[int, int]:
        """(line, column), both from 1, of an offset."""
        offset = max(self.skipped, min(offset, len(self.text)))
        index = bisect.bisect_right(self.compiler_starts, offset) - 1
        return index + 1, offset - self.compiler_starts[index] + 1

    def compiler_line_text(self, line: int) -> str:
        """Compiler line `line` (from 1), without its "\\n"."""
        if not 1 <= line <= len(self.compiler_starts):
            return ""
        return self.text[self.compiler_starts[line - 1] : self._compiler_line_end(line - 1)]

    # --- the editor's places
    def _editor_line_end(self, index: int) -> int:
        """Where editor line `index` ends, before its line terminator."""
        if index + 1 < len(self.editor_starts):
            end = self.editor_starts[index + 1]
            return end - 2 if self.text[end - 2 : end] == "\r\n" else end - 1
        return len(self.text)

    def position(self, offset: int) -> types.Position:
        """The editor's position of an offset."""
        offset = max(0, min(offset, len(self.text)))
        index = bisect.bisect_right(self.editor_starts, offset) - 1
        start = self.editor_starts[index]
        offset = min(offset, self._editor_line_end(index))  # not inside a "\r\n"
        return types.Position(line=index, character=_units(self.text[start:offset], self.encoding))

    def offset(self, position: types.Position) -> int:
        """The offset of an editor's position, kept within its line and the text."""
        if position.line >= len(self.editor_starts):
            return len(self.text)
        index = max(position.line, 0)
        start, end = self.editor_starts[index], self._editor_line_end(index)
        units = 0
        for offset in range(start, end):
            if units >= position.character:
                return offset
            units += _units(self.text[offset], self.encoding)
        return end

    def range(self, start: int, end: int) -> types.Range:
        return types.Range(start=self.position(start), end=self.position(end))

    def whole(self) -> types.Range:
        """The range of the whole text."""
        return self.range(0, len(self.text))

    # --- spans
    def span_offsets(self, span: Span) -> tuple[int, int]:
        """The offsets a span covers, its end excluded.  A span on one line covers what `tri
        check`'s caret underlines; one over several lines, from its start to the end of its
        first line (its end column is not meaningful); the file as a whole (no line), the
        start of the text."""
        if span.line < 1:
            return 0, 0
        start = self.compiler_offset(span.line, span.column)
        line_end = self._compiler_line_end(min(span.line, len(self.compiler_starts)) - 1)
        if span.end_line == span.line and span.end_column >= span.column:
            end = min(self.compiler_offset(span.line, span.end_column) + 1, line_end)
        else:
            end = line_end
        return start, max(start, end)

    def span_range(self, span: Span) -> types.Range:
        return self.range(*self.span_offsets(span))


@dataclass(frozen=True)
class DottedWord:
    """A name or dotted path under a cursor: its parts, the part the cursor is on, and
    where each part starts (offsets)."""

    parts: tuple[str, ...]
    index: int
    starts: tuple[int, ...]

    @property
    def name(self) -> str:
        return self.parts[self.index]

    @property
    def start(self) -> int:
        return self.starts[self.index]

    @property
    def end(self) -> int:
        return self.start + len(self.name)

    @property
    def path(self) -> str:
        """The parts up to and including the one under the cursor, joined by dots."""
        return ".".join(self.parts[: self.index + 1])


def dotted_word_at(text: str, offset: int) -> DottedWord | None:
    """The dotted name the character at `offset` (or just before it) belongs to; a number
    is no name, and a part that is not a name ends the path (`0..n` is `n`)."""

    def in_word(at: int) -> bool:
        return 0 <= at < len(text) and _WORD_CHARACTER.match(text[at]) is not None

    if not in_word(offset):
        if not in_word(offset - 1):
            return None
        offset -= 1
    start = offset
    while start > 0 and _PATH_CHARACTERS.match(text[start - 1]):
        start -= 1
    end = offset
    while end < len(text) and _PATH_CHARACTERS.match(text[end]):
        end += 1
    parts, starts, position = [], [], start
    for piece in text[start:end].split("."):
        parts.append(piece)
        starts.append(position)
        position += len(piece) + 1
    index = next(i for i, at in enumerate(starts) if at <= offset < at + len(parts[i]))
    if _NAME.fullmatch(parts[index]) is None:
        return None
    first = index
    while first > 0 and _NAME.fullmatch(parts[first - 1]):
        first -= 1
    last = index
    while last + 1 < len(parts) and _NAME.fullmatch(parts[last + 1]):
        last += 1
    return DottedWord(
        tuple(parts[first : last + 1]), index - first, tuple(starts[first : last + 1])
    )
