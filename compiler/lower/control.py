"""Control flow: structured TIR -> TASM with deferred subroutines (tir.md §2, corrected).

`lower(program, lowerer)` turns every function into its label, its
straight-line code (blocks lowered by `lowerer`) and, after its `return`,
the deferred blocks of its branches and loops, so control never falls into a
body (language.md §12 C10).  Shapes (labels `<function>__then__N`, ...):

* `IfOnly(b)`: `skiz` `call THEN` with THEN: b `return`; when b lowers to one
  instruction: `skiz` b.  An empty body just pops the condition.
* `IfElse(t, e)`: `push 1` `swap 1` `skiz` `call THEN` `skiz` `call ELSE`,
  THEN: `pop 1` t `push 0` `return`, ELSE: e `return`; an `e` of one
  instruction is inlined after the second `skiz`; an empty arm reduces the
  shape to `IfOnly` (negating the condition with `push 0` `eq` if needed).
* `Loop` (do-while; the builder guards loops that may run zero times):
  `call LOOP` and LOOP: body, then
  down: `addi -1` `dup 0` `skiz` `recurse` `return` (4 per iteration), or
  up:   `addi 1` `dup 0` `push END`/`dup 2` `eq` `skiz` `return` `recurse`.
"""

from __future__ import annotations

from compiler.lower.asm import CONTROL, AsmFunction, AsmProgram, Instr, Label
from compiler.lower.blocks import BlockLowerer, has_ops, is_straight, make_block
from compiler.lower.classical import CLASSICAL
from compiler.sourcemap import stamp_block
from compiler.tir.ops import Asm, Call, Comment, IfElse, IfOnly, Loop, Op, Program, ProofBlock
from vm.field import P
from vm.isa import BY_NAME, Flow


def lower(program: Program, lowerer: BlockLowerer = CLASSICAL) -> AsmProgram:
    functions = [_FunctionLowering(f.label, lowerer).run(f.body) for f in program.functions]
    return AsmProgram(functions, program.entry, program.name)


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

    def run(self, body) -> AsmFunction:
        items: list = [Label(self.label), *self.body(body)]
        flushed = 0
        while flushed < len(self.deferred):
            items.extend(self.deferred[flushed])
            flushed += 1
        return AsmFunction(self.label, items)

    def fresh(self, kind: str) -> str:
        self.count += 1
        return f"{self.label}__{kind}__{self.count}"

    def body(self, ops) -> list:
        items: list = []
        run: list = []
        for op in ops:
            if is_straight(op) or isinstance(op, Comment):
                run.append(op)
                continue
            items.extend(self.block(run))
            run = []
            items.extend(self.control(op))
        items.extend(self.block(run))
        return items

    def block(self, run: list) -> list:
        if not has_ops(run):
            return []
        block = make_block(run)
        return stamp_block(self.lowerer.lower_block(block), block)

    def control(self, op) -> list:
        match op:
            case Op(name="Return"):
                return [Instr("return", None, op.origin)]
            case Op(name="Halt"):
                return [Instr("halt")]
            case Call():
                return [Instr("call", op.label, op.origin)]
            case IfOnly():
                return self.if_only(self.body(op.then))
            case IfElse():
                return self.if_else(self.body(op.then), self.body(op.otherwise))
            case Loop():
                return self.loop(op)
            case ProofBlock():
                return self.body(op.body)
            case Asm():
                from vm import tasm

                parsed = tasm.parse("\n".join(op.lines)).ops
                return [Instr(o.instruction.name, o.target or o.argument) for o in parsed]
        raise TypeError(f"cannot lower {op!r}")

    def subroutine(self, kind: str, items: list) -> str:
        label = self.fresh(kind)
        self.deferred.append([Label(label), *items])
        return label

    def if_only(self, then: list) -> list:
        if not then:
            return [Instr("pop", 1)]
        if _single(then):
            return [Instr("skiz"), then[0]]
        return [Instr("skiz"), Instr("call", self.subroutine("then", [*then, Instr("return")]))]

    def if_else(self, then: list, otherwise: list) -> list:
        if not otherwise:
            return self.if_only(then)
        if not then:
            return [Instr("push", 0), Instr("eq"), *self.if_only(otherwise)]
        then_label = self.subroutine(
            "then", [Instr("pop", 1), *then, Instr("push", 0), Instr("return")]
        )
        if _single(otherwise):
            tail = [otherwise[0]]
        else:
            tail = [Instr("call", self.subroutine("else", [*otherwise, Instr("return")]))]
        return [
            Instr("push", 1),
            Instr("swap", 1),
            Instr("skiz"),
            Instr("call", then_label),
            Instr("skiz"),
            *tail,
        ]

    def loop(self, op: Loop) -> list:
        body = self.body(op.body)
        if op.kind == "down":
            test = [
                Instr("addi", P - 1),
                Instr("dup", 0),
                Instr("skiz"),
                Instr("recurse"),
                Instr("return"),
            ]
        else:
            end = Instr("push", op.end) if op.end is not None else Instr("dup", 2)
            test = [
                Instr("addi", 1),
                Instr("dup", 0),
                end,
                Instr("eq"),
                Instr("skiz"),
                Instr("return"),
                Instr("recurse"),
            ]
        self.deferred.append([Label(op.label), *body, *test])
        return [Instr("call", op.label)]


def _single(items: list) -> bool:
    """One instruction that may follow `skiz`: a straight-line one or a `call` (after which
    control comes back), not a label."""
    return (
        len(items) == 1
        and isinstance(items[0], Instr)
        and BY_NAME[items[0].name].flow in (Flow.STRAIGHT, Flow.CALL)
    )


__all__ = ["lower", "lowered_size", "CONTROL"]
