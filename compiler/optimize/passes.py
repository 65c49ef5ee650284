"""The peephole steps of the pipeline: `tir-rules` and `tir-moves` over TIR (after
`tir-inline`, compiler.optimize.inline_tir), `tasm-rules` and `tasm-selects` over TASM;
`optimize_tir` and `optimize_tasm` run each language's steps in order.

They cut code into straight-line runs and hand each run to the rule engine
(compiler.blocks.rule_engine) with their rule table (compiler.optimize.rules).
No rewrite crosses a run boundary: in TIR, structured ops, calls, returns
and comments; in TASM, labels and control instructions -- and the one
instruction after `skiz` is never touched (it is executed conditionally).
"""

from __future__ import annotations

from dataclasses import replace

from compiler.blocks.rule_engine import Item, inherit, match, origin_of, replacement, rewrite
from compiler.lower.asm import CONTROL, AsmFunction, AsmProgram, Instr, Label
from compiler.optimize.checks import merge_checks
from compiler.optimize.conjunctions import conjoin
from compiler.optimize.inline_tir import inline_small
from compiler.optimize.rules import SELECT_RULES, SKIZ_RULES, TASM_RULES, TIR_RULES
from compiler.optimize.shuffles import shorten
from compiler.tir.ops import Facts, IfElse, IfOnly, Loop, Op, Program, ProofBlock


def optimize_tir(program: Program) -> Program:
    """The TIR steps in order: `inline_small`, `apply_tir_rules`, `shorten_moves`."""
    return shorten_moves(apply_tir_rules(inline_small(program)))


def apply_tir_rules(program: Program) -> Program:
    """The `tir-rules` step: the TIR rules over each straight-line run."""
    return _each_function(program, lambda body, notes: _each_run(body, _rules, notes))


def shorten_moves(program: Program) -> Program:
    """The `tir-moves` step: each straight-line run's runs of moves shortened by the block
    scheduler (compiler.optimize.shuffles), each noted in the function's notes."""
    return _each_function(program, lambda body, notes: _each_run(body, shorten, notes))


def optimize_ops(ops, notes: list | None = None) -> list:
    """The TIR rules over each straight-line run of `ops`, then its runs of moves
    shortened, each noted in `notes` when given."""
    return _each_run(_each_run(ops, _rules, notes), shorten, notes)


def _rules(pairs: list, height: int, garbage, notes) -> list:
    return rewrite(pairs, TIR_RULES)[0]


def _each_function(program: Program, change) -> Program:
    """`program` with each function's body `change(body, notes)`d; the (section, text)
    notes it adds (compiler.report's "moves shortened") kept with the function."""
    functions = []
    for f in program.functions:
        added: list = []
        body = change(f.body, added)
        functions.append(replace(f, body=body, notes=f.notes + tuple(added)))
    return Program(functions, program.entry, program.name, program.roots)


def _each_run(ops, change, notes: list | None = None) -> list:
    """`ops` with each straight-line run's pairs `change(pairs, height, garbage, notes)`d:
    `height` and `garbage` from the annotations at the run's ends (compiler.tir.ops.Facts)."""
    result: list = []
    run: list = []

    def flush():
        if run:
            # the engine never sees annotations; those at the run's ends stay there (a
            # sound rewrite keeps what they say true), any other is dropped
            ops = [op for op in run if not isinstance(op, Facts)]
            first = run[0] if isinstance(run[0], Facts) else None
            last = run[-1] if len(run) > 1 and isinstance(run[-1], Facts) else None
            height = first.height if first is not None else 0
            garbage = last.garbage if last is not None else ()
            pairs = [Item(op.name, op.arg, op.origin) for op in ops]
            changed = change(pairs, height, garbage, notes)
            result.extend(run[:1] if first is not None else [])
            result.extend(Op(pair[0], pair[1], origin_of(pair)) for pair in changed)
            result.extend(run[-1:] if last is not None else [])
            run.clear()

    for op in ops:
        if isinstance(op, Op) and op.name not in ("Return", "Halt"):
            run.append(op)
            continue
        flush()
        match op:
            case IfElse():
                op = IfElse(
                    tuple(_each_run(op.then, change, notes)),
                    tuple(_each_run(op.otherwise, change, notes)),
                )
            case IfOnly():
                op = IfOnly(tuple(_each_run(op.then, change, notes)))
            case Loop():
                op = replace(op, body=tuple(_each_run(op.body, change, notes)))
            case ProofBlock():
                op = ProofBlock(tuple(_each_run(op.body, change, notes)))
        result.append(op)
    flush()
    return result


def optimize_tasm(program: AsmProgram) -> AsmProgram:
    """The TASM steps in order: `apply_tasm_rules`, then `lay_out_selects`."""
    return lay_out_selects(apply_tasm_rules(program))


def apply_tasm_rules(program: AsmProgram) -> AsmProgram:
    """The `tasm-rules` step: `rewrite_run` over each straight-line run of each function
    (the rules, `as_u32` checks merged into the instructions that check the same value,
    counted conjunctions made products, the rules again where code went) and the skiz
    rules at the end of a run that a `skiz` follows; each merge noted with the function."""
    return _each_asm_function(program, _runs)


def lay_out_selects(program: AsmProgram) -> AsmProgram:
    """The `tasm-selects` step: the select rules, whose patterns span a `skiz`, and where a
    select joined runs (`eq skiz addi 1` -> `eq add`), `tasm-rules` and the selects again."""
    return _each_asm_function(program, _selected)


def optimize_items(items, notes: list | None = None) -> list:
    """Both TASM steps over `items` (one function's, or one block's): `rewrite_run` over
    each straight-line run, then the selects."""
    return _selected(_runs(items, notes), notes)


def _selected(items: list, notes: list | None) -> list:
    selected = _selects(items)
    if selected != items:
        selected = _selects(_runs(selected, notes))
    return selected


def _each_asm_function(program: AsmProgram, change) -> AsmProgram:
    """`program` with each function's items `change(items, notes)`d; the (section, text)
    notes it adds (compiler.report's "checks dropped", "counts made products") kept."""
    functions = []
    for f in program.functions:
        added: list = []
        items = change(f.items, added)
        functions.append(AsmFunction(f.label, items, f.notes + tuple(added)))
    return AsmProgram(functions, program.entry, program.name)


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
