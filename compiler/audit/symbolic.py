"""Symbolic execution of a checked function: its result and its failures as terms.

Input: a `Checked` program (compiler.check) and a function instance's key.  Output: a
`Trace` -- the result words, every way the call can fail (each a condition over the
inputs, the failure kind and the construct, as compiler.sourcemap names it), the facts
that hold of every input (ranges, what an inverse is) and the words read from input.

It follows compiler.evaluate (the reference evaluator) construct by construct, with
terms (compiler.audit.terms) for values: an `if` on a condition that is not known runs
both branches and merges the variables (`ite`); a `return` ends the path it is on (the
*live* condition); a `for` loop over known bounds is unrolled, one over a symbolic end
with a `bound` runs its bound of iterations, each under its own condition, and fails with
`BoundExceeded` past it; calls are inlined (so a callee's contracts, with
`--check-contracts`' wrappers, are its asserts).  RAM is a memory term (any word at
every address to begin with), each write conditional on the path it is on.  What it
does not model -- the sponge, Merkle steps, extension-field arithmetic, input read under
a condition -- is `Unsupported`, with the reason, never a guess.  The work is bounded
in steps (`DEFAULT_BUDGET`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from compiler.audit import terms as t
from compiler.builtins import BUILTINS
from compiler.check.bodies import ConstRef
from compiler.check.checker import Checked
from compiler.check.types import XFIELD, StructType, width
from compiler.evaluate import _parts  # a tuple value's elements, as the evaluator splits it
from compiler.failure_kinds import Kind
from compiler.sourcemap import Origin, origin_of
from compiler.syntax import ast
from vm import tip5
from vm.field import P

DEFAULT_BUDGET = 100_000  # statements, expressions and loop iterations unfolded
UNROLL_LIMIT = 4096  # iterations of one loop over known bounds


class Unsupported(Exception):
    """The function uses something the symbolic execution does not model."""


@dataclass(frozen=True)
class FailureCase:
    """One way the call fails: where `condition` holds (and no earlier failure struck)."""

    condition: object
    kind: str
    origin: Origin
    calls: tuple  # the calls it is inside, innermost first: Origins

    @property
    def contract(self) -> str | None:
        return self.origin.name if self.origin.construct == "contract" else None


@dataclass
class Trace:
    result: tuple
    failures: list[FailureCase]
    facts: list  # conditions that hold of every input
    inputs: list[tuple[str, bool]]  # every input word: (name, known to be a u32)
    reads: list  # the words read from public input, in order
    secret_reads: list
    outputs: list  # (condition, words) per write
    memory: tuple = t.INITIAL_MEMORY  # the RAM after the call


@dataclass
class _Activation:
    """One call being executed: its bindings (block scopes), the condition under which
    the current statement runs, and the returns seen so far."""

    instance: object
    scopes: list[dict]
    live: object = True
    returns: list = field(default_factory=list)  # (condition, value)

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


class Executor:
    """Runs function instances of one checked program on symbolic arguments."""

    def __init__(self, checked: Checked, budget: int = DEFAULT_BUDGET):
        self.checked = checked
        self.budget = budget
        self.steps = 0
        self.failures: list[FailureCase] = []
        self.facts: list = []
        self.inputs: list[tuple[str, bool]] = []
        self.reads: list = []
        self.secret_reads: list = []
        self.outputs: list = []
        self.calls: list[Origin] = []  # the call chain, outermost first
        self.memory = t.INITIAL_MEMORY  # every write is conditional on its path: no merging
        self.depth = 0

    # --- entry points ----------------------------------------------------------------------

    def fresh(self, name: str, u32: bool = False):
        word = ("input", name)
        self.inputs.append((name, u32))
        limit = t.U32_LIMIT if u32 else P
        self.facts.append(("lt", word, limit))
        return word

    def parameters(self, key: str, prefix: str = "") -> list[tuple]:
        """Fresh words for each parameter of the function: `name`, `name[1]`, ...; a U32
        or Bool is known to be a u32 (a Bool to be 0 or 1)."""
        values = []
        for name, type_ in self.checked.instances[key].params:
            size = width(type_)
            words = [
                self.fresh(f"{prefix}{name}" + (f"[{k}]" if size > 1 else ""), _is_u32(type_))
                for k in range(size)
            ]
            if str(type_) == "Bool":
                self.facts.append(t.less(words[0], 2))
            values.append(tuple(words))
        return values

    def trace(self, result: tuple) -> Trace:
        return Trace(
            result,
            self.failures,
            self.facts,
            self.inputs,
            self.reads,
            self.secret_reads,
            self.outputs,
            self.memory,
        )

    def call(self, key: str, arguments: list[tuple], live=True) -> tuple:
        instance = self.checked.instances[key]
        self.depth += 1
        if self.depth > 64:
            raise Unsupported("calls nest more than 64 deep")
        activation = _Activation(instance, [{}], live)
        for (name, _), value in zip(instance.params, arguments, strict=True):
            activation.scopes[-1][name] = value
        tail = self.block(activation, instance.body, new_scope=False)
        self.depth -= 1
        if not activation.returns:
            return tail if tail is not None else ()
        result = tail if tail is not None else activation.returns[-1][1]
        for condition, value in reversed(activation.returns):
            result = _merge(condition, value, result)
        return result

    # --- statements ------------------------------------------------------------------------

    def count(self, steps: int = 1) -> None:
        self.steps += steps
        if self.steps > self.budget:
            raise Unsupported(f"unfolding the function takes more than {self.budget} steps")

    def fail(self, activation: _Activation, bad, kind: str, node) -> None:
        condition = t.conjunction(activation.live, bad)
        if condition is not False:
            origin = origin_of(activation.instance, node)
            self.failures.append(FailureCase(condition, kind, origin, tuple(reversed(self.calls))))

    def block(self, activation: _Activation, block: ast.Block, new_scope: bool = True):
        if new_scope:
            activation.scopes.append({})
        value = None
        count = len(block.statements)
        for index, statement in enumerate(block.statements):
            if activation.live is False:
                value = None
                break
            value = self.statement(activation, statement, index == count - 1)
        if new_scope:
            activation.scopes.pop()
        return value

    def statement(self, activation: _Activation, statement, last: bool):
        self.count()
        match statement:
            case ast.Let():
                value = self.expr(activation, statement.value)
                self.bind(
                    activation, statement.pattern, activation.instance.types[statement.value], value
                )
                return None
            case ast.Assign():
                value = self.expr(activation, statement.value)
                target = statement.target
                targets = target.elements if isinstance(target, ast.TupleExpr) else [target]
                if len(targets) == 1:
                    activation.assign(targets[0].path, value)
                else:
                    type_ = activation.instance.types[statement.value]
                    for target, part in zip(targets, _parts(value, type_), strict=True):
                        activation.assign(target.path, part)
                return None
            case ast.If():
                return self.if_(activation, statement, last)
            case ast.For():
                self.for_(activation, statement)
                return None
            case ast.Return():
                value = () if statement.value is None else self.expr(activation, statement.value)
                activation.returns.append((activation.live, value))
                activation.live = False
                return None
            case ast.ExprStatement():
                value = self.expr(activation, statement.expr)
                return value if last else None
        raise Unsupported(f"a statement the audit does not model: {type(statement).__name__}")

    def bind(self, activation: _Activation, pattern, type_, value: tuple) -> None:
        match pattern:
            case ast.PatternName():
                activation.scopes[-1][pattern.name] = value
            case ast.PatternTuple():
                for name, part in zip(pattern.names, _parts(value, type_), strict=True):
                    if name is not None:
                        activation.scopes[-1][name] = part

    def if_(self, activation: _Activation, statement: ast.If, last: bool):
        condition = t.as_condition(self.expr(activation, statement.condition)[0])
        valued = last and statement in activation.instance.valued_ifs
        if isinstance(condition, bool):
            branch = statement.then_block if condition else statement.else_block
            value = None if branch is None else self.block(activation, branch)
            return value if valued else None
        before, scopes = activation.live, [dict(scope) for scope in activation.scopes]
        returns = len(activation.returns)
        activation.live = t.conjunction(before, condition)
        then_value = self.block(activation, statement.then_block)
        then_live, then_scopes = activation.live, activation.scopes
        activation.scopes = scopes
        activation.live = t.conjunction(before, t.negate(condition))
        else_value = None
        if statement.else_block is not None:
            else_value = self.block(activation, statement.else_block)
        for then_scope, scope in zip(then_scopes, activation.scopes, strict=True):
            for name, value in scope.items():
                scope[name] = _merge(condition, then_scope[name], value)
        if len(activation.returns) == returns:
            activation.live = before
        else:
            activation.live = t.disjunction(then_live, activation.live)
        if not valued:
            return None
        if then_value is None or else_value is None:  # one branch returned
            return then_value if else_value is None else else_value
        return _merge(condition, then_value, else_value)

    def for_(self, activation: _Activation, statement: ast.For) -> None:
        first = self.expr(activation, statement.start)[0]
        end = self.expr(activation, statement.end)[0]
        bound = statement.bound
        if isinstance(first, int) and isinstance(end, int):
            iterations = max(0, end - first)
            if bound is not None and iterations > bound:
                self.fail(activation, True, Kind.BOUND_EXCEEDED, statement)
                activation.live = False
                return
            if iterations > UNROLL_LIMIT:
                raise Unsupported(
                    f"a loop of {iterations} iterations (the audit unrolls {UNROLL_LIMIT})"
                )
            conditions = [True] * iterations
        else:
            if bound is None:
                raise Unsupported("a loop whose end is not known and that has no bound")
            if bound > UNROLL_LIMIT:
                raise Unsupported(f"a loop bound of {bound} (the audit unrolls {UNROLL_LIMIT})")
            self.fail(activation, ("runs", first, bound, end), Kind.BOUND_EXCEEDED, statement)
            conditions = [("runs", first, k, end) for k in range(bound)]
        activation.scopes.append({})
        for counter, condition in enumerate(conditions):
            self.count()
            if statement.variable is not None:
                activation.scopes[-1][statement.variable] = (t.add(first, counter),)
            if condition is True:
                self.block(activation, statement.body, new_scope=False)
                continue
            before, scopes = activation.live, [dict(scope) for scope in activation.scopes]
            returns = len(activation.returns)
            activation.live = t.conjunction(before, condition)
            self.block(activation, statement.body, new_scope=False)
            inside = activation.live
            for new_scope, scope in zip(activation.scopes, scopes, strict=True):
                for name, value in scope.items():
                    scope[name] = _merge(condition, new_scope.get(name, value), value)
            activation.scopes = scopes
            activation.live = (
                before
                if len(activation.returns) == returns
                else t.disjunction(inside, t.conjunction(before, t.negate(condition)))
            )
        activation.scopes.pop()

    # --- expressions -----------------------------------------------------------------------

    def expr(self, activation: _Activation, expr) -> tuple:
        self.count()
        instance = activation.instance
        match expr:
            case ast.IntLiteral() | ast.BoolLiteral():
                return (int(expr.value) % P,)
            case ast.Var():
                reference = instance.variables[expr]
                if isinstance(reference, ConstRef):
                    return (reference.value % P,)
                value = activation.lookup(reference.name)
                return value[reference.offset : reference.offset + width(reference.type)]
            case ast.Binary():
                return self.binary(activation, expr)
            case ast.Call():
                return self.call_expr(activation, expr)
            case ast.TupleExpr() | ast.ArrayExpr():
                return tuple(w for e in expr.elements for w in self.expr(activation, e))
            case ast.Index():
                return self.index(activation, expr)
            case ast.Inlined():  # compiler.optimize.inline_source: the callee's body, in place
                return self.inlined(activation, expr)
            case ast.StructLiteral():
                struct: StructType = instance.types[expr]
                computed = {name: self.expr(activation, value) for name, value in expr.fields}
                return tuple(w for name, _ in struct.fields for w in computed[name])
        raise Unsupported(f"an expression the audit does not model: {type(expr).__name__}")

    def inlined(self, activation: _Activation, expr: ast.Inlined) -> tuple:
        """An inlined body: a `return` in it (its last statement) gives its value."""
        outer_returns, live = activation.returns, activation.live
        activation.returns = []
        value = self.block(activation, expr.body)
        returns, activation.returns = activation.returns, outer_returns
        if not returns:
            return () if value is None else value
        activation.live = live
        result = value if value is not None else returns[-1][1]
        for condition, returned in reversed(returns):
            result = _merge(condition, returned, result)
        return result

    def u32_operand(self, activation: _Activation, word, node):
        self.fail(activation, t.negate(t.less(word, t.U32_LIMIT)), Kind.FAILED_U32_CONVERSION, node)
        return word

    def binary(self, activation: _Activation, expr: ast.Binary) -> tuple:
        if activation.instance.types[expr.left] == XFIELD:
            raise Unsupported("extension-field arithmetic")
        a = self.expr(activation, expr.left)[0]
        b = self.expr(activation, expr.right)[0]
        match expr.operator:
            case "+":
                return (t.add(a, b),)
            case "*":
                return (t.mul(a, b),)
            case "==":
                return (t.as_word(t.equal(a, b)),)
        a = self.u32_operand(activation, a, expr)
        b = self.u32_operand(activation, b, expr)
        match expr.operator:
            case "<":
                return (t.as_word(t.less(a, b)),)
            case "&":
                return (t.u32_function("and", a, b),)
            case "^":
                return (t.u32_function("xor", a, b),)
            case "/%":
                self.fail(activation, t.equal(b, 0), Kind.DIVISION_BY_ZERO, expr)
                return (t.u32_function("quotient", a, b), t.u32_function("remainder", a, b))
        raise Unsupported(f"the operator '{expr.operator}'")

    def index(self, activation: _Activation, expr: ast.Index) -> tuple:
        words = self.expr(activation, expr.base)
        at = self.expr(activation, expr.index)[0]
        array = activation.instance.types[expr.base]
        size = width(array.element)
        if isinstance(at, int):
            if at >= array.length:
                self.fail(activation, True, Kind.INDEX_OUT_OF_BOUNDS, expr)
                activation.live = False
                return (0,) * size
            return words[at * size : (at + 1) * size]
        self.fail(activation, t.negate(t.less(at, array.length)), Kind.INDEX_OUT_OF_BOUNDS, expr)
        value = words[(array.length - 1) * size :]
        for position in reversed(range(array.length - 1)):
            chosen = words[position * size : (position + 1) * size]
            value = _merge(t.equal(at, position), chosen, value)
        return value

    def call_expr(self, activation: _Activation, expr: ast.Call) -> tuple:
        instance = activation.instance
        target = instance.calls[expr]
        arguments = [self.expr(activation, argument) for argument in expr.arguments]
        if isinstance(target, str):  # one of the program's functions
            self.calls.append(origin_of(instance, expr))
            value = self.call(target, arguments, activation.live)
            self.calls.pop()
            return value
        value = self.builtin(activation, expr, target.name, arguments)
        if target != BUILTINS[target.name]:  # a declaration narrowed its result
            value = value[-width(target.result) :]
        return value

    def builtin(self, activation: _Activation, node, name: str, arguments: list[tuple]) -> tuple:
        words = [argument[0] for argument in arguments if len(argument) == 1]
        match name:
            case (
                "pub_read"
                | "pub_read2"
                | "pub_read3"
                | "pub_read4"
                | "pub_read5"
                | "divine"
                | "divine3"
                | "divine5"
            ):
                return self.read(activation, name)
            case "pub_write" | "pub_write2" | "pub_write3" | "pub_write4" | "pub_write5":
                written = tuple(w for argument in reversed(arguments) for w in argument)
                self.outputs.append((activation.live, written))
                return ()
            case "assert":
                self.fail(activation, t.negate(t.equal(words[0], 1)), Kind.ASSERTION_FAILED, node)
                return ()
            case "assert_eq":
                self.fail(
                    activation, t.negate(t.equal(words[0], words[1])), Kind.ASSERTION_FAILED, node
                )
                return ()
            case "assert_digest":
                a, b = arguments
                differ = t.disjunction(
                    *(t.negate(t.equal(x, y)) for x, y in zip(a, b, strict=True))
                )
                self.fail(activation, differ, Kind.VECTOR_ASSERTION_FAILED, node)
                return ()
            case "field_add":
                return (t.add(*words),)
            case "field_mul":
                return (t.mul(*words),)
            case "sub":
                return (t.sub(*words),)
            case "neg":
                return (t.neg(words[0]),)
            case "inv":
                (a,) = words
                self.fail(activation, t.equal(a, 0), Kind.INVERSE_OF_ZERO, node)
                if isinstance(a, int):
                    return (pow(a, P - 2, P) if a else 0,)
                return (("inverse", a),)
            case "as_u32":
                return (self.u32_operand(activation, words[0], node),)
            case "as_field":
                return arguments[0]
            case "split":
                return (t.u32_function("high", words[0]), t.u32_function("low", words[0]))
            case "log2":
                a = self.u32_operand(activation, words[0], node)
                self.fail(activation, t.equal(a, 0), Kind.LOGARITHM_OF_ZERO, node)
                return (t.u32_function("log2", a),)
            case "pow":
                base, exponent = words
                self.u32_operand(activation, exponent, node)
                return (t.u32_function("pow", base, exponent),)
            case "popcount":
                return (t.u32_function("popcount", self.u32_operand(activation, words[0], node)),)
            case "hash":
                ins = tuple(w[0] for w in reversed(arguments))
                if all(isinstance(w, int) for w in ins):
                    return tuple(reversed(tip5.hash10(list(ins))))
                return tuple(("hash", k, ins) for k in reversed(range(tip5.DIGEST_LENGTH)))
            case "ram_read":
                return (t.select(self.memory, words[0]),)
            case "ram_write":
                self.memory = t.store(self.memory, words[0], words[1], activation.live)
                return ()
            case "ram_read_block":  # element i at address + 4 - i
                return tuple(t.select(self.memory, t.add(words[0], 4 - i)) for i in range(5))
            case "ram_write_block":
                address, digest = arguments[0][0], arguments[1]
                for i, word in enumerate(digest):
                    self.memory = t.store(self.memory, t.add(address, 4 - i), word, activation.live)
                return ()
            case "xfield":
                raise Unsupported("extension-field values")
        raise Unsupported(f"the builtin {name} (the sponge and extension fields are not modelled)")

    def read(self, activation: _Activation, name: str) -> tuple:
        if activation.live is not True:
            raise Unsupported("input read under a condition")
        count = int(name[-1]) if name[-1].isdigit() else 1
        secret = name.startswith("divine")
        stream = self.secret_reads if secret else self.reads
        words = []
        for _ in range(count):
            words.append(self.fresh(f"{'secret' if secret else 'input'}#{len(stream)}"))
            stream.append(words[-1])
        return tuple(words)


def _is_u32(type_) -> bool:
    return str(type_) in ("U32", "Bool")


def _merge(condition, a: tuple, b: tuple) -> tuple:
    return tuple(t.ite(condition, x, y) for x, y in zip(a, b, strict=True))
