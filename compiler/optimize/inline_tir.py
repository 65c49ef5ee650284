"""Inlining of tiny functions: `Call(f)` -> f's body, when the body is straight-line and
lowers to at most `limit` instructions (then the static size does not grow by more than
limit - 1 per call site, and every call saves the `call`/`return` pair).

Sound by the calling convention: a callee consumes exactly its arguments from the
top of the stack and leaves its result there, and a straight-line body never
reaches below its arguments (the effect checker guarantees it), so its ops do the
same in place of the call.  Functions no longer called and not roots are dropped.
"""

from __future__ import annotations

from dataclasses import replace

from compiler.tir.ops import Call, Facts, IfElse, IfOnly, Loop, Op, Program, ProofBlock, tasm_of

LIMIT = 2


def inline_small(program: Program, limit: int = LIMIT) -> Program:
    functions = {f.label: f for f in program.functions}
    while True:
        small = {
            label: [op for op in f.body[:-1] if not isinstance(op, Facts)]
            for label, f in functions.items()
            if _straight(f.body[:-1]) and sum(len(tasm_of(op)) for op in f.body[:-1]) <= limit
        }
        changed = False
        for label, function in list(functions.items()):
            body = _inline(function.body, small)
            if body != function.body:
                functions[label] = replace(function, body=body)
                changed = True
        if not changed:
            break
    roots = [program.entry] if program.entry is not None else list(program.roots)
    keep = _reachable(functions, roots)
    kept = [functions[f.label] for f in program.functions if f.label in keep]
    return Program(kept, program.entry, program.name, program.roots)


def _straight(ops) -> bool:
    return all(isinstance(op, Op) and op.name not in ("Return", "Halt") for op in ops)


def _inline(ops, small: dict) -> list:
    """`ops` with the calls of `small` functions replaced by their bodies.  The call no
    longer ends a run: the annotations on its two sides go (the callee's own went when
    it was found small), so the runs before and after it become one block whose ends
    keep theirs."""
    result = []
    after_call = False
    for op in ops:
        if after_call and isinstance(op, Facts):
            after_call = False
            continue
        after_call = False
        match op:
            case Call() if op.label in small:
                if result and isinstance(result[-1], Facts):
                    result.pop()
                result.extend(small[op.label])
                after_call = True
            case IfElse():
                result.append(
                    IfElse(tuple(_inline(op.then, small)), tuple(_inline(op.otherwise, small)))
                )
            case IfOnly():
                result.append(IfOnly(tuple(_inline(op.then, small))))
            case Loop():
                result.append(replace(op, body=tuple(_inline(op.body, small))))
            case ProofBlock():
                result.append(ProofBlock(tuple(_inline(op.body, small))))
            case _:
                result.append(op)
    return result


def _calls(ops):
    for op in ops:
        match op:
            case Call():
                yield op.label
            case IfElse():
                yield from _calls(op.then)
                yield from _calls(op.otherwise)
            case IfOnly():
                yield from _calls(op.then)
            case Loop() | ProofBlock():
                yield from _calls(op.body)


def _reachable(functions: dict, roots: list[str]) -> set[str]:
    seen: set[str] = set()
    pending = [r for r in roots if r in functions]
    while pending:
        label = pending.pop()
        if label not in seen:
            seen.add(label)
            pending.extend(c for c in _calls(functions[label].body) if c in functions)
    return seen
