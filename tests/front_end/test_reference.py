"""docs/reference.md: every example in it is checked, and every program in it runs as shown.

Each fenced block of the page is an example; what is done with it is named by its info
string (the words after the opening fence):

```trident
    A whole file.  A program (`program NAME`) checks with no diagnostic at all and has at
    least one expectation line, `// run: FLAGS => OUTPUT [error KIND]`
    (tri.commands.run_lines: the lines `tri test` runs).  Each line is run through the
    command line, `tri run NAME.tri FLAGS`, at -O0, -O1, -O2 and -O3 and with
    `--reference`: every run prints exactly OUTPUT on stdout.  Where the line says
    `error KIND`, every run exits 1, the reference evaluator's report is `error[KIND]`
    and each compiled run reports the same construct with the same message (the VM names
    some kinds otherwise, docs/cli.md); else every run exits 0 with nothing on stderr.
    A program with `#[test]` functions also passes `tri test`.  A module (`module a.b`)
    checks with no diagnostic; it is written at `a/b.tri` beside every other block's
    file, so the programs and the error blocks of the page may `use` it.
```trident error CODE
    A whole file that `tri check` rejects (exit 1), its first error being `error[CODE]`.
```trident items
    Top-level items (functions, structs, constants, events), checked with no error as
    the program `snippet`: a `use` line for each `vm.*` module the text names by its
    short name (`io.`, `convert.`, ...), the items, and `fn main() {}`.
```trident statements
    Statements, checked with no error as the body of that program's `main`.
```trident lines
    One statement per line, each ending in `// CODE: message`: every line alone, as the
    body of that program's `main`, is rejected with that first error and that message.
```console
    `$ tri ...` commands, each run in the directory of the page's files (a program at
    `NAME.tri`) and followed by what it prints: its stdout, then its stderr.  An expected
    line that ends in `...` stands for a line that starts with the text before the dots.

A block with any other info string fails the test, so no example goes unchecked.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_helpers import tri
from doc_blocks import session

from tri.commands.run_lines import parse_run_line

PAGE = Path(__file__).parents[2] / "docs" / "reference.md"
KINDS = ("trident", "trident error", "trident items", "trident statements", "trident lines")
LEVELS = ("-O0", "-O1", "-O2", "-O3", "--reference")
# The vm.* module behind each short name a snippet may use.
SHORT_NAMES = {
    "io": "vm.io.io",
    "mem": "vm.io.mem",
    "field": "vm.core.field",
    "convert": "vm.core.convert",
    "u32": "vm.core.u32",
    "assert": "vm.core.assert",
    "hash": "vm.crypto.hash",
    "merkle": "vm.crypto.merkle",
}
_FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```$", re.S | re.M)
_SHORT_NAME = re.compile(r"(?<![\w.])(" + "|".join(SHORT_NAMES) + r")\.\w")
_EXPECTED_ERROR = re.compile(r"^(.*?)\s*//\s*(E\d{4}): (.*)$")
# A run failure's first line: file, kind, line:column, message
_FAILURE = re.compile(r"^(\S+?):(?:(\d+:\d+): )?error\[(\w+)\]: (.*)$", re.M)
_DIAGNOSTIC = re.compile(r"^\S+?:\d+:\d+: (error|warning)\[(\w+)\]: (.*)$", re.M)


@dataclass(frozen=True)
class Block:
    info: str
    text: str
    line: int  # the line of the opening fence

    @property
    def kind(self) -> str:
        words = self.info.split()
        return " ".join(words[:2])

    @property
    def header(self) -> tuple[str, str]:
        """(`program` or `module`, its name) of a whole file."""
        kind, name, *_ = self.text.split(maxsplit=2)
        return kind, name

    @property
    def file(self) -> str:
        """Where the block's file is written: `NAME.tri`, a module `a.b` at `a/b.tri`."""
        kind, name = self.header
        return name.replace(".", "/") + ".tri" if kind == "module" else f"{name}.tri"

    @property
    def id(self) -> str:
        if self.kind in ("trident", "trident error"):
            return self.header[1]
        return f"{self.kind.split()[-1]}-line{self.line}"


def _blocks() -> list[Block]:
    text = PAGE.read_text()
    return [
        Block(match.group(1).strip(), match.group(2), text.count("\n", 0, match.start()) + 1)
        for match in _FENCE.finditer(text)
    ]


BLOCKS = _blocks()
FILES = [block for block in BLOCKS if block.kind in ("trident", "trident error")]
PROGRAMS = [b for b in BLOCKS if b.kind == "trident" and b.header[0] == "program"]
WHOLE = [b for b in BLOCKS if b.kind == "trident"]
REJECTED = [b for b in BLOCKS if b.kind == "trident error"]
SNIPPETS = [b for b in BLOCKS if b.kind in ("trident items", "trident statements")]
LINES = [
    (block, line)
    for block in BLOCKS
    if block.kind == "trident lines"
    for line in block.text.splitlines()
]
LINE_IDS = [f"{block.id}-{line.split(':')[0].split()[-1]}" for block, line in LINES]
SESSIONS = [block for block in BLOCKS if block.info == "console"]


def _cases(block: Block):
    return [
        case
        for number, line in enumerate(block.text.splitlines(), start=1)
        if (case := parse_run_line(number, line)) is not None
    ]


RUNS = [(block, case, level) for block in PROGRAMS for case in _cases(block) for level in LEVELS]


def _write_files(directory: Path, *extra: Block) -> None:
    """Every whole file of the page (and `extra`) at its place under `directory`."""
    for block in [*WHOLE, *extra]:
        path = directory / block.file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(block.text)


def _diagnostics(stderr: str) -> list[tuple[str, str, str]]:
    """(severity, code, message) of each diagnostic `tri check` printed."""
    return _DIAGNOSTIC.findall(stderr)


def _snippet(body: str, items: str = "") -> str:
    """The program `snippet` around top-level `items` or statements `body`."""
    uses = sorted({SHORT_NAMES[name] for name in _SHORT_NAME.findall(items + body)})
    lines = ["program snippet", ""]
    lines += [f"use {module}" for module in uses] + [""] * bool(uses)
    lines += [items, "", "fn main() {", body, "}", ""]
    return "\n".join(lines)


def _check(capsys, path: Path) -> tuple[int, list[tuple[str, str, str]]]:
    code, _, err = tri(capsys, "check", path)
    return code, _diagnostics(err)


# --- the page as a whole


def test_every_block_is_one_of_the_kinds_this_test_checks():
    unknown = [(b.line, b.info) for b in BLOCKS if b.kind not in KINDS and b.info != "console"]
    assert not unknown, f"blocks this test would not check: {unknown}"
    assert len(PROGRAMS) >= 20 and REJECTED and SNIPPETS and LINES and SESSIONS
    assert len({block.file for block in FILES}) == len(FILES), "two files of one name"


@pytest.mark.parametrize("block", PROGRAMS, ids=lambda block: block.id)
def test_every_program_has_a_run_line(block):
    assert _cases(block), f"{block.id} has no // run: line"


# --- whole files


@pytest.mark.parametrize("block", WHOLE, ids=lambda block: block.id)
def test_whole_file_checks_clean(block, tmp_path, capsys):
    _write_files(tmp_path)
    code, found = _check(capsys, tmp_path / block.file)
    assert (code, found) == (0, []), found


@pytest.mark.parametrize(
    ("block", "case", "level"),
    RUNS,
    ids=[f"{block.id}-line{case.line}{level}" for block, case, level in RUNS],
)
def test_program_runs_as_shown(block, case, level, tmp_path, capsys):
    _write_files(tmp_path)
    path = tmp_path / block.file
    code, out, err = tri(capsys, "run", path, level, *shlex.split(case.flags))
    assert [int(word) for word in out.split()] == case.output, err
    if case.error is None:
        assert (code, err) == (0, "")
        return
    assert code == 1, err
    failure = _FAILURE.match(err)
    assert failure and failure.group(1) == str(path), err
    if level == "--reference":
        assert failure.group(3) == case.error, err
        return
    _, _, reference = tri(capsys, "run", path, "--reference", *shlex.split(case.flags))
    first = _FAILURE.match(reference)
    where, expected = failure.group(1, 2), first.group(1, 2)
    # the construct the evaluator names, or another the same input breaks, with a note
    # naming the evaluator's (docs/cli.md: compiled code may check in another order)
    note = f"in source order this input fails first at {':'.join(expected)}: {first.group(4)}"
    assert where == expected or note in " ".join(err.split()), err


@pytest.mark.parametrize(
    "block", [b for b in PROGRAMS if "#[test]" in b.text], ids=lambda block: block.id
)
def test_program_tests_pass(block, tmp_path, capsys):
    _write_files(tmp_path)
    code, out, err = tri(capsys, "test", tmp_path / block.file)
    assert code == 0, out + err


@pytest.mark.parametrize("block", REJECTED, ids=lambda block: block.id)
def test_rejected_file_fails_with_its_code(block, tmp_path, capsys):
    _write_files(tmp_path, block)
    code, found = _check(capsys, tmp_path / block.file)
    errors = [diagnostic for diagnostic in found if diagnostic[0] == "error"]
    expected = block.info.split()[2]
    assert code == 1 and errors and errors[0][1] == expected, found


# --- fragments


@pytest.mark.parametrize("block", SNIPPETS, ids=lambda block: block.id)
def test_snippet_checks_in_a_program(block, tmp_path, capsys):
    _write_files(tmp_path)
    if block.kind == "trident items":
        text = _snippet("", block.text)
    else:
        text = _snippet(block.text)
    path = tmp_path / "snippet.tri"
    path.write_text(text)
    code, found = _check(capsys, path)
    assert code == 0 and all(severity != "error" for severity, _, _ in found), (text, found)


@pytest.mark.parametrize(("block", "line"), LINES, ids=LINE_IDS)
def test_line_is_rejected_as_its_comment_says(block, line, tmp_path, capsys):
    match = _EXPECTED_ERROR.match(line)
    assert match, f"line without '// CODE: message': {line!r}"
    path = tmp_path / "snippet.tri"
    path.write_text(_snippet("    " + line))
    code, found = _check(capsys, path)
    errors = [(code, message) for severity, code, message in found if severity == "error"]
    assert code == 1 and errors, found
    assert errors[0] == (match.group(2), match.group(3).strip())


# --- command-line sessions


def _matches(expected: list[str], actual: list[str]) -> bool:
    if len(expected) != len(actual):
        return False
    return all(
        a.startswith(e[:-3]) if e.endswith("...") else a == e
        for e, a in zip(expected, actual, strict=True)
    )


@pytest.mark.parametrize("block", SESSIONS, ids=lambda block: f"console-line{block.line}")
def test_session_prints_what_the_page_shows(block, tmp_path, capsys, monkeypatch):
    _write_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    for command, shown in session(block.text):
        words = shlex.split(command)
        assert words[0] == "tri", command
        _, out, err = tri(capsys, *words[1:])
        printed = out.splitlines() + err.splitlines()
        assert _matches(shown, printed), f"$ {command}\n" + "\n".join(printed)


# --- links


def _slug(heading: str) -> str:
    """A heading's anchor, as GitHub makes it."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(document: Path) -> set[str]:
    text = re.sub(r"^```.*?^```$", "", document.read_text(), flags=re.S | re.M)
    return {_slug(heading) for heading in re.findall(r"^#+ (.*)$", text, re.M)}


def test_every_link_of_the_page_reaches_its_section():
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", PAGE.read_text()):
        path, _, anchor = target.partition("#")
        document = PAGE.parent / path if path else PAGE
        if not document.exists() or (anchor and anchor not in _anchors(document)):
            broken.append(target)
    assert not broken, broken
