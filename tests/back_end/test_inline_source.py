"""Inlining, constant specialization and constant folding (compiler/optimize/inline_source.py,
compiler/tir/constants.py): the cost rule's decisions, the names and arguments of inlined
bodies, and folding against the reference evaluator.  That inlined programs run exactly like
the evaluator is the corpus's job (tests/programs/valid/inlining.tri and every other
program, test_backend_differential.py); here, what the pass decides and why."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from test_backend_differential import compare_program, inputs_for

from compiler.builtins import BUILTINS
from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.driver import compile_program
from compiler.evaluate import BUILTIN_SEMANTICS, Failure
from compiler.optimize.inline_source import SMALL, inline_calls
from compiler.syntax import ast
from compiler.tir import constants
from compiler.tir.walk import inlined_calls, statement_expressions, statements
from vm.field import P

CORPUS_PROGRAM = Path(__file__).parents[1] / "programs" / "valid" / "inlining.tri"


def checked_text(tmp_path, text: str, name: str = "t"):
    path = tmp_path / f"{name}.tri"
    path.write_text(text)
    return check(load_project(path))


def inlined_callees(instance) -> list[str]:
    found = []
    for statement in statements(instance.body):
        for expr in statement_expressions(statement):
            found.extend(inlined.callee for inlined in inlined_calls(expr))
    return found


def test_the_corpus_program_decisions():
    checked = check(load_project(CORPUS_PROGRAM))
    result = inline_calls(checked)
    main = result.instances["inlining__main"]
    by_kind = {}
    for decision in result.decisions:
        assert decision.caller == "inlining__main"
        by_kind.setdefault(decision.kind, []).append(decision)
    inlined = {d.callee for d in by_kind["inlined"]}
    assert {"inlining__shadow", "inlining__first", "inlining__emit_twice"} <= inlined
    specialized = {(d.callee, d.constants) for d in by_kind["specialized"]}
    assert ("inlining__rotate", (("k", 3),)) in specialized
    assert ("inlining__rotate", (("k", 7),)) in specialized
    # rotate(a, b) has no constant: it stays a call, and rotate stays a function
    assert "inlining__rotate" in main.calls.values()
    assert "inlining__rotate__k1_3" in inlined_callees(main)
    compiled = compile_program(checked)
    labels = [f.label for f in compiled.tir.functions]
    assert labels == ["inlining__main", "inlining__rotate"]


def test_inlined_names_never_capture_the_callers(tmp_path):
    checked = checked_text(
        tmp_path,
        "program t\n\nuse vm.io.io\n\n"
        "fn f(b: Field, c: Field) -> Field {\n    let a: Field = b * 10\n    a + c\n}\n\n"
        "fn main() {\n    let a: Field = io.read()\n    let b: Field = io.read()\n"
        "    io.write(f(a + 1, b) + a)\n    io.write(b)\n}\n",
    )
    main = inline_calls(checked).instances["t__main"]
    bound = [
        s.pattern.name
        for s in statements(main.body)
        if isinstance(s, ast.Let) and isinstance(s.pattern, ast.PatternName)
    ]
    assert bound[:2] == ["a", "b"]
    assert all("'" in name for name in bound[2:]) and len(bound) == 4  # b (a + 1) and a
    compiled = compile_program(checked)
    for case in [([3, 4], [], [], {}), ([P - 1, 0], [], [], {})]:
        assert compare_program(checked, compiled.program, case) is None


def test_a_variable_argument_is_read_where_it_stands(tmp_path):
    """f(x) with x a variable: the body reads x itself, no copy is bound."""
    checked = checked_text(
        tmp_path,
        "program t\n\nuse vm.io.io\n\nfn f(y: Field) -> Field {\n    y * y + y\n}\n\n"
        "fn main() {\n    let x: Field = io.read()\n    io.write(f(x))\n}\n",
    )
    main = inline_calls(checked).instances["t__main"]
    lets = [s for s in statements(main.body) if isinstance(s, ast.Let)]
    assert len(lets) == 1  # only x's own
    text = compile_program(checked).text
    assert "call" not in text.split("halt", 1)[1]


def test_arguments_with_effects_keep_their_order(tmp_path):
    checked = checked_text(
        tmp_path,
        "program t\n\nuse vm.io.io\n\n"
        "fn f(a: Field, b: Field, c: Field) -> Field {\n    c * 100 + b * 10 + a\n}\n\n"
        "fn main() {\n    io.write(f(io.read(), io.read(), io.read()))\n}\n",
    )
    compiled = compile_program(checked)
    assert compiled.tir.functions[0].label == "t__main" and len(compiled.tir.functions) == 1
    assert compare_program(checked, compiled.program, ([1, 2, 3], [], [], {})) is None


def test_the_cost_rule(tmp_path):
    """A large callee called twice stays a function; called once it is inlined; a small
    one is inlined at every site."""
    large = "fn big(x: Field) -> Field {\n" + "".join(
        f"    let v{i}: Field = x * {i + 2} + {i}\n" for i in range(SMALL)
    )
    large += "    " + " + ".join(f"v{i}" for i in range(SMALL)) + "\n}\n\n"
    small = "fn tiny(x: Field) -> Field {\n    x + 1\n}\n\n"
    twice = (
        "fn main() {\n"
        "    io.write(big(io.read()) + big(io.read()) + tiny(1) + tiny(io.read()))\n}\n"
    )
    once = "fn main() {\n    io.write(big(io.read()) + tiny(io.read()))\n}\n"
    header = "program t\n\nuse vm.io.io\n\n"
    for main, expected in ((twice, ["t__main", "t__big"]), (once, ["t__main"])):
        checked = checked_text(tmp_path, header + large + small + main)
        compiled = compile_program(checked)
        assert [f.label for f in compiled.tir.functions] == expected
        cases = inputs_for(checked, random.Random(1), 20)
        assert all(compare_program(checked, compiled.program, case) is None for case in cases)


def test_an_early_return_is_never_inlined(tmp_path):
    checked = checked_text(
        tmp_path,
        "program t\n\nuse vm.io.io\n\nfn f(x: Field) -> Field {\n    if x == 0 {\n"
        "        return 7\n    }\n    x + 1\n}\n\n"
        "fn main() {\n    io.write(f(io.read()))\n}\n",
    )
    assert inline_calls(checked).decisions == ()
    compiled = compile_program(checked)
    for case in [([0], [], [], {}), ([5], [], [], {})]:
        assert compare_program(checked, compiled.program, case) is None


def test_a_specialization_that_saves_nothing_is_not_made(tmp_path):
    """Constant arguments a callee does nothing with at compile time: the call stays."""
    body = "".join(f"    let v{i}: Field = x * y + {i}\n" for i in range(SMALL))
    checked = checked_text(
        tmp_path,
        "program t\n\nuse vm.io.io\n\nfn f(x: Field, y: Field) -> Field {\n"
        + body
        + "    "
        + " * ".join(f"v{i}" for i in range(SMALL))
        + "\n}\n\nfn main() {\n    io.write(f(io.read(), 3))\n    io.write(f(io.read(), 4))\n}\n",
    )
    result = inline_calls(checked)
    assert [d.kind for d in result.decisions] == []


def test_a_module_inlines_per_root(tmp_path):
    """In a module built alone, a callee called once from each of two public functions is
    inlined into both (each is entered on its own)."""
    path = tmp_path / "m.tri"
    body = "".join(f"    let v{i}: Field = x * {i + 2} + {i}\n" for i in range(SMALL))
    path.write_text(
        "module m\n\nfn big(x: Field) -> Field {\n"
        + body
        + "    "
        + " + ".join(f"v{i}" for i in range(SMALL))
        + "\n}\n\npub fn one(x: Field) -> Field {\n    big(x) + 1\n}\n\n"
        "pub fn two(x: Field) -> Field {\n    big(x + 1)\n}\n"
    )
    result = inline_calls(check(load_project(path)))
    assert sorted((d.caller, d.callee) for d in result.decisions) == [
        ("m__one", "m__big"),
        ("m__two", "m__big"),
    ]


# --- constant folding against the evaluator ------------------------------------------------------

EDGES = (0, 1, 2, 31, 32, 2**31, 2**32 - 1, 2**32, P - 1, P // 2)


def _word(rng: random.Random) -> int:
    return rng.choice(EDGES) if rng.random() < 0.5 else rng.randrange(P)


@pytest.mark.parametrize("operator", ["+", "*", "==", "<", "&", "^"])
def test_folded_operators_match_the_evaluator(operator, tmp_path):
    from test_backend_differential import evaluate_state

    kind, convert = ("U32", "as_u32(pub_read())") if operator in "<&^" else ("Field", "pub_read()")
    reads = f"let a: {kind} = {convert}\n    let b: {kind} = {convert}"
    if operator in ("==", "<"):  # a Bool: printed as 1 or 0
        write = (
            f"if a {operator} b {{\n        pub_write(1)\n    }}"
            " else {\n        pub_write(0)\n    }"
        )
    else:
        write = (
            f"pub_write(as_field(a {operator} b))"
            if kind == "U32"
            else f"pub_write(a {operator} b)"
        )
    source = tmp_path / "fold.tri"
    source.write_text(f"program fold\n\nfn main() {{\n    {reads}\n    {write}\n}}\n")
    checked = check(load_project(source))
    rng = random.Random(operator)
    for _ in range(300):
        a, b = _word(rng), _word(rng)
        if operator in "<&^" and rng.random() < 0.7:
            a, b = a % 2**32, b % 2**32
        folded = constants.binary(operator, a, b)
        state = evaluate_state(checked, [a, b])
        if state.error is not None:
            assert folded is None
            continue
        assert [folded] == state.output


@pytest.mark.parametrize("name", sorted(constants.FOLDED))
def test_folded_builtins_match_the_evaluator(name):
    builtin = BUILTINS[name]
    rng = random.Random(name)
    for _ in range(200):
        words = [_word(rng) % (2**32 if rng.random() < 0.5 else P) for _ in builtin.params]
        arguments = [ast.IntLiteral(word) for word in words]
        call = ast.Call(name, [], arguments)

        class Instance:
            calls = {call: builtin}
            types = {}
            variables = {}

        folded = constants.fold(call, Instance)
        try:
            expected = BUILTIN_SEMANTICS[name](None, *[(word,) for word in words])
        except Failure:
            assert folded is None
            continue
        assert folded == expected[0]


def test_stateful_builtins_never_fold():
    assert not constants.FOLDED & {name for name, b in BUILTINS.items() if b.touches_state}


def _shape(value):
    """A syntax tree as nested plain data (node types and fields), for comparison."""
    if type(value) in (list, tuple):
        return [type(value).__name__, *(_shape(item) for item in value)]
    if type(value) in ast._NODE_TYPES:
        return [type(value).__name__, *((k, _shape(v)) for k, v in vars(value).items())]
    return value


def test_copy_tree_copies_like_deepcopy():
    """The inliner's copier (ast.copy_tree): every stdlib function body copied equal to the
    original, no node shared with it, and the memo maps every original node to its copy
    (the inliner re-keys its tables through it)."""
    import copy

    from compiler.check.resolve import DEFAULT_LIBRARY, Resolver

    bodies = []
    for path in sorted(DEFAULT_LIBRARY.rglob("*.tri")):
        for instance in check(load_project(path, Resolver())).instances.values():
            if instance.body is not None:
                bodies.append(instance.body)
    assert len(bodies) > 100
    for body in bodies:
        memo: dict = {}
        copied = ast.copy_tree(body, memo)
        assert _shape(copied) == _shape(body) == _shape(copy.deepcopy(body))
        originals = {id(node) for node in _nodes(body)}
        copies = _nodes(copied)
        assert originals == set(memo) and not originals & {id(node) for node in copies}
        assert {id(memo[key]) for key in originals} == {id(node) for node in copies}


def _nodes(value) -> list:
    found = []
    if type(value) in (list, tuple):
        for item in value:
            found.extend(_nodes(item))
    elif type(value) in ast._NODE_TYPES:
        found.append(value)
        for item in vars(value).values():
            found.extend(_nodes(item))
    return found
