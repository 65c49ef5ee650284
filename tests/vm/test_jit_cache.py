"""The JIT's disk cache stays bounded: least recently used object files go first."""

import os
import time

from vm.jit import compiler


def _object(directory, name: str, size: int, age: float):
    path = directory / f"{name}.o"
    path.write_bytes(b"\0" * size)
    stamp = time.time() - age
    os.utime(path, (stamp, stamp))
    return path


def test_eviction_removes_the_least_recently_used_until_under_the_limit(tmp_path):
    oldest = _object(tmp_path, "a", 400, age=300)
    middle = _object(tmp_path, "b", 400, age=200)
    newest = _object(tmp_path, "c", 400, age=100)
    assert compiler.evict(tmp_path, limit=1000) == [oldest]
    assert not oldest.exists() and middle.exists() and newest.exists()
    assert compiler.evict(tmp_path, limit=1000) == []
    assert compiler.evict(tmp_path, limit=0) == [middle, newest]


def test_reading_an_entry_marks_it_used(tmp_path):
    first = _object(tmp_path, "a", 400, age=300)
    second = _object(tmp_path, "b", 400, age=200)
    assert compiler._read(first) == b"\0" * 400
    assert compiler.evict(tmp_path, limit=500) == [second]
    assert first.exists()


def test_stale_temporary_files_are_removed_and_fresh_ones_kept(tmp_path):
    stale = tmp_path / "x.tmp"
    stale.write_bytes(b"partial")
    os.utime(stale, (time.time() - 7200, time.time() - 7200))
    fresh = tmp_path / "y.tmp"
    fresh.write_bytes(b"being written")
    kept = _object(tmp_path, "a", 10, age=10)
    assert compiler.evict(tmp_path, limit=10**6) == [stale]
    assert fresh.exists() and kept.exists()


def test_writes_evict_to_the_configured_size(tmp_path, monkeypatch):
    monkeypatch.setenv("TRI_JIT_CACHE_MB", "0.001")  # about 1 KB
    old = _object(tmp_path, "old", 800, age=100)
    compiler._write(tmp_path / "new.o", b"\1" * 800)
    assert not old.exists()
    assert (tmp_path / "new.o").read_bytes() == b"\1" * 800


def test_the_limit_defaults_when_unset_or_malformed(monkeypatch):
    monkeypatch.delenv("TRI_JIT_CACHE_MB", raising=False)
    assert compiler.cache_limit() == compiler.DEFAULT_CACHE_MEGABYTES * 2**20
    monkeypatch.setenv("TRI_JIT_CACHE_MB", "lots")
    assert compiler.cache_limit() == compiler.DEFAULT_CACHE_MEGABYTES * 2**20
    monkeypatch.setenv("TRI_JIT_CACHE_MB", "2")
    assert compiler.cache_limit() == 2 * 2**20


def _module(*lengths: int) -> str:
    """IR text with one function of each length (in body lines)."""
    functions = []
    for index, length in enumerate(lengths):
        body = [f"  %v{line} = add i64 {line}, 1" for line in range(length - 1)] + ["  ret void"]
        functions.append(f"define void @f{index}() {{\nentry:\n" + "\n".join(body) + "\n}")
    return "\n\n".join(functions) + "\n"


def test_large_functions_are_generated_without_the_register_coalescer(monkeypatch):
    """LLVM's register coalescer takes time that grows much faster than a function's length:
    a module with a function past LARGE_FUNCTION lines is generated with it off, so that
    compiling costs a bounded amount per instruction, and the option is set back after;
    such a module also skips instruction combining; small ones and the shared helpers keep
    both."""
    small, large = compiler.LARGE_FUNCTION // 2, compiler.LARGE_FUNCTION + 10
    assert compiler.longest_function(_module(small, large, small)) == large + 1  # and a label
    assert compiler.longest_function("") == 0
    settings, pipelines = [], []
    binding = compiler.llvm()
    original, optimize = binding.set_option, compiler.optimize
    monkeypatch.setattr(binding, "set_option", lambda name, option: settings.append(option))
    monkeypatch.setattr(
        compiler,
        "optimize",
        lambda module, full=False, large=False: (
            pipelines.append((full, large)),
            optimize(module, full, large),
        ),
    )
    try:
        compiler.object_code(_module(small, large))
        assert settings == ["-join-liveintervals=false", "-join-liveintervals=true"]
        assert pipelines == [(False, True)]  # the pipeline without instruction combining
        settings.clear()
        compiler.object_code(_module(small, small))
        compiler.object_code(_module(small, large), full=True)
        assert settings == ["-join-liveintervals=true"] * 2
        assert pipelines[1:] == [(False, False), (True, False)]
    finally:
        original("", "-join-liveintervals=true")
    assert "instruction_combine" in compiler.PASSES
    assert "instruction_combine" not in compiler.LARGE_PASSES
