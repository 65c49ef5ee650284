"""The TIR builder: a checked program -> `tir.Program` (tir.md §3, with its corrections).

`build_tir(checked)` compiles every function instance reachable from `main`
(or, for a module, from its public functions).  Each function is built by
walking its AST with a `Stack` model (compiler.tir.stack), which emits the
stack-explicit TIR:

* `let` renames the value on top (free); assignment renames too, and the old
  slots become garbage, removed when convenient.
* A variable's last use (compiler.tir.liveness) moves it (`pick`, or nothing
  when it is on top) instead of copying it -- except inside a construct with a
  fixed exit layout where the slot would have to be refilled.
* `if` bodies and loop bodies are built with the enclosing model and end with
  `conform` to the join layout; a valued `if` leaves its value on top.
* `for` computes its trip count max(0, END - START) exactly (u32 `lt`, or a
  64-bit comparison through `split` for Field bounds), traps when it exceeds
  the bound, and becomes a `Loop` (counting down, or up when the body reads
  the loop variable), guarded when it may run zero times.
* `return`: an `if` whose one arm ends in a `return` takes the rest of the
  function as its other arm; any other early `return` sets a continue flag and
  the return value (two pinned variables), forces enclosing loops to end, and
  the statements after it are guarded by the flag.
* Small choices are made by building both alternatives and keeping the shorter
  (copy or move in a branch; branches or a `skiz swap 1 pop 1` select; which
  values to spill before a loop).
* Arrays indexed at run time live in RAM; the index is bounds-checked.
* Both ends of every straight-line run carry a `Facts` annotation (the stack
  manager's knowledge, for the block contracts of compiler.lower.blocks).
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.check.types import UNIT, width
from compiler.diagnostics import CompileError, error
from compiler.sourcemap import Origin, origin_of
from compiler.syntax import ast
from compiler.tir.expressions import ExpressionBuilder
from compiler.tir.facts import u32_invariant_holds, u32_positions
from compiler.tir.liveness import Order, analyze, effect_free_instances
from compiler.tir.loops import LoopBuilder
from compiler.tir.ops import Facts, Function, IfElse, IfOnly, Op, Program
from compiler.tir.stack import Allocator, CompileLimit, Layout, Stack, Value
from compiler.tir.walk import (
    contains_return,
    early_returns,
    ends_in_only_return,
    lowered_size,
    part_offsets,
    simple_block,
)
from vm.field import P


def build_tir(checked, allocator: Allocator | None = None) -> Program:
    """Compile the checked program (or module) to TIR."""
    pure = effect_free_instances(checked)
    allocator = allocator or Allocator()
    roots = [checked.entry] if checked.entry is not None else list(checked.exported)
    keys = reachable(checked, roots)
    trust_u32 = u32_invariant_holds(checked, keys)
    functions = []
    problems = []
    for key in keys:
        instance = checked.instances[key]
        try:
            builder = FunctionBuilder(checked, instance, pure, allocator, trust_u32)
            functions.append(builder.build())
        except CompileLimit as limit:
            problems.append(
                error(
                    "E0400",
                    f"cannot compile '{instance.function.name}': {limit}",
                    instance.path,
                    instance.function.span,
                )
            )
    if problems:
        raise CompileError(problems)
    return Program(functions, checked.entry, checked.project.entry.name, tuple(roots))


def reachable(checked, roots: list[str]) -> list[str]:
    """Instance keys reachable from `roots` through calls, roots first (depth-first)."""
    order: list[str] = []
    seen: set[str] = set()
    pending = list(reversed(roots))
    while pending:
        key = pending.pop()
        if key in seen:
            continue
        seen.add(key)
        order.append(key)
        callees = [t for t in checked.instances[key].calls.values() if isinstance(t, str)]
        pending.extend(reversed(list(dict.fromkeys(callees))))
    return order


@dataclass
class _Context:
    """A construct with a join at its end.

    `kept`: values whose slot the join keeps (as garbage): a read copies them
    instead of moving them.  `entry`: the values in the construct's entry
    layout, whose garbage is not popped early (the join layout has the slot).
    """

    kept: frozenset = frozenset()
    entry: frozenset = frozenset()


@dataclass
class _Return:
    cont: Value  # 1 while the function has not returned
    value: Value | None  # the return value (None for unit functions)


class FunctionBuilder(ExpressionBuilder, LoopBuilder):
    def __init__(self, checked, instance, pure, allocator: Allocator, trust_u32: bool = False):
        self.checked = checked
        self.instance = instance
        self.analysis = analyze(instance, pure)
        self.order = Order(instance, pure)
        self.stack = Stack(allocator)
        self.values: dict = {}  # Binding -> Value
        self.valued = dict(instance.valued_ifs)  # If -> type, with lifted returns
        self.constants: dict = {}  # Binding -> its value, for immutable names of constants
        self.bindings: dict = {}  # Value -> Binding
        self.contexts: list[_Context] = []
        self.loops: list = []  # LoopInfo of the enclosing loops
        self.early: _Return | None = None
        self.returned = False  # the current path has executed a `return`
        self.loop_count = 0
        self.label = instance.key
        self.position = 0  # the statement being built (pre-order number)
        self.spans: list = []  # the enclosing loops' statement spans
        self.stack.distance = self.distance
        self.trust_u32 = trust_u32  # U32 values are below 2^32 in this build (tir/facts.py)
        self.stack.u32_elements = self.u32_elements

    # --- the function ----------------------------------------------------------------------
    def build(self) -> Function:
        instance, stack = self.instance, self.stack
        stack.origin = Origin(instance.path, instance.function.span, "function", instance.key)
        for binding in self.analysis.params:
            value = self.variable(binding)
            stack.slots.extend(value.key(i) for i in range(value.width))
        stack.note()
        stack.enforce_window()
        for binding in self.analysis.params:
            if binding in self.analysis.indexed:
                stack.home_in_ram(self.values[binding])
        result_width = width(instance.result)
        statements = self.lift_returns(list(instance.body.statements))
        if early_returns(statements):
            cont = stack.push_constant(1)
            flag = Value("continue", 1, "pinned")
            stack.rename(cont, flag)
            value = None
            if result_width:
                value = Value("result", result_width, "pinned")
                for _ in range(result_width):
                    stack.push_constant(0)
                stack.rename(stack.adopt(result_width), value)
            self.early = _Return(flag, value)
            self.statements(statements, "ret")
            result = value
        else:
            result = self.statements(statements, "value" if result_width else None)
        keys = [] if result is None else [result.key(i) for i in range(result.width)]
        stack.conform(Layout(keys), dead=self.returned)
        stack.note()
        stack.emit(Op("Return"))
        params = sum(b.width for b in self.analysis.params)
        return Function(self.label, params, result_width, stack.ops, instance.key)

    def lift_returns(self, statements: list) -> list:
        """`if c { ...; return e } rest` -> `if c { ...; return e } else { rest }` (and the
        mirror image), so that the `return` ends the function's last statement and needs
        no continue flag.  Only when one arm ends in the arm's only `return` and the other
        has none; the new `if` is valued like the function."""
        for index, statement in enumerate(statements[:-1]):
            if not isinstance(statement, ast.If) or not contains_return(statement):
                continue
            arms = [statement.then_block, statement.else_block]
            returning = [arm is not None and ends_in_only_return(arm) for arm in arms]
            plain = [
                arm is None or not any(contains_return(s) for s in arm.statements) for arm in arms
            ]
            if not (returning[0] and plain[1]) and not (returning[1] and plain[0]):
                return statements
            rest = self.lift_returns(statements[index + 1 :])
            if returning[0]:
                other = statement.else_block.statements if statement.else_block else []
                lifted = ast.If(
                    statement.condition,
                    statement.then_block,
                    ast.Block([*other, *rest], statement.span),
                    statement.span,
                )
            else:
                lifted = ast.If(
                    statement.condition,
                    ast.Block([*statement.then_block.statements, *rest], statement.span),
                    statement.else_block,
                    statement.span,
                )
            analysis = self.analysis
            analysis.live_before[lifted] = analysis.live_before[statement]
            analysis.live_after[lifted] = analysis.live_after[statements[-1]]
            analysis.numbers[lifted] = analysis.numbers[statement]
            if self.instance.result != UNIT:
                self.valued[lifted] = self.instance.result
            return [*statements[:index], lifted]
        return statements

    def variable(self, binding) -> Value:
        value = Value(binding.name, binding.width, "var")
        self.values[binding] = value
        self.bindings[value] = binding
        return value

    # --- statements ------------------------------------------------------------------------
    def statements(self, statements: list, mode: str | None) -> Value | None:
        """Compile a statement list; `mode` "value" leaves the block's value on top,
        "ret" assigns it to the early-return value, None drops it."""
        result = None
        for index, statement in enumerate(statements):
            last = index == len(statements) - 1
            self.position = self.analysis.numbers[statement]
            self.kill_dead(self.analysis.live_before[statement])
            result = self.statement(statement, mode if last else None)
            if self.early is not None and not last and contains_return(statement):
                return self.guarded(statements[index + 1 :], mode)
        return result

    def distance(self, value: Value) -> int:
        """How far the next use of `value` is (make_room spills the farthest)."""
        binding = self.bindings.get(value)
        if binding is not None:
            return self.analysis.distance(binding, self.position, self.spans)
        if value.kind == "pinned":
            return 0 if self.loops and value in self.loops[-1].frame else 1 << 20
        return 0

    def u32_elements(self, value: Value) -> frozenset[int]:
        """The elements of `value` known to be below 2^32 (a variable's, from its type)."""
        binding = self.bindings.get(value)
        if binding is None:
            return frozenset()
        return u32_positions(binding.type, self.trust_u32)

    def kill_dead(self, live) -> None:
        for value in self.stack.values():
            binding = self.bindings.get(value)
            if binding is not None and binding not in live:
                self.stack.kill(value)
        self.stack.pop_garbage()

    def statement(self, statement, mode: str | None) -> Value | None:
        """Compile one statement; the ops it emits carry its origin (compiler.sourcemap)."""
        stack = self.stack
        outer = stack.origin
        stack.origin = origin_of(self.instance, statement)
        try:
            return self.compile_statement(statement, mode)
        finally:
            stack.origin = outer

    def compile_statement(self, statement, mode: str | None) -> Value | None:
        match statement:
            case ast.Let():
                self.let(statement)
            case ast.Assign():
                self.assign(statement)
            case ast.If():
                return self.if_(statement, mode)
            case ast.For():
                self.for_(statement)
            case ast.Return():
                if self.early is None:
                    # the body's last statement: its value is the function's
                    if statement.value is None:
                        return None
                    return self.expr(statement.value)
                self.return_(statement)
            case ast.ExprStatement():
                value = self.expr(statement.expr)
                if mode == "value":
                    return value
                if mode == "ret" and self.early.value is not None and value is not None:
                    self.assign_value(self.early.value, value)
                    return None
                self.stack.drop(value)
            case _:
                raise CompileLimit(f"unsupported statement {type(statement).__name__}")
        return None

    def let(self, statement: ast.Let) -> None:
        if isinstance(statement.pattern, ast.PatternName) and not statement.mutable:
            value = self.constant(statement.value)
            if value is not None:
                # an immutable name for a constant takes no slot: each read pushes it
                self.constants[self.analysis.lets[statement][0]] = value
                return
        temp = self.in_place(statement.value) or self.expr(statement.value)
        bindings = self.analysis.lets[statement]
        live = self.analysis.live_after[statement]
        value_type = self.instance.types[statement.value]
        if isinstance(statement.pattern, ast.PatternName):
            parts = [(bindings[0], 0, width(value_type))]
        elif isinstance(statement.pattern, ast.PatternWild):
            parts = [(None, 0, width(value_type))]
        else:
            parts = [
                (binding, offset, b_width)
                for binding, offset, b_width in zip(
                    bindings, *part_offsets(value_type, len(bindings)), strict=True
                )
            ]
        for binding, offset, part_width in parts:
            if binding is None or binding not in live:
                self.stack.kill_elements(temp, range(offset, offset + part_width))
                continue
            value = self.variable(binding)
            self.stack.rename(temp, value, offset, part_width)
        self.settle()

    def settle(self) -> None:
        """After renaming: pop garbage on top, keep variables in reach, home indexed ones."""
        self.stack.pop_garbage()
        self.stack.enforce_window()
        for value in self.stack.values():
            binding = self.bindings.get(value)
            if binding in self.analysis.indexed and self.stack.on_stack(value):
                self.stack.home_in_ram(value)

    def assign(self, statement: ast.Assign) -> None:
        temp = self.in_place(statement.value) or self.expr(statement.value)
        targets = (
            statement.target.elements
            if isinstance(statement.target, ast.TupleExpr)
            else [statement.target]
        )
        value_type = self.instance.types[statement.value]
        if len(targets) == 1:
            offsets, widths = [0], [width(value_type)]
        else:
            offsets, widths = part_offsets(value_type, len(targets))
        live = self.analysis.live_after[statement]
        for target, offset, part_width in zip(targets, offsets, widths, strict=True):
            binding = self.analysis.targets[target]
            value = self.values.get(binding) or self.variable(binding)
            self.stack.kill(value)
            if binding in live:
                self.stack.rename(temp, value, offset, part_width)
            else:
                self.stack.kill_elements(temp, range(offset, offset + part_width))
        self.settle()

    def assign_value(self, value: Value, temp: Value) -> None:
        """`value` (a pinned variable) takes the temporary's slots."""
        self.stack.kill(value)
        self.stack.rename(temp, value)
        self.stack.pop_garbage()

    # --- if ----------------------------------------------------------------------------------
    def if_(self, statement: ast.If, mode: str | None) -> Value | None:
        if mode == "value" and self.selectable(statement):
            return self.cheapest(
                lambda: self.if_branches(statement, mode), lambda: self.select(statement)
            )
        return self.if_branches(statement, mode)

    def selectable(self, statement: ast.If) -> bool:
        """A valued if of one word whose arms are a literal, constant or variable each."""
        if statement not in self.valued:
            return False
        if width(self.valued[statement]) != 1 or statement.else_block is None:
            return False
        return all(
            len(block.statements) == 1
            and isinstance(block.statements[0], ast.ExprStatement)
            and isinstance(block.statements[0].expr, ast.IntLiteral | ast.BoolLiteral | ast.Var)
            for block in (statement.then_block, statement.else_block)
        )

    def select(self, statement: ast.If) -> Value:
        """Both arms are trivial: push both, then `skiz swap 1` `pop 1` picks one."""
        stack = self.stack
        for block in (statement.else_block, statement.then_block):
            expr = block.statements[0].expr
            constant = self.constant(expr)
            if constant is not None:
                stack.push_constant(constant)
            else:  # a variable: copied, since the condition may still read it
                reference = self.instance.variables[expr]
                self.read_place(self.analysis.reads[expr], reference.offset, 1, None)
        condition = self.expr(statement.condition)
        stack.kill(condition)
        stack.slots.pop()
        swapped = [*stack.slots[:-2], stack.slots[-1], stack.slots[-2]]
        stack.note(top=1)
        stack.emit(IfOnly((stack.facts(), Op("Swap", 1), stack.facts(swapped))))
        stack.note()
        stack.emit(Op("Pop", 1))
        stack.slots.pop()
        return stack.adopt(1, "select")

    def cheapest(self, first, second):
        """Build two alternatives from the same state; keep the one with less code."""
        stack = self.stack
        start, saved = len(stack.ops), stack.snapshot()
        returned = self.returned
        result_a = first()
        ops_a, state_a, returned_a = stack.ops[start:], stack.snapshot(), self.returned
        del stack.ops[start:]
        stack.restore(saved)
        self.returned = returned
        result_b = second()  # its loops, if any, get labels after the first's
        if lowered_size(stack.ops[start:]) < lowered_size(ops_a):
            return result_b
        del stack.ops[start:]
        stack.ops.extend(ops_a)
        stack.restore(state_a)
        self.returned = returned_a
        return result_a

    def if_branches(self, statement: ast.If, mode: str | None) -> Value | None:
        stack = self.stack
        valued = mode == "value" and statement in self.valued
        branch_mode = "value" if valued else (mode if mode == "ret" else None)
        condition = self.expr(statement.condition)
        # from here until the branch op, no code: the condition is still on the stack
        stack.kill(condition)
        stack.slots.pop()  # skiz consumes it
        live_after = self.analysis.live_after[statement]
        entry = stack.snapshot()
        outer = self.contexts[-1].kept if self.contexts else frozenset()
        if statement.else_block is None:
            target = self.exit_layout(entry, live_after)
            kept = outer | self.dead_values(entry, live_after)
            body = self.best_branch(
                statement.then_block, entry, target, (kept, outer), branch_mode, live_after
            )
            stack.note(entry.slots, top=1)
            stack.emit(IfOnly(tuple(body)))
            stack.restore(target)
            stack.note()
            return None
        # then: its natural end fixes the join layout; else conforms to it
        result = Value("if", width(self.valued[statement]), "temp") if valued else None
        then_ops = self.branch(
            statement.then_block, entry, None, outer, branch_mode, live_after, result
        )
        target = stack.snapshot()
        kept = outer | {s[0].owner for s in target.slots if s is not None and s[0].kind == "dead"}
        else_ops = self.best_branch(
            statement.else_block, entry, target, (kept, outer), branch_mode, live_after, result
        )
        if not has_code(then_ops) and has_code(else_ops):
            stack.emit(Op("Push", 0))
            stack.emit(Op("Eq"))
            stack.note(entry.slots, top=1)
            stack.emit(IfOnly(tuple(else_ops)))
        elif has_code(then_ops) or has_code(else_ops):
            stack.note(entry.slots, top=1)
            stack.emit(IfElse(tuple(then_ops), tuple(else_ops)))
        else:
            stack.emit(Op("Pop", 1))
        stack.restore(target)
        if has_code(then_ops) or has_code(else_ops):
            stack.note()
        return result

    def best_branch(self, block, entry, target, choices, mode, live_after, result=None) -> list:
        """Build a branch with a fixed target, with the `kept` set choices[0]; for a small
        body also with choices[1] (moving instead of copying the values whose slot the
        join keeps, or the reverse), and keep the shorter."""
        ops = self.branch(block, entry, target, choices[0], mode, live_after, result)
        if not simple_block(block) or choices[1] == choices[0]:
            return ops
        other = self.branch(block, entry, target, choices[1], mode, live_after, result)
        return other if lowered_size(other) < lowered_size(ops) else ops

    def branch(self, block, entry: Layout, target, kept, mode, live_after, result=None) -> list:
        """Build one branch body from `entry`; conform to `target` (or fix it: None)."""
        stack = self.stack
        stack.restore(entry)
        saved_ops, stack.ops = stack.ops, []
        stack.note()
        self.enter(kept, entry)
        self.returned = False
        value = self.statements(block.statements, mode)
        if result is not None:
            stack.rename(value, result)
        self.kill_dead(live_after)
        if target is None:
            stack.pop_garbage()
        else:
            stack.conform(target, dead=self.returned)
        stack.note()
        self.returned = False
        self.leave()
        ops, stack.ops = stack.ops, saved_ops
        return ops

    def enter(self, kept, entry: Layout) -> None:
        owners = {s[0].owner or s[0] for s in entry.slots if s is not None}
        self.contexts.append(_Context(frozenset(kept), frozenset(owners)))
        self.stack.keep = self.contexts[-1].entry

    def leave(self) -> None:
        self.contexts.pop()
        self.stack.keep = self.contexts[-1].entry if self.contexts else frozenset()

    def exit_layout(self, entry: Layout, live) -> Layout:
        """`entry` with the values dead in `live` turned into any-slots."""
        dead = self.dead_values(entry, live)
        slots = [(s[0].ghost, s[1]) if s is not None and s[0] in dead else s for s in entry.slots]
        in_ram = {key for key in entry.in_ram if key[0] not in dead}
        return Layout(slots, in_ram)

    def dead_values(self, entry: Layout, live) -> set:
        values = {s[0] for s in entry.slots if s is not None} | {k[0] for k in entry.in_ram}
        return {v for v in values if v in self.bindings and self.bindings[v] not in live}

    def guarded(self, statements: list, mode: str | None) -> None:
        """The statements after one that may return: run them only while not returned."""
        stack = self.stack
        live_after = self.analysis.live_after[statements[-1]]
        guard = stack.read(self.early.cont, 0, 1, move=False)
        stack.kill(guard)
        stack.slots.pop()
        entry = stack.snapshot()
        target = self.exit_layout(entry, live_after)
        outer = self.contexts[-1].kept if self.contexts else frozenset()
        kept = outer | self.dead_values(entry, live_after)
        saved_ops, stack.ops = stack.ops, []
        stack.note()
        self.enter(kept, entry)
        self.returned = False
        self.statements(statements, mode)
        self.kill_dead(live_after)
        before = {s for s in entry.slots if s is not None} | entry.in_ram
        created = [
            key
            for key in [*stack.slots, *stack.in_ram]
            if key is not None and key[0].kind != "dead" and key not in before
        ]
        if created:
            # the statements (re)define values needed later: the returned path must
            # have them too (any value: it only runs the exits of loops and functions)
            stack.pop_garbage()
            join = stack.snapshot()
            stack.note()
            body, stack.ops = stack.ops, []
            stack.restore(entry)
            stack.note()
            stack.conform(join, dead=True)
            stack.note()
            otherwise, stack.ops = stack.ops, saved_ops
            self.returned = False
            self.leave()
            stack.note(entry.slots, top=1)
            stack.emit(IfElse(tuple(body), tuple(otherwise)))
            stack.restore(join)
            stack.note()
            return None
        stack.conform(target, dead=self.returned)
        stack.note()
        self.returned = False
        self.leave()
        body, stack.ops = stack.ops, saved_ops
        stack.note(entry.slots, top=1)
        stack.emit(IfOnly(tuple(body)))
        stack.restore(target)
        stack.note()
        return None

    # --- return --------------------------------------------------------------------------------
    def return_(self, statement: ast.Return) -> None:
        stack, early = self.stack, self.early
        if statement.value is not None:
            temp = self.expr(statement.value)
            if early.value is not None:
                self.assign_value(early.value, temp)
            else:
                stack.drop(temp)
        self.assign_value(early.cont, stack.push_constant(0))
        for loop in self.loops:
            if loop.kind == "down":
                self.assign_value(loop.frame[-1], stack.push_constant(1))
            elif loop.end is not None:
                self.assign_value(loop.frame[-1], stack.push_constant((loop.end - 1) % P))
            else:
                stack.read(loop.frame[0], 0, 1, move=False)
                self.assign_value(loop.frame[-1], self.apply(Op("AddI", P - 1), 1, 1))
        self.returned = True


def has_code(ops) -> bool:
    """Whether `ops` holds more than annotations (a body of only Facts lowers to nothing)."""
    return any(not isinstance(op, Facts) for op in ops)
