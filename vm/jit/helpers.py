"""Native helpers that every compiled program calls: their types, their bodies, the calls.

Input: nothing but the field, X-field, RAM-table and Tip5 code generators;
output: `define(module, suffix)`, which adds the helper functions to the
support module (vm.jit.support, compiled once per machine and cached), and
`call(builder, table, name, arguments)`, with which a compiled program calls
one through the table of addresses it receives as its last argument (in
`NAMES` order).  Keeping these bodies out of every program keeps programs
small: a program that used them all would otherwise compile for ~100 ms more.
"""

from __future__ import annotations

from llvmlite import ir

from vm.jit import arith, memory
from vm.jit.arith import I64, I64_POINTER, constant
from vm.jit.tip5_ir import emit_permutation

VOID = ir.VoidType()

TYPES = {
    "tip5_permute": ir.FunctionType(VOID, [I64_POINTER, I64_POINTER]),  # input, output
    "field_power": ir.FunctionType(I64, [I64, I64]),  # base, exponent
    "x_mul": ir.FunctionType(VOID, [I64] * 6 + [I64_POINTER]),  # a, b (c0 first), out
    "x_inverse": ir.FunctionType(VOID, [I64] * 3 + [I64_POINTER]),  # a (c0 first), out
    "ram_read": ir.FunctionType(I64, [I64_POINTER, I64, I64, I64, I64]),
    "ram_write": ir.FunctionType(I64, [I64_POINTER, I64, I64, I64, I64, I64]),
}
NAMES = tuple(TYPES)


def _store_element(builder: ir.IRBuilder, element, out) -> None:
    for index, coefficient in enumerate(element):
        builder.store(coefficient, builder.gep(out, [constant(index)]))
    builder.ret_void()


def define(module: ir.Module, suffix: str) -> dict[str, str]:
    """Add every helper to `module`; returns the symbol of each, by name."""
    symbols = {name: f"tri_{name}_{suffix}" for name in NAMES}
    emit_permutation(module, symbols["tip5_permute"])
    power = arith.power_function(module, symbols["field_power"])
    memory.read_function(module, symbols["ram_read"])
    memory.write_function(module, symbols["ram_write"])

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
