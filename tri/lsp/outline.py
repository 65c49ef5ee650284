"""A file's outline (document symbols) and a module's members (completion after `m.`).

Both read a file's items from the parser alone, so they need neither the checker nor the
modules a file uses: the outline is the items of the buffer (nothing while it does not
parse), and the members after `m.` are the public functions, constants and structs of the
module that `m` names among the buffer's `use` lines (found in its text, so that the
half-typed line being completed need not parse), read from that module's file as the
resolver finds it.  Items left out by `#[cfg]` under the profile, and `#[test]`
functions, are not members.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types

from compiler.check.resolve import canonical_module_name, read_module
from compiler.diagnostics import CompileError
from compiler.syntax import ast
from compiler.syntax.formatter import type_text
from compiler.syntax.parser import parse
from tri.lsp.analysis import Settings
from tri.lsp.hover import leading_comment, signature
from tri.lsp.navigation import declared_name_span
from tri.lsp.positions import SourceText

SYMBOL_KINDS = {
    ast.Function: (types.SymbolKind.Function, "fn"),
    ast.Struct: (types.SymbolKind.Struct, "struct"),
    ast.Event: (types.SymbolKind.Event, "event"),
    ast.Const: (types.SymbolKind.Constant, "const"),
}
_PATH = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
_USE = re.compile(rf"^[ \t]*use[ \t]+({_PATH})", re.MULTILINE)
_MEMBER = re.compile(rf"(?<![A-Za-z0-9_.])({_PATH})\.([A-Za-z0-9_]*)$")


def item_detail(item) -> str:
    match item:
        case ast.Function():
            return signature(item)
        case ast.Const():
            return f"const {item.name}: {type_text(item.type)}"
        case ast.Struct() | ast.Event():
            return ", ".join(f"{f.name}: {type_text(f.type)}" for f in item.fields)
    return ""


def document_symbols(source: SourceText, path: Path) -> list[types.DocumentSymbol]:
    """One symbol per function, struct (with its fields), event and constant."""
    try:
        tree = parse(source.text, str(path))
    except CompileError:
        return []
    symbols = []
    for item in tree.items:
        kind, keyword = SYMBOL_KINDS[type(item)]
        first = min([a.span.line for a in item.attributes] + [item.span.line])
        start = source.compiler_offset(first, 1)
        end = source.compiler_offset(item.span.end_line, len(source.text) + 1)
        name = source.span_offsets(declared_name_span(source.text, item, keyword))
        children = [
            types.DocumentSymbol(
                name=field.name,
                kind=types.SymbolKind.Field,
                detail=type_text(field.type),
                range=source.span_range(field.span),
                selection_range=source.span_range(field.span),
            )
            for field in getattr(item, "fields", [])
        ]
        symbols.append(
            types.DocumentSymbol(
                name=item.name,
                kind=kind,
                detail=item_detail(item),
                range=source.range(start, max(end, name[1])),
                selection_range=source.range(*name),
                children=children or None,
            )
        )
    return symbols


@dataclass(frozen=True)
class Member:
    name: str
    kind: types.CompletionItemKind
    detail: str
    documentation: str | None


def used_modules(text: str, written: str) -> list[str]:
    """The modules the `use` lines of `text` import that `written` names: by full (or
    legacy) name, else by last segment."""
    uses = [canonical_module_name(path) for path in _USE.findall(text)]
    full = canonical_module_name(written)
    if full in uses:
        return [full]
    if "." in written:
        return []
    return [module for module in dict.fromkeys(uses) if module.rsplit(".", 1)[-1] == written]


def _active(item, flags: frozenset[str]) -> bool:
    return all(a.name != "cfg" or (a.argument or "") in flags for a in item.attributes)


def members_before(text: str, offset: int, path: Path, settings: Settings) -> list[Member]:
    """The members of the module named just before the `.` that ends at `offset`'s line."""
    line_start = text.rfind("\n", 0, offset) + 1
    match = _MEMBER.search(text[line_start:offset])
    if match is None:
        return []
    members = []
    for module in used_modules(text, match.group(1)):
        file = settings.resolver.locate(module, path.resolve().parent)
        if file is None:
            continue
        try:
            loaded = read_module(file, module)
        except CompileError:
            continue
        for item in loaded.source.items:
            if isinstance(item, ast.Event) or not _active(item, settings.flags):
                continue
            if not item.public or (isinstance(item, ast.Function) and item.attribute("test")):
                continue
            kind = {
                ast.Function: types.CompletionItemKind.Function,
                ast.Const: types.CompletionItemKind.Constant,
                ast.Struct: types.CompletionItemKind.Struct,
            }[type(item)]
            comment = leading_comment(loaded.text, item)
            members.append(Member(item.name, kind, item_detail(item), comment))
    return members
