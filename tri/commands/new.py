"""`tri new NAME` and `tri init [DIR]`: start a project.

`new` makes the directory NAME; `init` turns an existing directory (default: the current
one) into a project.  Both write a manifest (`tri.toml`, read by tri.commands.project) and,
unless one is there, a `main.tri` with a test, which `tri run --input 21`, `tri test` and
`tri build` take from the manifest.
"""

from __future__ import annotations

import re
from pathlib import Path

from tri.commands.common import EXIT_OK, OUTPUT, UsageError
from tri.commands.project import MANIFEST

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

MANIFEST_TEXT = """\
[project]
name = "{name}"
entry = "main.tri"   # what tri run, build and cost compile when given no file
roots = []           # more directories to find modules in, like -I
profile = "debug"    # which #[cfg(...)] items are compiled, like --profile
level = 1            # the optimization level, like -O
"""

MAIN_TEXT = """\
program {name}

use vm.io.io
use vm.core.assert

fn double(x: Field) -> Field {{
    x + x
}}

fn main() {{
    io.write(double(io.read()))
}}

#[test]
fn doubles() {{
    assert.eq(double(21), 42)
}}
"""


def register(commands) -> None:
    new = commands.add_parser("new")
    new.add_argument("name", metavar="NAME", help="the project's name (a Trident identifier)")
    new.set_defaults(handler=command_new)
    init = commands.add_parser("init")
    init.add_argument(
        "directory", nargs="?", default=".", metavar="DIR", help="default: the current one"
    )
    init.add_argument("--name", help="the project's name (default: the directory's)")
    init.set_defaults(handler=command_init)


def _checked_name(name: str) -> str:
    from compiler.syntax.parser import KEYWORDS, TYPE_KEYWORDS

    if not NAME.match(name) or name in KEYWORDS or name in TYPE_KEYWORDS:
        suggestion = re.sub(r"\W", "_", name)
        if suggestion[:1].isdigit():
            suggestion = "_" + suggestion
        raise UsageError(
            f"error: '{name}' cannot name a program: names are letters, digits and _, "
            f"not starting with a digit (for example '{suggestion}')"
        )
    return name


def create(directory: Path, name: str) -> list[Path]:
    """Write the manifest and, unless there is one, main.tri; the files written."""
    manifest = directory / MANIFEST
    if manifest.exists():
        raise UsageError(f"error: {manifest} exists already")
    written = []
    try:
        directory.mkdir(parents=True, exist_ok=True)
        manifest.write_text(MANIFEST_TEXT.format(name=name), encoding="utf-8")
        written.append(manifest)
        main = directory / "main.tri"
        if not main.exists():
            main.write_text(MAIN_TEXT.format(name=name), encoding="utf-8")
            written.append(main)
    except OSError as problem:
        raise UsageError(f"error: cannot write in {directory}: {problem.strerror}") from None
    return written


def command_new(arguments) -> int:
    name = _checked_name(arguments.name)
    directory = Path(arguments.name)
    if directory.exists():
        raise UsageError(f"error: {directory} exists already; tri init makes a project of it")
    written = create(directory, name)
    if not OUTPUT.quiet:
        for path in written:
            print(f"created {path}")
        print(f"next: cd {directory} && tri run --input 21 && tri test")
    return EXIT_OK


def command_init(arguments) -> int:
    directory = Path(arguments.directory)
    if not directory.is_dir():
        raise UsageError(f"error: {directory} is not a directory")
    name = _checked_name(arguments.name or directory.resolve().name)
    written = create(directory, name)
    if not OUTPUT.quiet:
        for path in written:
            print(f"created {path}")
    return EXIT_OK
