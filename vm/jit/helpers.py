"""Native helpers that every compiled program and the runtime call: types, bodies, calls.

Input: the field, X-field, RAM, record and Tip5 code generators; output:
`define(module, suffix)`, which adds every helper to the support module
(vm.jit.support, compiled once per machine and cached), and
`call(builder, table, name, arguments)`, with which a compiled program calls
one through the table of addresses it receives as its last argument (in
`NAMES` order).  Keeping these bodies out of every program keeps programs
small and their compile time bounded per instruction.  The helpers marked
`RUNTIME` are called by the runtime (vm.jit.runtime) through ctypes, not by
programs.
"""

from __future__ import annotations

from llvmlite import ir

from vm.jit import arith, coprocessor, memory, records
from vm.jit.arith import I64, I64_POINTER, constant
from vm.jit.tip5_ir import emit_permutation

VOID = ir.VoidType()

TYPES = {
    "tip5_permute": records.PERMUTE_TYPE,  # input, output
    "tip5_permute_marking": records.PERMUTE_MARKING_TYPE,  # input, output, cascade
    "tip5_record": records.TIP5_RECORD_TYPE,
    "u32_record": records.U32_RECORD_TYPE,
    "ram_page": memory.PAGE_TYPE,
    "field_power": ir.FunctionType(I64, [I64, I64]),  # base, exponent
    "x_mul": ir.FunctionType(VOID, [I64] * 6 + [I64_POINTER]),  # a, b (c0 first), out
    "x_inverse": ir.FunctionType(VOID, [I64] * 3 + [I64_POINTER]),  # a (c0 first), out
    "xx_dot_steps": coprocessor.DOT_STEPS_TYPE,
    "xb_dot_steps": coprocessor.DOT_STEPS_TYPE,
    # for the runtime
    "ram_reindex": memory.REINDEX_TYPE,
    "u32_insert_table": records.U32_INSERT_TABLE_TYPE,
    "permutation_insert_rows": records.INSERT_ROWS_TYPE,
    "permutation_reindex": records.REINDEX_TYPE,
}
NAMES = tuple(TYPES)
RUNTIME = frozenset(
    {"ram_reindex", "u32_insert_table", "permutation_insert_rows", "permutation_reindex"}
)


def _store_element(builder: ir.IRBuilder, element, out) -> None:
    for index, coefficient in enumerate(element):
        builder.store(coefficient, builder.gep(out, [constant(index)]))
    builder.ret_void()


def define(module: ir.Module, suffix: str) -> dict[str, str]:
    """Add every helper to `module`; returns the symbol of each, by name."""
    symbols = {name: f"tri_{name}_{suffix}" for name in NAMES}
    permute = emit_permutation(module, symbols["tip5_permute"])
    marking = emit_permutation(module, symbols["tip5_permute_marking"], marking=True)
    record = records.tip5_record_function(module, symbols["tip5_record"], permute, marking)
    records.u32_record_function(module, symbols["u32_record"])
    page = memory.page_function(module, symbols["ram_page"])
    for scalar_left in (False, True):
        name = "xb_dot_steps" if scalar_left else "xx_dot_steps"
        coprocessor.dot_steps_function(module, symbols[name], page, scalar_left)
    power = arith.power_function(module, symbols["field_power"])
    memory.reindex_function(module, symbols["ram_reindex"])
    records.u32_insert_table_function(module, symbols["u32_insert_table"])
    records.permutation_insert_rows_function(module, symbols["permutation_insert_rows"], record)
    records.permutation_reindex_function(module, symbols["permutation_reindex"])

    x_mul = ir.Function(module, TYPES["x_mul"], symbols["x_mul"])
    builder = ir.IRBuilder(x_mul.append_basic_block("entry"))
    a, b, out = x_mul.args[0:3], x_mul.args[3:6], x_mul.args[6]
    _store_element(builder, arith.x_mul(builder, tuple(a), tuple(b)), out)

    x_inverse = ir.Function(module, TYPES["x_inverse"], symbols["x_inverse"])
    builder = ir.IRBuilder(x_inverse.append_basic_block("entry"))
    a, out = x_inverse.args[0:3], x_inverse.args[3]
    _store_element(builder, arith.x_inverse(builder, power, tuple(a)), out)
    return symbols


def call(builder: ir.IRBuilder, table, name: str, arguments: list):
    """Call helper `name` through the address table `table` (an i64*)."""
    address = builder.load(builder.gep(table, [constant(NAMES.index(name))]))
    function = builder.inttoptr(address, ir.PointerType(TYPES[name]))
    return builder.call(function, arguments)
