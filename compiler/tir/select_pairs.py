"""Select pairs: two selects on one condition with their arms swapped, as operands of one
operation, are one comparison and a conditional swap.

`SelectPairBuilder` is a part of `compiler.tir.builder.FunctionBuilder`.  After inlining,
`max(a, b) - min(a, b)` is

    sub(if a < b { b } else { a }, if a < b { a } else { b })

and each operand alone is a select (`FunctionBuilder.select`: the condition, both values,
`skiz swap 1` `pop 1`), so the comparison is made twice and four values are laid out.  Both
operands together are the pair (a, b) in one order or the other: push [a, b], compare,
`skiz swap 1`, and the two words on top are the two operands.  That is how hand-written
code takes a minimum and a maximum at once.

A pair needs both operands to be selects (through conversions that emit nothing, such as
`as_field`, and through an inlined body that is only the `if`), the same condition (a
comparison of names and constants, read from the same variables: nothing assigns between
the two operands, and a comparison changes nothing, so making it once is the same as
twice), and arms that are names or constants, the first operand's then-arm the second's
else-arm and the other way round, and not both the same.
"""

from __future__ import annotations

from compiler.builtins import Builtin
from compiler.check.bodies import LocalRef
from compiler.check.types import width
from compiler.syntax import ast

COMPARISONS = ("<", "==")


class SelectPairBuilder:
    def select_pair(self, first, second) -> int | None:
        """Push the two operands as a pair and return 2, or None when they are not one."""
        pair = self.pair_of(first, second)
        if pair is None:
            return None
        condition_expr, then_expr, else_expr = pair
        stack = self.stack
        condition = self.expr(condition_expr)
        keys, moved = [], []
        for expr in (else_expr, then_expr):  # the first operand's else-arm goes deeper
            constant = self.constant(expr)
            place = None if constant is not None else self.movable_place(expr)
            if constant is not None:
                keys.append(stack.push_constant(constant).key(0))
            elif place is not None and place[0].key(place[1]) not in keys:
                keys.append(place[0].key(place[1]))
                moved.append(place[0])
            else:  # a copy: the value is read again later
                binding = self.analysis.reads[expr]
                offset = self.instance.variables[expr].offset
                keys.append(self.read_place(binding, offset, 1, None).key(0))
        keys.append(condition.key(0))
        for value in moved:
            stack.touch(value)
        stack.arrange(keys)
        self.conditional_swap(moved, condition)
        stack.adopt(2, "pair")
        self.notes.append(("laid out inline", "a select pair: one comparison, a swap"))
        return 2

    def pair_of(self, first, second) -> tuple | None:
        """(condition, first's then-arm, first's else-arm) of a select pair, or None.  The
        arms returned are the second operand's nodes (its else-arm and then-arm), which
        come last in the source: where a name is read for the last time."""
        x, y = self.select_in(first), self.select_in(second)
        if x is None or y is None:
            return None
        if not (self.comparison(x.condition) and self.same(x.condition, y.condition)):
            return None
        x_then, x_else = _arm(x.then_block), _arm(x.else_block)
        y_then, y_else = _arm(y.then_block), _arm(y.else_block)
        arms = (x_then, x_else, y_then, y_else)
        if any(arm is None or not self.plain(arm) for arm in arms):
            return None
        if not (self.same(x_then, y_else) and self.same(x_else, y_then)):
            return None
        if self.same(x_then, x_else):
            return None
        return x.condition, y_else, y_then

    def select_in(self, expr) -> ast.If | None:
        """The one-word valued `if` an operand is, through conversions that emit nothing and
        inlined bodies of that `if` alone."""
        while True:
            if isinstance(expr, ast.Call) and len(expr.arguments) == 1:
                target = self.instance.calls.get(expr)
                if isinstance(target, Builtin) and not target.tasm:
                    expr = expr.arguments[0]
                    continue
            if isinstance(expr, ast.Inlined) and len(expr.body.statements) == 1:
                inner = expr.body.statements[0]
                expr = inner.expr if isinstance(inner, ast.ExprStatement) else inner
                continue
            break
        if not isinstance(expr, ast.If) or expr not in self.valued:
            return None
        if width(self.valued[expr]) != 1 or expr.else_block is None:
            return None
        return expr

    def comparison(self, expr) -> bool:
        return (
            isinstance(expr, ast.Binary)
            and expr.operator in COMPARISONS
            and self.plain(expr.left)
            and self.plain(expr.right)
        )

    def plain(self, expr) -> bool:
        """A constant, or a one-word name (or part of one) that has a slot."""
        if self.constant(expr) is not None:
            return True
        if not isinstance(expr, ast.Var):
            return False
        reference = self.instance.variables.get(expr)
        return (
            isinstance(reference, LocalRef)
            and width(reference.type) == 1
            and self.analysis.reads.get(expr) in self.values
        )

    def same(self, first, second) -> bool:
        """The same value: equal constants, or reads of the same word of one variable, or
        the same operator on the same operands."""
        constants = self.constant(first), self.constant(second)
        if constants[0] is not None or constants[1] is not None:
            return constants[0] == constants[1]
        if isinstance(first, ast.Var) and isinstance(second, ast.Var):
            references = self.instance.variables.get(first), self.instance.variables.get(second)
            if not all(isinstance(reference, LocalRef) for reference in references):
                return False
            return (
                self.analysis.reads.get(first) is self.analysis.reads.get(second)
                and references[0].offset == references[1].offset
            )
        if isinstance(first, ast.Binary) and isinstance(second, ast.Binary):
            return (
                first.operator == second.operator
                and self.same(first.left, second.left)
                and self.same(first.right, second.right)
            )
        return False


def _arm(block: ast.Block):
    if block is None or len(block.statements) != 1:
        return None
    statement = block.statements[0]
    return statement.expr if isinstance(statement, ast.ExprStatement) else None
