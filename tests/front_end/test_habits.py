"""Habits from Rust get a message and a hint of their own, not a bare parse error
(issue 14, problem 6); `-` and `/` keep theirs."""

import pytest
from cli_helpers import tri

# (the statements after `let x: Field = pub_read()`, the code, message, a word of the hint)
CASES = [
    ("pub_write(x);", "E0001", "a statement needs no ';'", "drop it"),
    ("pub_write(x); // done", "E0001", "a statement needs no ';'", "drop it"),
    ("if x != 1 {\n    }", "E0002", "there is no '!=' operator", "(a == b) == false"),
    ("let c: Bool = x > 1", "E0001", "there is no '>' operator", "b < a"),
    ("let c: Bool = x <= 1", "E0001", "there is no '<=' operator", "(b < a) == false"),
    ("let c: Bool = x >= 1", "E0001", "there is no '>=' operator", "(a < b) == false"),
    ("let c: Bool = x == 1 && x == 2", "E0001", "there is no '&&' operator", "if b"),
    ("let c: Bool = x == 1 || x == 2", "E0002", "there is no '||' operator", "else if b"),
    ("let c: Field = x % 2", "E0002", "there is no '%' operator", "/%"),
    ("while x == 1 {\n    }", "E0001", "there is no 'while' loop", "bounded"),
    ("loop {\n    }", "E0001", "there is no 'loop'", "bounded"),
    ("/* a comment */", "E0002", "there are no block comments", "//"),
    (
        "let t: (Field, Field) = (x, x)\n    pub_write(t.0)",
        "E0001",
        "tuples have no numbered fields",
        "let (a, b)",
    ),
    ("let a: [Field; 3] = [0; 3]", "E0001", "there is no [value; N] array literal", "element"),
    ("if !(x == 1) {\n    }", "E0002", "there is no '!' operator", "c == false"),
    ("let mut y: Field = 0\n    y += 1", "E0001", "there are no compound assignments", "x + e"),
    ("let y: Field = x >> 1", "E0001", "there are no shift operators", "pow(2, n)"),
    ("let y: Field = x - 1", "E0003", "there is no '-' operator", "sub(a, b)"),
    ("let y: Field = x / 2", "E0004", "there is no '/' operator", "/%"),
    (
        "let y: Field = x\n    pub_write([x, y][0])\n    [x, y]",
        "E0001",
        "a line that starts with '[' continues the statement before it",
        "([a, b])",
    ),
    ("let a: Field = 0x10", "E0001", "there are no hexadecimal literals", "decimal"),
    ("pub_write(0x1F)", "E0001", "there are no hexadecimal literals", "decimal"),
    ("let a: Field = 0b101", "E0001", "there are no binary literals", "decimal"),
    ("let a: Field = 1_000", "E0001", "there are no digit separators", "1000"),
    (
        "if x == N { x } else { pub_write(x) }",
        "E0001",
        "unexpected 'else': `N { x }` after `if` was read as a struct literal",
        "if (x == N) {",
    ),
    (
        "if x == m.LIMIT {}\n    pub_write(x)",
        "E0001",
        "unexpected 'pub_write': `m.LIMIT {}` after `if` was read as a struct literal",
        "if (x == m.LIMIT) {",
    ),
    (
        "for i in 0..N { x }\n    pub_write(x)",
        "E0001",
        "unexpected 'pub_write': `N { x }` after `for` was read as a struct literal",
        "for i in 0..(N) {",
    ),
    ("pub_write(1_000)", "E0001", "there are no digit separators", "1000"),
    ("let a: Field = 5u32", "E0001", "integer literals take no type suffix", "as_u32(5)"),
    ("let a = x as U32", "E0001", "there is no 'as' conversion", "as_u32(x)"),
    ("let a: Field = 1 2", "E0001", "a value beside the statement before it", "operator"),
    ("let a: Field = x x", "E0001", "a value beside the statement before it", "operator"),
    ('println!("{}", x)', "E0002", "there is no printing", "io.write(x)"),
    ("print!(x)", "E0002", "there is no printing", "io.write(x)"),
    ("let v = vec![x, x]", "E0002", "there are no vectors", "[Field; 2]"),
    ('panic!("no")', "E0002", "there are no macros; a program stops", "assert(false)"),
    ("assert_eq!(x, 1)", "E0002", "there are no macros: assertions are functions", "assert.eq"),
    ("my_macro!(x)", "E0002", "there are no macros", "f(x)"),
    ('let s = "text"', "E0002", "there are no strings or characters", "io.write(x)"),
    ("let c = 'a'", "E0002", "there are no strings or characters", "numbers"),
    (
        "let y: Field = if x == 1 { 1 } else { 2 }",
        "E0001",
        "an if is a value only at the end of a block",
        "fn pick(c: Bool)",
    ),
    (
        "let mut y: Field = 0\n    y = if x == 1 { 1 } else { 2 }",
        "E0001",
        "an if is a value only at the end of a block",
        "let mut y = 2",
    ),
]

# (a whole program, the code, message, a word of the hint): items that are not Trident
ITEMS = [
    ("program p\n\nimpl Point {\n}\n", "E0001", "there are no impl blocks", "fn area(s"),
    ("program p\n\nenum Color {\n    Red,\n}\n", "E0001", "there are no enums", "const RED"),
    ("program p\n\npub enum Color {\n}\n", "E0001", "there are no enums", "const RED"),
]


@pytest.mark.parametrize("text, code, message, hint", ITEMS, ids=[c[2] for c in ITEMS])
def test_a_rust_item_gets_a_hint(tmp_path, capsys, text, code, message, hint):
    path = tmp_path / "item.tri"
    path.write_text(text + "\nfn main() {\n}\n")
    exit_code, _, err = tri(capsys, "check", path)
    headline, *rest = err.splitlines()
    assert exit_code == 1 and "item.tri:3:" in headline
    assert f": error[{code}]: {message}" in headline
    hints = [line for line in rest if "= hint:" in line]
    assert hints and hint in hints[0]


MISSING_BRACE = [
    # (the program, where the '{' whose '}' is missing is)
    ("program p\n\nfn main() {\n    pub_write(1)\n", (3, 11)),
    ("program p\n\nfn main() {\n    if pub_read() == 1 {\n        pub_write(1)\n\n}\n", (4, 24)),
    (
        "program p\n\nfn f() {\n    pub_write(1)\n\nfn main() {\n    f()\n}\n",
        (3, 8),
    ),
]


@pytest.mark.parametrize("text, place", MISSING_BRACE)
def test_a_missing_brace_points_at_the_one_left_open(tmp_path, capsys, text, place):
    path = tmp_path / "brace.tri"
    path.write_text(text)
    code, _, err = tri(capsys, "check", path)
    line, column = place
    assert code == 1
    assert err.startswith(f"{path}:{line}:{column}: error[E0001]: this '{{' is never closed")
    assert "= hint: add the '}' that closes it" in err


def test_a_byte_order_mark_is_not_text(tmp_path, capsys):
    path = tmp_path / "bom.tri"
    path.write_bytes(b"\xef\xbb\xbfprogram bom\n\nfn main() {\n    pub_write(pub_read() + 1)\n}\n")
    assert tri(capsys, "run", path, "--input", "41")[:2] == (0, "42\n")
    path.write_bytes(b"\xef\xbb\xbfprogram bom\n\nfn main() {\n    let x: U32 = 0\n}\n")
    code, _, err = tri(capsys, "check", path, "--color", "never")
    assert code == 1 and " 4 |     let x: U32 = 0\n   |                  ^" in err


def test_u32_arithmetic_says_how_to_add_u32_values(tmp_path, capsys):
    path = tmp_path / "u.tri"
    path.write_text(
        "program u\n\nuse vm.core.convert\n\nfn main() {\n"
        "    let a: U32 = convert.as_u32(pub_read())\n    let b: U32 = a * a\n}\n"
    )
    code, _, err = tri(capsys, "check", path)
    assert code == 1 and "error[E0203]: '*' cannot take U32 and U32" in err
    assert "as_u32(as_field(a) * as_field(b))" in err


@pytest.mark.parametrize("statements, code, message, hint", CASES, ids=[c[2] for c in CASES])
def test_a_rust_habit_gets_a_hint(tmp_path, capsys, statements, code, message, hint):
    path = tmp_path / "habit.tri"
    path.write_text(
        f"program habit\n\nfn main() {{\n    let x: Field = pub_read()\n    {statements}\n}}\n"
    )
    exit_code, _, err = tri(capsys, "check", path)
    headline, *rest = err.splitlines()
    assert exit_code == 1
    assert f": error[{code}]: {message}" in headline
    hints = [line for line in rest if "= hint:" in line]
    assert hints and hint in hints[0]


@pytest.mark.parametrize(
    "body",
    [
        "let mut a: Field = 0\n    let mut b: Field = 0\n    a = 1 b = 2\n    pub_write(a + b)",
        "let y: Field = x pub_write(y)",  # a call may follow on the line
    ],
)
def test_statements_that_may_share_a_line(capsys, tmp_path, body):
    program = tmp_path / "shared.tri"
    program.write_text(
        f"program shared\n\nfn main() {{\n    let x: Field = pub_read()\n    {body}\n}}\n"
    )
    code, out, err = tri(capsys, "check", program)
    assert code == 0 and "error" not in err, err


def test_a_block_on_one_line_may_end_with_its_value(capsys, tmp_path):
    program = tmp_path / "one_line.tri"
    program.write_text(
        "program one_line\n\nfn twice(a: Field) -> Field { let b: Field = a + a b }\n\n"
        "fn main() {\n    pub_write(twice(pub_read()))\n}\n"
    )
    code, out, err = tri(capsys, "run", program, "--input", "21")
    assert (code, out) == (0, "42\n"), err
