"""`tri new NAME [--lib] [--vcs git|none]` and `tri init [DIR] [--lib] [--name NAME]`.

`new` makes the directory NAME; `init` turns an existing directory (default: the current
one) into a project.  Both write a manifest (`tri.toml`, read by tri.commands.project) and,
unless one is there, a `main.tri` with a test, which `tri run --input 21`, `tri test` and
`tri build` take from the manifest; with `--lib`, a module `NAME.tri` with a public
function and a test instead, which `tri test` and `tri build` take.  `new` also writes a
`.gitignore` and, as `cargo new` does, makes a git repository when git is installed and
the directory is not inside one already (`--vcs none`: neither).
"""

from __future__ import annotations

import re
import shutil
import subprocess
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


LIBRARY_MANIFEST_TEXT = """\
[project]
name = "{name}"
entry = "{name}.tri"  # what tri build and tri check take when given no file: the module
roots = []           # more directories to find modules in, like -I
profile = "debug"    # which #[cfg(...)] items are compiled, like --profile
level = 1            # the optimization level, like -O
"""

LIBRARY_TEXT = """\
module {name}

use vm.core.assert

pub fn double(x: Field) -> Field {{
    x + x
}}

#[test]
fn doubles() {{
    assert.eq(double(21), 42)
}}
"""

GITIGNORE_TEXT = """\
# what tri writes when asked to: tri build -o build/main.tasm, tri cost --save-costs build/...
/build/
"""


def register(commands) -> None:
    new = commands.add_parser("new")
    new.add_argument("name", metavar="NAME", help="the project's name (a Trident identifier)")
    new.add_argument(
        "--lib", action="store_true", help="a library: a module NAME.tri, not a program"
    )
    new.add_argument(
        "--vcs",
        choices=("git", "none"),
        default="git",
        help="git (default): a .gitignore, and a repository when git is installed and the "
        "directory is not in one; none: neither",
    )
    new.set_defaults(handler=command_new)
    init = commands.add_parser("init")
    init.add_argument(
        "directory", nargs="?", default=".", metavar="DIR", help="default: the current one"
    )
    init.add_argument("--name", help="the project's name (default: the directory's)")
    init.add_argument(
        "--lib", action="store_true", help="a library: a module NAME.tri, not a program"
    )
    init.set_defaults(handler=command_init)


def _checked_name(name: str, where: str = "") -> str:
    """`name` if it can name a program or module; else a UsageError with a name that can
    (`where`: how the name was chosen, for `init`'s directory name)."""
    from compiler.syntax.parser import KEYWORDS, TYPE_KEYWORDS

    if NAME.match(name) and name not in KEYWORDS and name not in TYPE_KEYWORDS:
        return name
    suggestion = re.sub(r"\W", "_", name) or "project"
    if suggestion[:1].isdigit():
        suggestion = "_" + suggestion
    if suggestion in KEYWORDS or suggestion in TYPE_KEYWORDS:
        suggestion = f"{suggestion}_project"
        reason = f"'{name}' is a keyword"
    else:
        reason = "names are letters, digits and _, not starting with a digit"
    raise UsageError(
        f"error: '{name}'{where} cannot name a project: {reason} (for example '{suggestion}')"
    )


def create(directory: Path, name: str, library: bool = False) -> list[Path]:
    """Write the manifest and, unless there is one, main.tri (a library: NAME.tri); the
    files written."""
    manifest = directory / MANIFEST
    if manifest.exists():
        raise UsageError(f"error: {manifest} exists already")
    written = []
    source, text = (f"{name}.tri", LIBRARY_TEXT) if library else ("main.tri", MAIN_TEXT)
    manifest_text = LIBRARY_MANIFEST_TEXT if library else MANIFEST_TEXT
    try:
        directory.mkdir(parents=True, exist_ok=True)
        manifest.write_text(manifest_text.format(name=name), encoding="utf-8")
        written.append(manifest)
        main = directory / source
        if not main.exists():
            main.write_text(text.format(name=name), encoding="utf-8")
            written.append(main)
    except OSError as problem:
        raise UsageError(f"error: cannot write in {directory}: {problem.strerror}") from None
    return written


def _version_control(directory: Path) -> list[Path]:
    """A .gitignore, and `git init` when git is installed and `directory` is not inside a
    work tree already: what was made."""
    ignore = directory / ".gitignore"
    ignore.write_text(GITIGNORE_TEXT, encoding="utf-8")
    made = [ignore]
    git = shutil.which("git")
    if git is None:
        return made
    inside = subprocess.run(
        [git, "rev-parse", "--is-inside-work-tree"],
        cwd=directory,
        capture_output=True,
        text=True,
        check=False,
    )
    if inside.returncode == 0:
        return made
    initialised = subprocess.run(
        [git, "init", "-q"], cwd=directory, capture_output=True, text=True, check=False
    )
    if initialised.returncode == 0:
        made.append(directory / ".git")
    return made


def command_new(arguments) -> int:
    name = _checked_name(arguments.name)
    directory = Path(arguments.name)
    if directory.exists():
        raise UsageError(f"error: {directory} exists already; tri init makes a project of it")
    written = create(directory, name, arguments.lib)
    if arguments.vcs == "git":
        written += _version_control(directory)
    if not OUTPUT.quiet:
        for path in written:
            print(f"created {path}")
        run = "tri test && tri build" if arguments.lib else "tri run --input 21 && tri test"
        print(f"next: cd {directory} && {run}")
    return EXIT_OK


def command_init(arguments) -> int:
    directory = Path(arguments.directory)
    if not directory.is_dir():
        raise UsageError(f"error: {directory} is not a directory")
    where = "" if arguments.name else " (the directory's name; --name NAME gives another)"
    name = _checked_name(arguments.name or directory.resolve().name, where)
    written = create(directory, name, arguments.lib)
    if not OUTPUT.quiet:
        for path in written:
            print(f"created {path}")
    return EXIT_OK
