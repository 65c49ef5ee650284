"""Loading .tri source for the commands: module roots, checking, printing diagnostics."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from compiler.check.checker import Checked, check
from compiler.check.resolve import DEFAULT_LIBRARY, Resolver, load_project
from compiler.diagnostics import CompileError, Diagnostic, render_files
from tri.commands.common import UsageError


def add_source_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-I",
        dest="include",
        action="append",
        default=[],
        metavar="DIR",
        help="another directory to look for imported modules in (repeatable)",
    )
    parser.add_argument(
        "--stdlib",
        type=Path,
        default=DEFAULT_LIBRARY,
        metavar="DIR",
        help="library root laid out like stdlib/ (default: the bundled stdlib)",
    )
    parser.add_argument(
        "--profile",
        choices=PROFILES,
        default="debug",
        help="the #[cfg(flag)] items kept: those for 'debug' (default) or 'release'",
    )


PROFILES = ("debug", "release")  # language.md §4.1: the active #[cfg] flag


def resolver_for(arguments) -> Resolver:
    return Resolver(arguments.stdlib, tuple(Path(directory) for directory in arguments.include))


def flags_for(arguments) -> frozenset[str]:
    return frozenset({arguments.profile})


def render_all(diagnostics: list[Diagnostic]) -> str:
    return render_files(diagnostics)


def print_diagnostics(diagnostics: list[Diagnostic]) -> None:
    if diagnostics:
        print(render_all(diagnostics), file=sys.stderr)


def check_path(
    path: Path, resolver: Resolver, flags: frozenset[str] = frozenset({"debug"})
) -> tuple[Checked | None, list[Diagnostic]]:
    """Load and check one file: (the checked program or None, every diagnostic)."""
    if not path.is_file():
        raise UsageError(f"error: cannot read {path}: no such file")
    try:
        project = load_project(path, resolver)
        checked = check(project, flags)
    except CompileError as failure:
        return None, failure.diagnostics
    return checked, checked.diagnostics


def load_checked(path_text: str, arguments) -> Checked:
    """A checked program for run/build; errors become a UsageError (exit 2) showing them all."""
    checked, diagnostics = check_path(
        Path(path_text), resolver_for(arguments), flags_for(arguments)
    )
    if checked is None:
        raise UsageError(render_all(diagnostics))
    print_diagnostics(diagnostics)  # warnings
    return checked
