"""Value ranges of mutable names: upper bounds that follow assignments in order and run
through loops of a constant trip count -- what lets the builder drop a u32 check on a value
computed from loop-carried names (isqrt's `as_u32(candidate * candidate)`).

compiler.tir.ranges bounds an expression from its operands; for an immutable `let` the builder
records the bound once.  A mutable name has a bound only at a given point of the program:

* `FlowBounds` is the builder's record, per mutable binding, of a bound valid at the statement
  being built: set by a `let mut` and by an assignment built in straight-line order, and
  forgotten (nothing known) for every binding that an `if` or a loop assigns, before it is
  built (its arms may run in either order of the builder's, a loop's body more than once);
* `loop_bounds(statement, count, ...)` runs a `for` loop of `count` iterations (a constant, at
  most `MAX_ITERATIONS`) on bounds instead of values: each iteration from the state the last one
  left, both arms of an `if` from the same state and joined (the larger bound), a nested loop
  forgetting what it assigns.  The result, per binding assigned or bound by a `let` in the body,
  is the largest bound it had at any point of any iteration: a bound valid everywhere in the body
  and after the loop.  With it, `root` and `bit` of isqrt, which halve and grow round by round,
  give `candidate <= 65535`, where the largest bound of each alone would not.

Bounds are lists of integers, one per word (compiler.tir.ranges); a binding absent from a state
is unknown.
"""

from __future__ import annotations

from compiler.check.bodies import LocalRef
from compiler.check.types import width
from compiler.syntax import ast
from compiler.tir.ranges import bounds
from compiler.tir.walk import inlined_calls, part_offsets, statement_expressions, statements

MAX_ITERATIONS = 64  # a longer constant loop is not run on bounds (nothing is known in it)


def assigned_in(statement, memo: dict | None = None) -> frozenset:
    """The targets a statement assigns, in its blocks and inlined calls included.  `memo`
    keeps the answer of every statement within: a chain of `else if`s n deep is walked
    once, not once per link (n^2 statements), when each link is asked in turn."""
    if memo is None:
        memo = {}
    found = memo.get(statement)
    if found is None:
        targets = set(_targets(statement))
        for inner in _inner_statements(statement):
            targets |= assigned_in(inner, memo)
        found = memo[statement] = frozenset(targets)
    return found


def _inner_statements(statement):
    """The statements one level in: those of its inlined calls' bodies and of its blocks."""
    for expr in statement_expressions(statement):
        for inlined in inlined_calls(expr):
            yield from inlined.body.statements
    match statement:
        case ast.If():
            yield from statement.then_block.statements
            if statement.else_block is not None:
                yield from statement.else_block.statements
        case ast.For():
            yield from statement.body.statements


def _targets(statement) -> list:
    if not isinstance(statement, ast.Assign):
        return []
    target = statement.target
    return list(target.elements) if isinstance(target, ast.TupleExpr) else [target]


def join(a: list[int] | None, b: list[int] | None) -> list[int] | None:
    if a is None or b is None or len(a) != len(b):
        return None
    return [max(x, y) for x, y in zip(a, b, strict=True)]


def parts(statement, analysis, instance) -> list:
    """(binding, offset, width) of each name a `let` or an assignment gives a value."""
    value_type = instance.types[statement.value]
    if isinstance(statement, ast.Let):
        bindings = analysis.lets[statement]
        if isinstance(statement.pattern, (ast.PatternName, ast.PatternWild)):
            return [(bindings[0] if bindings else None, 0, width(value_type))]
        offsets, widths = part_offsets(value_type, len(bindings))
        return list(zip(bindings, offsets, widths, strict=True))
    targets = _targets(statement)
    if len(targets) == 1:
        offsets, widths = [0], [width(value_type)]
    else:
        offsets, widths = part_offsets(value_type, len(targets))
    found = []
    for target, offset, part_width in zip(targets, offsets, widths, strict=True):
        binding = analysis.targets[target]
        reference = instance.variables.get(target)
        whole = (
            isinstance(reference, LocalRef)
            and reference.offset == 0
            and width(reference.type) == width(binding.type)
        )
        found.append((binding if whole else ("part", binding), offset, part_width))
    return found


def slice_of(found: list[int] | None, var, instance) -> list[int] | None:
    """The words of a binding's bounds that `var` (a name, or a field of it) reads."""
    reference = instance.variables.get(var)
    if found is None or not isinstance(reference, LocalRef):
        return None
    return found[reference.offset : reference.offset + width(reference.type)]


class _Run:
    """One run of a loop body on bounds."""

    def __init__(self, analysis, instance, outer_known):
        self.analysis, self.instance, self.outer_known = analysis, instance, outer_known
        self.seen: dict = {}  # binding -> the largest bound it had

    def known(self, state: dict):
        def lookup(var):
            binding = self.analysis.reads.get(var)
            if binding in state:
                return slice_of(state[binding], var, self.instance)
            return self.outer_known(var)

        return lookup

    def set(self, state: dict, binding, found) -> None:
        state[binding] = found
        self.seen[binding] = join(self.seen[binding], found) if binding in self.seen else found

    def block(self, block: ast.Block, state: dict) -> dict:
        for statement in block.statements:
            state = self.statement(statement, state)
        return state

    def statement(self, statement, state: dict) -> dict:
        match statement:
            case ast.Let() | ast.Assign():
                found = bounds(statement.value, self.instance, self.known(state))
                for binding, offset, part_width in parts(statement, self.analysis, self.instance):
                    if isinstance(binding, tuple):  # a field of a binding: it is unknown
                        self.set(state, binding[1], None)
                    elif binding is not None:
                        words = None if found is None else found[offset : offset + part_width]
                        self.set(state, binding, words)
            case ast.If():
                then = self.block(statement.then_block, dict(state))
                other = dict(state)
                if statement.else_block is not None:
                    other = self.block(statement.else_block, other)
                state = {b: join(then.get(b), other.get(b)) for b in then.keys() | other.keys()}
                for binding, found in state.items():
                    self.set(state, binding, found)
            case ast.For():
                for binding in assigned_in(statement):
                    self.set(state, self.analysis.targets[binding], None)
        for binding in _inlined_assignments(statement, self.analysis):
            self.set(state, binding, None)
        return state


def _inlined_assignments(statement, analysis) -> set:
    """Bindings assigned inside inlined calls of the statement's own expressions."""
    if isinstance(statement, (ast.If, ast.For)):
        return set()  # their blocks are run (or forgotten) above
    found = set()
    for inner in statements(ast.Block([statement])):
        if inner is not statement:
            found.update(analysis.targets[target] for target in _targets(inner))
    return found


def loop_bounds(statement: ast.For, count: int, entry: dict, analysis, instance, outer_known):
    """Bounds valid everywhere in the body of `statement` (run `count` times) and after it,
    per binding the body assigns or binds; `entry` gives the assigned bindings' bounds at the
    loop's entry (absent: unknown).  None when the loop is too long to run."""
    if count > MAX_ITERATIONS:
        return None
    run = _Run(analysis, instance, outer_known)
    assigned = {analysis.targets[target] for target in assigned_in(statement)}
    state = {binding: entry.get(binding) for binding in assigned}
    for binding, found in state.items():
        run.set(state, binding, found)
    for _ in range(count):
        after = run.block(statement.body, dict(state))
        if after == state:
            break  # a fixed point: every later iteration sees exactly these bounds again
        state = after
    return {binding: found for binding, found in run.seen.items() if found is not None}


class FlowBuilder:
    """The builder's part (compiler.tir.builder.FunctionBuilder): `flow` holds, per mutable
    binding, a bound valid at the statement being built; `known_bounds` reads it."""

    def compile_with_flow(self, statement, mode: str | None):
        """Build one statement (`compile_statement`), keeping `flow` true around it."""
        match statement:
            case ast.If():
                self.forget(statement)
                self.branch_depth += 1
                try:
                    return self.compile_statement(statement, mode)
                finally:
                    self.branch_depth -= 1
                    self.forget(statement)
            case ast.For():
                self.enter_loop_flow(statement)
                result = self.compile_statement(statement, mode)
                self.leave_loop_flow(statement)
                return result
            case ast.Let() | ast.Assign():
                found = bounds(statement.value, self.instance, self.known_bounds)
                result = self.compile_statement(statement, mode)
                self.record_flow(statement, found)
                return result
        return self.compile_statement(statement, mode)

    def forget(self, statement) -> None:
        """Nothing is known any more of the bindings `statement` assigns."""
        assigned = self.flow_forgets.get(statement)
        if assigned is None:  # an `if` in a loop is built once per build of the body
            targets = assigned_in(statement, self.assigned_targets)
            assigned = {self.analysis.targets[target] for target in targets}
            self.flow_forgets[statement] = assigned
        for binding in assigned:
            self.flow.pop(binding, None)

    def record_flow(self, statement, found) -> None:
        """A `let mut` or an assignment built in straight-line order: its bindings' bounds
        (an assignment in an `if` arm only forgets: the other arm must not see it)."""
        if isinstance(statement, ast.Let) and not statement.mutable:
            return
        for binding, offset, part_width in parts(statement, self.analysis, self.instance):
            if isinstance(binding, tuple):
                self.flow.pop(binding[1], None)
            elif binding is not None:
                words = None if found is None else found[offset : offset + part_width]
                local = isinstance(statement, ast.Let)
                if words is None or (self.branch_depth and not local):
                    self.flow.pop(binding, None)
                else:
                    self.flow[binding] = words

    def enter_loop_flow(self, statement: ast.For) -> None:
        """Run a loop of a constant trip count on bounds (flow_ranges.loop_bounds)."""
        start, end = self.constant(statement.start), self.constant(statement.end)
        found = None
        if start is not None and end is not None:
            found = loop_bounds(
                statement,
                max(0, end - start),
                self.flow,
                self.analysis,
                self.instance,
                self.known_bounds,
            )
        assigned = {self.analysis.targets[target] for target in assigned_in(statement)}
        self.flow_loops[statement] = (assigned, found or {})
        self.loop_body_flow(statement)

    def loop_body_flow(self, statement: ast.For) -> None:
        """At the start of the body (built again after a spill): bounds of every iteration."""
        assigned, found = self.flow_loops[statement]
        for binding in assigned:
            self.flow.pop(binding, None)
        self.flow.update(found)

    def leave_loop_flow(self, statement: ast.For) -> None:
        assigned, found = self.flow_loops[statement]
        for binding in assigned:
            self.flow.pop(binding, None)
            if binding in found and not self.branch_depth:
                self.flow[binding] = found[binding]
