"""The language server: the protocol's requests and notifications, on pygls.

Documents are synchronized whole (every change sends the full text), and each new text
of a document is checked at once (`tri.lsp.analysis.Analysis`): on open, on every change
and on save, when every other open document is checked again too, since a saved module
changes what the files that use it see.  Its diagnostics are published for it, and those
`tri check` would print for another file (a module it uses that does not parse, say) for
that file, unless it is open and so checked on its own; diagnostics published for a file
that a later check no longer finds are cleared.

Requests read the latest analysis of their document: hover (tri.lsp.hover), definition
(tri.lsp.navigation), document symbols and completion (tri.lsp.outline), formatting (the
formatter of `tri fmt`, `compiler.syntax.formatter`: one edit replacing the whole text,
none when it is already formatted or does not parse).

Every handler runs inside `TriServer.guarded`: an exception in it is logged (standard
error and the client's log, as `window/logMessage`) and the request answered with
nothing, so a buffer the toolchain cannot cope with never stops the server.
"""

from __future__ import annotations

import functools
import logging
import traceback
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from compiler.diagnostics import CompileError, Diagnostic
from compiler.syntax.formatter import format_source
from tri import __version__
from tri.lsp.analysis import Analysis, ServerOptions, SettingsCache
from tri.lsp.hover import hover_text
from tri.lsp.navigation import target_at
from tri.lsp.outline import document_symbols, members_before
from tri.lsp.positions import UTF16, SourceText

logger = logging.getLogger("tri.lsp")

SEVERITIES = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning}


def editor_diagnostic(diagnostic: Diagnostic, source: SourceText) -> types.Diagnostic:
    """A compiler diagnostic as the protocol's: the code, the message with the hint on a
    line of its own, the range of its span."""
    message = diagnostic.message
    if diagnostic.hint:
        message += f"\nhint: {diagnostic.hint}"
    return types.Diagnostic(
        range=source.span_range(diagnostic.span),
        message=message,
        severity=SEVERITIES.get(diagnostic.severity, types.DiagnosticSeverity.Error),
        code=diagnostic.code,
        source="tri",
    )


def path_of(uri: str) -> Path:
    """The file a document's URI names (an untitled document: a file in the working
    directory, whose imports are looked for there)."""
    path = to_fs_path(uri) if uri.startswith("file:") else None
    return Path(path) if path else Path.cwd() / "untitled.tri"


def _same_file(first: str, second: Path) -> bool:
    try:
        return Path(first).resolve() == second.resolve()
    except (OSError, RuntimeError):
        return False


def _disk_text(path: str) -> str:
    """A file's text as `tri check` shows it in a diagnostic (undecodable bytes replaced)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            return file.read()
    except OSError:
        return ""


class TriServer(LanguageServer):
    def __init__(self, options: ServerOptions | None = None):
        super().__init__(
            "tri", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Full
        )
        self.settings = SettingsCache(options or ServerOptions())
        self.analyses: dict[str, Analysis] = {}  # document URI -> the check of its text
        self.elsewhere: dict[str, set[str]] = {}  # URI -> other URIs its check published to
        self.reported_problems: set[str] = set()  # manifest problems already shown

    # --- failures
    def guarded(self, handler, default=None):
        """`handler`, with any exception it raises logged and `default` answered."""

        @functools.wraps(handler)
        def run(params):
            try:
                return handler(params)
            except Exception as failure:  # any failure is the server's; it keeps serving
                self.log_failure(handler.__name__, failure)
                return default

        return run

    def log_failure(self, where: str, failure: Exception) -> None:
        text = "".join(traceback.format_exception(failure))
        logger.error("%s failed: %s", where, text)
        try:
            message = f"tri lsp: {where} failed: {failure!r}\n{text}"
            self.window_log_message(
                types.LogMessageParams(type=types.MessageType.Error, message=message)
            )
        except Exception:  # the client went away: standard error has it
            logger.debug("could not send the failure to the client", exc_info=True)

    # --- checking
    @property
    def encoding(self) -> str:
        encoding = getattr(self.workspace, "position_encoding", None)
        return str(getattr(encoding, "value", encoding) or UTF16)

    def analysis(self, uri: str) -> Analysis:
        """The analysis of the document's current text (checked now if it is new)."""
        text = self.workspace.get_text_document(uri).source
        known = self.analyses.get(uri)
        if known is None or known.text != text or known.source.encoding != self.encoding:
            known = self.check(uri)
        return known

    def check(self, uri: str) -> Analysis:
        """Check the document's text and publish its diagnostics."""
        text = self.workspace.get_text_document(uri).source
        path = path_of(uri)
        settings = self.settings.for_path(path)
        if settings.problem and settings.problem not in self.reported_problems:
            self.reported_problems.add(settings.problem)
            self.window_show_message(
                types.ShowMessageParams(
                    type=types.MessageType.Warning,
                    message=f"{settings.problem}\n(checking without the project's settings)",
                )
            )
        analysis = Analysis(path, text, settings, self.encoding)
        self.analyses[uri] = analysis
        self.publish(uri, analysis)
        return analysis

    def publish(self, uri: str, analysis: Analysis) -> None:
        own, others = [], {}
        for diagnostic in analysis.diagnostics:
            if not diagnostic.path or _same_file(diagnostic.path, analysis.path):
                own.append(editor_diagnostic(diagnostic, analysis.source))
            else:
                others.setdefault(diagnostic.path, []).append(diagnostic)
        self._send(uri, own)
        published = set()
        for path, diagnostics in others.items():
            other = from_fs_path(str(Path(path).resolve())) or path
            if other in self.analyses:  # open, and checked on its own
                continue
            source = SourceText(_disk_text(path), self.encoding)
            self._send(other, [editor_diagnostic(d, source) for d in diagnostics])
            published.add(other)
        for stale in self.elsewhere.get(uri, set()) - published:
            if stale not in self.analyses:
                self._send(stale, [])
        self.elsewhere[uri] = published

    def _send(self, uri: str, diagnostics: list[types.Diagnostic]) -> None:
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics)
        )

    def close(self, uri: str) -> None:
        self.analyses.pop(uri, None)
        for other in self.elsewhere.pop(uri, set()) | {uri}:
            if other not in self.analyses:
                self._send(other, [])


def make_server(options: ServerOptions | None = None) -> TriServer:
    """A server with every feature registered."""
    server = TriServer(options)

    def feature(name, options=None, default=None):
        def register(handler):
            server.feature(name, options)(server.guarded(handler, default))
            return handler

        return register

    @feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams):
        server.check(params.text_document.uri)

    @feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams):
        server.check(params.text_document.uri)

    @feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    def did_save(params: types.DidSaveTextDocumentParams):
        saved = params.text_document.uri
        for uri in [saved, *(uri for uri in server.analyses if uri != saved)]:
            try:
                server.check(uri)
            except Exception as failure:  # one document that fails does not stop the rest
                server.log_failure(f"checking {uri}", failure)

    @feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams):
        server.close(params.text_document.uri)

    @feature(types.TEXT_DOCUMENT_HOVER)
    def hover(params: types.HoverParams):
        analysis = server.analysis(params.text_document.uri)
        found = target_at(analysis, analysis.source.offset(params.position))
        if found is None:
            return None
        target, word = found
        return types.Hover(
            contents=types.MarkupContent(
                kind=types.MarkupKind.Markdown, value=hover_text(analysis, target)
            ),
            range=analysis.source.range(word.start, word.end),
        )

    @feature(types.TEXT_DOCUMENT_DEFINITION)
    def definition(params: types.DefinitionParams):
        analysis = server.analysis(params.text_document.uri)
        found = target_at(analysis, analysis.source.offset(params.position))
        if found is None:
            return None
        target = found[0]
        source = SourceText(target.text, server.encoding)
        uri = from_fs_path(str(target.path.resolve())) or str(target.path)
        return types.Location(uri=uri, range=source.span_range(target.span))

    @feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, default=[])
    def symbols(params: types.DocumentSymbolParams):
        analysis = server.analysis(params.text_document.uri)
        return document_symbols(analysis.source, analysis.path)

    @feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=["."]),
        default=[],
    )
    def completion(params: types.CompletionParams):
        analysis = server.analysis(params.text_document.uri)
        offset = analysis.source.offset(params.position)
        members = members_before(analysis.text, offset, analysis.path, analysis.settings)
        return types.CompletionList(
            is_incomplete=False,
            items=[
                types.CompletionItem(
                    label=member.name,
                    kind=member.kind,
                    detail=member.detail,
                    documentation=member.documentation,
                )
                for member in members
            ],
        )

    @feature(types.TEXT_DOCUMENT_FORMATTING, default=[])
    def formatting(params: types.DocumentFormattingParams):
        analysis = server.analysis(params.text_document.uri)
        try:
            formatted = format_source(analysis.source.compiler_text, str(analysis.path))
        except CompileError:
            return []
        if formatted == analysis.source.compiler_text:  # as `tri fmt` leaves such a file alone
            return []
        return [types.TextEdit(range=analysis.source.whole(), new_text=formatted)]

    return server


def serve(options: ServerOptions, stdin, stdout) -> None:
    """Answer the protocol on `stdin` and `stdout` (binary streams) until the client exits."""
    make_server(options).start_io(stdin, stdout)
