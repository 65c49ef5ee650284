"""Block contracts carry the stack manager's facts (optimizer.md §2), and the facts are true.

Every straight-line run of the TIR the compiler makes, at every level, starts and ends
with a `Facts` annotation that agrees with the block's own stack effect.  To show that the
facts hold on real runs, the corpus programs (on their `// run:` inputs) and the stdlib
`#[test]` functions are compiled with an instrumenting block lowerer: before each block it
checks with `pop_count` (which fails on anything that is not a u32) every slot the contract
calls u32, and after each block it overwrites every don't-care slot with junk; the runs go
step by step, and at each block's entry the op stack must be as long as the contract's
`minimum_entry_length`.  The run must give the output and the failure of the plain build,
and no check may fail.  Three controls show that the instrumentation catches false facts:
calling every entry slot u32, every exit slot don't-care, or the entry one word longer.
"""

from __future__ import annotations

import dataclasses
from functools import cache

import pytest
from corpus import expectations
from test_backend_differential import MAX_STEPS, PROGRAM_PATHS, compiled, run_vm

from compiler.check.checker import check
from compiler.check.resolve import DEFAULT_LIBRARY, load_project
from compiler.driver import compile_program
from compiler.levels import CLASSICAL_LEVELS
from compiler.lower.asm import Instr
from compiler.lower.blocks import BELOW_MAIN, contract, is_straight
from compiler.lower.classical import CLASSICAL
from compiler.optimize.inline_tir import inline_small
from compiler.optimize.passes import optimize_ops
from compiler.pipeline import BACK_END, Options, run_steps
from compiler.tir.ops import (
    Call,
    Comment,
    Facts,
    Function,
    IfElse,
    IfOnly,
    Loop,
    Op,
    Program,
    ProofBlock,
)
from vm import interp, tasm
from vm.field import P
from vm.handlers import Fault, Halt

CHECK, OVERWRITE = 0x7E57_FAC7, 0x7E57_FAC8  # `push MARK` `pop 1` opens each sequence
ENTRY = 0x7E57_0000_0000  # `push ENTRY + L` `pop 1` opens a block that assumes L words
JUNK = P - 12345  # not a u32, not small: a read of it changes a run
WINDOW = 15  # the deepest slot `dup`/`swap` reach


class Instrumented:
    """The classical lowering, with the facts checked before and applied after each block.

    Each block opens with a mark giving its minimum entry length (checked by `stepped`),
    then checks its u32 slots; after it, its don't-care slots are overwritten.  `u32`,
    `dont_care` and `length` choose the depths and length used (default: the
    contract's); `counts` records how many checks and overwrites were placed and how many
    were out of reach."""

    name = "instrumented"

    def __init__(self, u32=None, dont_care=None, length=None):
        self.u32 = u32 or (lambda contract: contract.u32_entry)
        self.dont_care = dont_care or (lambda contract: contract.dont_care)
        self.length = length or (lambda contract: contract.minimum_entry_length)
        self.counts = dict.fromkeys(("checks", "overwrites", "too deep"), 0)
        self.executed = dict.fromkeys(("blocks", "checks", "overwrites"), 0)

    def lower_block(self, block) -> list[Instr]:
        contract = block.contract
        code = [Instr("push", ENTRY + self.length(contract)), Instr("pop", 1)]
        for depth in self.u32(contract):
            if depth > WINDOW:
                self.counts["too deep"] += 1
                continue
            self.counts["checks"] += 1
            code += [Instr("push", CHECK), Instr("pop", 1)]
            code += [Instr("dup", depth), Instr("pop_count"), Instr("pop", 1)]
        code += CLASSICAL.lower_block(block)
        for depth in self.dont_care(contract):
            if depth > WINDOW:
                self.counts["too deep"] += 1
                continue
            self.counts["overwrites"] += 1
            code += [Instr("push", OVERWRITE), Instr("pop", 1), *overwrite(depth)]
        return code


def overwrite(depth: int) -> list[Instr]:
    """Put JUNK at `depth` (0 = top), leaving every other slot as it was."""
    if depth == 0:
        return [Instr("pop", 1), Instr("push", JUNK)]
    if depth < WINDOW:
        return [Instr("push", JUNK), Instr("swap", depth + 1), Instr("pop", 1)]
    return [Instr("swap", 15), Instr("pop", 1), Instr("push", JUNK), Instr("swap", 15)]


def mark_kind(value) -> str | None:
    if value == CHECK:
        return "checks"
    if value == OVERWRITE:
        return "overwrites"
    return "blocks" if isinstance(value, int) and ENTRY <= value < ENTRY + 2**16 else None


@cache
def marks(program) -> dict[int, int]:
    """Address -> argument of each `push MARK` that opens an instrumentation sequence."""
    return {
        address: op.argument
        for op, address in zip(program.ops, program.addresses, strict=True)
        if op.instruction.name == "push" and mark_kind(op.argument)
    }


def stepped(program, inputs, lowerer: Instrumented) -> tuple[list, str | None, list[str]]:
    """Run `program` step by step with the interpreter's own step functions: (output, the
    error kind or None, problems), the problems being an entry mark reached with fewer
    words than the block assumes, or a u32 check that failed."""
    machine = interp.initial_machine(program, *inputs)
    steps = interp.step_functions(machine)
    found = marks(program)
    problems: list[str] = []
    ip, kind = 0, None
    try:
        for _ in range(MAX_STEPS):
            mark = found.get(ip)
            if mark is not None:
                lowerer.executed[mark_kind(mark)] += 1
                if mark >= ENTRY and len(machine.stack) < mark - ENTRY:
                    problems.append(f"{len(machine.stack)} words, not {mark - ENTRY}")
            ip = steps[ip]()
        kind = "StepLimitExceeded"
    except Halt:
        pass
    except Fault as fault:
        kind = fault.kind
        index = program.op_index[ip]
        if kind == "FailedU32Conversion" and program.ops[index - 3].argument == CHECK:
            problems.append("a u32 fact is false")
    return machine.output, kind, problems


# --- what is run --------------------------------------------------------------------------


def corpus_runs():
    """(name, checked, inputs) for every corpus program's `// run:` cases."""
    for path in PROGRAM_PATHS:
        checked, _ = compiled(path)
        for case in expectations(path).cases:
            inputs = (case.public, case.secret, case.digests, case.ram)
            yield f"{path.stem}:{case.line}", checked, inputs


def stdlib_test_runs():
    """(name, checked with the test as entry, no inputs) for every stdlib #[test]."""
    for path in sorted(DEFAULT_LIBRARY.rglob("*.tri")):
        checked = check(load_project(path))
        for key, instance in checked.instances.items():
            own = instance.module == checked.project.entry.name
            if own and instance.function.attribute("test"):
                name = f"{path.stem}::{instance.function.name}"
                yield name, dataclasses.replace(checked, entry=key), ((), (), [], {})


@cache
def all_runs() -> list:
    return [*corpus_runs(), *stdlib_test_runs()]


def without_tasm_peephole(checked, level: int, lowerer):
    """The pipeline at `level` with `lowerer`, without the TASM peephole: it is sound, so
    it would keep what the instrumentation does, but not its MARKs, and it may change
    which failure a failing run ends in.  The facts are those of the TIR at `level`."""
    steps = [step for step in BACK_END if step.name not in ("tasm-rules", "tasm-selects")]
    return tasm.parse(run_steps(steps, checked, Options(level, lowerer))["tasm"])


@cache
def plain_run(index: int, level: int):
    """The classical build's run of `all_runs()[index]`: (output, error kind)."""
    _, checked, inputs = all_runs()[index]
    run = run_vm(plain_build(id(checked), level), *inputs)
    return run.output, run.error and run.error.kind


@cache
def plain_build(checked_id: int, level: int):
    checked = next(checked for _, checked, _ in all_runs() if id(checked) == checked_id)
    return without_tasm_peephole(checked, level, CLASSICAL)


def problems_with(lowerer: Instrumented, level: int, first: bool = False) -> list[str]:
    """Each run on which the instrumented build differs from the classical one (`first`:
    stop at the first such run)."""
    problems = []
    builds = {}
    for index, (name, checked, inputs) in enumerate(all_runs()):
        if id(checked) not in builds:
            builds[id(checked)] = without_tasm_peephole(checked, level, lowerer)
        output, kind, found = stepped(builds[id(checked)], inputs, lowerer)
        problems += [f"{name}: {problem}" for problem in found]
        expected_output, expected_kind = plain_run(index, level)
        if output != expected_output or kind != expected_kind:
            problems.append(f"{name}: {output} {kind}, not {expected_output} {expected_kind}")
        if first and problems:
            break
    return problems


# --- the tests ----------------------------------------------------------------------------


@pytest.mark.parametrize("level", CLASSICAL_LEVELS, ids=lambda level: f"O{level}")
def test_the_facts_are_true_on_every_run(level):
    lowerer = Instrumented()
    problems = problems_with(lowerer, level)
    assert not problems, "\n".join(problems[:10])
    counts = lowerer.counts
    assert counts["checks"] > 200 and counts["overwrites"] > 40, counts
    assert counts["too deep"] <= counts["checks"] // 10, counts
    assert min(lowerer.executed.values()) > 500, lowerer.executed


def test_the_instrumentation_catches_a_false_u32_fact():
    every_slot = Instrumented(u32=lambda contract: range(min(contract.entry_depth, 16)))
    problems = problems_with(every_slot, 1, first=True)
    assert any("a u32 fact is false" in problem for problem in problems)


def test_the_instrumentation_catches_a_false_minimum_entry_length():
    one_more = Instrumented(length=lambda contract: contract.minimum_entry_length + 1)
    assert any("words, not" in problem for problem in problems_with(one_more, 1, first=True))


def test_the_instrumentation_catches_a_false_dont_care_fact():
    every_slot = Instrumented(dont_care=lambda contract: range(min(contract.exit_depth, 16)))
    assert problems_with(every_slot, 1, first=True)


def runs_of(ops):
    """The straight-line runs of a TIR body, as compiler.lower.control cuts them."""
    run = []
    for op in ops:
        if is_straight(op) or isinstance(op, Comment):
            run.append(op)
            continue
        yield run
        run = []
        match op:
            case IfElse():
                yield from runs_of(op.then)
                yield from runs_of(op.otherwise)
            case IfOnly():
                yield from runs_of(op.then)
            case Loop() | ProofBlock():
                yield from runs_of(op.body)
    yield run


def sources():
    return sorted(DEFAULT_LIBRARY.rglob("*.tri")) + PROGRAM_PATHS


@pytest.mark.parametrize("level", CLASSICAL_LEVELS, ids=lambda level: f"O{level}")
def test_every_block_has_facts_at_both_ends_that_agree_with_it(level):
    blocks = u32_blocks = garbage_blocks = 0
    for path in sources():
        tir = compile_program(check(load_project(path)), level).tir
        for function in tir.functions:
            for run in runs_of(function.body):
                ops = [op for op in run if not isinstance(op, Facts | Comment)]
                if not ops:
                    continue
                blocks += 1
                entry, last = run[0], run[-1]
                assert isinstance(entry, Facts) and isinstance(last, Facts), (path, run)
                found = contract(ops, entry, last)
                assert last.height == entry.height + found.net, (path, run)
                assert found.entry_depth <= entry.height
                assert found.minimum_entry_length == BELOW_MAIN + entry.height
                assert all(depth < entry.height for depth in entry.u32 + entry.garbage)
                assert all(depth < last.height for depth in last.u32 + last.garbage)
                assert not set(last.u32) & set(last.garbage)
                u32_blocks += bool(found.u32_entry)
                garbage_blocks += bool(found.dont_care)
    assert blocks > 500 and u32_blocks > 50 and garbage_blocks > 30, (
        blocks,
        u32_blocks,
        garbage_blocks,
    )


def test_a_block_without_annotations_assumes_only_what_it_reads():
    bare = contract((Op("Pop", 3), Op("Push", 1)))
    assert (bare.dont_care, bare.u32_entry) == ((), ())
    assert bare.minimum_entry_length == BELOW_MAIN + 3


# --- which U32 values are promised ---------------------------------------------------------

PROGRAM = """\
program p

fn f(x: U32, b: Bool, y: Field) -> U32 {
    if b {
        x
    } else {
        as_u32(y)
    }
}

fn main() {
    let v: Field = pub_read()
    pub_write(as_field(f(as_u32(v), v == 1, v)))
    LOOP
}
"""


def loop_text(header: str, body: str = "pub_write(as_field(i))") -> str:
    return f"{header} {{\n        {body}\n    }}"


@pytest.mark.parametrize(
    "loop,trusted",
    [
        ("", True),
        ("pub_write(as_field(pow(as_u32(2), as_u32(40))))", False),  # 2^40 in a U32
        (loop_text("for i in 0..v bounded 10"), True),  # i < 10
        (loop_text("for i in v..v + 3 bounded 10"), False),  # i = v may be anything
        (loop_text("for i in 0..as_u32(v) bounded 5000000000"), True),  # i < a u32
        (loop_text("for _ in v..v + 3 bounded 10", "pub_write(v)"), True),  # no variable
    ],
)
def test_u32_facts_only_when_every_u32_value_is_below_2_32(tmp_path, loop, trusted):
    path = tmp_path / "p.tri"
    path.write_text(PROGRAM.replace("LOOP", loop))
    tir = compile_program(check(load_project(path)), 0).tir
    entry = tir.function("p__f").body[0]  # x at depth 2, b at 1, y at 0
    assert (entry.height, entry.u32) == (3, (1, 2) if trusted else (1,))


# --- the passes keep the annotations at the ends of runs ----------------------------------


def test_the_tir_rules_see_through_annotations_and_keep_those_at_the_ends():
    first, middle, last = Facts(height=1), Facts(height=2, u32=(0,)), Facts(height=1)
    ops = [first, Op("Push", 7), middle, Op("Pop", 1), last]
    assert optimize_ops(ops) == [first, last]  # `push 7; pop 1` spans the middle one


def test_inlining_joins_the_runs_around_the_call():
    callee = [Facts(height=1), Op("AddI", 1), Facts(height=1), Op("Return")]
    body = [
        Facts(height=0),
        Op("Push", 5),
        Facts(height=1),
        Call("f", 1, 1),
        Facts(height=1),
        Op("WriteIo", 1),
        Facts(height=0),
        Op("Return"),
    ]
    program = Program([Function("main", 0, 0, body), Function("f", 1, 1, callee)], "main")
    [main] = inline_small(program).functions
    assert main.body == [
        Facts(height=0),
        Op("Push", 5),
        Op("AddI", 1),
        Op("WriteIo", 1),
        Facts(height=0),
        Op("Return"),
    ]
