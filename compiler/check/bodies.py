"""Type checking of function bodies: statements and expressions (docs/reference.md).

`check_body` walks one function instance and fills its tables: the type of
every expression, what every name and call resolves to, the type of every
valued `if`.  Errors are reported through the context and checking goes on,
so one run reports every error it can (an expression whose type is unknown
after an error is `None` and is not reported again).
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.builtins import BUILTINS, Builtin
from compiler.check import assignments, events, matches
from compiler.check.types import (
    BOOL,
    DIGEST,
    FIELD,
    U32,
    UNIT,
    XFIELD,
    ArrayType,
    StructType,
    TupleType,
    Type,
    returnable,
    width,
)
from compiler.diagnostics import did_you_mean
from compiler.syntax import ast


@dataclass(frozen=True)
class LocalRef:
    """A name that resolves to (part of) a local variable: `x`, `x.f.g`."""

    name: str
    offset: int  # elements from the deepest element of the variable's value
    type: Type


@dataclass(frozen=True)
class ConstRef:
    value: int


@dataclass
class Binding:
    type: Type
    mutable: bool
    name: str = ""
    span: ast.Span | None = None  # where a `let` bound it (None: nothing to warn about)
    read: bool = False
    assigned: bool = False


_BINARY = {  # operator -> [(left, right, result)]
    "+": [(FIELD, FIELD, FIELD), (XFIELD, XFIELD, XFIELD)],
    "*": [(FIELD, FIELD, FIELD), (XFIELD, XFIELD, XFIELD)],
    "*.": [(XFIELD, FIELD, XFIELD)],
    "<": [(U32, U32, BOOL)],
    "&": [(U32, U32, U32)],
    "^": [(U32, U32, U32)],
    "/%": [(U32, U32, TupleType((U32, U32)))],
}


class BodyChecker:
    """Checks one function instance; `context` is the module-level checker."""

    def __init__(self, context, instance):
        self.context = context
        self.instance = instance
        self.scopes: list[dict[str, Binding]] = [{}]
        self.pure = instance.function.attribute("pure") is not None
        self.prechecked: set = set()  # statements made by `matches.expand`, already checked
        self.rewritten: dict = {}  # Block -> its statements with each `match` expanded
        self.synthetic_structs: dict = {}  # StructLiteral built by `assignments` -> its type

    # --- reporting and scopes
    def error(self, code: str, message: str, span: ast.Span, hint: str | None = None) -> None:
        self.context.error(code, message, self.instance.path, span, hint)

    def bind(self, name: str, type_: Type, mutable: bool = False, span=None) -> None:
        """Bind `name` in the innermost scope; one bound at `span` (a `let`) is warned
        about if it is never read (W0006), or declared `mut` and never assigned (W0007)."""
        if span is not None and (name.startswith("_") or "@" in name or "#" in name):
            span = None  # `_x` says "unused on purpose"; '@' and '#' names are the checker's
        self.scopes[-1][name] = Binding(type_, mutable, name, span)

    def visible(self) -> list[str]:
        """The local names in scope, for a did-you-mean."""
        return [name for scope in self.scopes for name in scope if "@" not in name]

    def close_scope(self) -> None:
        """Leave the innermost scope, warning about the bindings it leaves unused."""
        for binding in self.scopes.pop().values():
            if binding.span is None:
                continue
            if not binding.read:
                self.context.warn(
                    "W0006",
                    f"unused variable '{binding.name}'",
                    self.instance.path,
                    binding.span,
                    "use it, or write _ (or a name starting with _) in its place",
                )
            elif binding.mutable and not binding.assigned:
                self.context.warn(
                    "W0007",
                    f"variable '{binding.name}' is declared mut but never assigned",
                    self.instance.path,
                    binding.span,
                    f"write 'let {binding.name}'",
                )

    def binding(self, name: str) -> Binding | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def expect(self, expected: Type, found: Type | None, span: ast.Span, what: str = "") -> None:
        if found is not None and expected is not None and found != expected:
            if str(expected) == str(found):  # same name, different modules
                expected, found = _qualified(expected), _qualified(found)
            self.error(
                "E0201", f"{what}expected {expected}, found {found}", span, _hint(expected, found)
            )

    # --- the function
    def check(self) -> None:
        function = self.instance.function
        for name, type_ in self.instance.params:
            self.bind(name, type_)
        body_type = self.block(function.body)
        result = self.instance.result
        if result != UNIT and body_type is not None and not returnable(result, body_type):
            if body_type == UNIT and not _ends_in_return(function.body):
                self.error(
                    "E0210",
                    f"'{function.name}' must return {result}, but its body ends without a value",
                    function.body.span,
                    "end the body with an expression of that type",
                )
            elif body_type != UNIT:
                self.expect(result, body_type, _value_span(function.body), "return value: ")
        if self.rewritten:
            self.instance.body = matches.rebuilt(self, function.body)

    def block(self, block: ast.Block, new_scope: bool = True) -> Type | None:
        """Check a block; its type is its tail's, a valued if's, or unit."""
        if new_scope:
            self.scopes.append({})
        result: Type | None = UNIT
        terminated = False
        statements = list(block.statements)
        position = 0
        while position < len(statements):
            statement = statements[position]
            if terminated:
                self.error("E0215", "unreachable code", statement.span)
                terminated = False
            last = position == len(statements) - 1
            if isinstance(statement, ast.Assign):
                expansion = assignments.expand(self, statement)
                if expansion is not None:
                    statements[position : position + 1] = expansion
                    self.rewritten[block] = statements
                    continue
            if isinstance(statement, ast.Match | ast.Emit):
                if isinstance(statement, ast.Match):
                    expansion = matches.expand(self, statement, last)
                else:
                    expansion = events.expand(self, statement)
                if expansion is None:
                    # a `match` with errors (reported): its value is unknown, not missing
                    result = None if last and isinstance(statement, ast.Match) else UNIT
                    position += 1
                    continue
                statements[position : position + 1] = expansion
                self.rewritten[block] = statements
                continue  # check what the match became, from its first statement
            result = self.statement(statement, last)
            terminated = self.terminates(statement)
            position += 1
        if new_scope:
            self.close_scope()
        return result

    def terminates(self, statement) -> bool:
        """`return` and `assert(false)` end a block: code after them never runs."""
        if isinstance(statement, ast.Return):
            return True
        if isinstance(statement, ast.ExprStatement) and isinstance(statement.expr, ast.Call):
            call = statement.expr
            return (
                self.instance.calls.get(call) == BUILTINS["assert"]
                and isinstance(call.arguments[0], ast.BoolLiteral)
                and not call.arguments[0].value
            )
        return False

    # --- statements
    def statement(self, statement, last: bool) -> Type | None:
        match statement:
            case ast.Let() if statement in self.prechecked:
                pass
            case ast.Let():
                self.let(statement)
            case ast.Assign():
                self.assign(statement)
            case ast.If():
                return self.if_(statement, last)
            case ast.For():
                self.for_(statement)
            case ast.Return():
                value = UNIT if statement.value is None else self.expr(statement.value)
                if not returnable(self.instance.result, value):
                    self.expect(self.instance.result, value, statement.span, "return value: ")
            case ast.ExprStatement():
                found = self.expr(statement.expr)
                if last:
                    return found
                if found not in (None, UNIT) and not isinstance(statement.expr, ast.Call):
                    self.context.warn(
                        "W0013",
                        "the value of this expression is unused",
                        self.instance.path,
                        statement.span,
                    )
            case ast.Asm():
                self.error("E0300", "'asm' is not supported by tri yet", statement.span)
        return UNIT

    def let(self, statement: ast.Let) -> None:
        value = self.expr(statement.value)
        if statement.type is not None:
            declared = self.context.resolve_type(statement.type, self.instance)
            if declared is not None:
                self.expect(declared, value, statement.value.span)
                value = declared
        pattern = statement.pattern
        match pattern:
            case ast.PatternName():
                if value is not None:
                    if value == UNIT:
                        self.error("E0201", "cannot bind a value of type ()", statement.value.span)
                    self.bind(pattern.name, value, statement.mutable, pattern.span)
            case ast.PatternTuple():
                for name, element in zip(
                    pattern.names, self.destructure(value, pattern), strict=True
                ):
                    if name is not None and element is not None:
                        self.bind(name, element, statement.mutable, pattern.span)

    def destructure(self, value: Type | None, pattern: ast.PatternTuple) -> list[Type | None]:
        count = len(pattern.names)
        if value is None:
            return [None] * count
        if isinstance(value, TupleType):
            if len(value.elements) != count:
                self.error(
                    "E0205",
                    f"pattern has {count} names, the tuple has {len(value.elements)} elements",
                    pattern.span,
                )
                return [None] * count
            return list(value.elements)
        if value == DIGEST:
            if count != 5:
                self.error(
                    "E0205", f"a Digest destructures into 5 names, not {count}", pattern.span
                )
                return [None] * count
            return [FIELD] * 5
        self.error("E0205", f"cannot destructure a value of type {value}", pattern.span)
        return [None] * count

    def assign(self, statement: ast.Assign) -> None:
        value = self.expr(statement.value)
        targets = (
            statement.target.elements
            if isinstance(statement.target, ast.TupleExpr)
            else [statement.target]
        )
        if len(targets) > 1:
            types = self.destructure(
                value, ast.PatternTuple([None] * len(targets), statement.target.span)
            )
        else:
            types = [value]
        for target, type_ in zip(targets, types, strict=True):
            if not isinstance(target, ast.Var) or "." in target.path:
                message = (
                    "a tuple assignment assigns whole variables only"
                    if len(targets) > 1
                    else "only variables, their fields and their elements can be assigned to"
                )
                self.error("E0217", message, target.span)
                continue
            binding = self.binding(target.path)
            if binding is None:
                hint = did_you_mean(target.path, self.visible())
                self.error("E0103", f"undefined variable '{target.path}'", target.span, hint)
            elif not binding.mutable:
                self.error(
                    "E0204",
                    f"cannot assign twice to immutable variable '{target.path}'",
                    target.span,
                    f"declare it with 'let mut {target.path}'",
                )
            else:
                binding.assigned = True
                self.instance.variables[target] = LocalRef(target.path, 0, binding.type)
                self.expect(binding.type, type_, statement.value.span)

    def if_(self, statement: ast.If, last: bool) -> Type | None:
        condition = self.expr(statement.condition)
        if condition is not None and condition not in (BOOL, FIELD):
            self.error(
                "E0201",
                f"a condition must be Bool or Field, found {condition}",
                statement.condition.span,
            )
        then_type = self.block(statement.then_block)
        if statement.else_block is None:
            return UNIT
        else_type = self.block(statement.else_block)
        if not last or then_type is None or else_type is None:
            return UNIT
        if then_type == UNIT and else_type == UNIT:
            return UNIT
        if then_type != else_type:
            if UNIT in (then_type, else_type):
                self.error(
                    "E0216", "both branches of a valued if must end in a value", statement.span
                )
            else:
                self.error(
                    "E0216",
                    f"if branches have different types: {then_type} and {else_type}",
                    statement.span,
                )
            return None
        self.instance.valued_ifs[statement] = then_type
        return then_type

    def for_(self, statement: ast.For) -> None:
        for bound_expr in (statement.start, statement.end):
            found = self.expr(bound_expr)
            if found is not None and found not in (FIELD, U32):
                self.error(
                    "E0201", f"a loop bound must be Field or U32, found {found}", bound_expr.span
                )
        if statement.bound is None and not self.is_constant(statement.end):
            self.error(
                "E0208",
                "the end of a loop without 'bounded' must be a constant",
                statement.end.span,
                "add 'bounded N' with a literal maximum iteration count",
            )
        self.scopes.append({})
        if statement.variable is not None:
            self.bind(statement.variable, U32)
        self.block(statement.body, new_scope=False)
        self.close_scope()

    def is_constant(self, expr) -> bool:
        return isinstance(expr, ast.IntLiteral) or isinstance(
            self.instance.variables.get(expr), ConstRef
        )

    # --- expressions
    def expr(self, expr) -> Type | None:
        found = self._expr(expr)
        if found is not None:
            self.instance.types[expr] = found
        return found

    def _expr(self, expr) -> Type | None:
        check = _EXPRESSION_CHECKS.get(type(expr))
        if check is None:
            raise AssertionError(f"unknown expression {expr!r}")
        return check(self, expr)

    def tuple_expr(self, expr: ast.TupleExpr) -> Type | None:
        elements = [self.expr(element) for element in expr.elements]
        return None if None in elements else TupleType(tuple(elements))

    def var(self, expr: ast.Var) -> Type | None:
        parts = expr.path.split(".")
        for cut in range(len(parts), 0, -1):
            binding = self.binding(".".join(parts[:cut]))
            if binding is not None:
                binding.read = True
                return self.field_path(expr, ".".join(parts[:cut]), binding.type, parts[cut:])
        if expr.path in self.instance.sizes:  # a size parameter used as a value
            self.instance.variables[expr] = ConstRef(self.instance.sizes[expr.path])
            return FIELD
        constant = self.context.lookup_constant(self.instance, expr, self.visible())
        if constant is not None:
            self.instance.variables[expr] = ConstRef(constant)
            return FIELD
        return None

    def field_path(self, expr: ast.Var, name: str, type_: Type, fields: list[str]) -> Type | None:
        offset = 0
        for field_name in fields:
            if not isinstance(type_, StructType):
                self.error("E0206", f"type {type_} has no field '{field_name}'", expr.span)
                return None
            found = type_.field(field_name)
            if found is None:
                hint = did_you_mean(field_name, [name for name, _ in type_.fields])
                self.error("E0206", f"struct {type_} has no field '{field_name}'", expr.span, hint)
                return None
            offset += found[0]
            type_ = found[1]
        self.instance.variables[expr] = LocalRef(name, offset, type_)
        return type_

    def binary(self, expr: ast.Binary) -> Type | None:
        left, right = self.expr(expr.left), self.expr(expr.right)
        if left is None or right is None:
            return None
        if expr.operator == "==":
            if left != right:
                self.error(
                    "E0203",
                    f"'==' needs two operands of the same type, found {left} and {right}",
                    expr.span,
                )
                return None
            if width(left) != 1:
                self.error(
                    "E0221",
                    f"'==' compares single elements, not {left}",
                    expr.span,
                    "compare digests with assert_digest" if left == DIGEST else None,
                )
                return None
            return BOOL
        for left_type, right_type, result in _BINARY[expr.operator]:
            if (left, right) == (left_type, right_type):
                return result
        expected = " or ".join(f"{a} {expr.operator} {b}" for a, b, _ in _BINARY[expr.operator])
        self.error(
            "E0203",
            f"'{expr.operator}' cannot take {left} and {right}",
            expr.span,
            f"expected {expected}" + _conversion_hint(left, right, expr.operator),
        )
        return None

    def array(self, expr: ast.ArrayExpr) -> Type | None:
        elements = [self.expr(element) for element in expr.elements]
        if not elements:
            self.error("E0219", "an array literal needs at least one element", expr.span)
            return None
        if None in elements:
            return None
        for element, found in zip(expr.elements[1:], elements[1:], strict=True):
            self.expect(elements[0], found, element.span, "array element: ")
        return ArrayType(elements[0], len(elements))

    def index(self, expr: ast.Index) -> Type | None:
        base, position = self.expr(expr.base), self.expr(expr.index)
        if position is not None and position not in (U32, FIELD):
            self.error("E0219", f"an index must be U32 or Field, found {position}", expr.index.span)
        if base is None:
            return None
        if not isinstance(base, ArrayType):
            self.error("E0219", f"cannot index a value of type {base}", expr.base.span)
            return None
        if isinstance(expr.index, ast.IntLiteral) and expr.index.value >= base.length:
            self.error(
                "E0219", f"index {expr.index.value} is out of bounds for {base}", expr.index.span
            )
        return base.element

    def struct_literal(self, expr: ast.StructLiteral) -> Type | None:
        struct = self.synthetic_structs.get(expr) or self.context.lookup_struct(
            self.instance, expr.path, expr.span
        )
        values = {}
        for name, value in expr.fields:
            if name in values:
                self.error("E0206", f"field '{name}' given twice", value.span)
            values[name] = self.expr(value)
        if struct is None:
            return None
        declared = dict(struct.fields)
        for name, value in expr.fields:
            if name not in declared:
                hint = did_you_mean(name, [field for field, _ in struct.fields])
                self.error("E0206", f"struct {struct} has no field '{name}'", value.span, hint)
            else:
                self.expect(declared[name], values[name], value.span, f"field '{name}': ")
        self.report_missing(list(declared), values, f"{struct} literal", expr.span)
        return struct

    def report_missing(self, declared: list[str], given, what: str, span) -> bool:
        """E0207 for the declared fields not `given` (in a struct literal or reveal/seal)."""
        missing = [name for name in declared if name not in given]
        if missing:
            plural = "s" if len(missing) > 1 else ""
            self.error("E0207", f"missing field{plural} {', '.join(missing)} in {what}", span)
        return bool(missing)

    def call(self, expr: ast.Call) -> Type | None:
        arguments = [self.expr(argument) for argument in expr.arguments]
        target = self.context.resolve_call(self.instance, expr, arguments)
        if target is None:
            return None
        if isinstance(target, Builtin):
            params, result = target.params, target.result
            if self.pure and target.touches_state:
                self.error(
                    "E0214",
                    f"#[pure] function calls '{expr.callee}', which has side effects",
                    expr.span,
                )
        else:
            params, result = [t for _, t in target.params], target.result
        if len(arguments) != len(params):
            self.error(
                "E0202",
                f"'{expr.callee}' takes {len(params)} argument{'s' * (len(params) != 1)}, "
                f"{len(arguments)} given",
                expr.span,
            )
            return result
        for argument, expected, found in zip(expr.arguments, params, arguments, strict=True):
            self.expect(expected, found, argument.span, "argument: ")
        if (
            isinstance(target, Builtin)
            and target.name == "as_u32"
            and expr.arguments
            and isinstance(expr.arguments[0], ast.Call)
            and self.instance.calls.get(expr.arguments[0]) == BUILTINS["as_field"]
        ):
            self.context.warn(
                "W0002", "as_u32 of a value that is already U32", self.instance.path, expr.span
            )
        self.instance.calls[expr] = target if isinstance(target, Builtin) else target.key
        return result


# How each kind of expression is checked (a dict lookup: cheaper than a chain of
# isinstance tests on the checker's hottest path).
_EXPRESSION_CHECKS = {
    ast.IntLiteral: lambda checker, expr: FIELD,
    ast.BoolLiteral: lambda checker, expr: BOOL,
    ast.Var: BodyChecker.var,
    ast.Call: BodyChecker.call,
    ast.Binary: BodyChecker.binary,
    ast.TupleExpr: BodyChecker.tuple_expr,
    ast.ArrayExpr: BodyChecker.array,
    ast.Index: BodyChecker.index,
    ast.StructLiteral: BodyChecker.struct_literal,
}


def _qualified(type_) -> str:
    return f"{type_.module}.{type_.name}" if isinstance(type_, StructType) else str(type_)


def _ends_in_return(block: ast.Block) -> bool:
    return bool(block.statements) and isinstance(block.statements[-1], ast.Return)


def _value_span(block: ast.Block) -> ast.Span:
    return block.statements[-1].span if block.statements else block.span


def _hint(expected: Type, found: Type) -> str | None:
    if expected == U32 and found == FIELD:
        return "convert with as_u32(...), which checks the range"
    if expected == FIELD and found == U32:
        return "convert with as_field(...)"
    return None


def _conversion_hint(left: Type, right: Type, operator: str = "") -> str:
    if U32 in (left, right) and FIELD in (left, right):
        return "; convert with as_field(...) or as_u32(...)"
    if (left, right) == (U32, U32) and operator in ("+", "*"):
        return (
            f"; U32 has no '{operator}': compute on fields and check the result fits, "
            f"as_u32(as_field(a) {operator} as_field(b)) (a failed check if it is 2^32 or more)"
        )
    return ""
