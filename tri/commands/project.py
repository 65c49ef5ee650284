"""Projects: a `tri.toml` manifest, found upward from the current directory.

    [project]
    name = "hello"
    entry = "main.tri"        # what run, build and cost compile when given no file
    roots = ["lib"]           # more module roots, like -I (relative to the manifest)
    profile = "debug"         # the #[cfg] profile, like --profile
    level = 1                 # the optimization level, like -O
    stdlib = "vendor/std"     # optional: another library root, like --stdlib

Input: the parsed command line.  `apply_project` fills in what the command line left
out from the nearest manifest (an option given on the command line always wins), and
`program_path` / `source_paths` turn a missing path or a directory into the project's
entry or files.  Without a manifest nothing changes.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from tri.commands.common import UsageError

MANIFEST = "tri.toml"
KEYS = ("name", "entry", "roots", "profile", "level", "stdlib")


@dataclass(frozen=True)
class Project:
    directory: Path
    name: str
    entry: Path
    roots: tuple[Path, ...] = ()
    profile: str | None = None
    level: int | None = None
    stdlib: Path | None = None
    sources: tuple[Path, ...] = field(default=(), compare=False)


def find_manifest(start: Path) -> Path | None:
    """The nearest tri.toml in `start` or a directory above it."""
    for directory in (start, *start.parents):
        candidate = directory / MANIFEST
        if candidate.is_file():
            return candidate
    return None


def read_project(manifest: Path) -> Project:
    """The project a manifest describes; a UsageError names what is wrong with it."""
    try:
        data = tomllib.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as problem:
        raise UsageError(f"error: {manifest}: {problem}") from None
    table = data.get("project")
    if not isinstance(table, dict):
        raise UsageError(f"error: {manifest}: no [project] table")
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise UsageError(
            f"error: {manifest}: unknown key {', '.join(unknown)}; the keys are {', '.join(KEYS)}"
        )
    directory = manifest.parent

    def typed(key: str, kind, default=None):
        value = table.get(key, default)
        if value is not None and not isinstance(value, kind):
            raise UsageError(f"error: {manifest}: '{key}' must be a {kind.__name__}")
        return value

    roots = typed("roots", list, [])
    if not all(isinstance(root, str) for root in roots):
        raise UsageError(f"error: {manifest}: 'roots' must be a list of directories")
    stdlib = typed("stdlib", str)
    return Project(
        directory=directory,
        name=typed("name", str, directory.name),
        entry=directory / typed("entry", str, "main.tri"),
        roots=tuple(directory / root for root in roots),
        profile=typed("profile", str),
        level=typed("level", int),
        stdlib=None if stdlib is None else directory / stdlib,
    )


def current_project(start: Path | None = None) -> Project | None:
    """The project of the nearest manifest, its paths relative to the current directory."""
    manifest = find_manifest((start or Path.cwd()).resolve())
    if manifest is None:
        return None
    return read_project(Path(os.path.relpath(manifest)))


def project_for(arguments) -> Project | None:
    """The project a command works in: that of a project directory given as its program,
    else the current directory's."""
    given = getattr(arguments, "program", None)
    if given is not None and (Path(given) / MANIFEST).is_file():
        return read_project(Path(given) / MANIFEST)
    return current_project()


def apply_project(arguments, project: Project | None) -> None:
    """Fill in the options the command line left out (None) from `project`, then the
    defaults; the project's module roots come before those of -I."""
    arguments.project = project
    if hasattr(arguments, "include"):
        roots = [str(root) for root in project.roots] if project else []
        arguments.include = roots + list(arguments.include)
    settings = {
        "profile": (project and project.profile, "debug"),
        "level": (project and project.level, None),
        "stdlib": (project and project.stdlib, None),
    }
    for name, (from_project, default) in settings.items():
        if getattr(arguments, name, "absent") is None:
            setattr(arguments, name, from_project if from_project is not None else default)


def program_path(arguments, given: str | None) -> str:
    """The program a command runs or builds: the path given, a directory's project entry
    (or its main.tri), or with no path the current project's entry."""
    if given is None:
        project = arguments.project
        if project is None:
            raise UsageError(
                f"error: no program given, and no {MANIFEST} here or above (tri new NAME "
                "or tri init makes a project)"
            )
        return str(project.entry)
    path = Path(given)
    if path.is_dir():
        manifest = path / MANIFEST
        if manifest.is_file():
            return str(read_project(manifest).entry)
        if (path / "main.tri").is_file():
            return str(path / "main.tri")
        raise UsageError(f"error: {path} is a directory without {MANIFEST} or main.tri")
    return given


def source_paths(arguments, given: list[str]) -> list[str]:
    """The files or directories a command reads: those given, or the current project's
    directory."""
    if given:
        return given
    if arguments.project is None:
        raise UsageError(f"error: no files given, and no {MANIFEST} here or above")
    return [str(arguments.project.directory)]
