"""The `-O2` decision cache (compiler.search.cache): a build from the cache is the build
without it -- the same TASM byte for byte, the same funnel -- and a stale, tampered or
corrupt entry is re-validated, ignored and rewritten, never trusted."""

from __future__ import annotations

import json
from dataclasses import asdict, replace
from pathlib import Path

import pytest
from test_backend_differential import PROGRAM_PATHS

from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.driver import compile_program
from compiler.lower.blocks import contract
from compiler.search import cache as decision_cache
from compiler.search.cache import DecisionCache, cache_directory, decision_key
from compiler.search.lowerer import SearchLowerer

# two programs where -O2 applies blocks (collatz.tri had one until its only win, an
# `as_u32` check made `div_mod`, was refused for a new u32-table entry)
PROGRAMS = [path for path in PROGRAM_PATHS if path.name in ("fib.tri", "bool_values.tri")]


def build(path: Path, cache: DecisionCache | None):
    lowerer = SearchLowerer(cache=cache)
    compiled = compile_program(check(load_project(path)), 2, lowerer=lowerer)
    figures = asdict(compiled.search)
    figures.pop("seconds")
    return compiled.text, figures


def entries(directory: Path) -> list[Path]:
    return sorted(directory.glob("*/*.json"))


@pytest.fixture(params=PROGRAMS, ids=lambda path: path.stem)
def program(request):
    return request.param


def test_the_programs_have_applied_wins():
    assert len(PROGRAMS) == 2
    for path in PROGRAMS:
        assert build(path, None)[1]["applied"] > 0


def test_cached_build_equals_uncached_build(program, tmp_path):
    uncached = build(program, None)
    cache = DecisionCache(tmp_path)
    first = build(program, cache)
    assert cache.hits == 0 and cache.written == uncached[1]["searched"] > 0
    assert len(entries(tmp_path)) == cache.written
    again = DecisionCache(tmp_path)
    second = build(program, again)
    assert again.hits == uncached[1]["searched"] and again.misses == again.rejected == 0
    assert first == uncached and second == uncached  # TASM byte for byte, and the funnel
    assert not list(tmp_path.rglob("*.tmp"))  # every write was renamed into place


def tamper(path: Path) -> bool:
    """Make a cached decision wrong while keeping its figures consistent; whether the
    entry held changed code."""
    content = json.loads(path.read_text())
    instructions = content["instructions"]
    changed = content["figures"]["applied"] == 1
    if changed:  # same length, other code: push an other constant, or swap for a push
        for item in instructions:
            if item[0] == "push":
                item[1] += 1
                break
        else:
            instructions[0] = ["push", 7]
    else:  # the baseline claimed as a win
        content["figures"]["applied"] = content["figures"]["cheaper"] = 1
        content["by_size"][1] = 1
    path.write_text(json.dumps(content))
    return changed


def test_tampered_decisions_are_revalidated_and_rewritten(program, tmp_path):
    uncached = build(program, None)
    build(program, DecisionCache(tmp_path))
    paths = entries(tmp_path)
    original = {path: path.read_text() for path in paths}
    changed = [tamper(path) for path in paths]
    assert any(changed)
    cache = DecisionCache(tmp_path)
    assert build(program, cache) == uncached
    assert cache.rejected == len(paths) and cache.hits == 0
    assert {path: path.read_text() for path in paths} == original  # rewritten as decided


@pytest.mark.parametrize("garbage", ["", "{not json", "[]", '{"key": "x"}', "null"])
def test_corrupt_entries_are_ignored_and_rewritten(program, tmp_path, garbage):
    uncached = build(program, None)
    build(program, DecisionCache(tmp_path))
    paths = entries(tmp_path)
    original = {path: path.read_text() for path in paths}
    for path in paths:
        path.write_text(garbage)
    cache = DecisionCache(tmp_path)
    assert build(program, cache) == uncached
    assert cache.rejected + cache.misses == len(paths) and cache.hits == 0
    assert {path: path.read_text() for path in paths} == original


def test_an_entry_under_another_key_is_refused(tmp_path):
    build(PROGRAMS[0], DecisionCache(tmp_path))
    first, second = entries(tmp_path)[:2]
    second.write_text(first.read_text())  # right shape, the key of another block
    cache = DecisionCache(tmp_path)
    build(PROGRAMS[0], cache)
    assert cache.rejected == 1


def test_key_covers_contract_settings_model_and_rules(monkeypatch):
    baseline = [("push", 1), ("add", None)]
    block_contract = contract(())
    settings = SearchLowerer(cache=None).settings()
    base = decision_key(baseline, block_contract, settings, None)
    assert base == decision_key(list(baseline), block_contract, dict(settings), None)
    others = [
        decision_key([("push", 2), ("add", None)], block_contract, settings, None),
        decision_key(baseline, replace(block_contract, dont_care=(0,)), settings, None),
        decision_key(baseline, replace(block_contract, u32_entry=(0,)), settings, None),
        decision_key(baseline, replace(block_contract, minimum_entry_length=0), settings, None),
        decision_key(baseline, block_contract, {**settings, "window_budget": 1}, None),
        decision_key(baseline, block_contract, settings, "a model"),
    ]
    monkeypatch.setattr(decision_cache, "SEARCH_VERSION", decision_cache.SEARCH_VERSION + 1)
    others.append(decision_key(baseline, block_contract, settings, None))
    monkeypatch.undo()
    monkeypatch.setattr(decision_cache, "rules_identity", lambda: "0" * 64)
    others.append(decision_key(baseline, block_contract, settings, None))
    monkeypatch.undo()
    monkeypatch.setattr(decision_cache, "code_identity", lambda: "1" * 64)
    others.append(decision_key(baseline, block_contract, settings, None))
    assert len({base, *others}) == len(others) + 1


def test_the_code_identity_covers_the_deciding_modules(monkeypatch, tmp_path):
    """A copy of the compiler with one byte changed in a deciding module (here the
    search's scheduler) has another code identity: its cache entries are not shared."""
    import shutil

    import compiler

    copy = tmp_path / "compiler"
    shutil.copytree(Path(compiler.__file__).parent, copy)
    original = decision_cache.code_identity()
    monkeypatch.setattr(compiler, "__file__", str(copy / "__init__.py"))
    decision_cache.code_identity.cache_clear()
    try:
        assert decision_cache.code_identity() == original
        scheduler = copy / "blocks" / "schedule.py"
        scheduler.write_text(scheduler.read_text(encoding="utf-8") + "\n", encoding="utf-8")
        decision_cache.code_identity.cache_clear()
        assert decision_cache.code_identity() != original
    finally:
        decision_cache.code_identity.cache_clear()


def test_tri_cache_names_the_directory(monkeypatch, tmp_path):
    monkeypatch.setenv("TRI_CACHE", "off")
    assert cache_directory() is None and DecisionCache.from_environment() is None
    assert SearchLowerer().cache is None
    monkeypatch.setenv("TRI_CACHE", str(tmp_path))
    assert cache_directory() == tmp_path / "decisions"
    assert SearchLowerer().cache.directory == tmp_path / "decisions"
    monkeypatch.delenv("TRI_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_directory() == tmp_path / "xdg" / "tri" / "decisions"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_directory() == tmp_path / "home" / ".cache" / "tri" / "decisions"


def test_an_unwritable_cache_only_loses_the_cache(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    cache = DecisionCache(blocker / "decisions")  # a directory under a file: unwritable
    assert build(PROGRAMS[0], cache) == build(PROGRAMS[0], None)
    assert cache.written == 0
