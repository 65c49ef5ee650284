"""Pointer loops: which `for` loops count an address instead of their variable.

A loop `for i in START..END` whose variable is read only inside addresses
`base + convert.as_field(i)` (directly, or through immutable names bound to
`convert.as_field(i)`), with bases that do not change in the loop, can count a
pointer P = B + i from B + START to B + END instead of i itself (strength
reduction): the address with base B is then P (one `dup` instead of `dup` `dup`
`add`).  An address with another base C is its own pointer Q = C + i, carried by
the loop, when the loop reads or writes it once per iteration; else P + (C - B),
where C - B is computed once before the loop.  An address `C + i * k` (the terms of a
sum in any order, k a name) walks by k: its pointer Q = C + START * k is carried by
the loop and advanced by k at the end of each iteration; for a small constant k it is a
base like any, with step k instead of 1 (the frame's pointer may walk by it, when the
loop itself reads or writes there).  Each pointer's last access moves it through
`read_mem 1` / `write_mem 1`, which leave it advanced for the next iteration.
`pointer_plan` finds the addresses, their bases and those accesses; the builder
(compiler/tir/pointer_loops.py) lays the loop out.

A base is a pure expression of names the loop neither declares nor assigns,
integer literals, `+` and `*` over fields, and addresses of an enclosing pointer
loop (P is constant during an inner loop).  Two addresses share a base when their
base expressions are the same expression of the same bindings.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from compiler.builtins import Builtin
from compiler.check.bodies import ConstRef, LocalRef
from compiler.check.types import FIELD, width
from compiler.syntax import ast
from compiler.tir.walk import contains_return, inlined_calls, statement_expressions
from vm.field import P

SMALL_STRIDE = 1 << 16  # a constant stride below this is a plain step (the test's addi)


@dataclass
class PointerPlan:
    """The addresses of one loop, grouped by base (the pointer's base first)."""

    bases: list  # base keys, the pointer's first, then by first use
    expressions: dict  # base key -> an expression that evaluates it (its first use)
    sites: dict = field(default_factory=dict)  # ast.Binary (an address) -> its base key
    aliases: set = field(default_factory=set)  # bindings of `let o = convert.as_field(i)`
    elsewhere: set = field(default_factory=set)  # bindings the loop also reads outside bases
    fused: dict = field(default_factory=dict)  # base key -> its last address, read or
    # written with the base's own pointer (the loop's for the first base, else a carried one)
    strides: dict = field(default_factory=dict)  # stride key -> an expression of it

    def carried(self, key) -> bool:
        """Whether a base (not the first) has a pointer of its own, carried by the loop:
        one accessed once per iteration, or one that walks by a stride."""
        return key in self.fused or strided(key)

    def uses(self, key) -> int:
        return sum(1 for base in self.sites.values() if base == key)

    def consumable(self, key, live_after) -> bool:
        """Whether the base is one name the loop reads in no other base and nowhere else,
        and that is dead after it: its value can be consumed before the loop."""
        if key[1][0] != "var":
            return False
        binding = key[1][1]
        others = [other for other in self.bases if other != key]
        return (
            binding not in self.elsewhere
            and binding not in live_after
            and not any(_mentions(other, binding) for other in others)
        )


def strided(key) -> bool:
    """Whether a base key's addresses walk by a stride that is a name (`base + i * k`);
    a constant stride is a step like 1 or -1."""
    return not isinstance(key[0], int)


def _mentions(key, binding) -> bool:
    """Whether a base key reads `binding` (keys are nested tuples)."""
    if isinstance(key, tuple):
        return any(part is binding or _mentions(part, binding) for part in key)
    return False


def pointer_plan(statement: ast.For, instance, analysis, order, outer_sites) -> PointerPlan | None:
    """The plan for `statement`, or None when its variable is read otherwise (or not at
    all).  `order`: the builder's evaluation order (compiler.tir.liveness.Order);
    `outer_sites`: the addresses of the enclosing pointer loops being built."""
    variable = analysis.loop_variables.get(statement)
    if variable is None:
        return None
    finder = _Finder(instance, analysis, order, variable, outer_sites)
    finder.scan(statement.body)
    if finder.escaped or not finder.sites:
        return None
    # a constant stride pays for addresses read or written in the loop itself; one that
    # is only an inner loop's base leaves the loop plain (its pointers crowd the stack)
    if any(
        not strided(key) and abs(key[0]) > 1 and site not in finder.direct
        for site, key in finder.sites.items()
    ):
        return None
    counts: dict = {}
    for key in finder.sites.values():
        counts[key] = counts.get(key, 0) + 1
    order = list(dict.fromkeys(finder.sites.values()))
    plain = [key for key in order if not strided(key)]
    if not plain:
        return None  # the loop's own pointer walks by a constant step
    first = max(plain, key=lambda key: counts[key])
    bases = [first] + [key for key in order if key != first]
    plan = PointerPlan(bases, finder.expressions, finder.sites, finder.aliases, finder.elsewhere)
    plan.strides = finder.strides
    # each base's last address, when it is read or written once per iteration, with the
    # base's own pointer (and the body cannot return: every iteration ends at the test)
    if not any(contains_return(s) for s in statement.body.statements):
        for site, key in finder.sites.items():
            plan.fused.pop(key, None)
            plan.fused[key] = site
        plan.fused = {
            key: site
            for key, site in plan.fused.items()
            if site in finder.once and not strided(key)
        }
    # an address with a difference from the frame's pointer must walk the same way
    if any(key[0] != first[0] for key in bases[1:] if not plan.carried(key)):
        return None
    return plan


class _Finder:
    """One walk over a loop body: its addresses, its aliases, and whether the variable
    escapes (is read anywhere else)."""

    def __init__(self, instance, analysis, order, variable, outer_sites):
        self.instance = instance
        self.order = order
        self.analysis = analysis
        self.offsets = {variable}
        self.outer_sites = outer_sites
        self.sites: dict = {}
        self.expressions: dict = {}
        self.aliases: set = set()
        self.elsewhere: set = set()
        self.once: set = set()  # addresses of memory accesses that run once per iteration
        self.direct: set = set()  # addresses read or written here (not passed on as bases)
        self.branches = 0  # enclosing `if` arms and inner loops
        self.escaped = False
        self.changing: set = {variable}  # bindings declared or assigned in the loop
        self.strides: dict = {}  # stride key -> an expression of it

    def scan(self, body: ast.Block) -> None:
        self.collect(body)
        self.offsets |= self.aliases
        self.block(body)

    def collect(self, block: ast.Block) -> None:
        """The bindings the loop declares or assigns, and the aliases of its variable."""
        for statement in block.statements:
            match statement:
                case ast.Let():
                    bindings = self.analysis.lets.get(statement, ())
                    self.changing.update(b for b in bindings if b is not None)
                    if self.alias(statement) and bindings[0] is not None:
                        self.aliases.add(bindings[0])
                case ast.Assign():
                    targets = statement.target
                    names = targets.elements if isinstance(targets, ast.TupleExpr) else [targets]
                    self.changing.update(self.analysis.targets.get(name) for name in names)
                case ast.If():
                    self.collect(statement.then_block)
                    if statement.else_block is not None:
                        self.collect(statement.else_block)
                case ast.For():
                    self.changing.add(self.analysis.loop_variables.get(statement))
                    self.collect(statement.body)
            for expr in statement_expressions(statement):
                for inlined in inlined_calls(expr):
                    self.collect(inlined.body)

    def alias(self, statement: ast.Let) -> bool:
        return (
            not statement.mutable
            and isinstance(statement.pattern, ast.PatternName)
            and self.is_offset(statement.value, aliases=False)
        )

    def is_offset(self, expr, aliases: bool = True) -> bool:
        """`convert.as_field(i)`, or a name bound to it."""
        if isinstance(expr, ast.Call):
            target = self.instance.calls.get(expr)
            if isinstance(target, Builtin) and target.name == "as_field":
                (argument,) = expr.arguments
                return (
                    isinstance(argument, ast.Var)
                    and self.analysis.reads.get(argument) in self.offsets - self.aliases
                )
        return (
            aliases and isinstance(expr, ast.Var) and self.analysis.reads.get(expr) in self.aliases
        )

    def block(self, block: ast.Block) -> None:
        for statement in block.statements:
            if isinstance(statement, ast.Let) and self.alias(statement):
                continue
            for expr in statement_expressions(statement):
                self.visit(expr)
            self.branches += 1
            match statement:
                case ast.If():
                    self.block(statement.then_block)
                    if statement.else_block is not None:
                        self.block(statement.else_block)
                case ast.For():
                    self.block(statement.body)
            self.branches -= 1

    def visit(self, expr) -> None:
        for step, base, other in self.forms(expr):
            if self.is_offset(other):
                key = self.key(base)
                if key is not None:
                    self.sites[expr] = (step, key)
                    self.expressions.setdefault((step, key), base)
                    return
        walk = self.strided_address(expr)
        if walk is not None:
            step, key, terms = walk
            self.sites[expr] = (step, key)
            self.expressions.setdefault((step, key), terms)
            return
        match expr:
            case ast.Var():
                binding = self.analysis.reads.get(expr)
                self.elsewhere.add(binding)
                if binding in self.offsets:
                    self.escaped = True
            case ast.Inlined():
                self.block(expr.body)
            case _:
                for part in self.order.operands(expr):
                    self.visit(part)
                if isinstance(expr, ast.Call) and expr.arguments[:1]:
                    target = self.instance.calls.get(expr)
                    address = expr.arguments[0]
                    if isinstance(target, Builtin) and target.name in ("ram_read", "ram_write"):
                        self.direct.add(address)
                        if address in self.sites and not self.branches:
                            self.once.add(address)

    def forms(self, expr) -> list:
        """(step, base, offset) for each way `expr` may be an address: `base + offset`
        (either way round) walks up, `field.sub(base, offset)` down."""
        if isinstance(expr, ast.Binary) and expr.operator == "+":
            if self.instance.types.get(expr) == FIELD:
                return [(1, expr.left, expr.right), (1, expr.right, expr.left)]
        if isinstance(expr, ast.Call) and len(expr.arguments) == 2:
            target = self.instance.calls.get(expr)
            if isinstance(target, Builtin) and target.name == "sub":
                return [(-1, *expr.arguments)]
        return []

    def strided_address(self, expr):
        """(step, base key, base terms) for a sum of terms, one of them `offset * k` (or
        `k * offset`) with k a base of its own, the rest the base: the address walks by k
        (step ("stride", key of k)); k a constant or a name.  A small constant stride c is
        the step c itself: such a base may be the frame's, as one of step 1 is.  None
        otherwise."""
        terms = self.terms(expr)
        if len(terms) < 2:
            return None
        for index, term in enumerate(terms):
            if not (isinstance(term, ast.Binary) and term.operator == "*"):
                continue
            if self.instance.types.get(term) != FIELD:
                continue
            for offset, stride in ((term.left, term.right), (term.right, term.left)):
                if not self.is_offset(offset):
                    continue
                stride_key = self.key(stride)
                if stride_key is None or stride_key[0] not in ("int", "var"):
                    continue  # a stride is a constant or a name (read again each iteration)
                rest = terms[:index] + terms[index + 1 :]
                keys = [self.key(part) for part in rest]
                if any(part is None for part in keys):
                    continue
                if stride_key[0] == "int" and 1 < stride_key[1] < SMALL_STRIDE:
                    return stride_key[1], ("terms", *keys), tuple(rest)  # walks like `+ i`
                self.strides.setdefault(stride_key, stride)
                return ("stride", stride_key), ("terms", *keys), tuple(rest)
        return None

    def terms(self, expr) -> list:
        """The terms of a sum of fields (`a + b + c`, any grouping), or [expr]."""
        if isinstance(expr, ast.Binary) and expr.operator == "+":
            if self.instance.types.get(expr) == FIELD:
                return self.terms(expr.left) + self.terms(expr.right)
        return [expr]

    def key(self, expr):
        """The base's structure with names resolved to bindings, or None when it is not
        a base (it may change in the loop, or is not pure arithmetic)."""
        if expr in self.outer_sites:
            return ("address", expr)
        match expr:
            case ast.IntLiteral():
                return ("int", expr.value % P)
            case ast.Var():
                reference = self.instance.variables.get(expr)
                if isinstance(reference, ConstRef):
                    return ("int", reference.value % P)
                binding = self.analysis.reads.get(expr)
                if not isinstance(reference, LocalRef) or width(reference.type) != 1:
                    return None
                if binding is None or binding in self.changing or binding in self.offsets:
                    return None
                return ("var", binding, reference.offset)
            case ast.Binary(operator="+" | "*"):
                if self.instance.types.get(expr) != FIELD:
                    return None
                left = self.key(expr.left)
                right = None if left is None else self.key(expr.right)
                return None if right is None else (expr.operator, left, right)
        return None
