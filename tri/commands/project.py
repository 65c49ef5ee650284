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

import json
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from compiler.diagnostics import error, render
from compiler.levels import LEVELS
from compiler.syntax.ast import Span
from tri.commands.common import OUTPUT, UsageError, did_you_mean
from tri.commands.source import PROFILES

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
    """The project a manifest describes; a UsageError names what is wrong with it, as a
    diagnostic at the line of the key (E0112)."""
    try:
        text = manifest.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as problem:
        raise UsageError(f"error: {manifest}: {getattr(problem, 'strerror', problem)}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as problem:
        where = re.search(r"\(at line (\d+), column (\d+)\)", str(problem))
        message = re.sub(r"\s*\(at .*\)$", "", str(problem)).lower() or "not valid TOML"
        if where:
            line, column = int(where[1]), int(where[2])
        else:  # at the end of the document
            lines = text.splitlines() or [""]
            line, column = len(lines), len(lines[-1]) + 1
        message = _TOML_MESSAGES.get(message, message)
        raise _manifest_error(manifest, text, line, column, message, _TOML_HINT) from None
    table = data.get("project")
    if not isinstance(table, dict):
        raise _manifest_error(
            manifest, text, 1, 1, "no [project] table", "start the file with [project]"
        )
    for key in table:
        if key not in KEYS:
            line, column = _key_position(text, key)
            raise _manifest_error(
                manifest,
                text,
                line,
                column,
                f"unknown key '{key}'",
                f"the keys are {', '.join(KEYS)}" + did_you_mean(key, KEYS),
            )
    for key, (check, wanted) in RULES.items():
        if key in table and not check(table[key]):
            line, column = _key_position(text, key)
            found = f"found {_toml(table[key])}"
            raise _manifest_error(
                manifest,
                text,
                line,
                column,
                f"'{key}' must be {wanted} ({found})",
                f"for example: {EXAMPLES[key]}",
            )
    directory = manifest.parent
    stdlib = table.get("stdlib")
    return Project(
        directory=directory,
        name=table.get("name", directory.name),
        entry=directory / table.get("entry", "main.tri"),
        roots=tuple(directory / root for root in table.get("roots", [])),
        profile=table.get("profile"),
        level=table.get("level"),
        stdlib=None if stdlib is None else directory / stdlib,
    )


def _text(value) -> bool:
    return isinstance(value, str) and value != ""


# key -> (what a valid value passes, what it must be)
RULES = {
    "name": (_text, "a text"),
    "entry": (_text, "the path of a .tri file, as a text"),
    "roots": (
        lambda value: isinstance(value, list) and all(_text(root) for root in value),
        "a list of directories, as texts",
    ),
    "profile": (lambda value: value in PROFILES, " or ".join(f"'{p}'" for p in PROFILES)),
    "level": (
        lambda value: type(value) is int and value in LEVELS,
        ", ".join(map(str, sorted(LEVELS)[:-1])) + f" or {sorted(LEVELS)[-1]}",
    ),
    "stdlib": (_text, "a directory, as a text"),
}
EXAMPLES = {
    "name": 'name = "hello"',
    "entry": 'entry = "main.tri"',
    "roots": 'roots = ["lib"]',
    "profile": 'profile = "release"',
    "level": "level = 2",
    "stdlib": 'stdlib = "vendor/std"',
}
_TOML_MESSAGES = {  # tomllib's words -> what they mean in a manifest
    "cannot overwrite a value": "a key set a second time",
    "invalid value": "a value that is missing or not valid",
}
_TOML_HINT = 'each setting is one line, key = value: texts in quotes ("main.tri"), lists in [ ]'


def _toml(value) -> str:
    """A value as TOML writes it, for a message."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    if isinstance(value, dict):
        return "a table"
    return str(value)


def _key_position(text: str, key: str) -> tuple[int, int]:
    """Where `key = ...` is written (line, column), else the start of the file."""
    for number, line in enumerate(text.splitlines(), 1):
        match = re.match(rf"\s*(?:\"{re.escape(key)}\"|{re.escape(key)})\s*=", line)
        if match:
            return number, len(line) - len(line.lstrip()) + 1
    return 1, 1


def _manifest_error(manifest: Path, text: str, line: int, column: int, message: str, hint):
    lines = text.splitlines()
    source_line = lines[line - 1] if 0 < line <= len(lines) else ""
    word = re.match(r"[^\s=]+", source_line[column - 1 :])
    span = Span(line, column, line, column + (len(word[0]) if word else 1) - 1)
    diagnostic = error("E0112", message, str(manifest), span, hint)
    if OUTPUT.message_format == "json":
        return UsageError(json.dumps(diagnostic.as_json(text)))
    return UsageError(render(diagnostic, text, color=False))


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
