"""`tri doc FILE_OR_DIR... [-o DIR]`: documentation of modules' public items.

Each file is checked; its page lists the module's comment (the comment lines before
`module`/`program`), then every public function -- its signature, the comment lines right
above it (`///` or `//`, the house style of the library), its attributes and the estimated
cost of one call (`tri cost --estimate`: from the source, every loop to its bound) --
public constants with their values, and public structs with their fields.  Without `-o`
the Markdown of every file is printed; with `-o DIR`, `DIR/<module>.md` and
`DIR/<module>.html` (the same content; the HTML escapes every source text) and
`DIR/index.md`, `DIR/index.html`.

Exit codes: 0; 2 on bad usage or source that does not check.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from pathlib import Path

from tri.commands.common import EXIT_OK, UsageError, existing_source_files
from tri.commands.source import (
    add_source_options,
    check_path,
    flags_for,
    render_all,
    resolver_for,
)


def register(commands) -> None:
    parser = commands.add_parser("doc")
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="FILE_OR_DIR",
        help=".tri files or directories (default: the project's directory)",
    )
    parser.add_argument(
        "-o", dest="output", metavar="DIR", help="write Markdown and HTML pages there"
    )
    add_source_options(parser)
    parser.set_defaults(handler=command_doc)


@dataclass
class Entry:
    kind: str  # "fn", "const" or "struct"
    name: str
    signature: str
    comment: list[str]
    notes: list[str] = field(default_factory=list)


@dataclass
class Page:
    module: str
    path: str
    comment: list[str]
    entries: list[Entry]


def command_doc(arguments) -> int:
    resolver = resolver_for(arguments)
    pages = []
    for path in existing_source_files(arguments.paths):
        checked, diagnostics = check_path(path, resolver, flags_for(arguments))
        if checked is None:
            raise UsageError(render_all(diagnostics))
        pages.append(page_of(path, checked))
    if arguments.output is None:
        print("\n".join(markdown(page) for page in pages), end="")
        return EXIT_OK
    directory = Path(arguments.output)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for page in pages:
            (directory / f"{page.module}.md").write_text(markdown(page), encoding="utf-8")
            (directory / f"{page.module}.html").write_text(page_html(page), encoding="utf-8")
        (directory / "index.md").write_text(index_markdown(pages), encoding="utf-8")
        (directory / "index.html").write_text(index_html(pages), encoding="utf-8")
    except OSError as problem:
        raise UsageError(f"error: cannot write in {directory}: {problem.strerror}") from None
    return EXIT_OK


def page_of(path: Path, checked) -> Page:
    from compiler.check.cost_estimate import function_costs
    from compiler.syntax import ast
    from compiler.syntax.formatter import expression_text, type_text

    source = checked.project.entry.source
    comments = dict(source.comments)
    keys = {
        instance.function.name: key
        for key, instance in checked.instances.items()
        if instance.module == checked.project.entry.name and not instance.function.size_parameters
    }
    costs = function_costs(checked, list(keys.values()))
    entries = []
    for item in source.items:
        if not getattr(item, "public", False):
            continue
        start = min([item.span.line, *(a.span.line for a in getattr(item, "attributes", []))])
        comment = _comment_above(comments, start)
        match item:
            case ast.Function():
                params = ", ".join(f"{p.name}: {type_text(p.type)}" for p in item.params)
                sizes = f"<{', '.join(item.size_parameters)}>" if item.size_parameters else ""
                result = f" -> {type_text(item.return_type)}" if item.return_type else ""
                entry = Entry(
                    "fn", item.name, f"pub fn {item.name}{sizes}({params}){result}", comment
                )
                entry.notes += [
                    f"#[{a.name}{f'({a.argument})' if a.argument else ''}]" for a in item.attributes
                ]
                if item.name in keys:
                    cost = costs[keys[item.name]]
                    shown = ", ".join(f"{name} {value}" for name, value in cost.as_dict().items())
                    entry.notes.append(f"estimated cost of one call: {shown}")
                elif item.size_parameters:
                    entry.notes.append("generic: its cost depends on the sizes it is used with")
                entries.append(entry)
            case ast.Const():
                signature = (
                    f"pub const {item.name}: {type_text(item.type)} = {expression_text(item.value)}"
                )
                entries.append(Entry("const", item.name, signature, comment))
            case ast.Struct():
                fields = ", ".join(
                    f"{'pub ' if f.public else ''}{f.name}: {type_text(f.type)}"
                    for f in item.fields
                )
                entries.append(
                    Entry("struct", item.name, f"pub struct {item.name} {{ {fields} }}", comment)
                )
    header = _comment_above(comments, source.name_span.line or 1)
    return Page(source.name, str(path), header, entries)


def _comment_above(comments: dict[int, str], line: int) -> list[str]:
    """The comment lines right above `line`, first to last, without their slashes."""
    found = []
    line -= 1
    while line in comments:
        found.append(comments[line].lstrip("/").removeprefix(" "))
        line -= 1
    return found[::-1]


def markdown(page: Page) -> str:
    lines = [f"# {page.module}", "", f"`{page.path}`", ""]
    if page.comment:
        lines += [" ".join(page.comment), ""]
    for entry in page.entries:
        lines += [f"## {entry.kind} {entry.name}", "", "```trident", entry.signature, "```", ""]
        if entry.comment:
            lines += [" ".join(entry.comment), ""]
        lines += [f"- {note}" for note in entry.notes]
        if entry.notes:
            lines.append("")
    return "\n".join(lines)


def index_markdown(pages: list[Page]) -> str:
    lines = ["# Modules", ""]
    for page in pages:
        summary = page.comment[0] if page.comment else ""
        lines.append(f"- [{page.module}]({page.module}.md) {summary}".rstrip())
    return "\n".join(lines) + "\n"


def _html(title: str, body: list[str]) -> str:
    head = '<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8">'
    head += f"<title>{html.escape(title)}</title></head>\n<body>\n"
    return head + "\n".join(body) + "\n</body>\n</html>\n"


def page_html(page: Page) -> str:
    body = [f"<h1>{html.escape(page.module)}</h1>", f"<p><code>{html.escape(page.path)}</code></p>"]
    if page.comment:
        body.append(f"<p>{html.escape(' '.join(page.comment))}</p>")
    for entry in page.entries:
        anchor = html.escape(f"{entry.kind}-{entry.name}")
        body.append(f'<h2 id="{anchor}">{entry.kind} {html.escape(entry.name)}</h2>')
        body.append(f"<pre><code>{html.escape(entry.signature)}</code></pre>")
        if entry.comment:
            body.append(f"<p>{html.escape(' '.join(entry.comment))}</p>")
        if entry.notes:
            body.append(
                "<ul>" + "".join(f"<li>{html.escape(n)}</li>" for n in entry.notes) + "</ul>"
            )
    return _html(page.module, body)


def index_html(pages: list[Page]) -> str:
    items = "".join(
        f'<li><a href="{html.escape(page.module)}.html">{html.escape(page.module)}</a></li>'
        for page in pages
    )
    return _html("Modules", ["<h1>Modules</h1>", f"<ul>{items}</ul>"])
