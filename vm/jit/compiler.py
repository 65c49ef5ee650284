"""Native code from IR: LLVM set-up, the optimization pipeline and the code caches.

Input: a cache key, a symbol name and a function that builds IR text; output:
the address of the compiled symbol in this process.  Object code is cached
twice: in this process (a dict from key to address), and on disk as one
relocatable object file per key, so that a second run of the same program --
in this process or a later one -- skips code generation and LLVM entirely.

The disk cache lives in `$TRI_JIT_CACHE` if set (`off` disables it), else in
`$XDG_CACHE_HOME/tri/jit` (default `~/.cache/tri/jit`).  Keys include a
fingerprint of the JIT's own sources, the llvmlite version and the host CPU,
so stale code is never loaded.  The cache is bounded: loading a file marks it
used, and after each write the least recently used files go until the cache is
under `$TRI_JIT_CACHE_MB` megabytes (default 256).  Everything here imports
llvmlite lazily.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path

OPTIMIZATION_LEVEL = 2
# Lines of IR in a function above which the register coalescer is off.  On large functions
# its time grows much faster than their size: it was 82% of a 257 s compile of
# std.nn.optimizer's program (21 functions of about 5,500 lines) at code-generation level 1,
# which takes 42 s without it (and about 6 s at level 0, whose code ran the program's block
# inference 4 to 6 times slower when measured).  Without it the code keeps a few more
# register copies; the functions of small programs keep it.
LARGE_FUNCTION = 2_000
DEFAULT_CACHE_MEGABYTES = 256
_SOURCES = ("vm/jit", "vm/isa.py", "vm/tip5.py", "vm/field.py", "vm/tasm.py")
_ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Compiled:
    """A compiled symbol: its address, and how long getting it took."""

    address: int
    seconds: float
    source: str  # "memory", "disk" or "compiled"


@cache
def llvm():
    """llvmlite.binding with the native target initialized."""
    import llvmlite.binding as binding

    binding.initialize_native_target()
    binding.initialize_native_asmprinter()
    return binding


@cache
def target_machine(level: int = OPTIMIZATION_LEVEL):
    """The host's target machine, generating code at LLVM's `level` (0 to 3)."""
    binding = llvm()
    target = binding.Target.from_default_triple()
    return target.create_target_machine(
        cpu=binding.get_host_cpu_name(),
        features=binding.get_host_cpu_features().flatten(),
        opt=level,
        codemodel="jitdefault",
        jit=True,
    )


def longest_function(ir_text: str) -> int:
    """The length in lines of the longest function of a module's IR text."""
    longest = length = 0
    for line in ir_text.splitlines():
        if line.startswith("define "):
            length = 0
        elif line == "}":
            longest = max(longest, length)
        else:
            length += 1
    return longest


@contextmanager
def register_coalescing(enabled: bool):
    """Code generation with LLVM's register coalescer on or off (a process-wide LLVM option,
    set back to on, LLVM's default, afterwards)."""
    binding = llvm()
    binding.set_option("", f"-join-liveintervals={str(enabled).lower()}")
    try:
        yield
    finally:
        if not enabled:
            binding.set_option("", "-join-liveintervals=true")


@cache
def _engine():
    binding = llvm()
    return binding.create_mcjit_compiler(binding.parse_assembly(""), target_machine())


@cache
def fingerprint() -> str:
    """What compiled code depends on besides the program: our sources, llvmlite, the CPU."""
    import llvmlite

    binding = llvm()
    digest = hashlib.sha256()
    for name in _SOURCES:
        path = _ROOT / name
        for file in sorted(path.glob("*.py")) if path.is_dir() else [path]:
            digest.update(file.name.encode())
            digest.update(file.read_bytes())
    digest.update(llvmlite.__version__.encode())
    digest.update(binding.get_host_cpu_name().encode())
    digest.update(binding.get_host_cpu_features().flatten().encode())
    digest.update(repr((OPTIMIZATION_LEVEL, LARGE_FUNCTION, PASSES, LARGE_PASSES)).encode())
    return digest.hexdigest()


def cache_directory() -> Path | None:
    """Where object code is kept between processes; None if the disk cache is off."""
    configured = os.environ.get("TRI_JIT_CACHE")
    if configured == "off":
        return None
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "tri" / "jit"


_in_memory: dict[str, int] = {}


def is_cached(key: str) -> bool:
    """Whether `key` can be loaded without compiling (this process or the disk cache)."""
    if key in _in_memory:
        return True
    directory = cache_directory()
    return directory is not None and (directory / f"{key}.o").is_file()


# A short pipeline instead of LLVM's O2: the IR is straight-line blocks whose stack words
# are already SSA values, so promoting the registers, combining, value numbering and
# removing dead stores gives the code O2 gives, in a third of the time.
PASSES = (
    "sroa",
    "instruction_combine",
    "simplify_cfg",
    "new_gvn",
    "dead_store_elimination",
    "instruction_combine",
    "simplify_cfg",
)


# For a module with a function past LARGE_FUNCTION lines, the pipeline without instruction
# combining: on std.nn.optimizer's program its two runs took 10.4 s of the pipeline's 12.2,
# and the code generator's own combining left the program's native run as fast (8.3 to 9.3
# ms per block inference either way, measured back to back).
LARGE_PASSES = tuple(name for name in PASSES if name != "instruction_combine")


def optimize(module, full: bool = False, large: bool = False) -> None:
    """The short pipeline (`LARGE_PASSES` if `large`), or LLVM's O3 with `full` (for code
    compiled once per machine)."""
    binding = llvm()
    options = binding.create_pipeline_tuning_options(speed_level=3 if full else OPTIMIZATION_LEVEL)
    builder = binding.create_pass_builder(target_machine(), options)
    if full:
        builder.getModulePassManager().run(module, builder)
        return
    manager = binding.create_new_module_pass_manager()
    for name in LARGE_PASSES if large else PASSES:
        getattr(manager, f"add_{name}_pass")()
    manager.run(module, builder)


def object_code(ir_text: str, full: bool = False) -> bytes:
    """Verify, optimize and compile IR text to a relocatable object file."""
    module = llvm().parse_assembly(ir_text)
    module.verify()
    large = not full and longest_function(ir_text) > LARGE_FUNCTION
    optimize(module, full, large)
    with register_coalescing(not large):
        return target_machine().emit_object(module)


def cache_limit() -> int:
    """The disk cache's size bound in bytes (`$TRI_JIT_CACHE_MB`, default 256 MB)."""
    try:
        megabytes = float(os.environ.get("TRI_JIT_CACHE_MB", DEFAULT_CACHE_MEGABYTES))
    except ValueError:
        megabytes = DEFAULT_CACHE_MEGABYTES
    return max(0, int(megabytes * 2**20))


def _read(path: Path | None) -> bytes | None:
    """The cached object code at `path`, marked as just used; None if there is none."""
    if path is None:
        return None
    try:
        data = path.read_bytes()
    except OSError:
        return None
    try:
        os.utime(path)  # the modification time records the last use, for eviction
    except OSError:
        pass
    return data


def evict(directory: Path, limit: int) -> list[Path]:
    """Delete the least recently used object files until the cache holds at most `limit`
    bytes, and temporary files left by interrupted writes; returns what was deleted."""
    now = time.time()
    entries = []
    deleted = []
    try:
        listing = list(os.scandir(directory))
    except OSError:
        return deleted
    for entry in listing:
        try:
            status = entry.stat()
        except OSError:
            continue
        if entry.name.endswith(".tmp") and now - status.st_mtime > 3600:
            entries.append((0.0, status.st_size, Path(entry.path)))  # oldest of all
        elif entry.name.endswith(".o"):
            entries.append((status.st_mtime, status.st_size, Path(entry.path)))
    total = sum(size for _, size, _ in entries)
    for _, size, path in sorted(entries, key=lambda entry: entry[0]):
        if total <= limit and not path.name.endswith(".tmp"):
            break
        try:
            path.unlink()
        except OSError:
            continue
        total -= size
        deleted.append(path)
    return deleted


def _write(path: Path | None, data: bytes) -> None:
    """Store object code atomically; a cache that cannot be written is skipped."""
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except OSError:
        return
    evict(path.parent, cache_limit())


def load(key: str, symbol: str, build: Callable[[], str], full: bool = False) -> Compiled:
    """The address of `symbol`, compiling `build()` only if neither cache has `key`
    (with LLVM's full O3 pipeline if `full`)."""
    start = time.perf_counter()
    if key in _in_memory:
        return Compiled(_in_memory[key], time.perf_counter() - start, "memory")
    directory = cache_directory()
    path = directory / f"{key}.o" if directory is not None else None
    data = _read(path)
    source = "disk"
    if data is None:
        data = object_code(build(), full)
        _write(path, data)
        source = "compiled"
    binding = llvm()
    engine = _engine()
    engine.add_object_file(binding.ObjectFileRef.from_data(data))
    engine.finalize_object()
    address = address_of(symbol)
    _in_memory[key] = address
    return Compiled(address, time.perf_counter() - start, source)


def address_of(symbol: str) -> int:
    """The address of a symbol of object code that `load` has loaded."""
    address = _engine().get_function_address(symbol)
    if not address:
        raise RuntimeError(f"JIT: symbol {symbol} is missing from the loaded object code")
    return address


def key_for(*parts: object) -> str:
    """A cache key: the fingerprint and `parts`, hashed."""
    digest = hashlib.sha256(fingerprint().encode())
    for part in parts:
        digest.update(repr(part).encode())
    return digest.hexdigest()[:40]
