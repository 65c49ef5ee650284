"""Diagnostics: one error type for every source problem, rendered in one place.

A `Diagnostic` has a severity, a stable code (listed in docs/errors.md), a
message, the file and span it points at, and an optional hint.  `render`
prints it the way rustc does:

    prog.tri:3:18: error[E0201]: expected U32, found Field
     3 |     let x: U32 = 0
       |                  ^
       = hint: convert with `as_u32(...)`
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.syntax.ast import NO_SPAN, Span


@dataclass(frozen=True)
class Diagnostic:
    severity: str  # "error" or "warning"
    code: str
    message: str
    path: str
    span: Span = NO_SPAN
    hint: str | None = None

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    @property
    def headline(self) -> str:
        """`file:line:col: severity[CODE]: message` (just `file:` for the file as a whole)."""
        where = self.path
        if self.span.line:
            where += f":{self.span.line}:{self.span.column}"
        return f"{where}: {self.severity}[{self.code}]: {self.message}"

    def as_json(self, source: str | None = None) -> dict:
        """One diagnostic for a tool: `--message-format json` prints one per line; the
        span's line 0 means the file as a whole; `rendered` is the text `render` gives."""
        return {
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "file": self.path,
            "line": self.span.line,
            "column": self.span.column,
            "end_line": self.span.end_line,
            "end_column": self.span.end_column,
            "hints": [self.hint] if self.hint else [],
            "rendered": render(self, source),
        }


class CompileError(Exception):
    """Raised by a stage that cannot go on; carries every diagnostic found so far."""

    def __init__(self, diagnostics: list[Diagnostic]):
        super().__init__("\n".join(d.headline for d in diagnostics))
        self.diagnostics = diagnostics


def did_you_mean(word: str, candidates) -> str | None:
    """A hint naming the candidate closest to a mistyped `word`, if one is close."""
    from difflib import get_close_matches

    close = get_close_matches(word, sorted(set(candidates) - {word}), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else None


def error(
    code: str, message: str, path: str, span: Span = NO_SPAN, hint: str | None = None
) -> Diagnostic:
    return Diagnostic("error", code, message, path, span, hint)


def warning(code: str, message: str, path: str, span: Span, hint: str | None = None) -> Diagnostic:
    return Diagnostic("warning", code, message, path, span, hint)


# ANSI colours of `render(..., color=True)`, by part
COLORS = {
    "error": "\033[1;31m",
    "warning": "\033[1;33m",
    "message": "\033[1m",
    "gutter": "\033[1;34m",
    "hint": "\033[36m",
}
RESET = "\033[0m"


def _paint(text: str, part: str, color: bool) -> str:
    return f"{COLORS[part]}{text}{RESET}" if color and text else text


def render(diagnostic: Diagnostic, source: str | None, color: bool = False) -> str:
    """The headline, then the source line with carets under the span, then the hint;
    with `color`, in ANSI colours (for a terminal)."""
    severity = diagnostic.severity
    if color:
        where = diagnostic.headline.split(f" {severity}[", 1)[0]
        label = _paint(f"{severity}[{diagnostic.code}]", severity, color)
        headline = f"{where} {label}: {_paint(diagnostic.message, 'message', color)}"
    else:
        headline = diagnostic.headline
    lines = [headline]
    span = diagnostic.span
    source_lines = source.splitlines() if source is not None else []
    if 1 <= span.line <= len(source_lines):
        text = source_lines[span.line - 1]
        number = str(span.line)
        gutter = " " * len(number)
        width = 1
        if span.end_line == span.line and span.end_column >= span.column:
            width = span.end_column - span.column + 1
        bar = _paint("|", "gutter", color)
        lines.append(f" {_paint(number, 'gutter', color)} {bar} {text}")
        indent = "".join("\t" if char == "\t" else " " for char in text[: span.column - 1])
        lines.append(f" {gutter} {bar} {indent}{_paint('^' * width, severity, color)}")
        if diagnostic.hint:
            lines.append(f" {gutter} {_paint('= hint:', 'hint', color)} {diagnostic.hint}")
    elif diagnostic.hint:
        lines.append(f"  {_paint('= hint:', 'hint', color)} {diagnostic.hint}")
    return "\n".join(lines)


def read_text(path) -> str:
    """A source file's text; `CompileError` E0100 when it cannot be read, or when it is
    not UTF-8 (at the line and column of the first bad byte)."""
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as problem:
        reason = getattr(problem, "strerror", None) or str(problem)
        raise CompileError([error("E0100", f"cannot read file: {reason}", str(path))]) from None
    try:
        return data.decode("utf-8").removeprefix("\ufeff")  # a byte-order mark is no text
    except UnicodeDecodeError as problem:
        before = data[: problem.start]
        line = before.count(b"\n") + 1
        start = before.rfind(b"\n") + 1
        column = len(before[start:].decode("utf-8", errors="replace")) + 1
        byte = data[problem.start]
        message = f"cannot read file: not UTF-8 text (byte 0x{byte:02x})"
        span = Span(line, column, line, column)
        raise CompileError([error("E0100", message, str(path), span)]) from None


def render_files(diagnostics: list[Diagnostic], color: bool = False, as_json=False) -> str:
    """Every diagnostic rendered with its source line, each file read once, now (not from
    a cache: between two calls the same path may hold another file); `as_json`: one JSON
    object per line instead (`Diagnostic.as_json`)."""
    texts = {path: _read(path) for path in {diagnostic.path for diagnostic in diagnostics}}
    if as_json:
        import json

        return "\n".join(
            json.dumps(diagnostic.as_json(texts[diagnostic.path])) for diagnostic in diagnostics
        )
    return "\n".join(
        render(diagnostic, texts[diagnostic.path], color) for diagnostic in diagnostics
    )


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8-sig", errors="replace") as file:
            return file.read()
    except OSError:
        return None
