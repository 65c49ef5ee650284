"""The fast LALR driver (`compiler.syntax.lalr`) against lark's own parser.

Both run lark's automaton; they can differ only in lexing and in when they give
up.  So for every corpus file, library module and thousands of mutations of
them: the driver accepts exactly the texts lark accepts, and the tokens it
feeds the automaton are lark's, with the same types, text and positions.  (With
equal tokens and one table, the reductions are equal too; the AST built from
them is checked by the corpus, span and formatter tests.)
"""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lark import Token
from lark.exceptions import UnexpectedInput
from test_frontend_fuzz import SOURCES, VOCABULARY, mutated_sources

from compiler.syntax import parser
from compiler.syntax.lalr import REJECTED, FastParser


def _flatten(rule):
    """A reducer whose value for every rule is the list of the tokens under it."""

    def tokens(values, first, last):
        result = []
        for value in values:
            result.extend(value if isinstance(value, list) else [value])
        return result

    return tokens


def _token_tracer() -> FastParser:
    lark = parser._lark()
    every_terminal = frozenset(terminal.name for terminal in lark.terminals)
    return FastParser(lark, _flatten, every_terminal)


TRACER = _token_tracer()


def _described(tokens) -> list[tuple]:
    return [
        (token.type, str(token), token.line, token.column, token.end_line, token.end_column)
        for token in tokens
        if isinstance(token, Token)
    ]


def assert_same_as_lark(text: str) -> None:
    lark = parser._lark()
    try:
        expected = list(lark.parse_interactive(text).iter_parse())
    except UnexpectedInput:
        expected = None
    else:
        try:
            lark.parse(text)
        except UnexpectedInput:
            expected = None  # lexed to the end but not a whole program
    fast = parser._parser()[1].parse(text)
    traced = TRACER.parse(text)
    if expected is None:
        assert fast is REJECTED and traced is REJECTED, "accepted what lark rejects"
        return
    assert fast is not REJECTED and traced is not REJECTED, "rejected what lark accepts"
    assert _described(traced) == _described(expected)


def test_every_source_file_lexes_and_parses_as_lark_does():
    for path in SOURCES:
        assert_same_as_lark(path.read_text())


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_sources())
def test_mutated_sources_are_accepted_and_lexed_as_lark_does(path_and_text):
    assert_same_as_lark(path_and_text[1])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(VOCABULARY), max_size=40).map(" ".join))
def test_token_soup_is_accepted_and_lexed_as_lark_does(text):
    assert_same_as_lark("program soup\n" + text)


def test_positions_cross_lines_and_comments():
    text = "program p // a comment\n\n  fn main() {\n\tasm { push 1\n pop 1 }\n}\n"
    assert_same_as_lark(text)
    function = parser.parse(text).items[0]
    assert (function.span.line, function.span.column) == (3, 3)
    statement = function.body.statements[0]
    assert (statement.span.line, statement.span.column) == (4, 2)
    assert (statement.span.end_line, statement.span.end_column) == (5, 8)
