"""The reference evaluator: runs a checked program straight from its AST.

It is the compiler's oracle, so it is written to be obviously right rather
than fast.  Every value is a tuple of field elements in stack layout (first
component deepest, language.md §7.2), so results compare directly with what
compiled code leaves on the VM.  Builtins follow Triton VM exactly: u32
preconditions, Tip5 through `vm.tip5`, the argument order of hashing and
output, RAM layout of blocks.  A failure stops the run with an error kind
named like the VM's (`AssertionFailed`, `FailedU32Conversion`, ...).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from compiler.builtins import BUILTINS
from compiler.check.bodies import ConstRef
from compiler.check.checker import Checked, FunctionInstance
from compiler.check.types import XFIELD, StructType, TupleType, width
from compiler.failures import RunFailure, describe
from compiler.sourcemap import origin_of
from compiler.syntax import ast
from vm import tip5, xfield
from vm.field import P

U32_LIMIT = 1 << 32
DEFAULT_MAX_STEPS = 10_000_000


class Failure(Exception):
    """The program failed: `kind` names the failure the way the VM does; `origin` is the
    construct that failed (compiler.sourcemap) and `message` says so in its terms
    (compiler.failures), once `locate` has found it."""

    def __init__(self, kind: str, message: str, operands: tuple | None = None):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.operands = operands
        self.origin = None

    def locate(self, origin) -> None:
        """Attach the innermost construct the failure happened in (the first one given)."""
        if self.origin is None:
            self.origin = origin
            self.message = describe(self.kind, origin, self.operands, self.message)


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
        return RunFailure(self.error.kind, self.error.message, self.error.origin)


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
        result = _Interpreter(checked, state).call(checked.instances[key], list(arguments))
    except Failure as failure:
        error = failure
    unread = (len(state.public), len(state.secret), len(state.digests))
    return Evaluation(state.output, error, state.ram, unread, result)


def _u32(value: int, what: str) -> int:
    if value >= U32_LIMIT:
        raise Failure("FailedU32Conversion", f"{what} {value} is not a u32 value", (value,))
    return value


class _Interpreter:
    def __init__(self, checked: Checked, state: _State):
        self.checked = checked
        self.state = state

    def tick(self) -> None:
        self.state.steps += 1
        if self.state.steps > self.state.max_steps:
            raise Failure(
                "StepLimitExceeded", f"the evaluation took more than {self.state.max_steps} steps"
            )

    # --- functions and blocks
    def call(self, instance: FunctionInstance, arguments: list[tuple]) -> tuple:
        self.tick()
        frame = _Frame(instance)
        for (name, _), value in zip(instance.params, arguments, strict=True):
            frame.bind(name, value)
        try:
            value = frame_block(self, frame, instance.body)
        except _Return as returned:
            value = returned.value
        return value if value is not None else ()

    def expr(self, frame: _Frame, expr) -> tuple:
        instance = frame.instance
        match expr:
            case ast.IntLiteral():
                return (expr.value % P,)
            case ast.BoolLiteral():
                return (int(expr.value),)
            case ast.Var():
                reference = instance.variables[expr]
                if isinstance(reference, ConstRef):
                    return (reference.value % P,)
                value = frame.lookup(reference.name)
                return value[reference.offset : reference.offset + width(reference.type)]
            case ast.Binary():
                left, right = self.expr(frame, expr.left), self.expr(frame, expr.right)
                try:
                    return self.binary(expr, instance.types[expr.left], left, right)
                except Failure as failure:
                    failure.locate(origin_of(instance, expr))
                    raise
            case ast.Call():
                arguments = [self.expr(frame, argument) for argument in expr.arguments]
                target = instance.calls[expr]
                try:
                    if isinstance(target, str):
                        return self.call(self.checked.instances[target], arguments)
                    return BUILTIN_SEMANTICS[target.name](self.state, *arguments)
                except Failure as failure:
                    failure.locate(origin_of(instance, expr))
                    raise
            case ast.TupleExpr() | ast.ArrayExpr():
                return tuple(
                    word for element in expr.elements for word in self.expr(frame, element)
                )
            case ast.Index():
                base = self.expr(frame, expr.base)
                position = self.expr(frame, expr.index)[0]
                array = instance.types[expr.base]
                if position >= array.length:
                    failure = Failure(
                        "IndexOutOfBounds", f"index {position} is out of bounds for {array}"
                    )
                    failure.locate(origin_of(instance, expr))
                    raise failure
                size = width(array.element)
                return base[position * size : (position + 1) * size]
            case ast.StructLiteral():
                struct: StructType = instance.types[expr]
                values = {name: self.expr(frame, value) for name, value in expr.fields}
                return tuple(word for name, _ in struct.fields for word in values[name])
        raise AssertionError(f"unknown expression {expr!r}")

    def binary(self, expr: ast.Binary, left_type, left: tuple, right: tuple) -> tuple:
        operator = expr.operator
        if left_type == XFIELD:
            a = (left[2], left[1], left[0])
            if operator == "*.":
                result = xfield.scalar_mul(right[0], a)
            else:
                b = (right[2], right[1], right[0])
                result = xfield.add(a, b) if operator == "+" else xfield.mul(a, b)
            return (result[2], result[1], result[0])
        a, b = left[0], right[0]
        match operator:
            case "+":
                return ((a + b) % P,)
            case "*":
                return (a * b % P,)
            case "==":
                return (int(a == b),)
            case "<":
                return (int(_u32(a, "'<' operand") < _u32(b, "'<' operand")),)
            case "&":
                return (_u32(a, "'&' operand") & _u32(b, "'&' operand"),)
            case "^":
                return (_u32(a, "'^' operand") ^ _u32(b, "'^' operand"),)
            case "/%":
                _u32(a, "'/%' numerator"), _u32(b, "'/%' denominator")
                if b == 0:
                    raise Failure("DivisionByZero", "division by zero")
                return (a // b, a % b)
        raise AssertionError(operator)


@dataclass
class _Frame:
    instance: FunctionInstance
    scopes: list[dict[str, tuple]] = field(default_factory=lambda: [{}])

    def bind(self, name: str, value: tuple) -> None:
        self.scopes[-1][name] = value

    def lookup(self, name: str) -> tuple:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        raise AssertionError(f"unbound {name}")

    def assign(self, name: str, value: tuple) -> None:
        for scope in reversed(self.scopes):
            if name in scope:
                scope[name] = value
                return
        raise AssertionError(f"unbound {name}")


def frame_block(interpreter: _Interpreter, frame: _Frame, block: ast.Block, new_scope: bool = True):
    """Execute a block; its value is its tail's or a valued if's, else None."""
    if new_scope:
        frame.scopes.append({})
    value = None
    try:
        for position, statement in enumerate(block.statements):
            value = _statement(interpreter, frame, statement, position == len(block.statements) - 1)
    finally:
        if new_scope:
            frame.scopes.pop()
    return value


def _statement(interpreter: _Interpreter, frame: _Frame, statement, last: bool):
    instance = frame.instance
    match statement:
        case ast.Let():
            value = interpreter.expr(frame, statement.value)
            _bind_pattern(frame, statement.pattern, value, instance.types[statement.value])
        case ast.Assign():
            value = interpreter.expr(frame, statement.value)
            targets = (
                statement.target.elements
                if isinstance(statement.target, ast.TupleExpr)
                else [statement.target]
            )
            if len(targets) == 1:
                frame.assign(targets[0].path, value)
            else:
                for target, part in zip(
                    targets, _parts(value, instance.types[statement.value]), strict=True
                ):
                    frame.assign(target.path, part)
        case ast.If():
            taken = interpreter.expr(frame, statement.condition)[0] != 0
            branch = statement.then_block if taken else statement.else_block
            result = frame_block(interpreter, frame, branch) if branch is not None else None
            return result if last and statement in instance.valued_ifs else None
        case ast.For():
            _for(interpreter, frame, statement)
        case ast.Return():
            value = () if statement.value is None else interpreter.expr(frame, statement.value)
            raise _Return(value)
        case ast.ExprStatement():
            value = interpreter.expr(frame, statement.expr)
            return value if last else None
    return None


def _for(interpreter: _Interpreter, frame: _Frame, statement: ast.For) -> None:
    start = interpreter.expr(frame, statement.start)[0]
    end = interpreter.expr(frame, statement.end)[0]
    iterations = max(0, end - start)
    if statement.bound is not None and iterations > statement.bound:
        failure = Failure(
            "BoundExceeded",
            f"the loop runs {iterations} times, more than its bound {statement.bound}",
        )
        failure.locate(origin_of(frame.instance, statement))
        raise failure
    for counter in range(start, start + iterations):
        interpreter.tick()
        frame.scopes.append({})
        if statement.variable is not None:
            frame.bind(statement.variable, (counter % P,))
        try:
            frame_block(interpreter, frame, statement.body, new_scope=False)
        finally:
            frame.scopes.pop()


def _parts(value: tuple, type_) -> list[tuple]:
    """Split a tuple or digest value into its elements."""
    if isinstance(type_, TupleType):
        parts, offset = [], 0
        for element in type_.elements:
            parts.append(value[offset : offset + width(element)])
            offset += width(element)
        return parts
    return [(word,) for word in value]  # a Digest: five Field elements


def _bind_pattern(frame: _Frame, pattern, value: tuple, type_) -> None:
    match pattern:
        case ast.PatternName():
            frame.bind(pattern.name, value)
        case ast.PatternTuple():
            for name, part in zip(pattern.names, _parts(value, type_), strict=True):
                if name is not None:
                    frame.bind(name, part)


# --- builtins: each takes the state and the argument values (tuples) -----------------------------


def _take(queue: deque, count: int, kind: str, what: str) -> tuple:
    if len(queue) < count:
        raise Failure(kind, f"{what} needs {count} words, {len(queue)} left")
    return tuple(queue.popleft() for _ in range(count))


def _reader(count: int, secret: bool = False):
    kind, what = ("EmptySecretInput", "divine") if secret else ("EmptyPublicInput", "read_io")
    return lambda state: _take(state.secret if secret else state.public, count, kind, what)


def _write(state, *arguments) -> tuple:
    state.output.extend(word for argument in reversed(arguments) for word in argument)
    return ()


def _assert(state, condition) -> tuple:
    if condition[0] != 1:
        raise Failure("AssertionFailed", "assertion failed")
    return ()


def _assert_eq(state, a, b) -> tuple:
    if a != b:
        raise Failure("AssertionFailed", f"assert_eq failed: {a[0]} != {b[0]}", (a[0], b[0]))
    return ()


def _assert_digest(state, a, b) -> tuple:
    if a != b:
        raise Failure("VectorAssertionFailed", "assert_digest failed: the digests differ", a + b)
    return ()


def _inverse(state, a) -> tuple:
    if a[0] == 0:
        raise Failure("InverseOfZero", "inverse of 0")
    return (pow(a[0], P - 2, P),)


def _log2(state, a) -> tuple:
    if _u32(a[0], "log2 operand") == 0:
        raise Failure("LogarithmOfZero", "log2 of 0")
    return (a[0].bit_length() - 1,)


def _hash(state, *words) -> tuple:
    digest = tip5.hash10([word[0] for word in reversed(words)])
    return tuple(reversed(digest))


def _sponge(state, name: str) -> list[int]:
    if state.sponge is None:
        raise Failure("SpongeNotInitialized", f"{name} before sponge_init")
    return state.sponge


def _sponge_init(state) -> tuple:
    state.sponge = [0] * 16
    return ()


def _sponge_absorb(state, *words) -> tuple:
    sponge = _sponge(state, "sponge_absorb")
    state.sponge = list(tip5.permutation([word[0] for word in reversed(words)] + sponge[10:]))
    return ()


def _sponge_squeeze(state) -> tuple:
    sponge = _sponge(state, "sponge_squeeze")
    state.sponge = list(tip5.permutation(sponge))
    return tuple(sponge[9::-1])


def _sponge_absorb_mem(state, pointer) -> tuple:
    sponge = _sponge(state, "sponge_absorb_mem")
    words = [state.ram.get((pointer[0] + offset) % P, 0) for offset in range(10)]
    state.sponge = list(tip5.permutation(words + sponge[10:]))
    return ()


def _merkle_step(state, index, *digest) -> tuple:
    node = _u32(index[0], "merkle_step node index")
    if not state.digests:
        raise Failure("EmptySecretDigestInput", "merkle_step with no secret digest left")
    sibling = list(state.digests.popleft())
    current = [word[0] for word in reversed(digest)]
    pair = current + sibling if node % 2 == 0 else sibling + current
    return (node >> 1, *reversed(tip5.hash10(pair)))


def _ram_read_block(state, address) -> tuple:
    return tuple(state.ram.get((address[0] + 4 - i) % P, 0) for i in range(5))


def _ram_write_block(state, address, digest) -> tuple:
    for i, word in enumerate(digest):
        state.ram[(address[0] + 4 - i) % P] = word
    return ()


def _ram_write(state, address, value) -> tuple:
    state.ram[address[0]] = value[0]
    return ()


def _xinvert(state, value) -> tuple:
    element = (value[2], value[1], value[0])
    if element == xfield.ZERO:
        raise Failure("InverseOfZero", "xinvert of 0")
    inverse = xfield.inverse(element)
    return (inverse[2], inverse[1], inverse[0])


BUILTIN_SEMANTICS = {
    "pub_read": _reader(1),
    "pub_read2": _reader(2),
    "pub_read3": _reader(3),
    "pub_read4": _reader(4),
    "pub_read5": _reader(5),
    "pub_write": _write,
    "pub_write2": _write,
    "pub_write3": _write,
    "pub_write4": _write,
    "pub_write5": _write,
    "divine": _reader(1, True),
    "divine3": _reader(3, True),
    "divine5": _reader(5, True),
    "assert": _assert,
    "assert_eq": _assert_eq,
    "assert_digest": _assert_digest,
    "field_add": lambda state, a, b: ((a[0] + b[0]) % P,),
    "field_mul": lambda state, a, b: (a[0] * b[0] % P,),
    "sub": lambda state, a, b: ((a[0] - b[0]) % P,),
    "neg": lambda state, a: (-a[0] % P,),
    "inv": _inverse,
    "as_u32": lambda state, a: (_u32(a[0], "as_u32 of"),),
    "as_field": lambda state, a: a,
    "split": lambda state, a: (a[0] >> 32, a[0] & 0xFFFFFFFF),
    "log2": _log2,
    "pow": lambda state, base, exponent: (pow(base[0], _u32(exponent[0], "pow exponent"), P),),
    "popcount": lambda state, a: (_u32(a[0], "popcount operand").bit_count(),),
    "hash": _hash,
    "sponge_init": _sponge_init,
    "sponge_absorb": _sponge_absorb,
    "sponge_squeeze": _sponge_squeeze,
    "sponge_absorb_mem": _sponge_absorb_mem,
    "merkle_step": _merkle_step,
    "ram_read": lambda state, address: (state.ram.get(address[0], 0),),
    "ram_write": _ram_write,
    "ram_read_block": _ram_read_block,
    "ram_write_block": _ram_write_block,
    "xfield": lambda state, a, b, c: (a[0], b[0], c[0]),
    "xinvert": _xinvert,
}
assert set(BUILTIN_SEMANTICS) == set(BUILTINS), "every builtin needs reference semantics"
