"""Bindings and liveness of one checked function: `analyze(instance) -> Analysis`.

The checker resolves names to (name, offset, type); the builder needs to know
*which binding* a name denotes (shadowing makes names ambiguous) and whether
the binding is still needed afterwards.  `analyze` walks the body with the
checker's scope rules, creates one `Binding` per parameter, `let` name and
loop variable, and runs a backward liveness pass over the statements and, in
evaluation order, over the expressions inside them (loops to a fixpoint).

Results: for each variable read whether it is the binding's last use (the
builder then moves the value instead of copying it) and whether it is the last
use of the words it reads (a field whose struct's other fields are read later:
those words are moved, the rest stays; a second pass over (binding, offset)
pairs), the bindings live before and after each statement, the bindings indexed
at run time (kept in RAM), and whether the function returns early (then the
builder adds a continue flag).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from compiler.builtins import BUILTINS, Builtin
from compiler.check.bodies import ConstRef, LocalRef
from compiler.check.types import Type, width
from compiler.syntax import ast
from compiler.tir.walk import statements


@dataclass(eq=False)
class Binding:
    """One variable: a parameter, a `let` name or a loop variable."""

    name: str
    type: Type
    mutable: bool = False

    @property
    def width(self) -> int:
        return width(self.type)

    def __repr__(self) -> str:
        return f"<{self.name}>"


@dataclass
class Analysis:
    params: list[Binding]
    reads: dict = field(default_factory=dict)  # ast.Var -> Binding
    targets: dict = field(default_factory=dict)  # assignment target ast.Var -> Binding
    lets: dict = field(default_factory=dict)  # ast.Let -> [Binding | None]
    loop_variables: dict = field(default_factory=dict)  # ast.For -> Binding | None
    last_use: set = field(default_factory=set)  # ast.Var reads after which the binding is dead
    words_last_use: set = field(default_factory=set)  # reads after which their words are dead
    live_before: dict = field(default_factory=dict)  # statement -> frozenset[Binding]
    live_after: dict = field(default_factory=dict)  # statement -> frozenset[Binding]
    indexed: set = field(default_factory=set)  # bindings indexed with a run-time index
    early_return: bool = False  # a `return` other than the body's last statement
    numbers: dict = field(default_factory=dict)  # statement -> pre-order number
    uses: dict = field(default_factory=dict)  # Binding -> numbers of statements reading it
    loop_spans: dict = field(default_factory=dict)  # ast.For -> (first, last) body numbers

    def distance(self, binding, position: int, loops: list) -> int:
        """Statements from `position` to the next read of `binding` (reads later in an
        enclosing loop count from its next iteration); a large number when none."""
        reads = self.uses.get(binding, ())
        best = 1 << 30
        for read in reads:
            if read >= position:
                best = min(best, read - position)
        for first, last in loops:
            for read in reads:
                if first <= read < position:
                    best = min(best, last - position + read - first + 1)
        return best

    def is_last_use(self, var: ast.Var) -> bool:
        return var in self.last_use

    def is_words_last_use(self, var: ast.Var) -> bool:
        """No word this read takes (a field, an element) is read again, although other
        words of the binding may be: the words can be moved."""
        return var in self.words_last_use


def analyze(instance, pure: frozenset[str] = frozenset()) -> Analysis:
    """Bindings and liveness of `instance`; `pure` = keys of effect-free instances."""
    resolver = _Resolver(instance)
    resolver.run()
    analysis = resolver.analysis
    order = Order(instance, pure)
    _Liveness(instance, analysis, order).run()
    _WordLiveness(instance, analysis, order).run()
    return analysis


# Builtins whose effects may not be reordered with other effects (RAM reads may).
WRITING = frozenset(name for name, builtin in BUILTINS.items() if builtin.touches_state) - {
    "ram_read",
    "ram_read_block",
}


class Order:
    """The order in which the builder evaluates operands (shared with liveness).

    Operands are evaluated left to right, except for `<`, `/%` and the builtins
    whose TASM starts with `swap 1` (`pow`, `ram_write`): when both operands
    are effect-free, the right one is evaluated first, so that no `swap 1` is
    needed.  Effect-free: no calls that change state (I/O,
    secret input, RAM writes, sponge) directly or through a user function.
    """

    def __init__(self, instance, pure: frozenset[str]):
        self.instance = instance
        self.pure = pure

    def swapped(self, expr) -> bool:
        match expr:
            case ast.Binary(operator="<" | "/%"):
                return self.effect_free(expr.left) and self.effect_free(expr.right)
            case ast.Call():
                target = self.instance.calls.get(expr)
                return (
                    isinstance(target, Builtin)
                    and len(expr.arguments) == 2
                    and target.tasm[:1] == ("swap 1",)
                    and all(self.effect_free(a) for a in expr.arguments)
                )
        return False

    def operands(self, expr) -> list:
        """The sub-expressions of `expr` in evaluation order."""
        match expr:
            case ast.Binary():
                parts = [expr.left, expr.right]
            case ast.Call():
                parts = list(expr.arguments)
            case ast.TupleExpr() | ast.ArrayExpr():
                return list(expr.elements)
            case ast.Index():
                return [expr.base, expr.index]
            case ast.StructLiteral():
                return [value for _, value in self.struct_fields(expr)]
            case _:
                return []
        return parts[::-1] if self.swapped(expr) else parts

    def struct_fields(self, expr: ast.StructLiteral) -> list:
        """(name, value) in evaluation order: declaration order when that cannot be told
        apart from source order (all values effect-free), else source order."""
        values = dict(expr.fields)
        if all(self.effect_free(value) for value in values.values()):
            return [(name, values[name]) for name, _ in self.instance.types[expr].fields]
        return list(expr.fields)

    def effect_free(self, expr) -> bool:
        if isinstance(expr, ast.Inlined):
            return expr.callee in self.pure
        if isinstance(expr, ast.Call):
            target = self.instance.calls.get(expr)
            if isinstance(target, Builtin):
                if target.name in WRITING:
                    return False
            elif target not in self.pure:
                return False
        return all(self.effect_free(part) for part in self.operands(expr))


def effect_free_instances(checked) -> frozenset[str]:
    """Keys of the function instances that change no state, directly or through calls."""
    impure: set[str] = set()
    changed = True
    while changed:
        changed = False
        for key, instance in checked.instances.items():
            if key in impure:
                continue
            for target in instance.calls.values():
                if (isinstance(target, Builtin) and target.name in WRITING) or (
                    isinstance(target, str) and target in impure
                ):
                    impure.add(key)
                    changed = True
                    break
    return frozenset(checked.instances) - impure


class _Resolver:
    def __init__(self, instance):
        self.instance = instance
        params = [Binding(name, type_) for name, type_ in instance.params]
        self.analysis = Analysis(params)
        self.scopes: list[dict[str, Binding]] = [{b.name: b for b in params}]
        self.current = 0

    def lookup(self, name: str) -> Binding:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        raise AssertionError(f"unresolved local {name}")

    def run(self) -> None:
        body = self.instance.body
        self.block(body)
        self.analysis.early_return = any(
            isinstance(s, ast.Return) for s in statements(body)
        ) and not _only_final_return(body)

    def block(self, block: ast.Block, new_scope: bool = True) -> None:
        if new_scope:
            self.scopes.append({})
        for statement in block.statements:
            self.statement(statement)
        if new_scope:
            self.scopes.pop()

    def statement(self, statement) -> None:
        self.current = len(self.analysis.numbers)
        self.analysis.numbers[statement] = self.current
        match statement:
            case ast.Let():
                self.expr(statement.value)
                pattern = statement.pattern
                value_type = self.instance.types[statement.value]
                if isinstance(pattern, ast.PatternName):
                    bindings = [Binding(pattern.name, value_type, statement.mutable)]
                elif isinstance(pattern, ast.PatternWild):
                    bindings = [None]
                else:
                    bindings = [
                        None if name is None else Binding(name, part, statement.mutable)
                        for name, part in zip(pattern.names, element_types(value_type), strict=True)
                    ]
                for binding in bindings:
                    if binding is not None:
                        self.scopes[-1][binding.name] = binding
                self.analysis.lets[statement] = bindings
            case ast.Assign():
                self.expr(statement.value)
                targets = (
                    statement.target.elements
                    if isinstance(statement.target, ast.TupleExpr)
                    else [statement.target]
                )
                for target in targets:
                    self.analysis.targets[target] = self.lookup(target.path)
            case ast.If():
                self.expr(statement.condition)
                self.block(statement.then_block)
                if statement.else_block is not None:
                    self.block(statement.else_block)
            case ast.For():
                self.expr(statement.start)
                self.expr(statement.end)
                self.scopes.append({})
                binding = None
                if statement.variable is not None:
                    from compiler.check.types import U32

                    binding = Binding(statement.variable, U32)
                    self.scopes[-1][binding.name] = binding
                self.analysis.loop_variables[statement] = binding
                first = len(self.analysis.numbers)
                self.block(statement.body, new_scope=False)
                self.analysis.loop_spans[statement] = (first, len(self.analysis.numbers) - 1)
                self.scopes.pop()
            case ast.Return():
                if statement.value is not None:
                    self.expr(statement.value)
            case ast.ExprStatement():
                self.expr(statement.expr)
            case _:
                raise AssertionError(f"unsupported statement {statement!r}")

    def expr(self, expr) -> None:
        match expr:
            case ast.Var():
                reference = self.instance.variables.get(expr)
                if isinstance(reference, LocalRef):
                    binding = self.lookup(reference.name)
                    self.analysis.reads[expr] = binding
                    self.analysis.uses.setdefault(binding, []).append(self.current)
            case ast.Call():
                for argument in expr.arguments:
                    self.expr(argument)
            case ast.Binary():
                self.expr(expr.left)
                self.expr(expr.right)
            case ast.TupleExpr() | ast.ArrayExpr():
                for element in expr.elements:
                    self.expr(element)
            case ast.Index():
                self.expr(expr.base)
                self.expr(expr.index)
                if not self.constant(expr.index) and isinstance(expr.base, ast.Var):
                    binding = self.analysis.reads.get(expr.base)
                    if binding is not None:
                        self.analysis.indexed.add(binding)
            case ast.StructLiteral():
                for _, value in expr.fields:
                    self.expr(value)
            case ast.Inlined():
                current = self.current
                self.block(expr.body)
                self.current = current

    def constant(self, expr) -> bool:
        return isinstance(expr, ast.IntLiteral) or isinstance(
            self.instance.variables.get(expr), ConstRef
        )


def element_types(value_type) -> list:
    """The parts a tuple pattern binds: a tuple's elements, or a Digest's 5 Fields."""
    from compiler.check.types import FIELD, TupleType

    if isinstance(value_type, TupleType):
        return list(value_type.elements)
    return [FIELD] * 5


def _only_final_return(body: ast.Block) -> bool:
    returns = [s for s in statements(body) if isinstance(s, ast.Return)]
    return returns == [body.statements[-1]] if body.statements else not returns


class _Liveness:
    """Backward liveness; records last uses and per-statement live sets."""

    def __init__(self, instance, analysis: Analysis, order: Order):
        self.instance = instance
        self.analysis = analysis
        self.order = order

    def run(self) -> None:
        self.block(self.instance.body, frozenset())

    def block(self, block: ast.Block, live_out: frozenset) -> frozenset:
        live = live_out
        for statement in reversed(block.statements):
            self.analysis.live_after[statement] = live
            live = self.statement(statement, live)
            self.analysis.live_before[statement] = live
        return live

    def statement(self, statement, out: frozenset) -> frozenset:
        analysis = self.analysis
        match statement:
            case ast.Let():
                defined = {b for b in analysis.lets[statement] if b is not None}
                return self.expr(statement.value, set(out - defined))
            case ast.Assign():
                targets = (
                    statement.target.elements
                    if isinstance(statement.target, ast.TupleExpr)
                    else [statement.target]
                )
                assigned = {analysis.targets[t] for t in targets}
                return self.expr(statement.value, set(out - assigned))
            case ast.If():
                then_in = self.block(statement.then_block, out)
                else_in = (
                    self.block(statement.else_block, out)
                    if statement.else_block is not None
                    else out
                )
                return self.expr(statement.condition, set(then_in | else_in))
            case ast.For():
                variable = analysis.loop_variables[statement]
                body_in = frozenset()
                while True:
                    body_out = out | body_in
                    new_in = self.block(statement.body, body_out) - {variable}
                    if new_in == body_in:
                        break
                    body_in = new_in
                live = set(out | body_in)
                live = self.expr(statement.end, live)
                return self.expr(statement.start, set(live))
            case ast.Return():
                if statement.value is None:
                    return frozenset()
                return self.expr(statement.value, set())
            case ast.ExprStatement():
                return self.expr(statement.expr, set(out))
        raise AssertionError(f"unsupported statement {statement!r}")

    def expr(self, expr, live: set) -> frozenset:
        """Live before `expr`, given `live` after it (mutated)."""
        self._expr(expr, live)
        return frozenset(live)

    def _expr(self, expr, live: set) -> None:
        match expr:
            case ast.Var():
                binding = self.analysis.reads.get(expr)
                if binding is not None:
                    if binding in live:
                        self.analysis.last_use.discard(expr)
                    else:
                        self.analysis.last_use.add(expr)
                        live.add(binding)
            case ast.Inlined():
                inside = self.block(expr.body, frozenset(live))
                live.clear()
                live.update(inside)
            case _:
                for part in reversed(self.order.operands(expr)):
                    self._expr(part, live)


class _WordLiveness(_Liveness):
    """The same backward pass over words, (binding, offset) pairs instead of bindings: records
    the reads after which none of the words they take is read again
    (`Analysis.words_last_use`); the per-statement live sets stay the bindings'."""

    def block(self, block: ast.Block, live_out: frozenset) -> frozenset:
        live = live_out
        for statement in reversed(block.statements):
            live = self.statement(statement, live)
        return live

    def statement(self, statement, out: frozenset) -> frozenset:
        analysis = self.analysis
        match statement:
            case ast.Let():
                defined = _words(b for b in analysis.lets[statement] if b is not None)
                return self.expr(statement.value, set(out - defined))
            case ast.Assign():
                targets = (
                    statement.target.elements
                    if isinstance(statement.target, ast.TupleExpr)
                    else [statement.target]
                )
                assigned = _words(analysis.targets[t] for t in targets)
                return self.expr(statement.value, set(out - assigned))
            case ast.For():
                variable = _words(
                    [analysis.loop_variables[statement]]
                    if analysis.loop_variables[statement]
                    else []
                )
                body_in = frozenset()
                while True:
                    new_in = self.block(statement.body, out | body_in) - variable
                    if new_in == body_in:
                        break
                    body_in = new_in
                live = self.expr(statement.end, set(out | body_in))
                return self.expr(statement.start, set(live))
        return super().statement(statement, out)

    def _expr(self, expr, live: set) -> None:
        if not isinstance(expr, ast.Var):
            super()._expr(expr, live)
            return
        binding = self.analysis.reads.get(expr)
        reference = self.instance.variables.get(expr)
        if binding is None or not isinstance(reference, LocalRef):
            return
        words = {(binding, reference.offset + i) for i in range(width(reference.type))}
        if words & live:
            self.analysis.words_last_use.discard(expr)
        else:
            self.analysis.words_last_use.add(expr)
        live |= words  # every word it takes is live before it, not only when none was


def _words(bindings) -> frozenset:
    return frozenset((b, i) for b in bindings for i in range(b.width))
