"""Checking an editor's buffer the way `tri check` checks the file.

`Settings` are what `tri check PATH` would run with for a file: the module roots, the
library and the `#[cfg]` profile of the nearest `tri.toml` above the file (read by
`tri.commands.project`), under the options `tri lsp` itself was started with (`-I`,
`--stdlib`, `--profile`, which win over the project's as on the command line), made into
a resolver and flags by `tri.commands.source`.  `SettingsCache` keeps them per manifest
until the manifest changes.

`Analysis` is one check of one text: the pipeline's front end (`compiler.pipeline`) with
the buffer's text standing for the file on disk -- its `ast` step is
`compiler.check.resolve.load_project` given that text, every module it uses read from
disk as `tri check` reads them, then the pipeline's own `checked` step -- so the
diagnostics are the ones `tri check` prints for the same text.  Name lookups (hover,
definition) need the checker's symbol tables even when the program has errors, which the
pipeline does not return: `tables` checks the same loaded project once more with a
`Checker` of its own, on the first request that needs them.
"""

from __future__ import annotations

import argparse
import logging
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from compiler.check.checker import Checked, Checker, FunctionInstance
from compiler.check.resolve import Project, Resolver, load_project
from compiler.check.symbols import ModuleScope
from compiler.diagnostics import CompileError, Diagnostic
from compiler.pipeline import FRONT_END, Options, run_steps
from tri.commands.common import UsageError
from tri.commands.project import apply_project, find_manifest, read_project
from tri.commands.source import flags_for, resolver_for
from tri.lsp.positions import UTF16, SourceText

logger = logging.getLogger("tri.lsp")

# The front end is the `ast` step (done here, from the buffer) and the steps after it.
PARSE_STEP, *CHECK_STEPS = FRONT_END
assert PARSE_STEP.name == "ast", "the front end starts by loading the project"


@dataclass(frozen=True)
class Settings:
    resolver: Resolver
    flags: frozenset[str]
    manifest: Path | None = None  # the project's tri.toml, if there is one
    problem: str | None = None  # why that manifest could not be used


@dataclass(frozen=True)
class ServerOptions:
    """The options `tri lsp` was started with, as `tri check` takes them."""

    include: tuple[str, ...] = ()
    stdlib: Path | None = None
    profile: str | None = None


class SettingsCache:
    """`Settings` per project manifest (or none), read again when the manifest changes."""

    def __init__(self, options: ServerOptions = ServerOptions()):
        self.options = options
        self.known: dict[tuple[Path | None, int], Settings] = {}

    def for_path(self, path: Path) -> Settings:
        manifest = find_manifest(path.resolve().parent)
        try:
            stamp = manifest.stat().st_mtime_ns if manifest is not None else 0
        except OSError:
            stamp = 0
        key = (manifest, stamp)
        if key not in self.known:
            self.known = {k: v for k, v in self.known.items() if k[0] != manifest}
            self.known[key] = self._read(manifest)
        return self.known[key]

    def _read(self, manifest: Path | None) -> Settings:
        arguments = argparse.Namespace(
            include=list(self.options.include),
            stdlib=self.options.stdlib,
            profile=self.options.profile,
        )
        project, problem = None, None
        if manifest is not None:
            try:
                project = read_project(manifest)
            except UsageError as error:
                problem = str(error)
        apply_project(arguments, project)
        return Settings(resolver_for(arguments), flags_for(arguments), manifest, problem)


@dataclass
class Tables:
    """The checker's symbol table of every loaded module, and every function instance."""

    scopes: dict[str, ModuleScope]
    instances: dict[str, FunctionInstance]


class Analysis:
    """One check of the text of the file at `path`."""

    def __init__(self, path: Path, text: str, settings: Settings, encoding: str = UTF16):
        self.path = path
        self.text = text
        self.settings = settings
        self.source = SourceText(text, encoding)
        self.project: Project | None = None
        self.checked: Checked | None = None  # when the program checks without errors
        self.diagnostics: list[Diagnostic] = []
        options = Options(resolver=settings.resolver, flags=settings.flags)
        try:
            self.project = load_project(path, settings.resolver, self.source.compiler_text)
            self.checked = run_steps(CHECK_STEPS, self.project, options)["checked"]
            self.diagnostics = list(self.checked.diagnostics)
        except CompileError as failure:
            self.diagnostics = list(failure.diagnostics)

    @property
    def entry_name(self) -> str | None:
        return None if self.project is None else self.project.entry.name

    @cached_property
    def tables(self) -> Tables | None:
        """The symbol tables and instances, also for a program with errors (None when the
        text or a module it uses does not parse)."""
        if self.project is None:
            return None
        checker = Checker(self.project, self.settings.flags)
        try:
            checker.run()
        except Exception:  # the tables made before a failure still serve lookups
            logger.debug("the checker stopped early on %s", self.path, exc_info=True)
        return Tables(checker.scopes, checker.instances)

    def module_text(self, name: str) -> tuple[Path, str] | None:
        """The file and text of a loaded module (the entry's text is the buffer's)."""
        if self.project is None or name not in self.project.modules:
            return None
        if name == self.entry_name:
            return self.path, self.text
        module = self.project.modules[name]
        return Path(module.path), module.text
