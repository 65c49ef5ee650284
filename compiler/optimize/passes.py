"""The two peephole passes of the pipeline: `optimize_tir` and `optimize_tasm`.

Both cut code into straight-line runs and hand each run to the rule engine
(compiler.optimize.engine) with their rule table (compiler.optimize.rules).
No rewrite crosses a run boundary: in TIR, structured ops, calls, returns
and comments; in TASM, labels and control instructions -- and the one
instruction after `skiz` is never touched (it is executed conditionally).
"""

from __future__ import annotations

from dataclasses import replace

from compiler.lower.asm import CONTROL, AsmFunction, AsmProgram, Instr, Label
from compiler.optimize.checks import merge_checks
from compiler.optimize.conjunctions import conjoin
from compiler.optimize.engine import Item, inherit, match, origin_of, replacement, rewrite
from compiler.optimize.inline_tir import inline_small
from compiler.optimize.rules import SELECT_RULES, SKIZ_RULES, TASM_RULES, TIR_RULES
from compiler.optimize.shuffles import shorten
from compiler.tir.ops import Facts, IfElse, IfOnly, Loop, Op, Program, ProofBlock


def optimize_tir(program: Program) -> Program:
    """Inline tiny functions, then apply the TIR rules and shorten runs of moves
    (compiler.optimize.shuffles)."""
    program = inline_small(program)
    functions = []
    for f in program.functions:
        shortened: list = []  # (section, text) notes: compiler.report's "moves shortened"
        body = optimize_ops(f.body, shortened)
        functions.append(replace(f, body=body, notes=f.notes + tuple(shortened)))
    return Program(functions, program.entry, program.name, program.roots)


def optimize_ops(ops, notes: list | None = None) -> list:
    """The TIR rules over each straight-line run of `ops`, then its runs of moves
    shortened, each noted in `notes` when given."""
    result: list = []
    run: list = []

    def flush():
        if run:
            # the engine never sees annotations; those at the run's ends stay there (a
            # sound rewrite keeps what they say true), any other is dropped
            ops = [op for op in run if not isinstance(op, Facts)]
            rewritten, _ = rewrite([Item(op.name, op.arg, op.origin) for op in ops], TIR_RULES)
            first = run[0] if isinstance(run[0], Facts) else None
            last = run[-1] if len(run) > 1 and isinstance(run[-1], Facts) else None
            height = first.height if first is not None else 0
            garbage = last.garbage if last is not None else ()
            rewritten = shorten(rewritten, height, garbage, notes)
            result.extend(run[:1] if isinstance(run[0], Facts) else [])
            result.extend(Op(pair[0], pair[1], origin_of(pair)) for pair in rewritten)
            result.extend(run[-1:] if len(run) > 1 and isinstance(run[-1], Facts) else [])
            run.clear()

    for op in ops:
        if isinstance(op, Op) and op.name not in ("Return", "Halt"):
            run.append(op)
            continue
        flush()
        match op:
            case IfElse():
                op = IfElse(
                    tuple(optimize_ops(op.then, notes)),
                    tuple(optimize_ops(op.otherwise, notes)),
                )
            case IfOnly():
                op = IfOnly(tuple(optimize_ops(op.then, notes)))
            case Loop():
                op = replace(op, body=tuple(optimize_ops(op.body, notes)))
            case ProofBlock():
                op = ProofBlock(tuple(optimize_ops(op.body, notes)))
        result.append(op)
    flush()
    return result


def optimize_tasm(program: AsmProgram) -> AsmProgram:
    """Apply the TASM rules to each function, merge `as_u32` checks into the instructions
    that check the same value (compiler.optimize.checks) and lay out selects."""
    functions = []
    for f in program.functions:
        merged: list = []  # (section, text) notes: compiler.report's "checks dropped"
        items = optimize_items(f.items, merged)
        functions.append(AsmFunction(f.label, items, f.notes + tuple(merged)))
    return AsmProgram(functions, program.entry, program.name)


def optimize_items(items, notes: list | None = None) -> list:
    """`rewrite_run` over each straight-line run of `items` (the rules, merged checks and
    counted conjunctions, each noted in `notes` when given), then the selects, and where a
    select joined runs (`eq skiz addi 1` -> `eq add`), the runs through all that again."""
    result = _runs(items, notes)
    selected = _selects(result)
    if selected != result:
        selected = _selects(_runs(selected, notes))
    return selected


def _runs(items, notes: list | None) -> list:
    """`rewrite_run` over each straight-line run of `items`, and the skiz rules at the end
    of a run that a `skiz` follows."""
    result: list = []
    run: list = []

    def flush(before_skiz: bool = False):
        if run:
            items = [Item(i.name, i.arg, i.origin) for i in run]
            rewritten = rewrite_run(items, notes)
            if before_skiz:
                rewritten = _before_skiz(rewritten)
            result.extend(Instr(pair[0], pair[1], origin_of(pair)) for pair in rewritten)
            run.clear()

    frozen = False
    for item in items:
        if isinstance(item, Label) or item.name in CONTROL or frozen:
            flush(isinstance(item, Instr) and item.name == "skiz" and not frozen)
            result.append(item)
            frozen = isinstance(item, Instr) and item.name == "skiz"
            continue
        run.append(item)
    flush()
    return result


def rewrite_run(items: list, notes: list | None = None) -> list:
    """One straight-line run of TASM pairs through the rules, with its `as_u32` checks merged
    (compiler.optimize.checks) and its counted conjunctions made products
    (compiler.optimize.conjunctions), each noted in `notes` when given, and the rules again
    where code went (the code around it may now meet one)."""
    rewritten, _ = rewrite(items, TASM_RULES)
    merged = conjoin(merge_checks(rewritten, notes), notes)
    if len(merged) < len(rewritten):
        rewritten, _ = rewrite(merged, TASM_RULES)
    return rewritten


def _selects(items: list) -> list:
    """Apply SELECT_RULES, whose patterns span a `skiz` and the instruction it guards.

    A pattern never starts at a guarded instruction and never spans a label.
    """
    items = list(items)  # replaced in place: a new list per match made many selects n^2
    position = 0
    while position < len(items):
        guarded = position > 0 and _is(items[position - 1], "skiz")
        for rule in () if guarded else SELECT_RULES:
            window = items[position : position + len(rule.parsed_pattern)]
            if any(isinstance(item, Label) for item in window):
                continue
            pairs = [(item.name, item.arg) for item in window]
            bindings = match(rule, pairs, 0)
            if bindings is not None:
                matched = [Item(item.name, item.arg, item.origin) for item in window]
                produced = inherit(replacement(rule, bindings), matched)
                new = [Instr(pair[0], pair[1], origin_of(pair)) for pair in produced]
                items[position : position + len(window)] = new
                break
        position += 1
    return items


def _is(item, name: str) -> bool:
    return isinstance(item, Instr) and item.name == name


def _before_skiz(items: list) -> list:
    """Apply SKIZ_RULES to the end of a run that a `skiz` follows."""
    changed = True
    while changed:
        changed = False
        for rule in SKIZ_RULES:
            length = len(rule.parsed_pattern)
            if length <= len(items) and match(rule, items, len(items) - length) is not None:
                bindings = match(rule, items, len(items) - length)
                matched = items[len(items) - length :]
                items = items[: len(items) - length] + inherit(replacement(rule, bindings), matched)
                items, _ = rewrite(items, TASM_RULES)
                changed = True
    return items
