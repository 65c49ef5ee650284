"""Inlining and constant specialization of calls: a checked program -> a checked program.

`inline_calls(checked) -> Inlined` replaces calls of user functions, in the function instances
the back end builds, by a copy of the callee's body (an `ast.Inlined` expression: the callee's
statements in a scope of their own, the last one giving the value), and calls whose arguments
include constants by calls of a copy of the callee specialized to them.  The builder then sees
the whole function: arguments that are dead after the call are consumed where they stand,
results are left where the caller needs them, and constants fold through the callee's body
(compiler.tir.constants), `if`s on them included (only the arm taken is built).

Which calls (the cost rule; sizes are instructions of the callee's own TIR, lowered,
branch and loop blocks included, without its `return`):

* a callee called from one site only, in the code reachable from any one root (`main`, or
  each public function of a module built alone, since a module's functions are entered on
  their own): always -- the callee's code moves to its one use, so the code reachable from
  the root does not grow, and each call saves its `call` and `return` and the argument moves;
* a callee of at most `SMALL` instructions: at every site, since each site then grows by at
  most `SMALL` - 3 words (the `call` is two) and each execution saves at least two cycles;
* a call with constant arguments (one-word literals, `const`s and what folds from them,
  compiler.tir.constants) of a callee that is not inlined: a copy of the callee whose body
  first binds those parameters to the constants is called instead, when it is smaller than
  the callee (the constants removed code), and inlined when it is small.

The arguments: a parameter bound to a plain variable (or a field of one) reads the caller's
variable directly, unless the callee indexes it at run time; every other argument is bound by
a `let` to a fresh name, evaluated where the call was (left to right, as a call does), so
constants become names without a stack slot.  Every name of the callee's body is renamed
(`x'3`) so that nothing it binds can capture a caller's name.  A callee whose body has a
`return` before its last statement is never inlined.  Nodes copied from a callee carry the
call's span, and where they were written as their `source_origin` (failures are reported
there).

Decisions are recorded per caller (`Inlined.decisions`), for `tri build --report`.  The
reference evaluator never sees this pass: it runs the checked program as written.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from compiler.check.bodies import LocalRef
from compiler.check.checker import Checked
from compiler.check.types import BOOL, width
from compiler.syntax import ast
from compiler.tir.builder import FunctionBuilder, reachable
from compiler.tir.constants import fold
from compiler.tir.liveness import analyze, effect_free_instances
from compiler.tir.stack import Allocator, CompileLimit
from compiler.tir.walk import lowered_size, statement_expressions, statements, subexpressions

SMALL = 8  # instructions: a callee this small is inlined at every call site
UNBUILDABLE = 1 << 30  # the size of a function the builder cannot compile
TABLES = ("types", "variables", "calls", "valued_ifs")


@dataclass(frozen=True)
class Decision:
    """What happened to one call site of `caller`."""

    caller: str
    callee: str
    kind: str  # "inlined" or "specialized"
    constants: tuple[tuple[str, int], ...] = ()  # specialized: (parameter, value)

    def __str__(self) -> str:
        if self.kind == "inlined":
            return f"inlined {self.callee}"
        bound = ", ".join(f"{name} = {value}" for name, value in self.constants)
        return f"specialized {self.callee} to {bound}"


@dataclass
class Inlined(Checked):
    """A checked program after inlining, with the decisions made per caller."""

    decisions: tuple[Decision, ...] = field(default=())


def inline_calls(checked: Checked, small: int = SMALL) -> Inlined:
    """`checked` with calls inlined or specialized by the cost rule above."""
    return _Inliner(checked, small).run()


class _Inliner:
    def __init__(self, checked: Checked, small: int):
        self.checked = checked
        self.small = small
        self.instances = dict(checked.instances)
        self.roots = [checked.entry] if checked.entry is not None else list(checked.exported)
        self.pure = set(effect_free_instances(checked))
        self.sites = _sites(checked, self.roots)
        self.sizes: dict[str, int] = {}
        self.decisions: list[Decision] = []
        self.specialized: dict[tuple, str] = {}  # (callee, constants) -> instance key
        self.fresh = 0

    def view(self) -> Checked:
        checked = self.checked
        return Checked(
            checked.project, self.instances, checked.entry, checked.exported, checked.diagnostics
        )

    def run(self) -> Inlined:
        if not self.roots:
            return self.result()
        for key in _bottom_up(self.checked, self.roots):
            original = self.instances[key]
            marker = len(self.decisions)
            rewritten = _Caller(self, original).rewrite()
            if rewritten is not original:
                self.instances[key] = rewritten
                size = self.size(rewritten)
                if size == UNBUILDABLE:  # inlining made it too big to build: keep the calls
                    self.instances[key] = original
                    del self.decisions[marker:]
        return self.result()

    def result(self) -> Inlined:
        checked = self.view()
        fields = {name: getattr(checked, name) for name in Checked.__dataclass_fields__}
        return Inlined(**fields, decisions=tuple(self.decisions))

    def size(self, instance) -> int:
        """Instructions of the instance's TIR, lowered (its `return` not counted)."""
        if instance.key not in self.sizes or self.instances.get(instance.key) is not instance:
            try:
                view = self.view()
                built = FunctionBuilder(view, instance, self.pure, Allocator(), measuring=True)
                built = built.build()
                self.sizes[instance.key] = lowered_size(built.body) - 1
            except CompileLimit:
                self.sizes[instance.key] = UNBUILDABLE
        return self.sizes[instance.key]

    def name(self, base: str) -> str:
        self.fresh += 1
        return f"{base}'{self.fresh}"


class _Caller:
    """Rewrites the calls of one instance, in a copy of its body and tables."""

    def __init__(self, inliner: _Inliner, instance):
        self.inliner = inliner
        self.instance = instance
        self.changed = False

    def rewrite(self):
        instance = self.instance
        if not any(isinstance(target, str) for target in instance.calls.values()):
            return instance  # no call to a function of the program: nothing to rewrite
        memo: dict = {}
        self.body = ast.copy_tree(instance.body, memo)
        self.tables = {name: _copied(getattr(instance, name), memo) for name in TABLES}
        self.constants = _known_constants(self.copy_instance())
        for statement in list(statements(self.body)):
            self.statement(statement)
        if not self.changed:
            return instance
        return self.copy_instance()

    def copy_instance(self):
        return replace(self.instance, body=self.body, **self.tables)

    def statement(self, statement) -> None:
        match statement:
            case ast.Let() | ast.Assign():
                statement.value = self.expr(statement.value)
            case ast.If():
                statement.condition = self.expr(statement.condition)
            case ast.For():
                statement.start = self.expr(statement.start)
                statement.end = self.expr(statement.end)
            case ast.Return() if statement.value is not None:
                statement.value = self.expr(statement.value)
            case ast.ExprStatement():
                statement.expr = self.expr(statement.expr)

    def expr(self, expr):
        match expr:
            case ast.Binary():
                expr.left, expr.right = self.expr(expr.left), self.expr(expr.right)
            case ast.Call():
                expr.arguments = [self.expr(argument) for argument in expr.arguments]
                target = self.tables["calls"].get(expr)
                if isinstance(target, str):
                    return self.call(expr, target)
            case ast.TupleExpr() | ast.ArrayExpr():
                expr.elements = [self.expr(element) for element in expr.elements]
            case ast.Index():
                expr.base, expr.index = self.expr(expr.base), self.expr(expr.index)
            case ast.StructLiteral():
                expr.fields = [(name, self.expr(value)) for name, value in expr.fields]
        return expr

    # --- one call site -------------------------------------------------------------------------
    def call(self, call: ast.Call, target: str):
        inliner = self.inliner
        callee = inliner.instances[target]
        if not inlinable(callee):
            return call
        size = inliner.size(callee)
        if size == UNBUILDABLE:
            return call
        if inliner.sites.get(target, 0) <= 1 or size <= inliner.small:
            return self.inline(call, callee)
        specialized = self.specialize(call, callee, size)
        if specialized is None:
            return call
        instance, constants = specialized
        bound = dict(constants)
        kept = [
            argument
            for argument, (name, _) in zip(call.arguments, callee.params, strict=True)
            if name not in bound
        ]
        self.record("specialized", callee.key, constants)
        if inliner.size(instance) <= inliner.small:
            reduced = ast.Call(call.callee, call.size_arguments, kept, call.span)
            self.tables["types"][reduced] = self.tables["types"].get(call, instance.result)
            return self.inline(reduced, instance)
        call.arguments = kept
        self.tables["calls"][call] = instance.key
        return call

    def record(self, kind: str, callee: str, constants=()) -> None:
        self.inliner.decisions.append(Decision(self.instance.key, callee, kind, tuple(constants)))
        self.changed = True

    def inline(self, call: ast.Call, callee, record: bool = True) -> ast.Inlined:
        """The callee's body in place of `call` (its arguments bound as described above)."""
        inliner = self.inliner
        memo: dict = {}
        body = ast.copy_tree(callee.body, memo)
        _keep_origins(body, callee.path)
        tables = {name: _copied(getattr(callee, name), memo) for name in TABLES}
        indexed = _indexed_parameters(callee)
        renamed = {name: inliner.name(name) for name in _bound_names(callee, body)}
        aliases, lets = {}, []
        for argument, (name, _) in zip(call.arguments, callee.params, strict=True):
            reference = self.tables["variables"].get(argument)
            if isinstance(reference, LocalRef) and name not in indexed:
                aliases[name] = (argument.path, reference)
                continue
            pattern = ast.PatternName(renamed[name], call.span)
            _keep_spans(argument)  # the caller's own code, which `_respan` moves
            lets.append(ast.Let(False, pattern, None, argument, call.span))
        _rename(body, tables["variables"], renamed, aliases)
        statements_ = list(body.statements)
        if statements_ and isinstance(statements_[-1], ast.Return):
            last = statements_.pop()
            if last.value is not None:
                statements_.append(ast.ExprStatement(last.value, last.span))
        block = ast.Block([*lets, *statements_], call.span)
        # a call that is itself an inlined call's argument has its own place (`kept_span`):
        # the call site its body's failures name
        _respan(block, call.span, getattr(call, "kept_span", None))
        inlined = ast.Inlined(callee.key, block, call.span)
        for name in TABLES:
            self.tables[name].update(tables[name])
        self.tables["calls"].pop(call, None)
        self.tables["types"][inlined] = callee.result
        if record:
            self.record("inlined", callee.key)
        return inlined

    def specialize(self, call: ast.Call, callee, size: int):
        """(the specialized instance, [(parameter, value)]) when the call has constant
        one-word arguments and the copy bound to them is smaller than the callee."""
        constants = []
        for argument, (name, type_) in zip(call.arguments, callee.params, strict=True):
            value = fold(argument, self.copy_instance(), self.known)
            if value is not None and width(type_) == 1:
                constants.append((name, value))
        if not constants:
            return None
        inliner = self.inliner
        signature = (callee.key, tuple(constants))
        if signature not in inliner.specialized:
            instance = _specialized(callee, constants)
            inliner.instances[instance.key] = instance
            if callee.key in inliner.pure:
                inliner.pure.add(instance.key)
            if inliner.size(instance) >= size:
                del inliner.instances[instance.key]
                inliner.specialized[signature] = None
            else:
                inliner.specialized[signature] = instance.key
        key = inliner.specialized[signature]
        return None if key is None else (inliner.instances[key], constants)

    def known(self, var: ast.Var) -> int | None:
        return self.constants.get(var)


# --- eligibility and counting --------------------------------------------------------------------


def inlinable(instance) -> bool:
    """A callee with a body and no `return` before its last statement."""
    body = instance.body
    if body is None:
        return False
    returns = [s for s in statements(body) if isinstance(s, ast.Return)]
    return not returns or returns == [body.statements[-1]]


def _calls_in(instance) -> list[str]:
    """The user functions `instance` calls, one entry per call site in its body."""
    found = []
    for statement in statements(instance.body):
        for expr in statement_expressions(statement):
            found.extend(_call_targets(instance, expr))
    return found


def _call_targets(instance, expr):
    if isinstance(expr, ast.Call):
        target = instance.calls.get(expr)
        if isinstance(target, str):
            yield target
    for part in subexpressions(expr):
        yield from _call_targets(instance, part)


def _sites(checked, roots) -> dict[str, int]:
    """Per callee: the most call sites it has in the code reachable from any one root."""
    counts: dict[str, int] = {}
    for root in roots:
        local = Counter()
        for key in reachable(checked, [root]):
            local.update(_calls_in(checked.instances[key]))
        for callee, count in local.items():
            counts[callee] = max(counts.get(callee, 0), count)
    return counts


def _bottom_up(checked, roots) -> list[str]:
    """The reachable instances, every callee before its callers (post-order)."""
    order, seen = [], set()

    def visit(key: str) -> None:
        seen.add(key)
        for callee in _calls_in(checked.instances[key]):
            if callee not in seen:
                visit(callee)
        order.append(key)

    for root in roots:
        if root not in seen:
            visit(root)
    return order


# --- copying and renaming ------------------------------------------------------------------------


def _copied(table: dict, memo: dict) -> dict:
    """A table keyed by nodes, re-keyed by their copies (entries of nodes not copied go)."""
    return {memo[id(node)]: value for node, value in table.items() if id(node) in memo}


def _bound_names(instance, body: ast.Block) -> list[str]:
    """Every name the callee binds: parameters, `let` names, loop variables."""
    names = dict.fromkeys(name for name, _ in instance.params)
    for statement in statements(body):
        match statement:
            case ast.Let(pattern=ast.PatternName(name=name)):
                names[name] = None
            case ast.Let(pattern=ast.PatternTuple(names=parts)):
                names.update(dict.fromkeys(part for part in parts if part is not None))
            case ast.For(variable=str() as name):
                names[name] = None
    return list(names)


def _indexed_parameters(instance) -> set[str]:
    """Parameters the callee indexes at run time (they must be homed in RAM: a copy)."""
    found = set()
    for statement in statements(instance.body):
        for expr in statement_expressions(statement):
            found.update(_indexed(instance, expr))
    return found & {name for name, _ in instance.params}


def _indexed(instance, expr):
    if isinstance(expr, ast.Index) and fold(expr.index, instance) is None:
        base = expr.base
        while isinstance(base, ast.Index):
            base = base.base
        reference = instance.variables.get(base)
        if isinstance(reference, LocalRef):
            yield reference.name
    for part in subexpressions(expr):
        yield from _indexed(instance, part)


def _rename(body: ast.Block, variables: dict, renamed: dict, aliases: dict) -> None:
    """Rename the names the body binds; read aliased parameters from the caller's variable."""
    for statement in statements(body):
        match statement:
            case ast.Let(pattern=ast.PatternName() as pattern):
                pattern.name = renamed[pattern.name]
            case ast.Let(pattern=ast.PatternTuple() as pattern):
                pattern.names = [None if n is None else renamed[n] for n in pattern.names]
            case ast.For(variable=str() as name):
                statement.variable = renamed[name]
            case ast.Assign():
                for target in _targets(statement):
                    _rename_var(target, variables, renamed, aliases)
        for expr in statement_expressions(statement):
            for var in _vars(expr):
                _rename_var(var, variables, renamed, aliases)


def _targets(statement: ast.Assign) -> list:
    target = statement.target
    return list(target.elements) if isinstance(target, ast.TupleExpr) else [target]


def _rename_var(var: ast.Var, variables: dict, renamed: dict, aliases: dict) -> None:
    reference = variables.get(var)
    name = reference.name if isinstance(reference, LocalRef) else var.path.split(".")[0]
    if reference is not None and not isinstance(reference, LocalRef):
        return  # a constant
    suffix = var.path[len(name) :]
    if name in aliases:
        path, outer = aliases[name]
        var.path = path + suffix
        variables[var] = LocalRef(outer.name, outer.offset + reference.offset, reference.type)
        return
    if name not in renamed:
        return
    var.path = renamed[name] + suffix
    if reference is not None:
        variables[var] = LocalRef(renamed[name], reference.offset, reference.type)


def _vars(expr):
    if isinstance(expr, ast.Var):
        yield expr
    for part in subexpressions(expr):
        yield from _vars(part)


def _keep_origins(node, path: str) -> None:
    """Note on every node of a copied callee body where it was written (`source_origin`:
    its file and span, unless an earlier inlining noted it already; then the call it was
    inlined at in the callee joins its `source_calls`, innermost first), before `_respan`
    gives it the call's span: a run-time failure in inlined code is reported at the
    line that failed, as the reference evaluator and `-O0` report it
    (compiler.sourcemap.origin_of)."""
    if isinstance(node, list | tuple) and not isinstance(node, ast.Span):
        for element in node:
            _keep_origins(element, path)
    elif _is_node(node):
        if hasattr(node, "span"):
            if getattr(node, "source_origin", None) is None:
                node.source_origin = (path, getattr(node, "kept_span", None) or node.span)
            else:  # inlined into the callee before: its span is that call's, in `path`
                site = getattr(node, "site_span", None) or node.span
                node.source_calls = (*getattr(node, "source_calls", ()), (path, site))
                node.site_span = None
        for name in node.__dataclass_fields__:
            if name != "span":
                _keep_origins(getattr(node, name), path)


def _keep_spans(node) -> None:
    """Note on every node of a call's argument, which is the caller's own code, its span
    (`kept_span`) before `_respan` gives it the call's: a failure in it is reported where
    it was written, with no call around it (compiler.sourcemap.origin_of); on code inlined
    into the argument already, the span of the call it was inlined at (`site_span`)."""
    if isinstance(node, list | tuple) and not isinstance(node, ast.Span):
        for element in node:
            _keep_spans(element)
    elif _is_node(node):
        if hasattr(node, "span"):
            if getattr(node, "source_origin", None) is None:
                if getattr(node, "kept_span", None) is None:
                    node.kept_span = node.span
            elif getattr(node, "site_span", None) is None:  # code inlined into the argument:
                node.site_span = node.span  # the call it was inlined at, before `_respan`
        for name in node.__dataclass_fields__:
            if name != "span":
                _keep_spans(getattr(node, name))


def _respan(node, span, site=None) -> None:
    """Give every node of a copied body the call's span (so `inside` tests by span agree);
    `site`, when the call's own place differs from its span, is noted as `site_span`."""
    if isinstance(node, list | tuple) and not isinstance(node, ast.Span):
        for element in node:
            _respan(element, span, site)
    elif _is_node(node):
        if site is not None and getattr(node, "source_origin", None) is not None:
            node.site_span = site
        for name in node.__dataclass_fields__:
            if name == "span":
                node.span = span
            else:
                _respan(getattr(node, name), span, site)


def _is_node(value) -> bool:
    return hasattr(value, "__dataclass_fields__") and not isinstance(value, type)


def _known_constants(instance) -> dict:
    """Var -> value for reads of immutable names bound to constants (as the builder folds)."""
    analysis = analyze(instance)
    by_binding: dict = {}
    for statement in statements(instance.body):
        if (
            isinstance(statement, ast.Let)
            and isinstance(statement.pattern, ast.PatternName)
            and not statement.mutable
        ):
            value = fold(
                statement.value, instance, lambda var: by_binding.get(analysis.reads.get(var))
            )
            if value is not None:
                by_binding[analysis.lets[statement][0]] = value
    return {
        var: by_binding[binding] for var, binding in analysis.reads.items() if binding in by_binding
    }


def _specialized(callee, constants):
    """A copy of `callee` whose body first binds the parameters `constants` to their values."""
    memo: dict = {}
    body = ast.copy_tree(callee.body, memo)
    tables = {name: _copied(getattr(callee, name), memo) for name in TABLES}
    bound = dict(constants)
    lets = []
    for name, type_ in callee.params:
        if name in bound:
            value = bound[name]
            literal = ast.BoolLiteral(bool(value), body.span) if type_ == BOOL else None
            literal = literal or ast.IntLiteral(value, body.span)
            tables["types"][literal] = type_
            lets.append(ast.Let(False, ast.PatternName(name, body.span), None, literal, body.span))
    suffix = "_".join(
        f"{index}_{bound[name]}" for index, (name, _) in enumerate(callee.params) if name in bound
    )
    return replace(
        callee,
        key=f"{callee.key}__k{suffix}",
        params=[(name, type_) for name, type_ in callee.params if name not in bound],
        body=ast.Block([*lets, *body.statements], body.span),
        **tables,
    )
