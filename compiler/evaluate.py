"""The reference evaluator: runs a checked program straight from its AST.

It is the compiler's oracle, so it means the language plainly: every value is a tuple of
field elements in stack layout (first component deepest, docs/reference.md, Layout), so results
compare directly with what compiled code leaves on the VM; builtins are
compiler.semantics, which follows Triton VM exactly.  A failure stops the run with an
error kind named like the VM's (`AssertionFailed`, `FailedU32Conversion`, ...), the
construct that failed and a message in the language's terms (compiler.failures).

To be quick it does not walk the tree while it runs: each function is first turned into
closures, one per statement and expression (`_FunctionCompiler`), with every name
resolved to a slot of the call's frame, every operator to its arithmetic and every
call to its target.  Running them does nothing else.

Steps: a statement costs one step plus one per operator, call and index it evaluates
(outside the blocks it holds), and a loop iteration four (no fewer than the VM's loop
takes), so the step limit stops a runaway evaluation after about the work the same
number of VM cycles does.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from compiler.builtins import BUILTINS
from compiler.check.bodies import ConstRef
from compiler.check.checker import Checked, FunctionInstance
from compiler.check.types import XFIELD, StructType, TupleType, width
from compiler.failure_kinds import Kind
from compiler.failures import RunFailure
from compiler.semantics import BUILTIN_SEMANTICS, Failure, u32_operand
from compiler.sourcemap import origin_of
from compiler.syntax import ast
from vm import xfield
from vm.field import P

DEFAULT_MAX_STEPS = 10_000_000
LOOP_ITERATION_STEPS = 4  # the VM's down-counting loop: addi, dup, skiz, recurse

__all__ = ["BUILTIN_SEMANTICS", "Evaluation", "Failure", "call_function", "evaluate"]


class _Return(Exception):
    def __init__(self, value: tuple):
        self.value = value


@dataclass
class Evaluation:
    """What an evaluation produced: the output, the failure if any, the final RAM, how
    many public words, secret words and secret digests were left unread, and (for
    `call_function`) the function's result as a tuple of words."""

    output: list[int]
    error: Failure | None = None
    ram: dict[int, int] = field(default_factory=dict)
    unread: tuple[int, int, int] = (0, 0, 0)
    result: tuple | None = None

    def as_json(self) -> dict:
        error = None
        if self.error is not None:
            error = {"kind": self.error.kind, "message": self.error.message}
            error["location"] = self.failure().as_json()
        return {"output": self.output, "error": error}

    def failure(self) -> RunFailure | None:
        """The failure, for compiler.failures.render."""
        if self.error is None:
            return None
        error = self.error
        return RunFailure(error.kind, error.message, error.origin, calls=tuple(error.calls))


@dataclass
class _State:
    public: deque
    secret: deque
    digests: deque
    ram: dict[int, int]
    output: list[int] = field(default_factory=list)
    sponge: list[int] | None = None
    steps: int = 0
    max_steps: int = DEFAULT_MAX_STEPS

    def count(self, steps: int) -> None:
        self.steps += steps
        if self.steps > self.max_steps:
            raise Failure(
                Kind.STEP_LIMIT_EXCEEDED, f"the evaluation took more than {self.max_steps} steps"
            )


def evaluate(
    checked: Checked,
    public_input=(),
    secret_input=(),
    secret_digests=(),
    ram=None,
    max_steps: int = DEFAULT_MAX_STEPS,
) -> Evaluation:
    """Run the checked program's `main` on the given inputs."""
    if checked.entry is None:
        raise ValueError("only a program (with `fn main()`) can be evaluated")
    return call_function(
        checked, checked.entry, [], public_input, secret_input, secret_digests, ram, max_steps
    )


def call_function(
    checked: Checked,
    key: str,
    arguments: list[tuple],
    public_input=(),
    secret_input=(),
    secret_digests=(),
    ram=None,
    max_steps: int = DEFAULT_MAX_STEPS,
) -> Evaluation:
    """Call one function instance (by its key) directly, for testing library code; its
    result is `Evaluation.result`."""
    state = _State(
        deque(value % P for value in public_input),
        deque(value % P for value in secret_input),
        deque(tuple(value % P for value in digest) for digest in secret_digests),
        {address % P: value % P for address, value in dict(ram or {}).items()},
        max_steps=max_steps,
    )
    error = result = None
    try:
        result = _Program(checked, state).call(key, list(arguments))
    except Failure as failure:
        error = failure
    unread = (len(state.public), len(state.secret), len(state.digests))
    return Evaluation(state.output, error, state.ram, unread, result)


class _Program:
    """The functions of one evaluation, each compiled on its first call."""

    def __init__(self, checked: Checked, state: _State):
        self.checked = checked
        self.state = state
        self.functions: dict[str, tuple] = {}  # key -> (frame size, parameter slots, body)

    def call(self, key: str, arguments: list[tuple]) -> tuple:
        compiled = self.functions.get(key)
        if compiled is None:
            instance = self.checked.instances[key]
            compiled = _FunctionCompiler(self, instance).compile()
            self.functions[key] = compiled
        size, slots, body = compiled
        frame = [None] * size
        for slot, value in zip(slots, arguments, strict=True):
            frame[slot] = value
        try:
            value = body(frame)
        except _Return as returned:
            value = returned.value
        return value if value is not None else ()


def _parts(value: tuple, type_) -> list[tuple]:
    """Split a tuple or digest value into its elements."""
    if isinstance(type_, TupleType):
        parts, offset = [], 0
        for element in type_.elements:
            parts.append(value[offset : offset + width(element)])
            offset += width(element)
        return parts
    return [(word,) for word in value]  # a Digest: five Field elements


def _cost(expr) -> int:
    """The steps an expression costs: one per operator, call and index in it."""
    match expr:
        case ast.Binary():
            return 1 + _cost(expr.left) + _cost(expr.right)
        case ast.Call():
            return 1 + sum(_cost(argument) for argument in expr.arguments)
        case ast.Index():
            return 1 + _cost(expr.base) + _cost(expr.index)
        case ast.TupleExpr() | ast.ArrayExpr():
            return sum(_cost(element) for element in expr.elements)
        case ast.StructLiteral():
            return sum(_cost(value) for _, value in expr.fields)
    return 0


class _FunctionCompiler:
    """One function instance -> (frame size, parameter slots, the body's closure).

    A frame is a list with one slot per binding (parameter, `let` name, loop variable):
    names are resolved here, through the block scopes, so a closure reads a slot.
    """

    def __init__(self, program: _Program, instance: FunctionInstance):
        self.program = program
        self.state = program.state
        self.instance = instance
        self.scopes: list[dict[str, int]] = [{}]
        self.widths: list[int] = []  # per slot: the width of the values it holds

    def compile(self) -> tuple:
        slots = [self.bind(name, width(type_)) for name, type_ in self.instance.params]
        body = self.block(self.instance.body)
        return len(self.widths), slots, body

    def bind(self, name: str, size: int) -> int:
        """A new slot for `name` (a value of `size` words) in the innermost scope."""
        slot = len(self.widths)
        self.widths.append(size)
        self.scopes[-1][name] = slot
        return slot

    def slot(self, name: str) -> int:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        raise AssertionError(f"unbound {name}")

    # --- blocks and statements: closures from the frame to the value (or None) ---------------

    def block(self, block: ast.Block, new_scope: bool = True):
        """A block's value is its last statement's: a tail or a valued if."""
        if new_scope:
            self.scopes.append({})
        count = len(block.statements)
        statements = [
            self.statement(statement, index == count - 1)
            for index, statement in enumerate(block.statements)
        ]
        if new_scope:
            self.scopes.pop()
        if not statements:
            return lambda frame: None
        if len(statements) == 1:
            return statements[0]
        *leading, last = statements

        def run(frame):
            for statement in leading:
                statement(frame)
            return last(frame)

        return run

    def statement(self, statement, last: bool):
        state = self.state
        match statement:
            case ast.Let():
                steps = 1 + _cost(statement.value)
                value = self.expr(statement.value)
                store = self.pattern(statement.pattern, self.instance.types[statement.value])

                def let(frame):
                    state.count(steps)
                    store(frame, value(frame))

                return let
            case ast.Assign():
                return self.assign(statement)
            case ast.If():
                return self.if_(statement, last)
            case ast.For():
                return self.for_(statement)
            case ast.Return():
                steps = 1 + (0 if statement.value is None else _cost(statement.value))
                value = (
                    (lambda frame: ()) if statement.value is None else self.expr(statement.value)
                )

                def return_(frame):
                    state.count(steps)
                    raise _Return(value(frame))

                return return_
            case ast.ExprStatement():
                steps = 1 + _cost(statement.expr)
                value = self.expr(statement.expr)

                def expression(frame):
                    state.count(steps)
                    result = value(frame)
                    return result if last else None

                return expression
        raise AssertionError(f"unknown statement {statement!r}")

    def pattern(self, pattern, type_):
        """The closure that binds a `let` pattern to a value: (frame, value) -> None."""
        match pattern:
            case ast.PatternName():
                slot = self.bind(pattern.name, width(type_))

                def store(frame, value):
                    frame[slot] = value

                return store
            case ast.PatternTuple():
                sizes = [len(part) for part in _parts((0,) * width(type_), type_)]
                slots = [
                    None if name is None else self.bind(name, size)
                    for name, size in zip(pattern.names, sizes, strict=True)
                ]

                def store_parts(frame, value):
                    for slot, part in zip(slots, _parts(value, type_), strict=True):
                        if slot is not None:
                            frame[slot] = part

                return store_parts
        return lambda frame, value: None  # `let _ = e`: evaluated for its effects

    def assign(self, statement: ast.Assign):
        state = self.state
        steps = 1 + _cost(statement.value)
        value = self.expr(statement.value)
        target = statement.target
        targets = target.elements if isinstance(target, ast.TupleExpr) else [target]
        slots = [self.slot(target.path) for target in targets]
        if len(slots) == 1:
            (slot,) = slots

            def assign_one(frame):
                state.count(steps)
                frame[slot] = value(frame)

            return assign_one
        type_ = self.instance.types[statement.value]

        def assign_parts(frame):
            state.count(steps)
            for slot, part in zip(slots, _parts(value(frame), type_), strict=True):
                frame[slot] = part

        return assign_parts

    def if_(self, statement: ast.If, last: bool):
        state = self.state
        steps = 1 + _cost(statement.condition)
        condition = self.expr(statement.condition)
        then_block = self.block(statement.then_block)
        otherwise = (
            self.block(statement.else_block)
            if statement.else_block is not None
            else (lambda frame: None)
        )
        valued = last and statement in self.instance.valued_ifs

        def if_(frame):
            state.count(steps)
            branch = then_block if condition(frame)[0] != 0 else otherwise
            result = branch(frame)
            return result if valued else None

        return if_

    def for_(self, statement: ast.For):
        state, instance = self.state, self.instance
        steps = 1 + _cost(statement.start) + _cost(statement.end)
        start, end, bound = self.expr(statement.start), self.expr(statement.end), statement.bound
        self.scopes.append({})
        variable = None if statement.variable is None else self.bind(statement.variable, 1)
        body = self.block(statement.body, new_scope=False)
        self.scopes.pop()

        def for_(frame):
            state.count(steps)
            first = start(frame)[0]
            iterations = max(0, end(frame)[0] - first)
            if bound is not None and iterations > bound:
                failure = Failure(
                    Kind.BOUND_EXCEEDED,
                    f"the loop runs {iterations} times, more than its bound {bound}",
                )
                failure.locate(origin_of(instance, statement))
                raise failure
            for counter in range(first, first + iterations):
                try:
                    state.count(LOOP_ITERATION_STEPS)
                except Failure as failure:  # a runaway loop: say which
                    failure.locate(origin_of(instance, statement))
                    raise
                if variable is not None:
                    frame[variable] = (counter % P,)
                body(frame)

        return for_

    # --- expressions: closures from the frame to a tuple of words ----------------------------

    def expr(self, expr):
        instance = self.instance
        match expr:
            case ast.IntLiteral() | ast.BoolLiteral():
                constant = (int(expr.value) % P,)
                return lambda frame: constant
            case ast.Var():
                reference = instance.variables[expr]
                if isinstance(reference, ConstRef):
                    constant = (reference.value % P,)
                    return lambda frame: constant
                slot = self.slot(reference.name)
                low = reference.offset
                high = low + width(reference.type)
                if low == 0 and high == self.widths[slot]:
                    return lambda frame: frame[slot]
                return lambda frame: frame[slot][low:high]
            case ast.Binary():
                return self.located(expr, self.binary(expr))
            case ast.Call():
                if isinstance(instance.calls.get(expr), str):  # a function of the program's
                    return self.called(expr)
                return self.located(expr, self.call(expr))
            case ast.TupleExpr() | ast.ArrayExpr():
                elements = [self.expr(element) for element in expr.elements]
                return lambda frame: tuple(word for element in elements for word in element(frame))
            case ast.Index():
                return self.index(expr)
            case ast.StructLiteral():
                struct: StructType = instance.types[expr]
                values = dict((name, self.expr(value)) for name, value in expr.fields)
                order = [name for name, _ in expr.fields]  # evaluated in source order
                declared = [name for name, _ in struct.fields]

                def struct_literal(frame):
                    computed = {name: values[name](frame) for name in order}
                    return tuple(word for name in declared for word in computed[name])

                return struct_literal
        raise AssertionError(f"unknown expression {expr!r}")

    def located(self, expr, run):
        """`run`, attaching `expr` as the construct to a failure that has none."""
        instance = self.instance

        def located(frame):
            try:
                return run(frame)
            except Failure as failure:
                failure.locate(origin_of(instance, expr))
                raise

        return located

    def called(self, expr: ast.Call):
        """A call of one of the program's functions, noting the call on a failure inside
        it (or making it the failing construct, if none is known); a failure of an
        argument is the caller's own, before the call."""
        instance, program, target = self.instance, self.program, self.instance.calls[expr]
        arguments = [self.expr(argument) for argument in expr.arguments]

        def called(frame):
            values = [argument(frame) for argument in arguments]
            try:
                return program.call(target, values)
            except Failure as failure:
                failure.called_from(origin_of(instance, expr))
                raise

        return called

    def call(self, expr: ast.Call):
        arguments = [self.expr(argument) for argument in expr.arguments]
        target = self.instance.calls[expr]
        if isinstance(target, str):
            program = self.program
            return lambda frame: program.call(target, [argument(frame) for argument in arguments])
        semantics, state = BUILTIN_SEMANTICS[target.name], self.state
        if target != BUILTINS[target.name]:  # a declaration narrowed its result: the top words
            keep = width(target.result)

            def narrowed(frame):
                return semantics(state, *[argument(frame) for argument in arguments])[-keep:]

            return narrowed
        return lambda frame: semantics(state, *[argument(frame) for argument in arguments])

    def binary(self, expr: ast.Binary):
        left, right = self.expr(expr.left), self.expr(expr.right)
        if self.instance.types[expr.left] == XFIELD:
            return _xfield_operator(expr.operator, left, right)
        match expr.operator:
            case "+":
                return lambda frame: ((left(frame)[0] + right(frame)[0]) % P,)
            case "*":
                return lambda frame: (left(frame)[0] * right(frame)[0] % P,)
            case "==":
                return lambda frame: (int(left(frame)[0] == right(frame)[0]),)
        operate = _U32_OPERATORS[expr.operator]
        what = f"'{expr.operator}' operand"

        def u32(frame):
            a, b = left(frame)[0], right(frame)[0]
            return operate(u32_operand(a, what), u32_operand(b, what))

        return u32

    def index(self, expr: ast.Index):
        instance = self.instance
        base, position = self.expr(expr.base), self.expr(expr.index)
        array = instance.types[expr.base]
        size = width(array.element)

        def index(frame):
            words = base(frame)
            at = position(frame)[0]
            if at >= array.length:
                message = f"index {at} is out of bounds for {array}"
                failure = Failure(Kind.INDEX_OUT_OF_BOUNDS, message, (at,))
                failure.locate(origin_of(instance, expr))
                raise failure
            return words[at * size : (at + 1) * size]

        return index


def _divide(a: int, b: int) -> tuple:
    if b == 0:
        raise Failure(Kind.DIVISION_BY_ZERO, "division by zero")
    return (a // b, a % b)


_U32_OPERATORS = {
    "<": lambda a, b: (int(a < b),),
    "&": lambda a, b: (a & b,),
    "^": lambda a, b: (a ^ b,),
    "/%": _divide,
}


def _xfield_operator(operator: str, left, right):
    """XField `+`, `*` and `*.` (values in stack layout: the constant term on top)."""

    def operate(frame):
        a = left(frame)[::-1]
        b = right(frame)
        if operator == "*.":
            result = xfield.scalar_mul(b[0], a)
        elif operator == "+":
            result = xfield.add(a, b[::-1])
        else:
            result = xfield.mul(a, b[::-1])
        return tuple(reversed(result))

    return operate
