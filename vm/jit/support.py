"""Native code that every compiled program shares, compiled once per machine.

Output: `support()`: the table of helper addresses (vm.jit.helpers: Tip5,
field power, X-field product and inverse, RAM reads and writes) that compiled
programs receive as their last argument, and a ctypes function for
`ram_insert_many` (vm.jit.memory), with which the runtime fills and grows RAM
tables.  All come from one LLVM module, compiled with LLVM's full O3 pipeline
and cached like program code (vm.jit.compiler): compiling takes about a
second, loading it from the disk cache a few milliseconds.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from functools import cache, partial

import numpy as np

from vm.jit import compiler, helpers

_INSERT_TYPE = ctypes.CFUNCTYPE(
    ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64
)


@dataclass(frozen=True)
class Support:
    table: np.ndarray  # helper addresses, in vm.jit.helpers.NAMES order
    insert_many: ctypes._CFuncPtr  # (pairs, count, table, mask, shift) -> new addresses
    seconds: float

    @property
    def permute(self) -> int:
        """Address of void tip5_permute(i64* input, i64* output)."""
        return int(self.table[helpers.NAMES.index("tip5_permute")])


def _module_text(suffix: str) -> str:
    from llvmlite import ir

    from vm.jit.memory import emit_insert_many

    module = ir.Module(name="tri_support")
    helpers.define(module, suffix)
    emit_insert_many(module, f"tri_ram_insert_many_{suffix}")
    return str(module)


@cache
def support() -> Support:
    key = compiler.key_for("support")
    suffix = key[:16]
    symbols = {name: f"tri_{name}_{suffix}" for name in helpers.NAMES}
    build = partial(_module_text, suffix)
    loaded = compiler.load(key, symbols["tip5_permute"], build, full=True)
    table = np.array([compiler.address_of(symbols[name]) for name in helpers.NAMES], np.uint64)
    insert = _INSERT_TYPE(compiler.address_of(f"tri_ram_insert_many_{suffix}"))
    return Support(table, insert, loaded.seconds)
