"""The decision cache (optimizer.md §8): what `-O2` decided for a block, kept on disk so
that the next build of the same block skips the search.

Input: a block's baseline (its classical lowering after the peephole rules: what the
search starts from), its contract, the lowerer's settings.  Output: a `Decision` -- the
instructions the lowerer emits for the block and the block's funnel figures
(compiler.search.lowerer.Funnel, without the seconds) -- or None.

**Key.** sha256 of one canonical JSON text holding everything the decision depends on:
the baseline instructions; the contract's facts the search and the checker use
(don't-care exit slots, u32 entry slots, the entry length the block may assume, and
the entry and exit depths); the model's identity (None at `-O2`); the rule database's
hash (compiler.superopt.database); the search settings (window length and budget, whole-
block length and budget); `SEARCH_VERSION`; the hash of the deciding code's source
(`code_identity`: every module of the search, the model, the checker, the rules and the
lowering, and the instruction table), so that a cache written by another version of
the compiler is never used (a valid but different decision would make the output
depend on the cache); and the cost context (`COST_CONTEXT`: the static figures a
candidate must not worsen, and that it records no u32-table entry the baseline does not).

**Never trusted.** A cached decision is re-validated before use (`SearchLowerer`): code
other than the baseline must be proven equivalent to it by compiler.verify under the
contract, and strictly cheaper, exactly as a fresh candidate; its funnel figures must
agree with what was emitted.  A decision that fails, or an entry that is not valid JSON
of the expected shape, is ignored, decided afresh and rewritten.  So a stale, corrupt or
tampered cache can cost time, never correctness.

**Where.** `$TRI_CACHE/decisions/<key[:2]>/<key>.json`; `$TRI_CACHE` defaults to
`$XDG_CACHE_HOME/tri` or `~/.cache/tri`; `TRI_CACHE=off` disables the cache.  Writes go
to a temporary file in the same directory and are renamed into place, so parallel
builds (pytest workers) never see half an entry; an unwritable directory only loses the
cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

SEARCH_VERSION = 1
COST_CONTEXT = (
    "static: processor rows, op-stack rows, program words; none worse, one better;"
    " u32-table entries: a subset of the baseline's"
)
FUNNEL_FIELDS = (
    "blocks", "searched", "optimal", "candidates", "verified", "cheaper", "applied",
    "unknown", "different", "superopt", "model", "instructions_before", "instructions_after",
    "expanded",
)  # fmt: skip


@dataclass(frozen=True)
class Decision:
    instructions: tuple  # ((name, argument or None), ...): what the lowerer emits
    figures: dict  # FUNNEL_FIELDS -> int for this block
    by_size: tuple  # (size bucket, cheaper 0/1, optimal 0/1)


def cache_directory() -> Path | None:
    """The decision cache's directory, or None when `TRI_CACHE=off`."""
    configured = os.environ.get("TRI_CACHE")
    if configured == "off":
        return None
    if configured:
        return Path(configured) / "decisions"
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "tri" / "decisions"


# the modules whose code decides what a block becomes: a change to any of them may change
# a decision for the same key, so their text is part of every key
DECIDING_PACKAGES = ("blocks", "search", "neural", "verify", "superopt", "lower", "optimize")


@cache
def code_identity() -> str:
    """sha256 of the source of the modules that make a decision (DECIDING_PACKAGES and
    the instruction table): a cache written by other code is never used."""
    import compiler
    from vm import isa

    root = Path(compiler.__file__).parent
    files = [p for name in DECIDING_PACKAGES for p in sorted((root / name).glob("*.py"))]
    digest = hashlib.sha256()
    for path in [*files, Path(isa.__file__)]:
        digest.update(path.name.encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


@cache
def rules_identity() -> str:
    """The shipped rule database's hash (its header's sha256, checked on load)."""
    from compiler.superopt import database

    return database.load().header["sha256"]


def contract_facts(contract) -> dict:
    """The facts of a block's contract that the search and the checker use."""
    return {
        "dont_care": sorted(contract.dont_care),
        "u32_entry": sorted(contract.u32_entry),
        "minimum_entry_length": contract.minimum_entry_length,
        "entry_depth": contract.entry_depth,
        "exit_depth": contract.exit_depth,
    }


def decision_key(baseline, contract, settings: dict, model_identity: str | None) -> str:
    content = {
        "baseline": [[name, argument] for name, argument in baseline],
        "contract": contract_facts(contract),
        "model": model_identity,
        "rules": rules_identity(),
        "settings": settings,
        "search_version": SEARCH_VERSION,
        "code": code_identity(),
        "cost": COST_CONTEXT,
    }
    text = json.dumps(content, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _decode(content) -> Decision | None:
    """A `Decision` from an entry's JSON, or None if it has not the expected shape."""
    try:
        instructions = tuple(
            (str(name), None if argument is None else int(argument))
            for name, argument in content["instructions"]
        )
        figures = {name: content["figures"][name] for name in FUNNEL_FIELDS}
        by_size = tuple(content["by_size"])
    except (KeyError, TypeError, ValueError):
        return None
    numbers = [*figures.values(), *by_size]
    if len(by_size) != 3 or not all(type(n) is int and n >= 0 for n in numbers):
        return None
    return Decision(instructions, figures, by_size)


class DecisionCache:
    """Decisions on disk under `directory`; counts its hits, misses and rejections."""

    def __init__(self, directory: Path, model_identity: str | None = None):
        self.directory = Path(directory)
        self.model_identity = model_identity
        self.hits = self.misses = self.rejected = self.written = 0

    @classmethod
    def from_environment(cls, model_identity: str | None = None) -> DecisionCache | None:
        directory = cache_directory()
        return None if directory is None else cls(directory, model_identity)

    def key(self, baseline, contract, settings: dict) -> str:
        return decision_key(baseline, contract, settings, self.model_identity)

    def path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> Decision | None:
        """The cached decision for `key`, or None (absent, unreadable or malformed)."""
        try:
            content = json.loads(self.path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self.misses += 1
            return None
        decision = _decode(content) if isinstance(content, dict) else None
        if decision is None or content.get("key") != key:
            self.rejected += 1
            return None
        self.hits += 1
        return decision

    def reject(self) -> None:
        """A decision `get` returned failed its re-validation."""
        self.hits -= 1
        self.rejected += 1

    def put(self, key: str, decision: Decision) -> None:
        content = {
            "key": key,
            "instructions": [list(item) for item in decision.instructions],
            "figures": decision.figures,
            "by_size": list(decision.by_size),
        }
        text = json.dumps(content, sort_keys=True, separators=(",", ":")) + "\n"
        path = self.path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as file:
                    file.write(text)
                os.replace(temporary, path)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
        except OSError:
            return  # a cache that cannot be written is only a slower build
        self.written += 1
