"""The TIR builder: a checked program -> `tir.Program` (RC's, corrected: docs/backend.md).

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

from compiler.check.types import U32, UNIT, width
from compiler.diagnostics import CompileError, error
from compiler.sourcemap import Origin, origin_of
from compiler.syntax import ast
from compiler.tir.aliases import AliasBuilder
from compiler.tir.expressions import ExpressionBuilder
from compiler.tir.facts import u32_invariant_holds, u32_positions
from compiler.tir.flow_ranges import FlowBuilder
from compiler.tir.liveness import Order, analyze, effect_free_instances
from compiler.tir.loops import LoopBuilder
from compiler.tir.memory_groups import MemoryGroupBuilder
from compiler.tir.ops import Facts, Function, IfElse, IfOnly, Op, Program
from compiler.tir.pointer_loops import PointerLoopBuilder
from compiler.tir.ranges import bound, bounds, speculable
from compiler.tir.select_pairs import SelectPairBuilder
from compiler.tir.stack import Allocator, CompileLimit, Layout, Stack, Value
from compiler.tir.updates import UpdateBuilder, variables
from compiler.tir.walk import (
    contains_return,
    early_returns,
    ends_in_only_return,
    expected_cycles,
    lowered_size,
    part_offsets,
    simple_block,
)
from vm.field import P

# A select builds both arms whatever the condition, a nested select (an arm that is a valued
# `if` of its own) both of its arms too, and each is built both ways (branches or a select)
# and the cheaper kept: a chain of `else if` n deep would be built 2^n times.  A chain
# deeper than this is branched at its top without trying the select, whose cost (every arm
# of the chain below, always) grows with the depth while the branches' stays one arm's:
# only the last SELECT_DEPTH links of a chain are built both ways, so its build is linear.
# (In the stdlib and the corpus no select won above depth 1; the deepest chain tried is 3.)
SELECT_DEPTH = 4


def select_depth(statement: ast.If) -> int:
    """How many valued `if`s deep `statement` nests through arms that are one `if` each."""
    depth = 0
    for block in (statement.then_block, statement.else_block):
        if block is not None and len(block.statements) == 1:
            inner = block.statements[0]
            if isinstance(inner, ast.If):
                depth = max(depth, select_depth(inner))
    return depth + 1


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


class FunctionBuilder(
    ExpressionBuilder,
    LoopBuilder,
    PointerLoopBuilder,
    UpdateBuilder,
    FlowBuilder,
    MemoryGroupBuilder,
    SelectPairBuilder,
    AliasBuilder,
):
    def __init__(
        self, checked, instance, pure, allocator: Allocator, trust_u32=False, measuring=False
    ):
        self.checked = checked
        # a build only to measure the function's size (the inliner's): loops keep their first
        # layout instead of trying the others (compiler/tir/loops.py)
        self.measuring = measuring
        self.instance = instance
        self.analysis = analyze(instance, pure)
        self.order = Order(instance, pure)
        self.stack = Stack(allocator)
        self.values: dict = {}  # Binding -> Value
        self.views: dict = {}  # Binding -> (Value, offset): names of held words (tir/aliases.py)
        self.valued = dict(instance.valued_ifs)  # If -> type, with lifted returns
        self.constants: dict = {}  # Binding -> its value, for immutable names of constants
        self.bounds: dict = {}  # Binding -> upper bounds of its words (compiler.tir.ranges)
        self.flow: dict = {}  # Binding -> bounds at this point (compiler.tir.flow_ranges)
        self.flow_loops: dict = {}  # For -> (bindings it assigns, bounds valid in its body)
        self.flow_forgets: dict = {}  # If -> the bindings it assigns (FlowBuilder.forget)
        self.assigned_targets: dict = {}  # statement -> the targets it assigns (assigned_in)
        self.branch_depth = 0  # enclosing `if`s: their arms' assignments are not recorded
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
        self.protected: set = set()  # values whose reads copy (an update in progress)
        self.notes: list[tuple[str, str]] = []  # (report section, what), `tri build --report`
        self.loop_frames: dict = {}  # For -> its frame's Values (the last build's)
        self.layouts: dict = {}  # an innermost loop's first build -> its layout (tir/loops.py)
        self.pointer_plans: dict = {}  # (For, enclosing addresses) -> its PointerPlan or None
        self.pointer_sites: dict = {}  # address -> (For, difference Value), pointer loops
        self.pointer_aliases: set = set()  # names for a pointer loop's variable: no slot
        self.pointer_fused: dict = {}  # address -> (For, base): accessed with its pointer
        self.advanced_pointers: dict = {}  # (For, base) -> the Value of a pointer advanced
        self.carried_pointers: dict = {}  # (For, base) -> a pointer the loop carries
        self.loop_plans: dict = {}  # For -> its PointerPlan, while a pointer loop is built
        self.loop_pointers: dict = {}  # For -> its pointers' bases, the frame's first
        self.loop_advanced = False  # the last loop body built advanced its pointer itself
        self.loop_step = 1  # what the next loop's test adds to its variable (a pointer's)

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
        return Function(
            self.label, params, result_width, stack.ops, instance.key, tuple(self.notes)
        )

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
        index = 0
        while index < len(statements):
            statement = statements[index]
            last = index == len(statements) - 1
            self.position = self.analysis.numbers[statement]
            self.kill_dead(self.analysis.live_before[statement])
            group = self.memory_group(statements, index)
            if group is not None:  # compiler/tir/memory_groups.py
                self.statement(group, None)
                index += len(group)
                result = None
                continue
            result = self.statement(statement, mode if last else None)
            if self.returned and not last:
                return result  # a return that always runs: the rest cannot run
            if self.early is not None and not last and contains_return(statement):
                return self.guarded(statements[index + 1 :], mode)
            index += 1
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
            if binding is not None and binding not in live and value not in self.protected:
                self.stack.kill(value)
        self.stack.pop_garbage()

    def statement(self, statement, mode: str | None) -> Value | None:
        """Compile one statement; the ops it emits carry its origin (compiler.sourcemap)."""
        stack = self.stack
        outer = stack.origin
        if isinstance(statement, list):  # a memory group: its first statement's origin
            stack.origin = origin_of(self.instance, statement[0].statement)
        else:
            stack.origin = origin_of(self.instance, statement)
        try:
            if isinstance(statement, list):
                group = statement
                return self.read_group(group) if group[0].reading else self.write_group(group)
            return self.compile_with_flow(statement, mode)
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
                    return self.update(statement.value) or self.expr(statement.value)
                self.return_(statement)
            case ast.ExprStatement():
                update = self.update(statement.expr) if mode == "value" else None
                value = update or self.expr(statement.expr)
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
        for binding in self.analysis.lets[statement]:
            self.views.pop(binding, None)  # a loop body is built more than once
        if self.pointer_aliases and set(self.analysis.lets[statement]) & self.pointer_aliases:
            return  # `let o = convert.as_field(i)` of a pointer loop: read only in addresses
        if isinstance(statement.pattern, ast.PatternName) and not statement.mutable:
            value = self.constant(statement.value)
            if value is not None:
                # an immutable name for a constant takes no slot: each read pushes it
                self.constants[self.analysis.lets[statement][0]] = value
                return
        if self.remainder(statement) or self.loop_alias(statement) or self.held_view(statement):
            return
        temp = self.in_place(statement.value) or self.update(statement.value)
        temp = temp or self.expr(statement.value)
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
        known = (
            None if statement.mutable else bounds(statement.value, self.instance, self.known_bounds)
        )
        for binding, offset, part_width in parts:
            if binding is not None and known is not None:
                self.bounds[binding] = known[offset : offset + part_width]
            if binding is None or binding not in live:
                self.stack.kill_elements(temp, range(offset, offset + part_width))
                continue
            value = self.variable(binding)
            self.stack.rename(temp, value, offset, part_width)
        self.settle()

    def remainder(self, statement: ast.Let) -> bool:
        """`let (_, r) = x /% 2^k` (the quotient never read): r is `x & (2^k - 1)`, which
        fails on the same x (not a u32) as `div_mod` does."""
        value = statement.value
        if not isinstance(value, ast.Binary) or value.operator != "/%":
            return False
        if not isinstance(statement.pattern, ast.PatternTuple):
            return False
        divisor = self.constant(value.right)
        quotient, remainder = self.analysis.lets[statement]
        live = self.analysis.live_after[statement]
        if divisor is None or divisor & (divisor - 1) or not 0 < divisor < 2**32:
            return False
        if quotient is not None and quotient in live:
            return False
        self.expr(value.left)
        self.stack.push_constant(divisor - 1)
        temp = self.apply(Op("And"), 2, 1)
        if remainder is None or remainder not in live:
            self.stack.drop(temp)
        else:
            self.stack.rename(temp, self.variable(remainder))
            if not statement.mutable:  # a mutable name's bound is flow_ranges'
                self.bounds[remainder] = [divisor - 1]
        self.settle()
        return True

    def settle(self) -> None:
        """After renaming: pop garbage on top, keep variables in reach, home indexed ones."""
        self.stack.pop_garbage()
        self.stack.enforce_window()
        for value in self.stack.values():
            binding = self.bindings.get(value)
            if binding in self.analysis.indexed and self.stack.on_stack(value):
                self.stack.home_in_ram(value)

    def assign(self, statement: ast.Assign) -> None:
        temp = self.in_place(statement.value) or self.update(statement.value)
        temp = temp or self.expr(statement.value)
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
        condition = self.constant(statement.condition)
        if condition is not None:
            return self.if_known(statement, condition != 0, mode)
        both_ways = mode == "value" and select_depth(statement) <= SELECT_DEPTH
        if both_ways and self.selectable(statement):
            return self.cheapest(
                lambda: self.if_branches(statement, mode),
                lambda: self.select(statement),
                measure=lambda ops: expected_cycles(ops) + lowered_size(ops) / 1024,
            )
        return self.if_branches(statement, mode)

    def if_known(self, statement: ast.If, taken: bool, mode: str | None) -> Value | None:
        """An `if` whose condition is known at compile time: only the arm taken is built."""
        arm = statement.then_block if taken else statement.else_block
        if arm is None:
            return None
        valued = mode == "value" and statement in self.valued
        return self.statements(arm.statements, "value" if valued else mode)

    def selectable(self, statement: ast.If) -> bool:
        """A valued if of one word whose arms are each one expression (or a selectable
        valued if) that may be evaluated whether or not its arm is taken
        (compiler.tir.ranges.speculable)."""
        if statement not in self.valued:
            return False
        if width(self.valued[statement]) != 1 or statement.else_block is None:
            return False
        return all(self.speculable_arm(b) for b in (statement.then_block, statement.else_block))

    def speculable_arm(self, block: ast.Block) -> bool:
        if len(block.statements) != 1:
            return False
        match block.statements[0]:
            case ast.ExprStatement(expr=expr):
                return speculable(expr, self.instance, self.known_bounds)
            case ast.If() as inner:
                return self.selectable(inner) and speculable(
                    inner.condition, self.instance, self.known_bounds
                )
        return False

    def select(self, statement: ast.If) -> Value:
        """Both arms are trivial: the condition, then both values (moved where it is their
        last use), laid out [else then condition] by one planned arrangement; `skiz swap 1`
        `pop 1` keeps one."""
        stack = self.stack
        zero = self.zero_arm(statement)
        condition = self.expr(statement.condition)
        keys, moved = [], []
        then_reads = {
            self.values.get(self.analysis.reads.get(var)) for var in arm_reads(statement.then_block)
        }
        blocks = (statement.else_block, statement.then_block)
        for block in blocks if zero is None else [b for b in blocks if b is not zero]:
            arm = block.statements[0]
            expr = arm.expr if isinstance(arm, ast.ExprStatement) else arm
            # the else value is made first: what the then value reads must stay
            protected = then_reads - self.protected if block is statement.else_block else set()
            self.protected |= protected
            constant = None if isinstance(expr, ast.If) else self.constant(expr)
            place = self.movable_place(expr) if constant is None else None
            if place is not None and place[0].key(place[1]) not in keys:
                keys.append(place[0].key(place[1]))
                moved.append(place[0])
            elif constant is not None:
                keys.append(stack.push_constant(constant).key(0))
            elif isinstance(expr, ast.Var):  # a copy: the value is read again later
                reference = self.instance.variables[expr]
                binding = self.analysis.reads[expr]
                keys.append(self.read_place(binding, reference.offset, 1, None).key(0))
            elif isinstance(expr, ast.If):  # a valued if of its own, evaluated in advance
                keys.append(self.if_(expr, "value").key(0))
            else:  # evaluated whether or not its arm is taken: it cannot fail
                keys.append(self.expr(expr).key(0))
            self.protected -= protected
        keys.append(condition.key(0))
        for value in moved:
            stack.touch(value)
        stack.arrange(keys)
        if zero is not None:
            return self.select_by_product(statement, zero, moved, condition)
        self.conditional_swap(moved, condition)
        stack.emit(Op("Pop", 1))
        stack.slots.pop()
        return stack.adopt(1, "select")

    def conditional_swap(self, moved: list, condition: Value) -> None:
        """[x y condition] on top (`moved`: the variables x and y were moved from) become
        two new words, swapped when the condition is not 0: `skiz swap 1`."""
        stack = self.stack
        chosen = [stack.new_temp(1, "arm").key(0) for _ in range(2)]
        stack.slots[-3:-1] = chosen
        for value in moved:
            stack.kill(value)
        stack.kill(condition)
        stack.slots.pop()
        swapped = [*stack.slots[:-2], stack.slots[-1], stack.slots[-2]]
        stack.note(top=1)
        stack.emit(IfOnly((stack.facts(), Op("Swap", 1), stack.facts(swapped))))
        stack.note()

    def zero_arm(self, statement: ast.If) -> ast.Block | None:
        """The arm of a select whose value is the constant 0 when the other is kept by a
        product instead: `if c {x} else {0}` is `c * x` for a condition known to be 0 or 1,
        `if c {0} else {x}` is `(c == 0) * x` for any condition (`selectable`: one word)."""
        zeros = [
            block
            for block in (statement.then_block, statement.else_block)
            if isinstance(block.statements[0], ast.ExprStatement)
            and self.constant(block.statements[0].expr) == 0
        ]
        if len(zeros) != 1:
            return None
        if zeros[0] is statement.else_block:
            if bound(statement.condition, self.instance, self.known_bounds) > 1:
                return None
        return zeros[0]

    def select_by_product(self, statement, zero, moved, condition) -> Value:
        """The select of `zero_arm`: [x c] on top become c * x, or (c == 0) * x."""
        stack = self.stack
        stack.adopt(2, "arm")
        for value in moved:
            stack.kill(value)
        stack.kill(condition)
        if zero is statement.then_block:
            stack.push_constant(0)
            self.apply(Op("Eq"), 2, 1)
        self.notes.append(("laid out inline", "select by a product"))
        return self.apply(Op("Mul"), 2, 1)

    def cheapest(self, first, second, left_over=lambda: 0, measure=lowered_size):
        """Build two alternatives from the same state; keep the one with less code (the
        first when the second gives up by returning None).  `left_over()`, called after
        the first, counts instructions it leaves for later (dropping garbage it buried)."""
        stack = self.stack
        start, saved = len(stack.ops), stack.snapshot()
        returned, notes = self.returned, len(self.notes)
        result_a = first()
        ops_a, state_a, returned_a = stack.ops[start:], stack.snapshot(), self.returned
        later = left_over()
        notes_a = self.notes[notes:]
        del stack.ops[start:], self.notes[notes:]
        stack.restore(saved)
        self.returned = returned
        result_b = second()  # its loops, if any, get labels after the first's
        if result_b is not None and measure(stack.ops[start:]) < measure(ops_a) + later:
            return result_b
        del stack.ops[start:], self.notes[notes:]
        stack.ops.extend(ops_a)
        self.notes.extend(notes_a)
        stack.restore(state_a)
        self.returned = returned_a
        return result_a

    def if_branches(self, statement: ast.If, mode: str | None) -> Value | None:
        stack = self.stack
        valued = mode == "value" and statement in self.valued
        branch_mode = "value" if valued else (mode if mode == "ret" else None)
        condition = self.branch_condition(statement.condition)
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

    def branch_condition(self, expr) -> Value:
        """The value a branch tests, where only zero or not matters (`skiz`): `0 < e` is
        `e` itself when e is a u32 (then `lt` cannot fail), and `e == 1` (or `1 == e`) is
        `e` when e is 0 or 1."""
        if isinstance(expr, ast.Binary) and expr.operator == "<":
            if self.constant(expr.left) == 0 and self.is_u32(expr.right):
                return self.expr(expr.right)
        if isinstance(expr, ast.Binary) and expr.operator == "==":
            for one, other in ((expr.right, expr.left), (expr.left, expr.right)):
                if self.constant(one) == 1 and self.bound_of(other) <= 1:
                    return self.expr(other)
        return self.expr(expr)

    def bound_of(self, expr) -> int:
        return bound(expr, self.instance, self.known_bounds)

    def is_u32(self, expr) -> bool:
        """Whether `expr`'s value is below 2^32: by its bound, or a U32 of a build where
        every U32 value is (compiler/tir/facts.py)."""
        if self.trust_u32 and self.instance.types.get(expr) == U32:
            return True
        return self.bound_of(expr) < 2**32

    def best_branch(self, block, entry, target, choices, mode, live_after, result=None) -> list:
        """Build a branch with a fixed target, with the `kept` set choices[0]; for a small
        body also with choices[1] (moving instead of copying the values whose slot the
        join keeps, or the reverse), and keep the shorter."""
        notes = len(self.notes)
        ops = self.branch(block, entry, target, choices[0], mode, live_after, result)
        if not simple_block(block) or choices[1] == choices[0]:
            return ops
        notes_first = self.notes[notes:]
        del self.notes[notes:]  # the notes of the body kept, once
        other = self.branch(block, entry, target, choices[1], mode, live_after, result)
        if lowered_size(other) < lowered_size(ops):
            return other
        self.notes[notes:] = notes_first
        return ops

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
        if target is None and self.returned:
            stack.conform(self.exit_layout(entry, live_after), dead=True)
        elif target is None:
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
                stack.read(loop.frame[0], 0, 1, move=False)  # the test adds `step`
                self.assign_value(loop.frame[-1], self.apply(Op("AddI", -loop.step % P), 1, 1))
        self.returned = True


def has_code(ops) -> bool:
    """Whether `ops` holds more than annotations (a body of only Facts lowers to nothing)."""
    return any(not isinstance(op, Facts) for op in ops)


def arm_reads(block: ast.Block):
    """The variables an arm of a select reads (its expression, or its inner if's)."""
    for statement in block.statements:
        match statement:
            case ast.ExprStatement(expr=expr):
                yield from variables(expr)
            case ast.If():
                yield from variables(statement.condition)
                yield from arm_reads(statement.then_block)
                if statement.else_block is not None:
                    yield from arm_reads(statement.else_block)
