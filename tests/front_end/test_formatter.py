"""The canonical formatter (`compiler.syntax.formatter`, `tri fmt`).

Golden examples (input -> expected output) for every construct; over every .tri file of the
repository (stdlib, test programs, tests/trident_compat, docs/examples), the programs of the
documents, programs of the fuzz's generator and the sources below: formatting is idempotent,
keeps the AST (spans and comments aside) and keeps every comment in order, and `tri fmt` on a
copy of the corpus does the same; hypothesis draws random expressions and statement lists
laid out with random line breaks, blank lines and comments, and a seeded builder mixes every
binary operator with parentheses everywhere an expression goes; `tri fmt` exit codes
(`--diff` and standard input: tests/cli/test_fmt_cli.py).
"""

import dataclasses
import random
import textwrap
from pathlib import Path

import pytest
from doc_blocks import fenced
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from source_generator import generate

from compiler.diagnostics import CompileError
from compiler.syntax import ast
from compiler.syntax.formatter import MAX_WIDTH, format_source
from compiler.syntax.parser import PRECEDENCE, parse, walk
from tri.cli import main

ROOT = Path(__file__).parents[2]


def _parses(path: Path) -> bool:
    try:
        parse(path.read_text(), str(path))
    except CompileError:
        return False
    return True


# Every .tri file of the repository: the library, the test programs, the Trident programs of
# tests/trident_compat and the examples of docs/.
ALL_FILES = [
    path
    for pattern in (
        "stdlib/**/*.tri",
        "tests/programs/**/*.tri",
        "tests/trident_compat/**/*.tri",
        "docs/examples/**/*.tri",
    )
    for path in sorted(ROOT.glob(pattern))
]
# Every one of them that parses (the syntax-error test programs cannot be formatted).
CORPUS = [path for path in ALL_FILES if _parses(path)]


def _document_programs() -> dict[str, str]:
    """The ```trident blocks of the documents that are whole files (not fragments), by
    `document#index`."""
    found = {}
    for document in sorted(ROOT.glob("docs/*.md")) + [ROOT / "README.md"]:
        for index, block in enumerate(fenced(document.read_text(), "trident")):
            try:
                parse(block)
            except CompileError:
                continue
            found[f"{document.relative_to(ROOT)}#{index}"] = block
    return found


DOCUMENT_PROGRAMS = _document_programs()


def normalized(value):
    """The AST as nested tuples, without spans, comments and the file's path."""
    if isinstance(value, list | tuple):
        return tuple(normalized(element) for element in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        ignored = {"span", "name_span"}
        if type(value).__name__ == "SourceFile":
            ignored |= {"comments", "path"}
        return (type(value).__name__,) + tuple(
            (field.name, normalized(getattr(value, field.name)))
            for field in dataclasses.fields(value)
            if field.name not in ignored
        )
    return value


COMPARISONS = ("==", "<")


def unparenthesized_comparisons(text: str) -> list[str]:
    """The comparisons in `text` that are an operand of a comparison and not in parentheses
    (the parser reads `x < y == false` as `(x < y) == false`, but the formatter keeps
    comparisons apart).  The spans of an operand leave out its parentheses, so the one beside
    the operator (after a left operand, before a right one) is there or not."""
    lines = text.split("\n")
    found = []
    for node in walk(parse(text)):
        if not (isinstance(node, ast.Binary) and node.operator in COMPARISONS):
            continue
        for operand, right in ((node.left, False), (node.right, True)):
            if not (isinstance(operand, ast.Binary) and operand.operator in COMPARISONS):
                continue
            span = operand.span
            if right:
                beside = lines[span.line - 1][: span.column - 1].rstrip()[-1:] == "("
            else:
                beside = lines[span.end_line - 1][span.end_column :].lstrip()[:1] == ")"
            if not beside:
                found.append(f"{span.line}:{span.column}: {lines[span.line - 1].strip()}")
    return found


def comment_texts(text: str) -> list[str]:
    return [comment.rstrip() for _, comment in parse(text).comments]


def assert_formats_well(text: str) -> str:
    """Formatting keeps the AST and the comments, and is idempotent; returns the output."""
    formatted = format_source(text)
    assert normalized(parse(formatted)) == normalized(parse(text))
    assert comment_texts(formatted) == comment_texts(text)
    assert format_source(formatted) == formatted
    return formatted


def source(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


# --- golden examples ---------------------------------------------------------------------------

GOLDEN = {
    "file layout": (
        """
        // top
        module  a.b   // header
        use std.io.io


        use vm.core.convert
        fn f() {}
        fn g() {}
        """,
        """
        // top
        module a.b // header

        use std.io.io

        use vm.core.convert

        fn f() {}

        fn g() {}
        """,
    ),
    "program with I/O declarations (verbatim)": (
        """
        program p
        pub input: Field
        sec ram: { 17: Field,  42: Digest }
        fn main() {
        }
        """,
        """
        program p

        pub input: Field
        sec ram: { 17: Field,  42: Digest }

        fn main() {}
        """,
    ),
    "operators and precedence": (
        """
        module m
        fn f() {
            let a=x+(y*z)
            let b=(x+y)*z
            let c = x+(y+z)
            let d = (x+y)+z
            let e = (a == b) == c
            let g = a == (b == c)
            let h = x*(y & z) ^ w
            let h2 = (x * y) & z
            let i = (x & y) ^ z
            let j = x /% (y /% z)
            let k = (x < y) == (a < b)
            let l = v *. (s + t)
            let n = (a + b)[i + 1][0]
            let o = (x < y) == false
            let q = x < y == false
            let r = a == b < c
            let s = x < y < z
            let t = (a + b < c) == (d & e < f * g)
        }
        """,
        """
        module m

        fn f() {
            let a = x + y * z
            let b = (x + y) * z
            let c = x + (y + z)
            let d = x + y + z
            let e = (a == b) == c
            let g = a == (b == c)
            let h = x * y & z ^ w
            let h2 = (x * y) & z
            let i = x & y ^ z
            let j = x /% (y /% z)
            let k = (x < y) == (a < b)
            let l = v *. (s + t)
            let n = (a + b)[i + 1][0]
            let o = (x < y) == false
            let q = (x < y) == false
            let r = a == (b < c)
            let s = (x < y) < z
            let t = (a + b < c) == (d & e < f * g)
        }
        """,
    ),
    "primary expressions": (
        """
        module m
        fn f() {
            let a = std.crypto.merkle.verify(x.f.g, m.K,)
            let b = sum<3>( [1,2,3] )
            let c = g<N + 1, 2 * (M + 1)>(x)
            let d = ( a , b , )
            let e = []
            let p = P{x:1,y:y}
            let q = bigint.U256 { lo }
            let r = Empty {}
            let s = true
            let t = false
        }
        """,
        """
        module m

        fn f() {
            let a = std.crypto.merkle.verify(x.f.g, m.K)
            let b = sum<3>([1, 2, 3])
            let c = g<N + 1, 2 * (M + 1)>(x)
            let d = (a, b)
            let e = []
            let p = P { x: 1, y }
            let q = bigint.U256 { lo }
            let r = Empty {}
            let s = true
            let t = false
        }
        """,
    ),
    "let forms and assignment": (
        """
        module m
        fn f() {
            let mut x : U32 = convert.as_u32(0)
            let ( a , _ , c ) = divine3()
            let _ = as_u32(a)
            let mut (p, q): (Field, Field) = (1, 2)
            x=y
            (a,c)=(c,a)
        }
        """,
        """
        module m

        fn f() {
            let mut x: U32 = convert.as_u32(0)
            let (a, _, c) = divine3()
            let _ = as_u32(a)
            let mut (p, q): (Field, Field) = (1, 2)
            x = y
            (a, c) = (c, a)
        }
        """,
    ),
    "if chains and empty blocks": (
        """
        module m
        fn f() -> Field {
            if a { x() } else if b { y() }
            else { if c { z() } else { } }
            if d {
            } else {
                if e { w() }
            }
            if f {} else {
                if g {} // kept in the else block
            }
            0
        }
        """,
        """
        module m

        fn f() -> Field {
            if a {
                x()
            } else if b {
                y()
            } else if c {
                z()
            } else {}
            if d {} else if e {
                w()
            }
            if f {} else {
                if g {} // kept in the else block
            }
            0
        }
        """,
    ),
    "for, return, match": (
        """
        module m
        fn f(n: Field) {
            for i in 0 .. n bounded 32 { g(i) }
            for _ in a+1..n {}
            match x { 0 => { a() }, true => {} P { u, v: 0, w: _ } => { return }
              _ => { return g(1) } }
            match y {}
        }
        """,
        """
        module m

        fn f(n: Field) {
            for i in 0..n bounded 32 {
                g(i)
            }
            for _ in a + 1..n {}
            match x {
                0 => {
                    a()
                }
                true => {},
                P { u, v: 0, w: _ } => {
                    return
                }
                _ => {
                    return g(1)
                }
            }
            match y {}
        }
        """,
    ),
    "events, reveal, seal, asm": (
        """
        module m
        event Transfer { from: Field, to: Field, amount: Field, }
        fn f() {
            reveal Transfer{from:a,to,amount:x+1}
            seal Transfer { from, to, amount }
            asm(triton, +1) {
                push 1   // raw
              add
            }
        }
        """,
        """
        module m

        event Transfer {
            from: Field,
            to: Field,
            amount: Field,
        }

        fn f() {
            reveal Transfer { from: a, to, amount: x + 1 }
            seal Transfer { from, to, amount }
            asm(triton, +1) {
                push 1   // raw
              add
            }
        }
        """,
    ),
    "items: attributes, pub, struct, const, generics": (
        """
        module m
        #[intrinsic(hash)] #[cfg(debug)] pub fn tip5(a: Field) -> Digest
        pub struct P { pub x: Field, y: [Field; N * 2 + 1], z: (U32, Bool) }
        struct Unit {}
        pub const N: Field = 3
        const M: U32 = 4

        const K: Field = 5
        fn sum<N, M>(a: [Field; N], b: bigint.U256,) -> (Field, U32) { (a[0], b.lo) }
        #[test]
        fn t() { }
        """,
        """
        module m

        #[intrinsic(hash)]
        #[cfg(debug)]
        pub fn tip5(a: Field) -> Digest

        pub struct P {
            pub x: Field,
            y: [Field; N * 2 + 1],
            z: (U32, Bool),
        }

        struct Unit {}

        pub const N: Field = 3
        const M: U32 = 4

        const K: Field = 5

        fn sum<N, M>(a: [Field; N], b: bigint.U256) -> (Field, U32) {
            (a[0], b.lo)
        }

        #[test]
        fn t() {}
        """,
    ),
    "long parameter lists are broken, one per line": (
        """
        module m
        pub fn hash_ten(x0: Field, x1: Field, x2: Field, x3: Field, x4: Field, x5: Field,
        x6: Field) -> Digest
        fn short(a: Field,
                 b: Field) {}
        """,
        """
        module m

        pub fn hash_ten(
            x0: Field,
            x1: Field,
            x2: Field,
            x3: Field,
            x4: Field,
            x5: Field,
            x6: Field,
        ) -> Digest

        fn short(a: Field, b: Field) {}
        """,
    ),
    "comments": (
        """
        module m
        // about f

        // more about f
        fn f(a: Field, // the input
             b: Field) -> Field { // body
            // first
            let x = g(a, // inside a call
                      b) // after the call


            let y = x     // y
            if x == y { // cond
                h() } // after if
            else { // else
                // alone
            }
            x + y // tail
            // last in block
        }
        // end of file
        """,
        """
        module m

        // about f

        // more about f
        fn f(
            a: Field, // the input
            b: Field,
        ) -> Field { // body
            // first
            // inside a call
            let x = g(a, b) // after the call

            let y = x // y
            if x == y { // cond
                h()
            } else {
                // after if
                // else
                // alone
            }
            x + y // tail
            // last in block
        }
        // end of file
        """,
    ),
    "comments in structs, matches and between statements on one line": (
        """
        module m
        struct P { // fields
            x: Field, // x
            // y next

            y: Field
            // end
        }
        fn f() {
            a = 1 b = 2 // both
            match x { // arms
                // zero
                0 => {} // done
                _ => { g() } }
        }
        """,
        """
        module m

        struct P { // fields
            x: Field, // x
            // y next

            y: Field,
            // end
        }

        fn f() {
            a = 1
            b = 2 // both
            match x { // arms
                // zero
                0 => {} // done
                _ => {
                    g()
                }
            }
        }
        """,
    ),
    "a less-than before a generic call keeps the lexer from seeing a call": (
        """
        module m
        fn f() {
            let q = a <
                g<2>(b)
            let r = a + b <
                g<2>(b)
            let s = f(a) < g<2>(b)
            let t = a < b
        }
        """,
        """
        module m

        fn f() {
            let q = (a) < g<2>(b)
            let r = (a + b) < g<2>(b)
            let s = f(a) < g<2>(b)
            let t = a < b
        }
        """,
    ),
    "long lines break at the outermost list or operator chain, then inside": (
        """
        module m
        fn main() {
            let total: Field = helper(123456789, 987654321, 1122334455, 5544332211,
                9988776655) + helper(1, 2, 3, 4, 5) * helper(6, 7, 8, 9, 10)
            let p: Point = Point { x: helper(1000000001, 1000000002, 1000000003,
                1000000004, 1000000005), y: y }
            pub_write(helper(p.x, p.y, values[0], values[1], helper(values[2],
                values[3], values[4], values[5], t)))
            reveal Transfer { sender: sender_address_digest_value,
                receiver: receiver_address_digest, amount }
        }
        const LIMIT: Field = first_component_of_upper_limit_a
            * second_component_of_upper_limit + (a + b) * c
        """,
        """
        module m

        fn main() {
            let total: Field = helper(123456789, 987654321, 1122334455, 5544332211, 9988776655)
                + helper(1, 2, 3, 4, 5) * helper(6, 7, 8, 9, 10)
            let p: Point = Point {
                x: helper(1000000001, 1000000002, 1000000003, 1000000004, 1000000005),
                y,
            }
            pub_write(
                helper(
                    p.x,
                    p.y,
                    values[0],
                    values[1],
                    helper(values[2], values[3], values[4], values[5], t),
                ),
            )
            reveal Transfer {
                sender: sender_address_digest_value,
                receiver: receiver_address_digest,
                amount,
            }
        }

        const LIMIT: Field = first_component_of_upper_limit_a * second_component_of_upper_limit
            + (a + b) * c
        """,
    ),
    "a parenthesized operand too long for its line is broken inside its parentheses": (
        """
        module m
        fn f() {
            let v = (accumulator_value_long_name + another_long_value_here < something_else)
                == (accumulator_value_long_name < m.running_total_value)
            let w = (accumulator_value_long_name + another_long_value_here + something_else_long
                < m.running_total_value) == (scale_factor_of_the_weights
                * (another_long_value_here + something_else_long + m.running_total_value
                + accumulator_value_long_name) < m.running_total_value)
        }
        """,
        """
        module m

        fn f() {
            let v = (accumulator_value_long_name + another_long_value_here < something_else)
                == (accumulator_value_long_name < m.running_total_value)
            let w = (accumulator_value_long_name + another_long_value_here + something_else_long
                    < m.running_total_value)
                == (scale_factor_of_the_weights
                    * (another_long_value_here
                        + something_else_long
                        + m.running_total_value
                        + accumulator_value_long_name)
                    < m.running_total_value)
        }
        """,
    ),
    "an assignment target that starts with a bracket keeps its parentheses": (
        """
        module m
        fn f() {
            g()
            ([a, b][0]) = 1
            ([a])[i] = [b][0]
        }
        """,
        """
        module m

        fn f() {
            g()
            ([a, b][0]) = 1
            ([a][i]) = [b][0]
        }
        """,
    ),
}


@pytest.mark.parametrize("name", GOLDEN)
def test_golden(name):
    text, expected = (source(part) for part in GOLDEN[name])
    assert format_source(text) == expected
    assert_formats_well(text)


def test_syntax_error_raises_compile_error():
    with pytest.raises(CompileError) as caught:
        format_source("module m\nfn f( {\n", "bad.tri")
    assert caught.value.diagnostics[0].path == "bad.tri"


# --- whole files: idempotence, AST equality, comments ------------------------------------------

SOURCES = [
    # every value form, deeply nested
    """
    program p
    use std.crypto.merkle
    fn main() {
        let d: Digest = divine5()
        let (d0, d1, _, d3, d4) = d
        let mut acc = [d0 + d1 * d3, (d4 + 1) * (d0 + (d1 == d3))]
        for i in 0..2 { acc[i] = merkle.verify(d, acc[i] & (acc[0] ^ 3) /% 7) }
        if acc[0] == acc[1] { pub_write(acc[0]) } else if acc[0] < acc[1] { pub_write(1) }
        else { pub_write(2) }
    }
    """,
    # comments everywhere
    """
    // a file about comments
    module c.d // header


    // imports
    use a.b // trailing use
    // between uses
    use c.e
    #[intrinsic(x)] // attribute
    // among attributes
    #[cfg(debug)]
    pub fn f(a: Field) -> Field // bodyless
    fn g() { // open
        let x = ( // paren
            1 + // plus
            2) // end
        if x == 1 { h() } // closed on one line
        else if x == 2 { // else if
        }
        // before the end
    } // after g
    struct S {
    }
    // the end
    """,
    # blank lines and comments in empty places
    """
    module blanks

    fn f() {


        a()



        b()
        // c


        // d

    }


    fn g() {
        // only a comment
    }
    fn h() { } // nothing
    """,
    # matches, events, asm
    """
    program events
    event E { a: Field, b: Field }
    fn main() {
        match pub_read() { 0 => { reveal E { a: 1, b: 2 } }, 1 => { seal E { a: 3, b: 4 } }
        _ => { asm { push 0 pop 1 } } }
        match flag { true => {} false => {} }
        match s { S { a, b: x } => { g(x) } }
    }
    """,
    # signatures long enough to break, with comments and generics
    """
    module sig
    pub fn a_very_long_function_name<N, M>(first_argument: [Field; N], second_argument: [Field; M],
        third: Digest) -> (Field, Field)
    fn commented(
        // first
        a: Field, b: Field // second
        // after
    ) -> Field
    {
        a
    }
    """,
]


@pytest.mark.parametrize("index", range(len(SOURCES)))
def test_own_sources(index):
    assert_formats_well(source(SOURCES[index]))


@pytest.mark.parametrize("path", CORPUS, ids=lambda path: str(path.relative_to(ROOT)))
def test_corpus(path):
    assert unparenthesized_comparisons(assert_formats_well(path.read_text())) == []


def test_corpus_is_not_empty_and_only_syntax_errors_are_left_out():
    """A valid program that stopped parsing would otherwise drop out of `CORPUS` unseen."""
    assert len(CORPUS) > 100 and DOCUMENT_PROGRAMS
    left_out = [path for path in ALL_FILES if path not in CORPUS]
    assert all("invalid" in path.parts for path in left_out), left_out
    for directory in ("stdlib", "tests/trident_compat", "docs/examples"):
        assert any(path.is_relative_to(ROOT / directory) for path in CORPUS), directory


@pytest.mark.parametrize("name", DOCUMENT_PROGRAMS)
def test_document_programs(name):
    assert unparenthesized_comparisons(assert_formats_well(DOCUMENT_PROGRAMS[name])) == []


@pytest.mark.parametrize("seed", range(20))
def test_generated_programs(seed):
    """The well-typed programs and modules of the differential fuzz's generator."""
    assert_formats_well(generate(seed).text)


def test_tri_fmt_over_the_corpus(tmp_path, capsys):
    """`tri fmt` on a copy of the corpus rewrites it to text that parses to the same trees,
    and a second `tri fmt --check` finds nothing left to change."""
    copies = {}
    for path in CORPUS:
        copy = tmp_path / path.relative_to(ROOT)
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text(path.read_text())
        copies[copy] = path
    code, _, err = tri(capsys, tmp_path)
    assert (code, err) == (0, "")
    for copy, path in copies.items():
        assert normalized(parse(copy.read_text())) == normalized(parse(path.read_text())), path
    assert tri(capsys, "--check", tmp_path) == (0, "", "")


# --- hypothesis: random expressions and statements -----------------------------------------------

# In the generated text, "\0" marks a place for any whitespace or a comment, "\1" a place for
# whitespace only (inside a struct literal's head, whose lookahead does not skip comments).
NAMES = st.sampled_from(["a", "b", "x1", "m.k", "s.f.g", "N"])
OPERATORS = st.sampled_from(["==", "<", "+", "*", "*.", "&", "^", "/%"])


def _comma_list(items: list[str]) -> str:
    return ",\0".join(items)


def _parenthesized(text: str, wrap: bool) -> str:
    return f"(\0{text}\0)" if wrap else text


def _expressions(depth: int = 3):
    leaves = st.one_of(st.integers(0, 2**32).map(str), NAMES, st.sampled_from(["true", "false"]))
    if depth == 0:
        return leaves
    inner = st.deferred(lambda: _expressions(depth - 1))
    many = st.lists(inner, min_size=0, max_size=3)
    return st.one_of(
        leaves,
        st.builds(
            lambda left, operator, right, wrap_left, wrap_right: "\0".join(
                [_parenthesized(left, wrap_left), operator, _parenthesized(right, wrap_right)]
            ),
            inner,
            OPERATORS,
            inner,
            st.booleans(),
            st.booleans(),
        ),
        inner.map(lambda text: f"(\0{text}\0)"),
        st.builds(
            lambda callee, sizes, arguments: f"{callee}{sizes}(\0{_comma_list(arguments)}\0)",
            st.sampled_from(["f", "io.write", "std.m.g"]),
            st.sampled_from(["", "", "", "<3>", "<N + 1, 2>"]),
            many,
        ),
        st.lists(inner, min_size=2, max_size=3).map(lambda items: f"(\0{_comma_list(items)}\0)"),
        many.map(lambda items: f"[\0{_comma_list(items)}\0]"),
        st.builds(lambda base, index: f"({base})\0[\0{index}\0]", inner, inner),
        st.builds(
            lambda value, shorthand: f"P\1{{\1x:\0{value},\0y\0}}" if not shorthand else "P { y }",
            inner,
            st.booleans(),
        ),
    )


def _statements(depth: int):
    expression = _expressions(2)
    simple = st.one_of(
        expression.map(lambda value: f"let\0v\0=\0{value}"),
        expression.map(lambda value: f"let mut (p, _): (Field, U32) = {value}"),
        expression.map(lambda value: f"v\0=\0{value}"),
        expression.map(lambda value: f"(\0p,\0q\0)\0=\0{value}"),
        expression.map(lambda value: f"g({value})"),
        expression.map(lambda value: f"reveal E {{ a: {value}, b }}"),
        st.just("asm { push 1 pop 1 }"),
    )
    if depth == 0:
        return simple
    block = _blocks(depth - 1)
    return st.one_of(
        simple,
        st.builds(lambda c, then: f"if\0{c}\0{then}", expression, block),
        st.builds(
            lambda c, then, d, other, last: f"if {c} {then}\0else\0if {d} {other}\0else\0{last}",
            expression,
            block,
            expression,
            block,
            block,
        ),
        st.builds(lambda end, body: f"for i in 0..{end} bounded 4 {body}", expression, block),
        st.builds(
            lambda body, other: "match v\0{\0" + f"0 => {body}\0_ => {other}\0}}", block, block
        ),
    )


def _blocks(depth: int):
    return st.lists(_statements(depth), max_size=3).map(
        lambda statements: "{\0" + "\0".join(statements) + "\0}"
    )


def _items():
    types = st.sampled_from(["Field", "U32", "Digest", "[Field; N]", "(U32, Bool)", "m.S"])
    params = st.lists(
        st.builds(lambda index, type_: f"p{index}:\0{type_}", st.integers(0, 99), types),
        max_size=12,
    )
    public = st.sampled_from(["", "pub "])
    field = st.builds(lambda public, type_: f"{public}x:\0{type_}", public, types)
    fields = st.lists(field, max_size=4)
    attributes = st.lists(st.sampled_from(["#[test]", "#[intrinsic(hash)]", "#[cfg(debug)]"]))
    body = st.sampled_from(["", "\0{\0}", "\0{\0let x = 1\0x\0}"])
    function = st.builds(
        lambda attributes, public, params, comma, result, body: (
            "\0".join(attributes)
            + f"\0{public}fn\0f<N>(\0{_comma_list(params)}{comma if params else ''}\0)"
            + (f"\0->\0{result}" if result else "")
            + body
        ),
        attributes,
        public,
        params,
        st.sampled_from(["", ","]),
        st.sampled_from(["", "Field", "(Field, U32)"]),
        body,
    )
    structure = st.builds(
        lambda keyword, fields, comma: (
            f"{keyword}\0S\0{{\0{_comma_list(fields)}{comma if fields else ''}\0}}"
        ),
        st.sampled_from(["struct", "pub struct"]),
        fields,
        st.sampled_from(["", ","]),
    )
    event = fields.map(lambda fields: "event E {" + _comma_list(fields).replace("pub ", "") + "}")
    constant = st.integers(0, 9).map(lambda value: f"pub const\0N:\0Field\0=\0{value}")
    return st.lists(st.one_of(function, structure, event, constant), max_size=4).map("\0".join)


SEPARATORS = st.sampled_from([" ", " ", "\n", "\n\n", "\n    ", " // note\n", "\n// own line\n"])
WHITESPACE = st.sampled_from([" ", "\n", "  "])


def _lay_out(data, text: str) -> str:
    """Replace the markers by drawn separators; number the comments so order is checked."""
    pieces = []
    count = 0
    for character in text:
        if character == "\0":
            separator = data.draw(SEPARATORS)
            if "//" in separator:
                count += 1
                separator = separator.replace("note", f"note {count}")
            pieces.append(separator)
        elif character == "\1":
            pieces.append(data.draw(WHITESPACE))
        else:
            pieces.append(character)
    return "".join(pieces)


def _check_random(text: str) -> None:
    try:
        parse(text)
    except CompileError:
        assume(False)  # e.g. `a < g<3>(b)` on one line: the lexer takes `a` for a call
    assert_formats_well(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), _expressions())
def test_random_expressions(data, expression):
    text = _lay_out(data, f"module m\nfn f() {{\nlet v = {expression}\ng(v)\n}}\n")
    _check_random(text)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), _blocks(2))
def test_random_statements(data, body):
    text = _lay_out(data, f"// start\nmodule m\0fn f()\0{body}\0// end\n")
    _check_random(text)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), _items())
def test_random_items(data, items):
    text = _lay_out(data, f"module m\0use a.b\0use c\0{items}\0")
    _check_random(text)


# --- seeded: random expressions mixing every binary operator, wherever an expression goes ------
# A small deterministic builder (one `random.Random(seed)` per case, so a seed reproduces it):
# every operator of the precedence table, each operand parenthesized or not at random, inside
# indexing, calls (generic ones too), tuples, arrays and struct literals; as a constant's value,
# a `let`'s, both sides of an assignment, an expression statement, a call's argument, the head
# of an `if`, a `for` and a `match`, a `return`'s value and a `reveal`'s fields.  The text it
# writes always parses: heads are parenthesized (a head ending in `P` before `{ x }` would be a
# struct literal) and so are assignment targets and expression statements (after another
# statement a line starting with `[` would index its value).

SEEDED_NAMES = ["a", "b", "x1", "m.k", "s.f.g", "N", "P", "accumulator_value", "m.running_total"]


def _seeded_expression(rng: random.Random, depth: int) -> str:
    def operand() -> str:
        text = _seeded_expression(rng, depth - 1)
        return f"({text})" if rng.random() < 0.35 else text

    choice = rng.randrange(12) if depth > 0 else rng.randrange(3)
    if choice == 0:
        return str(rng.choice([0, 1, 7, 2**32]))
    if choice == 1:
        return rng.choice(SEEDED_NAMES)
    if choice == 2:
        return rng.choice(["true", "false"])
    if choice <= 6:  # the most likely: a binary operation
        return f"{operand()} {rng.choice(list(PRECEDENCE))} {operand()}"
    if choice == 7:
        return f"({_seeded_expression(rng, depth - 1)})"
    if choice == 8:
        sizes = rng.choice(["", "", "<3>", "<N + 1, 2 * (M + 1)>"])
        arguments = ", ".join(operand() for _ in range(rng.randrange(3)))
        return f"{rng.choice(['f', 'io.write'])}{sizes}({arguments})"
    if choice == 9:
        base = rng.choice([f"({_seeded_expression(rng, depth - 1)})", rng.choice(SEEDED_NAMES)])
        return f"{base}[{_seeded_expression(rng, depth - 1)}]"
    if choice == 10:
        return "[" + ", ".join(operand() for _ in range(rng.randrange(3))) + "]"
    return rng.choice(
        [f"P {{ x: {operand()}, y }}", f"({operand()}, {operand()})", "Q {}", "P { y }"]
    )


def _seeded_statements(rng: random.Random, depth: int) -> list[str]:
    def value() -> str:
        return _seeded_expression(rng, 3)

    def block() -> str:
        inner = _seeded_statements(rng, depth - 1) if depth > 0 else ["x"]
        return "{\n" + "\n".join(inner) + "\n}"

    statements = []
    for _ in range(rng.randrange(1, 5)):
        choice = rng.randrange(10 if depth > 0 else 6)
        statements.append(
            [
                lambda: f"let v = {value()}",
                lambda: f"({value()}) = {value()}",
                lambda: f"({value()})",
                lambda: f"g({value()}, {value()})",
                lambda: f"return {value()}",
                lambda: f"reveal E {{ a: {value()}, b }}",
                lambda: f"if ({value()}) {block()} else {block()}",
                lambda: f"for i in ({value()})..({value()}) {block()}",
                lambda: f"for _ in ({value()})..({value()}) bounded 3 {block()}",
                lambda: f"match ({value()}) {{\n0 => {block()}\n_ => {{}}\n}}",
            ][choice]()
        )
    return statements


def seeded_program(seed: int) -> str:
    rng = random.Random(seed)
    body = "\n".join(_seeded_statements(rng, 2))
    return f"module m\nconst C: Field = {_seeded_expression(rng, 3)}\nfn f() {{\n{body}\n}}\n"


@pytest.mark.parametrize("seed", range(300))
def test_seeded_random_expressions(seed):
    """The text parses to the same tree, formats to itself and keeps comparisons apart."""
    text = seeded_program(seed)
    formatted = assert_formats_well(text)
    assert unparenthesized_comparisons(formatted) == [], formatted


def test_the_seeded_builder_mixes_every_operator_and_comparisons_of_comparisons():
    trees = [parse(seeded_program(seed)) for seed in range(300)]
    binaries = [node for tree in trees for node in walk(tree) if isinstance(node, ast.Binary)]
    assert {node.operator for node in binaries} == set(PRECEDENCE)
    nested = [
        node
        for node in binaries
        if node.operator in COMPARISONS
        and any(
            isinstance(side, ast.Binary) and side.operator in COMPARISONS
            for side in (node.left, node.right)
        )
    ]
    assert len(nested) > 50


# Long expressions without parentheses (which the formatter keeps on one line): every line of
# the output fits the width.
LONG_NAMES = st.sampled_from(
    ["accumulator_value", "m.running_total", "weights.scale_factor", "N", "4294967295"]
)


def _wide_expressions(depth: int = 3):
    if depth == 0:
        return LONG_NAMES
    inner = st.deferred(lambda: _wide_expressions(depth - 1))
    many = st.lists(inner, min_size=0, max_size=4)
    return st.one_of(
        LONG_NAMES,
        st.builds(
            lambda left, operator, right: f"{left} {operator} {right}", inner, OPERATORS, inner
        ),
        st.builds(
            lambda callee, arguments: f"{callee}({', '.join(arguments)})",
            st.sampled_from(["combine", "io.write_value", "std.m.mix"]),
            many,
        ),
        st.lists(inner, min_size=2, max_size=3).map(lambda items: f"({', '.join(items)})"),
        many.map(lambda items: f"[{', '.join(items)}]"),
        st.builds(lambda value: f"Pair {{ first: {value}, second }}", inner),
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_wide_expressions(), st.integers(0, 4), st.sampled_from(["let v = ", "v = ", "return ", ""]))
def test_long_lines_are_broken_to_fit(expression, depth, statement):
    body = f"{statement}{expression}"
    for _ in range(depth):
        body = f"if c {{\n{body}\n}}"
    text = f"module m\nfn f() {{\n{body}\n}}\n"
    try:
        parse(text)
    except CompileError:
        assume(False)  # e.g. `a < g<3>(b)` on one line: the lexer takes `a` for a call
    formatted = assert_formats_well(text)
    too_long = [line for line in formatted.splitlines() if len(line) > MAX_WIDTH]
    assert not too_long, formatted


# --- tri fmt -------------------------------------------------------------------------------------

UGLY = "module m\nfn f() { let x=1+2 x }\n"
PRETTY = "module m\n\nfn f() {\n    let x = 1 + 2\n    x\n}\n"


def tri(capsys, *arguments):
    code = main(["fmt", *(str(argument) for argument in arguments)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_fmt_check_reports_files_that_would_change(tmp_path, capsys):
    (tmp_path / "ugly.tri").write_text(UGLY)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "pretty.tri").write_text(PRETTY)
    (tmp_path / "notes.txt").write_text("not source")
    code, out, err = tri(capsys, "--check", tmp_path)
    assert code == 1
    assert err == f"1 file would be reformatted; 'tri fmt --diff {tmp_path}' shows how\n"
    assert out.splitlines() == [str(tmp_path / "ugly.tri")]
    assert (tmp_path / "ugly.tri").read_text() == UGLY


def test_fmt_check_passes_on_formatted_files(tmp_path, capsys):
    (tmp_path / "pretty.tri").write_text(PRETTY)
    assert tri(capsys, "--check", tmp_path / "pretty.tri") == (0, "", "")


def test_fmt_rewrites_changed_files_only(tmp_path, capsys):
    ugly, pretty = tmp_path / "ugly.tri", tmp_path / "pretty.tri"
    ugly.write_text(UGLY)
    pretty.write_text(PRETTY)
    before = pretty.stat().st_mtime_ns
    code, out, err = tri(capsys, ugly, pretty)
    assert (code, out.splitlines(), err) == (0, [str(ugly)], "")
    assert ugly.read_text() == PRETTY
    assert pretty.stat().st_mtime_ns == before
    assert tri(capsys, "--check", tmp_path) == (0, "", "")


def test_fmt_syntax_error_is_rendered_and_other_files_still_formatted(tmp_path, capsys):
    broken, ugly = tmp_path / "a_broken.tri", tmp_path / "b_ugly.tri"
    broken.write_text("module m\nfn f( {\n")
    ugly.write_text(UGLY)
    code, out, err = tri(capsys, tmp_path)
    assert code == 2  # source that does not parse
    assert out.splitlines() == [str(ugly)]
    assert err.startswith(f"{broken}:2:7: error[E0001]: unexpected '{{'")
    assert " 2 | fn f( {" in err
    assert ugly.read_text() == PRETTY


def test_fmt_unreadable_path_exits_2(tmp_path, capsys):
    (tmp_path / "ugly.tri").write_text(UGLY)
    code, out, err = tri(capsys, "--check", tmp_path / "missing.tri", tmp_path / "ugly.tri")
    assert code == 2
    missing = tmp_path / "missing.tri"
    assert err.splitlines() == [
        f"error: cannot read {missing}: no such file or directory",
        f"1 file would be reformatted; 'tri fmt --diff {tmp_path / 'ugly.tri'}' shows how",
    ]
    assert out.splitlines() == [str(tmp_path / "ugly.tri")]


def test_a_head_ending_in_a_capitalized_name_keeps_parentheses():
    """`if a == N {}` would parse `N {}` as a struct literal (found by test_random_statements)."""
    source = textwrap.dedent(
        """\
        program p

        const N: Field = 3

        fn main() {
            if 0 {
            } else if (N) {
            } else {
            }
            if 1 == (N) {}
            for i in 0..(N) {}
            for j in 0..N bounded 3 {}
        }
        """
    )
    formatted = format_source(source)
    assert "else if (N) {}" in formatted and "if (1 == N) {}" in formatted
    assert "for i in 0..(N) {}" in formatted and "for j in 0..N bounded 3 {}" in formatted
    assert_formats_well(source)


def test_a_statement_starting_with_a_bracket_keeps_parentheses():
    """After another statement, `[a, b]` would index that statement's value (`x [a, b]`), so
    a block's value that is an array literal, or an index into one, keeps its parentheses."""
    source = textwrap.dedent(
        """\
        program p

        fn f(a: Field) -> [Field; 2] {
            let b: Field = a + 1
            ([a, b])
        }

        fn g(a: Field) -> Field {
            let b: Field = a
            ([a, b][1])
        }

        fn h(a: Field) -> (Field, Field) {
            let b: Field = a
            ((a, b))
        }
        """
    )
    formatted = format_source(source)
    assert "    ([a, b])\n" in formatted and "    ([a, b][1])\n" in formatted
    assert "    (a, b)\n" in formatted  # a tuple needs none
    assert_formats_well(source)
