"""TIR: the op table, the stack-effect checker, block contracts, the stack manager's planner,
the lowering of each op, and the pipeline's shape (steps, dumps, labels, layout)."""

from __future__ import annotations

import random

import pytest
from test_backend_differential import call_on_vm, random_word

from compiler.bench import split
from compiler.builtins import BUILTINS
from compiler.check.checker import check
from compiler.check.resolve import DEFAULT_LIBRARY, load_project
from compiler.check.symbols import mangle
from compiler.driver import compile_program
from compiler.levels import LEVELS
from compiler.lower.asm import Instr
from compiler.lower.blocks import block_program, contract, make_block
from compiler.lower.classical import CLASSICAL
from compiler.pipeline import STEPS, Options, check_source
from compiler.tir.effects import EffectError, body_effect, check_program
from compiler.tir.ops import (
    EXTRA_OPS,
    OPS,
    OPS_LIST,
    TIR_SPEC_OPS,
    Call,
    Function,
    IfElse,
    IfOnly,
    Loop,
    Op,
    Program,
    from_tasm,
    tasm_of,
)
from compiler.tir.planner import compatible as _compatible
from compiler.tir.planner import plan as _plan
from vm import interp, isa
from vm.field import P

SIMPLE = [row for row in OPS_LIST if row.consumes is not None and row.tasm is not None]


def sample_argument(row) -> int | None:
    return {"none": None, "count": 3, "index": 2, "value": 5, "width": 3}.get(row.arg)


# --- the table ----------------------------------------------------------------------------


def test_the_table_has_the_54_ops_of_tir_md_and_ours():
    assert len(OPS_LIST) == TIR_SPEC_OPS + len(EXTRA_OPS)
    assert len(OPS) == len(OPS_LIST)
    assert {row.tier for row in OPS_LIST} == {0, 1, 2, 3}


@pytest.mark.parametrize("row", SIMPLE, ids=lambda row: row.name)
def test_lowering_matches_the_declared_stack_effect(row):
    """The net change of an op's TASM equals produces - consumes, from vm.isa's rows."""
    op = Op(row.name, sample_argument(row))
    instructions = isa.instruction_set("rel")
    delta = sum(
        instructions[m].stack_delta(a if isinstance(a, int) else None) for m, a in tasm_of(op)
    )
    consumes, produces = op.effect()
    assert delta == produces - consumes


def test_every_builtin_instruction_has_a_tir_op():
    for builtin in BUILTINS.values():
        for line in builtin.tasm:
            op = from_tasm(line)
            assert [f"{m} {a}" if a is not None else m for m, a in tasm_of(op)][0].split()[0] == (
                line.split()[0]
            )


def run_ops(ops: list[Op], stack: list[int]) -> list[int] | None:
    text = "\n".join(i.text for i in CLASSICAL.lower_block(make_block(ops))) + "\nhalt\n"
    from vm import tasm

    machine = interp.initial_machine(tasm.parse(text))
    machine.stack = [0] * 16 + stack
    run = interp.run_machine(machine, 1000)
    return None if run.error else run.stack[16:]


@pytest.mark.parametrize("seed", range(20))
def test_never_built_ops_lower_correctly(seed):
    """Or, Shl, Shr and Sub (RC's are missing or reversed)."""
    rng = random.Random(seed)
    a, b = rng.randrange(2**32), rng.randrange(2**32)
    n = rng.randrange(32)
    assert run_ops([Op("Or")], [a, b]) == [a | b]
    assert run_ops([Op("Shl")], [a, n]) == [a * 2**n % P]
    assert run_ops([Op("Shr")], [a, n]) == [a >> n]
    assert run_ops([Op("Sub")], [a, b]) == [(a - b) % P]
    assert run_ops([Op("RamWrite", 1), Op("Push", 7), Op("RamRead", 1)], [7, a]) == [a]


# --- the effect checker ---------------------------------------------------------------------


def function(body, params=0, result=0):
    return Program([Function("f", params, result, [*body, Op("Return")])], None)


@pytest.mark.parametrize(
    "body,params,result",
    [
        ([Op("Add")], 1, 1),  # reaches below the function's part
        ([Op("Push", 1)], 0, 0),  # leaves an extra element
        ([Op("Push", 1), IfElse((Op("Push", 2),), ())], 0, 0),  # unbalanced arms
        ([Op("Push", 1), IfOnly((Op("Pop", 1),))], 1, 1),  # IfOnly body changes the height
        ([Op("Push", 3), Loop("f__loop__1", (Op("Push", 1),))], 0, 1),  # loop body not neutral
        ([Op("Dup", 16)], 17, 18),  # beyond st15
        ([Call("f", 1, 1)], 2, 2),  # does not match the callee's widths
    ],
)
def test_the_effect_checker_finds_unbalanced_code(body, params, result):
    assert check_program(function(body, params, result)) != []


def test_the_effect_checker_accepts_balanced_code():
    body = [
        Op("Push", 1),
        IfElse((Op("Push", 2),), (Op("Push", 3),)),
        Op("Push", 4),
        Loop("f__loop__1", (Op("Dup", 1), Op("Pop", 1))),
        Op("Pop", 1),
    ]
    assert check_program(function(body, 0, 1)) == []
    with pytest.raises(EffectError):
        body_effect([Op("Pop", 2)], 1)


def test_everything_in_stdlib_balances():
    for path in sorted(DEFAULT_LIBRARY.rglob("*.tri")):
        compiled = compile_program(check(load_project(path)), level=0)
        assert check_program(compiled.tir) == [], path


# --- block contracts ------------------------------------------------------------------------


def test_contract_of_a_block():
    ops = (Op("Dup", 2), Op("Swap", 1), Op("WriteIo", 1), Op("Add"), Op("ReadIo", 1))
    found = contract(ops)
    assert found.entry_depth == 3
    assert found.exit_depth == 3 and found.net == 0
    # entry st2 st1 st0 = 2 1 0: dup 2 -> 2 1 0 2; swap 1 -> 2 1 2 0; write -> 2 1 2; add -> 2 ?
    assert found.exit_layout == (2, None, None)
    assert [kinds for _, kinds in found.effects][0] == OPS["WriteIo"].effects
    assert [index for index, _ in found.effects] == [2, 4]


def test_a_block_assembles_alone():
    block = make_block([Op("Push", 2), Op("Push", 3), Op("Mul"), Op("WriteIo", 1)])
    program = block_program(CLASSICAL.lower_block(block))
    assert interp.execute(program).output == [6]


# --- the planner (conform) -----------------------------------------------------------------


def simulate(plan, current):
    current = list(current)
    for move, argument in plan:
        n = len(current)
        match move:
            case "swap":
                current[-1], current[n - 1 - argument] = current[n - 1 - argument], current[-1]
            case "pick":
                current.append(current.pop(n - 1 - argument))
            case "place":
                top = current.pop()
                current.insert(len(current) - argument, top)
            case "pop":
                assert all(x is None for x in current[n - argument :])
                del current[n - argument :]
    return current


@pytest.mark.parametrize("seed", range(300))
def test_the_planner_reaches_any_target(seed):
    rng = random.Random(seed)
    keys = list(range(rng.randrange(0, 8)))
    garbage = rng.randrange(0, 5)
    current = keys + [None] * garbage
    rng.shuffle(current)
    target = list(keys)
    rng.shuffle(target)
    for _ in range(rng.randrange(0, min(garbage, 3) + 1)):
        target.insert(rng.randrange(len(target) + 1), None)
    plan = _plan(current, target)
    assert _compatible(simulate(plan, current), target)
    assert len(plan) <= 2 * len(current) + 2


def test_the_planner_uses_place_for_a_rotation():
    assert _plan(["a", "b", "c"], ["c", "a", "b"]) == [("place", 2)]
    assert _plan(["a", "b", None, "x"], ["a", "b", "x"]) == [("swap", 1), ("pop", 1)]


# --- the pipeline ---------------------------------------------------------------------------


def test_the_pipeline_runs_its_steps_in_order():
    names = [step.name for step in STEPS]
    assert names == [
        "ast",
        "contracts",
        "checked",
        "inline",
        "tir",
        "tir-inline",
        "tir-rules",
        "tir-moves",
        "unroll",
        "tasm-lowered",
        "tasm-rules",
        "tasm-selects",
        "tasm",
    ]
    assert [step.level for step in STEPS] == [0, 0, 0, 1, 0, 1, 1, 1, 2, 0, 1, 1, 0]
    seen = []

    def dump(*step):
        seen.append(step)

    path = DEFAULT_LIBRARY / "math" / "arith.tri"
    for level in LEVELS:
        checked = check_source(path, Options(level=level), dump)
        compiled = compile_program(checked, level, dump=dump)
        assert [name for name, _, _ in seen] == names
        assert [ran for _, _, ran in seen] == [level >= step.level for step in STEPS]
        assert seen[-1][1] == compiled.text
        text = {name: shown for name, shown, _ in seen}
        if level == 0:  # the optimizing steps pass their input on
            assert text["inline"] == text["checked"]
            for name in ("tir-inline", "tir-rules", "tir-moves"):
                assert text[name] == text["tir"]
            assert text["tasm-rules"] == text["tasm-selects"] == text["tasm-lowered"]
        if level < 2:  # no loop is unrolled below -O2
            assert text["unroll"] == text["tir-moves"]
        assert text["contracts"] == text["ast"]  # no contracts in the module: the same tree
        seen.clear()


def test_the_levels():
    checked = check(load_project(DEFAULT_LIBRARY / "math" / "arith.tri"))
    plain, optimized = compile_program(checked, 0), compile_program(checked, 1)
    assert (plain.level, optimized.level) == (0, 1)
    # per public function, the code it reaches (a module's functions are each entered on
    # their own; -O1 inlines min and max into abs_diff, so the module text holds them twice)
    mangled = mangle(checked.project.entry.name)
    reached = [split(c.program, mangled) for c in (plain, optimized)]
    sizes = [[code.inclusive(code_key) for code_key in code.functions] for code in reached]
    assert all(o <= p for p, o in zip(*sizes, strict=True)) and sum(sizes[1]) < sum(sizes[0])
    with pytest.raises(ValueError, match="no optimization level 7"):
        compile_program(checked, 7)


def test_program_layout_and_labels(tmp_path):
    path = tmp_path / "layout.tri"
    path.write_text(
        "program layout\n\nfn unused() {\n}\n\nfn helper(x: Field) -> Field {\n    x * x + 1\n}\n\n"
        "fn main() {\n    pub_write(helper(pub_read()))\n}\n"
    )
    compiled = compile_program(check(load_project(path)), 0)  # -O1 inlines helper
    lines = [line.strip() for line in compiled.text.splitlines()]
    assert lines[:3] == ["call layout__main", "halt", "layout__main:"]
    assert "layout__helper:" in lines and "layout__unused:" not in lines
    assert interp.execute(compiled.program, [41]).output == [41 * 41 + 1]


def test_a_module_alone_has_unmangled_labels_and_assembles():
    checked = check(load_project(DEFAULT_LIBRARY / "crypto" / "auth.tri"))
    compiled = compile_program(checked, 0)  # -O1 inlines digest.equal
    assert compiled.text.startswith("__")
    assert "__lock_digest:" in compiled.text
    assert "std_crypto_digest__equal:" in compiled.text  # a dependency, fully mangled
    assert compiled.program.ops


def test_branch_and_loop_bodies_come_after_their_function():
    compiled = compile_program(check(load_project(DEFAULT_LIBRARY / "math" / "arith.tri")))
    lines = [line.strip() for line in compiled.text.splitlines()]
    start = lines.index("__gcd:")
    body = lines[start + 1 : lines.index("return", start) + 1]
    assert not any(line.endswith(":") for line in body)  # no label inside: nothing falls in
    assert any(line.startswith("__gcd__loop__") for line in lines)


@pytest.mark.parametrize("seed", range(5))
def test_random_block_lowering_runs(seed):
    rng = random.Random(seed)
    ops = [Op("Push", random_word(rng)) for _ in range(4)]
    ops += [Op(rng.choice(["Add", "Mul", "Eq"])) for _ in range(3)]
    block = make_block(ops)
    instructions = CLASSICAL.lower_block(block)
    assert all(isinstance(i, Instr) for i in instructions)
    assert block.contract.entry_depth == 0 and block.contract.exit_depth == 1


def _loop_subroutine(text: str, label: str) -> list[str]:
    lines = [line.strip() for line in text.splitlines()]
    start = lines.index(label + ":")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].endswith(":")), len(lines))
    return lines[start + 1 : end]


def test_an_up_loop_frame_sits_under_five_words_for_recurse_or_return():
    """storage.sum reads the words at addr + i for i < n: it counts a pointer from addr to
    addr + n (compiler/tir/pointers.py) whose frame goes under the accumulator; `read_mem`
    at the pointer, `addi 2`, and it is the next iteration's, tested by
    `recurse_or_return`."""
    compiled = compile_program(check(load_project(DEFAULT_LIBRARY / "io" / "storage.tri")))
    loop = _loop_subroutine(compiled.text, "__sum__loop__1")
    assert loop == ["pick 5", "read_mem 1", "addi 2", "place 6", "add", "recurse_or_return"]
    rng = random.Random(5)
    words = [rng.choice([0, 1, P - 1, rng.randrange(P)]) for _ in range(40)]
    ram = {500 + k: word for k, word in enumerate(words)}
    for n in (0, 1, 2, 5, 39, 40):
        run = call_on_vm(compiled.text, "__sum", [(500,), (n,)], [], [], [], ram)
        assert run.error is None and run.stack[16:] == [sum(words[:n]) % P], n
    run = call_on_vm(compiled.text, "__sum", [(500,), (1025,)], [], [], [], ram)
    assert run.error is not None and run.error.kind == "AssertionFailed"  # bounded 1024


def test_a_pointer_loop_writes_with_its_pointer_and_reads_with_a_carried_one():
    """storage.fill writes at the pointer itself (`write_mem` leaves it advanced, so the
    test only compares); storage.copy reads src + i through the frame's pointer and
    writes dst + i through a pointer the loop carries: seven instructions, as by hand."""
    compiled = compile_program(check(load_project(DEFAULT_LIBRARY / "io" / "storage.tri")))
    fill = _loop_subroutine(compiled.text, "__fill__loop__1")
    assert fill == ["dup 0", "pick 6", "write_mem 1", "place 5", "recurse_or_return"]
    copy = _loop_subroutine(compiled.text, "__copy__loop__1")
    assert copy == [
        "pick 5",
        "read_mem 1",
        "addi 2",
        "place 6",
        "swap 1",
        "write_mem 1",
        "recurse_or_return",
    ]
    rng = random.Random(7)
    words = [rng.choice([0, 1, P - 1, rng.randrange(P)]) for _ in range(40)]
    ram = {500 + k: word for k, word in enumerate(words)}
    for n in (0, 1, 2, 39, 40):
        run = call_on_vm(compiled.text, "__copy", [(500,), (700,), (n,)], [], [], [], ram)
        assert run.error is None and run.stack[16:] == []
        assert [run.ram.get(700 + k, 0) for k in range(41)] == words[:n] + [0] * (41 - n)
        run = call_on_vm(compiled.text, "__fill", [(600,), (n,), (P - 1,)], [], [], [], {})
        assert run.error is None and [run.ram.get(600 + k, 0) for k in range(41)] == (
            [P - 1] * n + [0] * (41 - n)
        )
    run = call_on_vm(compiled.text, "__copy", [(500,), (700,), (1025,)], [], [], [], ram)
    assert run.error is not None and run.error.kind == "AssertionFailed"  # bounded 1024


def test_a_branch_tests_a_u32_or_a_bit_without_comparing_it():
    """`if zero < y` (y a U32) and `if bit == one` (bit a remainder by 2) branch on the
    value itself: skiz only tells zero from non-zero."""
    compiled = compile_program(check(load_project(DEFAULT_LIBRARY / "math" / "arith.tri")))
    gcd = _loop_subroutine(compiled.text, "__gcd__loop__1")
    assert gcd[:3] == ["dup 1", "skiz", "call __gcd__then__1"]
    power = _loop_subroutine(compiled.text, "__power__loop__1")
    assert power[2:4] == ["div_mod", "skiz"] and "eq" not in power
    for a, b, expected in ((84, 36, 12), (0, 9, 9), (9, 0, 9), (2**32 - 1, 2**31, 1)):
        run = call_on_vm(compiled.text, "__gcd", [(a,), (b,)], [], [], [], {})
        assert run.error is None and run.stack[16:] == [expected]
    for base, exponent in ((3, 4), (P - 1, 2**32 - 1), (7, 0), (2, 63)):
        run = call_on_vm(compiled.text, "__power", [(base,), (exponent,)], [], [], [], {})
        assert run.error is None and run.stack[16:] == [pow(base, exponent, P)]


class _Forgetful(dict):
    """A memo that never remembers."""

    def __setitem__(self, key, value) -> None:
        pass


def test_remembered_loop_layouts_change_nothing(monkeypatch):
    """An enclosing loop builds its body several times, and each build searches its inner
    loops' layouts again unless the choice is remembered (compiler.tir.loops
    `cheapest_layout`).  The memo is used in std.nn.tensor, and the module's code is the
    same byte for byte with it and without it."""
    from compiler.tir import loops

    path = DEFAULT_LIBRARY / "nn" / "tensor.tri"
    hits = []
    remembered = loops.LoopBuilder.remembered_layout

    def counted(self, *arguments):
        hits.append(1)
        return remembered(self, *arguments)

    monkeypatch.setattr(loops.LoopBuilder, "remembered_layout", counted)
    with_memo = compile_program(check(load_project(path))).text
    assert len(hits) > 10
    searched = loops.LoopBuilder.cheapest_layout

    def forgetting(self, *arguments):
        self.layouts = _Forgetful()
        return searched(self, *arguments)

    monkeypatch.setattr(loops.LoopBuilder, "cheapest_layout", forgetting)
    hits.clear()
    assert compile_program(check(load_project(path))).text == with_memo
    assert not hits
