"""Control flow: structured TIR -> TASM with deferred subroutines (docs/backend.md).

`lower(program, lowerer)` turns every function into its label, its
straight-line code (blocks lowered by `lowerer`) and, after its `return`,
the deferred blocks of its branches and loops, so control never falls into a
body (docs/backend.md C10).  Shapes (labels `<function>__then__N`, ...):

* `IfOnly(b)`: `skiz` `call THEN` with THEN: b `return`; when b lowers to one
  instruction: `skiz` b.  An empty body just pops the condition.
* `IfElse(t, e)`: `push 1` `swap 1` `skiz` `call THEN` `skiz` `call ELSE`,
  THEN: `pop 1` t `push 0` `return`, ELSE: e `return`; an `e` of one
  instruction is inlined after the second `skiz`; an empty arm reduces the
  shape to `IfOnly` (negating the condition with `push 0` `eq` if needed).
* `Loop` (do-while; the builder guards loops that may run zero times):
  `call LOOP` and LOOP: body, then
  down: `addi -1` `dup 0` `skiz` `recurse` `return` (4 per iteration), or
  up:   `addi 1` `dup 0` `push END`/`dup 2` `eq` `skiz` `return` `recurse`, or,
  with the frame [END v] under five words (`Loop.depth`): `pick 5` `addi 1`
  `place 5` `recurse_or_return` (4 per iteration, against 6); a down frame under k
  words: `pick k` `addi -1` `dup 0` `place k+1` `skiz` `recurse` `return`.  An up
  loop whose body advances v itself (`Loop.advanced`) has no `addi 1`/`pick 5` `addi 1`
  `place 5`: its test only compares.
"""

from __future__ import annotations

from compiler.lower.asm import CONTROL, AsmFunction, AsmProgram, Instr, Label
from compiler.lower.blocks import Block, BlockLowerer, has_ops, is_straight, make_block
from compiler.lower.classical import CLASSICAL
from compiler.sourcemap import stamp_block
from compiler.tir.ops import (
    Asm,
    Call,
    Comment,
    Facts,
    IfElse,
    IfOnly,
    Loop,
    Op,
    Program,
    ProofBlock,
)
from vm.field import P
from vm.isa import BY_NAME, Flow

# the glue around a branch arm's code in its subroutine (see `if_only` and `if_else`)
THEN_START = (Instr("pop", 1),)
THEN_ELSE_END = (Instr("push", 0), Instr("return"))
THEN_END = (Instr("return"),)


def lower(program: Program, lowerer: BlockLowerer = CLASSICAL) -> AsmProgram:
    functions = [_FunctionLowering(f.label, lowerer).run(f.body) for f in program.functions]
    return AsmProgram(functions, program.entry, program.name)


def expected_cycles(ops, lowerer: BlockLowerer = CLASSICAL) -> float:
    """Cycles of one run of `ops`, before peephole, each arm of a branch taken half the time
    and each loop body run once (the builder's measure when a branch may become a select)."""
    lowering = _FunctionLowering("cycles", lowerer)
    return lowering.cycles(ops)


def lowered_size(ops, lowerer: BlockLowerer = CLASSICAL) -> int:
    """How many instructions `ops` become when lowered as a function body: its own code and
    the deferred blocks of its branches and loops, before peephole."""
    function = _FunctionLowering("size", lowerer).run(list(ops))
    return sum(isinstance(item, Instr) for item in function.items)


class _FunctionLowering:
    def __init__(self, label: str, lowerer: BlockLowerer):
        self.label = label
        self.lowerer = lowerer
        self.deferred: list[list] = []
        self.count = 0
        self.notes: list[tuple[str, str]] = []  # branches laid out without a subroutine

    def run(self, body) -> AsmFunction:
        items: list = [Label(self.label), *self.body(body)]
        flushed = 0
        while flushed < len(self.deferred):
            items.extend(self.deferred[flushed])
            flushed += 1
        return AsmFunction(self.label, items, tuple(self.notes))

    def fresh(self, kind: str) -> str:
        self.count += 1
        return f"{self.label}__{kind}__{self.count}"

    def body(self, ops, before: tuple = (), after: tuple = ()) -> list:
        """The items of `ops`; `before` and `after` are the code around them where they
        are placed (a subroutine's glue, a loop's test), for `place`."""
        items: list = []
        run: list = []
        for op in ops:
            if is_straight(op) or isinstance(op, Comment):
                run.append(op)
                continue
            start = len(items)
            block, code = self.lowered(run)
            items.extend(code)
            run = []
            following = self.control(op)
            self.place(block, items, start, before, following)
            items.extend(following)
        start = len(items)
        block, code = self.lowered(run)
        items.extend(code)
        self.place(block, items, start, before, after)
        return items

    def block(self, run: list) -> list:
        return self.lowered(run)[1]

    def lowered(self, run: list) -> tuple:
        """(the block of `run`, its code), or (None, []) for a run without ops."""
        if not has_ops(run):
            return None, []
        if self.lowerer is CLASSICAL:  # which reads no contract: spare computing one
            block = Block(tuple(op for op in run if not isinstance(op, Comment | Facts)), None)
        else:
            block = make_block(run)
        return block, stamp_block(self.lowerer.lower_block(block), block)

    def place(self, block, items: list, start: int, before, following) -> None:
        """Let a lowerer that can (`in_place`) replace the block's code `items[start:]`
        now that the code on both sides, which the program-level peephole rewrites with
        it, is known: the code since the last label or control instruction (`before`
        the body, then `items`), and `following`, up to the next label."""
        in_place = getattr(self.lowerer, "in_place", None)
        if block is None or in_place is None:
            return
        preceding = list(before) + items[:start]
        breaks = [i for i, item in enumerate(preceding) if _breaks_run(item)]
        cut = breaks[-1] if breaks else 0
        upto = next((i for i, item in enumerate(following) if isinstance(item, Label)), None)
        placed = in_place(block, items[start:], preceding[cut:], list(following[:upto]))
        items[start:] = stamp_block(placed, block)

    def control(self, op) -> list:
        match op:
            case Op(name="Return"):
                return [Instr("return", None, op.origin)]
            case Op(name="Halt"):
                return [Instr("halt")]
            case Call():
                return [Instr("call", op.label, op.origin)]
            case IfOnly(then=(Loop(unroll=2) as loop,)):
                return self.loop(loop, guarded=True)
            case IfOnly():
                return self.if_only(self.body(op.then, after=THEN_END))
            case IfElse():
                then = self.body(op.then, before=THEN_START, after=THEN_ELSE_END)
                return self.if_else(then, self.body(op.otherwise, after=THEN_END))
            case Loop():
                return self.loop(op)
            case ProofBlock():
                return self.body(op.body)
            case Asm():
                from vm import tasm

                parsed = tasm.parse("\n".join(op.lines)).ops
                return [Instr(o.instruction.name, o.target or o.argument) for o in parsed]
        raise TypeError(f"cannot lower {op!r}")

    def cycles(self, ops) -> float:
        """Expected cycles of `ops` (see `expected_cycles`), path by path of each shape."""
        total = 0.0
        run: list = []
        for op in list(ops) + [None]:
            if op is not None and (is_straight(op) or isinstance(op, Comment)):
                run.append(op)
                continue
            total += len(self.block(run))
            run = []
            if op is None:
                break
            match op:
                case IfOnly():
                    total += self.if_only_cycles(op.then)
                case IfElse():
                    total += self.if_else_cycles(op.then, op.otherwise)
                case Loop():
                    total += len(self.loop(op)) + self.cycles(op.body) + _test_cycles(op)
                case _:
                    total += len(self.control(op))
        return total

    def if_only_cycles(self, then) -> float:
        items = self.body(then)
        if not items:
            return 1  # pop 1
        if _single(items):
            return 1 + 0.5  # skiz, and the instruction half the time
        return 1 + 0.5 * (2 + self.cycles(then))  # skiz; call, body, return

    def if_else_cycles(self, then, otherwise) -> float:
        then_items, else_items = self.body(then), self.body(otherwise)
        if not else_items:
            return self.if_only_cycles(then)
        if not then_items:
            return 2 + self.if_only_cycles(otherwise)
        then_path = 4 + 1 + self.cycles(then) + 2 + 1  # push swap skiz call; pop; push return; skiz
        if _single(else_items):
            else_path = 3 + 2  # push swap skiz; skiz and the instruction
        else:
            else_path = 3 + 2 + self.cycles(otherwise) + 1  # skiz call; body; return
        return (then_path + else_path) / 2

    def _note(self, text: str, guarded: Instr) -> None:
        """An arm of one instruction lowered after its `skiz` (a `call` is not a layout)."""
        if guarded.name != "call":
            self.notes.append(("laid out inline", text))

    def subroutine(self, kind: str, items: list) -> str:
        label = self.fresh(kind)
        self.deferred.append([Label(label), *items])
        return label

    def if_only(self, then: list) -> list:
        if not then:
            return [Instr("pop", 1)]
        if _single(then):
            self._note(f"skiz {then[0].text}", then[0])
            return [Instr("skiz"), then[0]]
        return [Instr("skiz"), Instr("call", self.subroutine("then", [*then, *THEN_END]))]

    def if_else(self, then: list, otherwise: list) -> list:
        if not otherwise:
            return self.if_only(then)
        if not then:
            return [Instr("push", 0), Instr("eq"), *self.if_only(otherwise)]
        then_label = self.subroutine("then", [*THEN_START, *then, *THEN_ELSE_END])
        if _single(otherwise):
            self._note(f"else arm skiz {otherwise[0].text}", otherwise[0])
            tail = [otherwise[0]]
        else:
            tail = [Instr("call", self.subroutine("else", [*otherwise, *THEN_END]))]
        return [
            Instr("push", 1),
            Instr("swap", 1),
            Instr("skiz"),
            Instr("call", then_label),
            Instr("skiz"),
            *tail,
        ]

    def loop(self, op: Loop, guarded: bool = False) -> list:
        """`call LOOP`; unrolled (`op.unroll` 2), LOOP runs the body twice per test and
        PEEL runs it once: called first when the trip count is odd, which a constant
        count knows and a guarded count (its copy on top, for `skiz`) tests with one `and`,
        then the pairs unless none are left."""
        test = _test(op, op.unroll)
        body = self.body(op.body, after=tuple(test))
        if op.unroll == 1:
            self.deferred.append([Label(op.label), *body, *test])
            return [Instr("call", op.label)]
        advance = _advance(op)
        peel = f"{op.label}__peel"
        between = [] if op.kind == "down" else advance  # a down body never reads its count
        self.deferred.append([Label(op.label), *body, *between, *body, *test])
        self.deferred.append([Label(peel), *body, *advance, Instr("return")])
        if guarded:
            return [
                *(Instr("push", 1), Instr("and"), Instr("skiz"), Instr("call", peel)),
                *(Instr("dup", op.depth), Instr("skiz"), Instr("call", op.label)),
            ]
        odd = [Instr("call", peel)] if op.trips % 2 else []
        return [*odd, Instr("call", op.label)]


def _test(op: Loop, unroll: int = 1) -> list:
    """The code after a loop's body: advance the counter, go round again or return.  A
    "down" count counts `unroll` bodies at once (an "up" body reads its variable: the
    unrolled loop advances it between the bodies, `_advance`)."""
    if op.kind == "down" and op.depth:  # frame [count] under `depth` words
        return [
            Instr("pick", op.depth),
            Instr("addi", P - unroll),
            Instr("dup", 0),
            Instr("place", op.depth + 1),
            Instr("skiz"),
            Instr("recurse"),
            Instr("return"),
        ]
    if op.kind == "down":
        return [
            Instr("addi", P - unroll),
            Instr("dup", 0),
            Instr("skiz"),
            Instr("recurse"),
            Instr("return"),
        ]
    step = [] if op.advanced else [Instr("addi", op.step % P)]
    if op.depth:  # frame [end v] at st6 st5: v += 1, then recurse unless v = end
        if step:
            step = [Instr("pick", op.depth), *step, Instr("place", op.depth)]
        return [*step, Instr("recurse_or_return")]
    end = Instr("push", op.end) if op.end is not None else Instr("dup", 2)
    return [
        *step,
        Instr("dup", 0),
        end,
        Instr("eq"),
        Instr("skiz"),
        Instr("return"),
        Instr("recurse"),
    ]


def _advance(op: Loop) -> list:
    """The test's step alone, without its branch: what one iteration does to the frame."""
    if op.kind == "down":
        step = [Instr("addi", P - 1)]
        return [Instr("pick", op.depth), *step, Instr("place", op.depth)] if op.depth else step
    if op.advanced:
        return []
    step = [Instr("addi", op.step % P)]
    return [Instr("pick", op.depth), *step, Instr("place", op.depth)] if op.depth else step


def _breaks_run(item) -> bool:
    """A label or control instruction: the peephole's runs end there."""
    return isinstance(item, Label) or item.name in CONTROL


def _test_cycles(op: Loop) -> int:
    """The estimate `cycles` adds per loop for its test: 5 for a frame on top (4 or 6 per
    iteration), 2 fewer for `recurse_or_return`, 2 more for a count under the body's words;
    1 fewer for an up frame `advanced` by the body, 3 fewer under five words."""
    if not op.depth:
        return 4 if op.advanced else 5
    if op.kind == "up":
        return 0 if op.advanced else 3
    return 7


def _single(items: list) -> bool:
    """One instruction that may follow `skiz`: a straight-line one or a `call` (after which
    control comes back), not a label."""
    return (
        len(items) == 1
        and isinstance(items[0], Instr)
        and BY_NAME[items[0].name].flow in (Flow.STRAIGHT, Flow.CALL)
    )


__all__ = ["lower", "lowered_size", "expected_cycles", "CONTROL"]
