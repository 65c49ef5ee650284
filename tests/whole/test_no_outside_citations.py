"""No user-facing text cites a document that is not in the repository.

The toolchain was written from specifications that live outside the repository: the
language, the TASM and the TIR specifications, three Markdown files named after those
words in a shared specification folder.  A user has none of them, so nothing a user
reads may send them there: the documents (README.md, docs/, benches/README.md), the
library (stdlib/), and every string a command prints, which in practice is every file
of tri/, compiler/, vm/ and selfhost/ (comments and docstrings included: docstrings
become `--help` text and docs), the templates (`*.j2`) and the grammar.  The tests and
their programs are held to the same rule: tests/programs/ are the examples the README
points at.  A fact such a citation stood for is stated where it is used or cited from
the repository's own documents (docs/reference.md, docs/vm.md, docs/backend.md, ...).

`optimizer.md` is not flagged: docs/optimizer.md is in the repository.

A second test checks that every relative link of the Markdown documents reaches a file
inside the repository.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The three specification files, and their folder (spelled in parts so that this file
# does not cite them itself).
CITATION = re.compile(r"\b(?:language|tasm|tir)\.md\b|" + "shared" + "/spec")
TEXT = {".py", ".md", ".tri", ".tasm", ".j2", ".lark", ".toml", ".txt", ".json", ".html"}
SKIPPED = {".git", ".venv", "__pycache__", "build", "dist", "artifacts", ".pytest_cache"}
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _texts() -> list[Path]:
    """Every text file of the repository outside the skipped folders."""
    found = []
    for path in sorted(ROOT.rglob("*")):
        parts = path.relative_to(ROOT).parts
        if any(part in SKIPPED or part.endswith(".egg-info") for part in parts[:-1]):
            continue
        if path.is_file() and path.suffix in TEXT:
            found.append(path)
    return found


def test_no_text_cites_a_specification_outside_the_repository():
    texts = _texts()
    assert any(path.name == "reference.md" for path in texts)  # the walk sees docs/
    assert any(path.suffix == ".j2" for path in texts) and any(p.suffix == ".tri" for p in texts)
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in texts
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
        if CITATION.search(line)
    ]
    assert not found, "cite the repository's own documents instead:\n" + "\n".join(found)


def test_every_relative_link_of_the_documents_stays_in_the_repository():
    documents = [path for path in _texts() if path.suffix == ".md"]
    broken = []
    for document in documents:
        for match in LINK.finditer(document.read_text()):
            target = match.group(1).split("#")[0]
            if not target or re.match(r"[a-z]+:", target):  # an anchor, a URL
                continue
            resolved = (document.parent / target).resolve()
            if not resolved.exists() or not resolved.is_relative_to(ROOT):
                broken.append(f"{document.relative_to(ROOT)}: {match.group(1)}")
    assert not broken, broken
