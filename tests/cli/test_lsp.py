"""`tri lsp` end to end: a pytest-lsp client starts `python -m tri lsp` as a subprocess and
speaks the protocol to it, and every answer is compared with what the command line says
about the same text (`tri check --json`, `tri check --stack`, `tri cost --estimate --json`,
`tri fmt`) or with the files the answer points into."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest_lsp = pytest.importorskip("pytest_lsp")
from lsprotocol import types  # noqa: E402  (after the skip: pytest-lsp brings it)
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities  # noqa: E402

from compiler.check.resolve import DEFAULT_LIBRARY  # noqa: E402

LSP = pytest.mark.asyncio(loop_scope="module")  # the tests that talk to the one server
ROOT = Path(__file__).resolve().parents[2]
WAIT = 60  # seconds for one answer of the server


@pytest_lsp.fixture(
    scope="module",
    config=ClientServerConfig(server_command=[sys.executable, "-m", "tri", "lsp"]),
)
async def client(lsp_client: LanguageClient):
    capabilities = client_capabilities("visual-studio-code")
    await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities))
    yield
    await lsp_client.shutdown_session()


# --- the command line, for comparison ---------------------------------------------------------


def tri(*arguments, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tri", *map(str, arguments)],
        cwd=cwd or ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def cli_diagnostics(path: Path, cwd=None) -> list[dict]:
    """What `tri check --json PATH` reports (its summary line left out)."""
    lines = tri("check", "--json", path, cwd=cwd).stdout.splitlines()
    records = [json.loads(line) for line in lines]
    assert "summary" in records[-1], lines
    return records[:-1]


def editor_position(text: str, line: int, column: int) -> types.Position:
    """The protocol's position of the compiler's (line, column): lines end at "\\n" for the
    compiler, at "\\n", "\\r\\n" or "\\r" for the editor; UTF-16 columns."""
    lines = text.split("\n")
    offset = sum(len(part) + 1 for part in lines[: line - 1]) + column - 1
    before = re.split(r"\r\n|\r|\n", text[:offset])
    return types.Position(line=len(before) - 1, character=len(before[-1].encode("utf-16-le")) // 2)


def expected(record: dict, text: str) -> tuple:
    """(code, severity, range, message) a `tri check --json` record says the editor gets."""
    start = editor_position(text, record["line"], record["column"])
    if record["end_line"] == record["line"]:
        end = editor_position(text, record["line"], record["end_column"] + 1)
    else:  # a span over several lines: the rest of its first line
        end = editor_position(text, record["line"], len(text.split("\n")[record["line"] - 1]) + 1)
    message = record["message"] + "".join(f"\nhint: {hint}" for hint in record["hints"])
    return record["code"], record["severity"], (start, end), message


def received(diagnostic: types.Diagnostic) -> tuple:
    severity = {
        types.DiagnosticSeverity.Error: "error",
        types.DiagnosticSeverity.Warning: "warning",
    }
    span = (diagnostic.range.start, diagnostic.range.end)
    return diagnostic.code, severity[diagnostic.severity], span, diagnostic.message


# --- talking to the server --------------------------------------------------------------------


def identifier(path: Path) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=path.as_uri())


async def published(client: LanguageClient, uri: str, send) -> list[types.Diagnostic]:
    """Do `send()` and wait for the diagnostics the server publishes for `uri` after it."""
    client.diagnostics.pop(uri, None)
    send()
    for _ in range(WAIT * 20):
        if uri in client.diagnostics:
            return list(client.diagnostics[uri])
        await asyncio.sleep(0.05)
    raise AssertionError(f"no diagnostics for {uri}")


async def open_document(client: LanguageClient, path: Path, text: str):
    item = types.TextDocumentItem(uri=path.as_uri(), language_id="trident", version=1, text=text)
    return await published(
        client,
        path.as_uri(),
        lambda: client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item)),
    )


async def change_document(client: LanguageClient, path: Path, text: str, version: int):
    document = types.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=version)
    change = types.TextDocumentContentChangeWholeDocument(text=text)
    params = types.DidChangeTextDocumentParams(text_document=document, content_changes=[change])
    return await published(client, path.as_uri(), lambda: client.text_document_did_change(params))


def position_of(text: str, needle: str, skip: int = 0, occurrence: int = 0) -> types.Position:
    """The position `skip` characters into the `occurrence`-th `needle` of an ASCII text."""
    offset = -1
    for _ in range(occurrence + 1):
        offset = text.index(needle, offset + 1)
    offset += skip
    line = text.count("\n", 0, offset)
    return types.Position(line=line, character=offset - (text.rfind("\n", 0, offset) + 1))


async def hover(client, path: Path, position: types.Position) -> str | None:
    params = types.HoverParams(text_document=identifier(path), position=position)
    answer = await asyncio.wait_for(client.text_document_hover_async(params), WAIT)
    return None if answer is None else answer.contents.value


async def definition(client, path: Path, position: types.Position) -> types.Location:
    params = types.DefinitionParams(text_document=identifier(path), position=position)
    answer = await asyncio.wait_for(client.text_document_definition_async(params), WAIT)
    assert isinstance(answer, types.Location), answer
    return answer


def located_text(location: types.Location) -> tuple[Path, str, str]:
    """(the file a location is in, the text of its line, the text its range covers)."""
    path = Path(location.uri.removeprefix("file://"))
    line = path.read_text(encoding="utf-8").split("\n")[location.range.start.line]
    covered = line[location.range.start.character : location.range.end.character]
    return path, line, covered


def failures(client: LanguageClient) -> list[str]:
    """The errors the server has logged to the client (a handler that raised)."""
    return [
        message.message
        for message in client.log_messages
        if message.type == types.MessageType.Error
    ]


# --- diagnostics ------------------------------------------------------------------------------

PROGRAM = """program lens

use vm.io.io
use std.math.fibonacci

fn main() {
    let n: Field = io.read()
    io.write(fibonacci.fib(n))
}
"""
BROKEN = PROGRAM.replace("let n: Field", "let n: U32").replace("io.write(", "io.write(1 + ")


@LSP
async def test_diagnostics_of_the_unsaved_buffer_are_tri_checks_and_a_fix_clears_them(
    client, tmp_path
):
    path = tmp_path / "lens.tri"
    path.write_text(PROGRAM, encoding="utf-8")  # on disk: a program without errors
    twin = tmp_path / "twin.tri"  # the buffer's text, for tri check
    twin.write_text(BROKEN, encoding="utf-8")
    records = cli_diagnostics(twin)
    assert {record["code"] for record in records} == {"E0201"} and len(records) >= 2
    assert any(record["hints"] for record in records)

    diagnostics = await open_document(client, path, BROKEN)
    assert [received(d) for d in diagnostics] == [expected(r, BROKEN) for r in records]
    assert all(d.source == "tri" for d in diagnostics)

    assert await change_document(client, path, PROGRAM, 2) == []
    assert cli_diagnostics(path) == []


@LSP
async def test_a_project_buffer_is_checked_with_the_projects_module_roots(client, tmp_path):
    (tmp_path / "tri.toml").write_text('[project]\nname = "shapes"\nroots = ["lib"]\n')
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "geometry.tri").write_text(GEOMETRY, encoding="utf-8")
    text = SHAPES.replace("geometry.area(w, h)", "geometry.area(w, 3 < 4)")
    path = tmp_path / "main.tri"
    path.write_text(text, encoding="utf-8")
    records = cli_diagnostics(path.resolve(), cwd=tmp_path)
    assert len(records) == 1 and records[0]["code"] != "E0101"  # the module is found in lib/
    diagnostics = await open_document(client, path, text)
    assert [received(d) for d in diagnostics] == [expected(r, text) for r in records]


@LSP
async def test_a_module_that_does_not_parse_gets_its_diagnostics_until_it_is_not_used(
    client, tmp_path
):
    module = tmp_path / "helper.tri"
    module.write_text("module helper\n\npub fn one() -> Field {\n    1 +\n}\n", encoding="utf-8")
    text = (
        "program user\n\nuse vm.io.io\nuse helper\n\nfn main() {\n    io.write(helper.one())\n}\n"
    )
    path = tmp_path / "user.tri"
    path.write_text(text, encoding="utf-8")
    records = cli_diagnostics(path)
    assert records and {record["file"] for record in records} == {str(module)}
    uri = module.resolve().as_uri()
    client.diagnostics.pop(uri, None)
    assert await open_document(client, path, text) == []
    for _ in range(WAIT * 20):
        if uri in client.diagnostics:
            break
        await asyncio.sleep(0.05)
    module_text = module.read_text(encoding="utf-8")
    want = [expected(record, module_text) for record in records]
    assert [received(d) for d in client.diagnostics[uri]] == want

    alone = text.replace("use helper\n", "").replace("helper.one()", "1")
    assert await change_document(client, path, alone, 2) == []
    for _ in range(WAIT * 20):
        if not client.diagnostics[uri]:
            break
        await asyncio.sleep(0.05)
    assert list(client.diagnostics[uri]) == []  # cleared once nothing uses the module


# --- hover ------------------------------------------------------------------------------------

COSTS = """program costs

use vm.io.io
use std.math.fibonacci

// Doubles x.
fn twice(x: Field) -> Field {
    let mut total: Field = 0
    for _ in 0..2 bounded 2 {
        total = total + x
    }
    total
}

fn main() {
    let n: Field = io.read()
    io.write(fibonacci.fib(twice(n)))
}
"""
VECTOR = re.compile(
    r"processor (\d+), hash (\d+), u32 (\d+), op_stack (\d+), ram (\d+), jump_stack (\d+)"
)


def vector_in(text: str) -> dict[str, int]:
    match = VECTOR.search(text)
    assert match is not None, text
    names = ("processor", "hash", "u32", "op_stack", "ram", "jump_stack")
    return dict(zip(names, map(int, match.groups()), strict=True))


@LSP
async def test_hover_shows_a_functions_signature_and_estimated_cost(client, tmp_path):
    path = tmp_path / "costs.tri"
    path.write_text(COSTS, encoding="utf-8")
    assert await open_document(client, path, COSTS) == []
    run = tri("cost", path, "-O0", "--input", "3", "--estimate", "--json")
    estimate = json.loads(run.stdout)["estimate"]["functions"]
    stack = dict(re.findall(r"fn (\S+): (\d+) live elements", tri("check", "--stack", path).stdout))

    shown = await hover(client, path, position_of(COSTS, "twice(n)", 2))
    assert "fn twice(x: Field) -> Field" in shown and "Doubles x." in shown
    assert vector_in(shown) == estimate["costs__twice"]
    assert f"{stack['costs__twice']} live elements" in shown
    assert await hover(client, path, position_of(COSTS, "fn twice", 4)) == shown  # declared

    shown = await hover(client, path, position_of(COSTS, "fibonacci.fib", 11))
    assert "pub fn fib(n: Field) -> Field" in shown and "std.math.fibonacci" in shown
    assert vector_in(shown) == estimate["std_math_fibonacci__fib"]

    assert "n: Field" in await hover(client, path, position_of(COSTS, "twice(n)", 6))
    assert "total: Field" in await hover(client, path, position_of(COSTS, "total + x"))


# --- definition -------------------------------------------------------------------------------

GEOMETRY = """module geometry

pub const UNIT: Field = 1

// The area of a w by h rectangle.
pub fn area(w: Field, h: Field) -> Field {
    w * h
}

fn hidden() -> Field {
    UNIT
}
"""
SHAPES = """program shapes

use vm.io.io
use geometry
use std.math.fibonacci

fn main() {
    let w: Field = io.read()
    let h: Field = io.read()
    io.write(fibonacci.fib(geometry.area(w, h)))
}
"""


@LSP
async def test_definition_goes_to_a_user_module_and_to_the_bundled_library(client, tmp_path):
    (tmp_path / "geometry.tri").write_text(GEOMETRY, encoding="utf-8")
    path = tmp_path / "shapes.tri"
    path.write_text(SHAPES, encoding="utf-8")
    assert await open_document(client, path, SHAPES) == []

    found, line, covered = located_text(
        await definition(client, path, position_of(SHAPES, "geometry.area", 10))
    )
    assert found == (tmp_path / "geometry.tri").resolve()
    assert covered == "area" and line.startswith("pub fn area(")

    found, line, covered = located_text(
        await definition(client, path, position_of(SHAPES, "fibonacci.fib", 11))
    )
    assert found == (DEFAULT_LIBRARY / "math" / "fibonacci.tri").resolve()
    assert covered == "fib" and line.startswith("pub fn fib(")

    for needle, module in (
        ("use geometry", tmp_path / "geometry.tri"),
        ("use std.math.fibonacci", DEFAULT_LIBRARY / "math" / "fibonacci.tri"),
    ):
        location = await definition(client, path, position_of(SHAPES, needle, len(needle) - 2))
        assert Path(location.uri.removeprefix("file://")) == module.resolve()

    local = await definition(client, path, position_of(SHAPES, "area(w", 5))
    _, line, covered = located_text(local)
    assert covered == "w" and "let w: Field" in line


# --- document symbols, formatting, completion -------------------------------------------------

OUTLINE = """module outline

struct Point {
    x: Field,
    y: Field,
}

event Moved {
    to: Field,
}

const ORIGIN: Field = 0

pub fn shift(p: Point) -> Field {
    p.x + ORIGIN
}
"""


@LSP
async def test_document_symbols_name_every_item_where_it_is_declared(client, tmp_path):
    path = tmp_path / "outline.tri"
    path.write_text(OUTLINE, encoding="utf-8")
    await open_document(client, path, OUTLINE)
    params = types.DocumentSymbolParams(text_document=identifier(path))
    symbols = await asyncio.wait_for(client.text_document_document_symbol_async(params), WAIT)
    kinds = {symbol.name: symbol.kind for symbol in symbols}
    assert kinds == {
        "Point": types.SymbolKind.Struct,
        "Moved": types.SymbolKind.Event,
        "ORIGIN": types.SymbolKind.Constant,
        "shift": types.SymbolKind.Function,
    }
    lines = OUTLINE.split("\n")
    for symbol in symbols:
        where = symbol.selection_range
        assert lines[where.start.line][where.start.character : where.end.character] == symbol.name
    point = next(symbol for symbol in symbols if symbol.name == "Point")
    assert [child.name for child in point.children] == ["x", "y"]


MESSY = """program messy
use vm.io.io
fn main( ) {
  let x:Field=io.read( )
      io.write(x+1)   // keep me
}
"""


@LSP
async def test_formatting_gives_what_tri_fmt_writes(client, tmp_path):
    path = tmp_path / "messy.tri"
    await open_document(client, path, MESSY)  # not on disk at all
    copy = tmp_path / "copy.tri"
    copy.write_text(MESSY, encoding="utf-8")
    assert tri("fmt", copy).returncode == 0
    formatted = copy.read_text(encoding="utf-8")
    assert formatted != MESSY

    options = types.FormattingOptions(tab_size=4, insert_spaces=True)
    params = types.DocumentFormattingParams(text_document=identifier(path), options=options)
    edits = await asyncio.wait_for(client.text_document_formatting_async(params), WAIT)
    assert len(edits) == 1
    start, end = edits[0].range.start, edits[0].range.end
    lines = MESSY.split("\n")
    assert (start.line, start.character) == (0, 0) and (end.line, end.character) == (
        len(lines) - 1,
        len(lines[-1]),
    )
    assert edits[0].new_text == formatted

    broken = MESSY.replace("fn main( ) {", "fn main( ) {{")
    assert await change_document(client, path, broken, 2) != []
    logged = len(failures(client))
    assert not await asyncio.wait_for(client.text_document_formatting_async(params), WAIT)
    assert len(failures(client)) == logged  # no edits, and not because it failed


def declared_members(path: Path) -> set[str]:
    """The public functions (not tests) and constants a module file declares."""
    text = path.read_text(encoding="utf-8")
    names = set(re.findall(r"^pub const (\w+)", text, re.MULTILINE))
    for attribute, name in re.findall(r"((?:#\[[^\]]*\]\s*)*)pub fn (\w+)", text):
        if "#[test]" not in attribute:
            names.add(name)
    return names


@LSP
async def test_completion_after_a_module_and_a_dot_lists_its_members(client, tmp_path):
    (tmp_path / "geometry.tri").write_text(GEOMETRY, encoding="utf-8")
    text = "program typing\n\nuse std.nn.fixed\nuse geometry\n\nfn main() {\n    fixed.\n}\n"
    path = tmp_path / "typing.tri"
    assert await open_document(client, path, text) != []  # a half-typed line

    async def labels(line: str) -> set[str]:
        edited = text.replace("    fixed.", f"    {line}")
        await change_document(client, path, edited, 2)
        where = position_of(edited, line, len(line))
        params = types.CompletionParams(text_document=identifier(path), position=where)
        answer = await asyncio.wait_for(client.text_document_completion_async(params), WAIT)
        return {item.label for item in answer.items}

    library = declared_members(DEFAULT_LIBRARY / "nn" / "fixed.tri")
    assert "ONE" in library and len(library) > 3
    assert await labels("fixed.") == library
    assert await labels("let a: Field = geometry.") == {"UNIT", "area"}  # not `hidden`
    assert await labels("nothing.") == set()


# --- bad input --------------------------------------------------------------------------------

GARBAGE = "program junk\r\x00\x01\ufffd\u00e9\U0001f600 fn (((\x0c\u2028 }}} \x7f" * 3


@LSP
async def test_a_garbage_buffer_gets_diagnostics_and_the_server_keeps_answering(client, tmp_path):
    logged = len(failures(client))
    path = tmp_path / "junk.tri"
    twin = tmp_path / "twin.tri"
    twin.write_text(GARBAGE, encoding="utf-8", newline="")
    records = cli_diagnostics(twin)
    assert records
    diagnostics = await open_document(client, path, GARBAGE)
    assert [received(d) for d in diagnostics] == [expected(r, GARBAGE) for r in records]

    for line in range(3):
        for character in (0, 5, 17, 10_000):
            where = types.Position(line=line, character=character)
            assert await hover(client, path, where) is None
            params = types.CompletionParams(text_document=identifier(path), position=where)
            await asyncio.wait_for(client.text_document_completion_async(params), WAIT)
    params = types.DocumentSymbolParams(text_document=identifier(path))
    assert not await asyncio.wait_for(client.text_document_document_symbol_async(params), WAIT)
    options = types.FormattingOptions(tab_size=4, insert_spaces=True)
    params = types.DocumentFormattingParams(text_document=identifier(path), options=options)
    assert not await asyncio.wait_for(client.text_document_formatting_async(params), WAIT)

    assert len(failures(client)) == logged  # every answer was an answer, not a failure

    # binary bytes as an editor shows them, then a change that fixes the file
    binary = bytes(range(256)).decode("latin-1")
    assert await change_document(client, path, binary, 2) != []
    assert await change_document(client, path, PROGRAM, 3) == []
    shown = await hover(client, path, position_of(PROGRAM, "fibonacci.fib", 11))
    assert "pub fn fib(n: Field) -> Field" in shown
    assert len(failures(client)) == logged


@LSP
async def test_a_handler_that_fails_is_logged_and_the_server_goes_on(client, tmp_path):
    logged = len(failures(client))
    nowhere = tmp_path / "never" / "opened.tri"  # no such file: reading it fails
    assert await hover(client, nowhere, types.Position(line=0, character=0)) is None
    for _ in range(WAIT * 20):
        if len(failures(client)) > logged:
            break
        await asyncio.sleep(0.05)
    assert "hover failed" in failures(client)[-1]
    path = tmp_path / "after.tri"
    assert await open_document(client, path, PROGRAM) == []
    assert "fn fib" in await hover(client, path, position_of(PROGRAM, "fibonacci.fib", 11))


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-32"])
def test_positions_agree_with_both_ways_of_counting(encoding):
    """Every offset of a text with a lone "\\r", "\\r\\n", a character outside the Basic
    Multilingual Plane and a byte-order mark maps to the position the protocol means and
    back, and compiler places (lines by "\\n", columns in characters) map to offsets."""
    from tri.lsp.positions import SourceText

    text = "\ufeffprogram a\r\n\U0001f600x\ry\u00e9\nz \x0c\u2028w\n"
    source = SourceText(text, encoding)
    for offset in range(len(text) + 1):
        before = re.split(r"\r\n|\r|\n", text[:offset])
        codec, unit = {"utf-8": ("utf-8", 1), "utf-16": ("utf-16-le", 2)}.get(
            encoding, ("utf-32-le", 4)
        )
        width = len(before[-1].encode(codec)) // unit
        want = types.Position(line=len(before) - 1, character=width)
        inside_crlf = text[offset - 1 : offset + 1] == "\r\n"
        if not inside_crlf:
            assert source.position(offset) == want, offset
            assert source.offset(want) == offset, offset
    lines = source.compiler_text.split("\n")
    for number, line in enumerate(lines, 1):
        for column in range(1, len(line) + 1):
            offset = source.compiler_offset(number, column)
            assert text[offset] == line[column - 1]
            assert source.compiler_place(offset) == (number, column)


def test_without_pygls_tri_lsp_says_how_to_install_it():
    blocked = "import sys; sys.modules['pygls'] = None; from tri.cli import main; sys.exit(main())"
    run = subprocess.run(
        [sys.executable, "-c", blocked, "lsp"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode == 2
    assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1
    assert "pip install 'tri[lsp]'" in run.stderr
