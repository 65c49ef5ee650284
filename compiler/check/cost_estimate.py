"""RC's static cost estimate (docs/backend.md, Cost), per checked function: checked AST -> `Cost`.

Six tables, in RC's order: processor, hash, u32, op_stack, ram, jump_stack.
Builtins and operators cost RC's vector for each; `let` costs its value
plus one stack op, an assignment its value plus two, an `if` its condition
plus the larger branch (component-wise) plus the if overhead, a `for` its end
plus (body + loop overhead) times the iteration count (the bound, else the
literal end, else 1); a call of a user function its arguments plus the
callee's body plus the call overhead.  `padded_height` derives the padded
height the way RC does (attestation rows included).  These are RC's
approximations, shown beside the measured heights by `tri cost`.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.builtins import Builtin
from compiler.check.bodies import ConstRef
from compiler.syntax import ast

TABLES = ("processor", "hash", "u32", "op_stack", "ram", "jump_stack")


@dataclass(frozen=True)
class Cost:
    processor: int = 0
    hash: int = 0
    u32: int = 0
    op_stack: int = 0
    ram: int = 0
    jump_stack: int = 0

    def __add__(self, other: Cost) -> Cost:
        return Cost(*(a + b for a, b in zip(self.vector, other.vector)))

    def __mul__(self, factor: int) -> Cost:
        return Cost(*(a * factor for a in self.vector))

    def max(self, other: Cost) -> Cost:
        return Cost(*(max(a, b) for a, b in zip(self.vector, other.vector)))

    @property
    def vector(self) -> tuple[int, ...]:
        return (self.processor, self.hash, self.u32, self.op_stack, self.ram, self.jump_stack)

    def as_dict(self) -> dict[str, int]:
        return dict(zip(TABLES, self.vector))

    @property
    def padded_height(self) -> int:
        attestation = -(-max(self.processor, 10) // 10) * 6
        tallest = max(*self.vector, attestation)
        return 1 << max(0, tallest - 1).bit_length()


ZERO = Cost()
STACK_OP = Cost(1, 0, 0, 1, 0, 0)
CALL = Cost(2, 0, 0, 0, 0, 2)
IF = Cost(3, 0, 0, 2, 0, 1)
LOOP = Cost(8, 0, 0, 4, 0, 1)
U32_BINARY = Cost(1, 0, 33, 1, 0, 0)

_IO = Cost(1, 0, 0, 1, 0, 0)
BUILTIN_COSTS = {
    **{f"pub_read{n}": _IO for n in ("", "2", "3", "4", "5")},
    **{f"pub_write{n}": _IO for n in ("", "2", "3", "4", "5")},
    "divine": _IO,
    "divine3": _IO,
    "divine5": _IO,
    "assert": _IO,
    "assert_eq": Cost(2, 0, 0, 2, 0, 0),
    "assert_digest": Cost(2, 0, 0, 2, 0, 0),
    "field_add": _IO,
    "field_mul": _IO,
    "inv": Cost(1, 0, 0, 0, 0, 0),
    "neg": Cost(2, 0, 0, 1, 0, 0),
    "sub": Cost(3, 0, 0, 2, 0, 0),
    "split": U32_BINARY,
    "pow": U32_BINARY,
    "log2": Cost(1, 0, 33, 0, 0, 0),
    "popcount": Cost(1, 0, 33, 0, 0, 0),
    "hash": Cost(1, 6, 0, 1, 0, 0),
    "sponge_absorb": Cost(1, 6, 0, 1, 0, 0),
    "sponge_squeeze": Cost(1, 6, 0, 1, 0, 0),
    "sponge_init": Cost(1, 6, 0, 0, 0, 0),
    "sponge_absorb_mem": Cost(1, 6, 0, 1, 10, 0),
    "merkle_step": Cost(1, 6, 33, 0, 0, 0),
    "ram_read": Cost(2, 0, 0, 2, 1, 0),
    "ram_write": Cost(2, 0, 0, 2, 1, 0),
    "ram_read_block": Cost(2, 0, 0, 2, 5, 0),
    "ram_write_block": Cost(2, 0, 0, 2, 5, 0),
    "as_u32": Cost(2, 0, 33, 1, 0, 0),
    "xinvert": Cost(1, 0, 0, 0, 0, 0),
}
OPERATOR_COSTS = {
    "+": STACK_OP,
    "*": STACK_OP,
    "==": STACK_OP,
    "*.": STACK_OP,
    "<": U32_BINARY,
    "&": U32_BINARY,
    "^": U32_BINARY,
    "/%": Cost(1, 0, 33, 0, 0, 0),
}


def function_costs(checked, keys) -> dict[str, Cost]:
    """The estimate of one call of each instance in `keys` (callees included)."""
    model = _Model(checked)
    return {key: model.function(key) for key in keys}


def program_cost(checked) -> Cost:
    """RC's program total: main plus one call overhead (or every function of a module)."""
    model = _Model(checked)
    if checked.entry is not None:
        return model.function(checked.entry) + CALL
    total = ZERO
    for key in checked.exported:
        total = total + model.function(key)
    return total


class _Model:
    def __init__(self, checked):
        self.checked = checked
        self.memo: dict[str, Cost] = {}

    def function(self, key: str) -> Cost:
        if key not in self.memo:
            instance = self.checked.instances[key]
            self.memo[key] = self.block(instance, instance.body)
        return self.memo[key]

    def block(self, instance, block: ast.Block) -> Cost:
        total = ZERO
        for statement in block.statements:
            total = total + self.statement(instance, statement)
        return total

    def statement(self, instance, statement) -> Cost:
        match statement:
            case ast.Let():
                return self.expr(instance, statement.value) + STACK_OP
            case ast.Assign():
                names = (
                    len(statement.target.elements)
                    if isinstance(statement.target, ast.TupleExpr)
                    else 1
                )
                return self.expr(instance, statement.value) + STACK_OP * (2 * names)
            case ast.If():
                then = self.block(instance, statement.then_block)
                otherwise = (
                    self.block(instance, statement.else_block)
                    if statement.else_block is not None
                    else ZERO
                )
                return self.expr(instance, statement.condition) + then.max(otherwise) + IF
            case ast.For():
                iterations = statement.bound
                if iterations is None:
                    end = statement.end
                    reference = instance.variables.get(end)
                    if isinstance(end, ast.IntLiteral):
                        iterations = end.value
                    elif isinstance(reference, ConstRef):
                        iterations = reference.value
                    else:
                        iterations = 1
                body = self.block(instance, statement.body) + LOOP
                return self.expr(instance, statement.end) + body * iterations
            case ast.Return():
                return ZERO if statement.value is None else self.expr(instance, statement.value)
            case ast.ExprStatement():
                return self.expr(instance, statement.expr)
        return ZERO

    def expr(self, instance, expr) -> Cost:
        match expr:
            case ast.IntLiteral() | ast.BoolLiteral() | ast.Var():
                return STACK_OP
            case ast.Binary():
                return (
                    self.expr(instance, expr.left)
                    + self.expr(instance, expr.right)
                    + OPERATOR_COSTS[expr.operator]
                )
            case ast.Call():
                total = ZERO
                for argument in expr.arguments:
                    total = total + self.expr(instance, argument)
                target = instance.calls[expr]
                if isinstance(target, Builtin):
                    return total + BUILTIN_COSTS.get(target.name, ZERO)
                return total + self.function(target) + CALL
            case ast.TupleExpr() | ast.ArrayExpr():
                total = ZERO
                for element in expr.elements:
                    total = total + self.expr(instance, element)
                return total
            case ast.StructLiteral():
                total = ZERO
                for _, value in expr.fields:
                    total = total + self.expr(instance, value)
                return total
            case ast.Index():
                return self.expr(instance, expr.base) + self.expr(instance, expr.index) + STACK_OP
        return ZERO
