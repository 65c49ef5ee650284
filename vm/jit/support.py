"""Native code that every compiled program shares, compiled once per machine.

Output: `support()`: the table of helper addresses (vm.jit.helpers: Tip5,
the effect records, RAM pages, field power, X-field product and inverse) that
compiled programs receive as their last argument, and ctypes functions for
the helpers the runtime calls itself (filling and growing RAM and the
records).  All come from one LLVM module, compiled with LLVM's full O3
pipeline and cached like program code (vm.jit.compiler): compiling takes
about a second, loading it from the disk cache a few milliseconds.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from functools import cache, partial

import numpy as np

from vm.jit import compiler, helpers

_POINTER = ctypes.c_void_p
_WORD = ctypes.c_uint64
_RUNTIME_TYPES = {
    "ram_page": ctypes.CFUNCTYPE(ctypes.c_int64, *[_POINTER] * 4, _WORD, _WORD),
    "u32_record": ctypes.CFUNCTYPE(None, _POINTER, _POINTER, _WORD, _WORD),
    "tip5_record": ctypes.CFUNCTYPE(None, *[_POINTER] * 6),
    "ram_reindex": ctypes.CFUNCTYPE(None, _POINTER, _POINTER, _POINTER),
    "u32_insert_table": ctypes.CFUNCTYPE(None, _POINTER, _POINTER, _POINTER, ctypes.c_int64),
    "permutation_insert_rows": ctypes.CFUNCTYPE(None, *[_POINTER] * 5, ctypes.c_int64, _POINTER),
    "permutation_reindex": ctypes.CFUNCTYPE(None, _POINTER, _POINTER, _POINTER),
    "tip5_permute": ctypes.CFUNCTYPE(None, _POINTER, _POINTER),
    "tip5_permute_marking": ctypes.CFUNCTYPE(None, _POINTER, _POINTER, _POINTER),
}


@dataclass(frozen=True)
class Support:
    table: np.ndarray  # helper addresses, in vm.jit.helpers.NAMES order
    functions: dict  # name -> ctypes function, for the helpers the runtime calls itself
    seconds: float

    @property
    def permute(self) -> int:
        """Address of void tip5_permute(i64* input, i64* output)."""
        return int(self.table[helpers.NAMES.index("tip5_permute")])


def _module_text(suffix: str) -> str:
    from llvmlite import ir

    module = ir.Module(name="tri_support")
    helpers.define(module, suffix)
    return str(module)


@cache
def support() -> Support:
    key = compiler.key_for("support")
    suffix = key[:16]
    symbols = {name: f"tri_{name}_{suffix}" for name in helpers.NAMES}
    build = partial(_module_text, suffix)
    loaded = compiler.load(key, symbols["tip5_permute"], build, full=True)
    table = np.array([compiler.address_of(symbols[name]) for name in helpers.NAMES], np.uint64)
    functions = {
        name: kind(compiler.address_of(symbols[name])) for name, kind in _RUNTIME_TYPES.items()
    }
    return Support(table, functions, loaded.seconds)
