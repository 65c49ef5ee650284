"""A tight LALR driver over lark's own tables, for source that parses cleanly.

lark's parser is general: a lexer object per parser state, a generator
between lexer and parser, a method call per token and per reduction, a parse
tree with positions.  For `tri`'s grammar that machinery costs more than the
parse itself.  `FastParser` runs the same automaton in one loop:

- the parse table is lark's, read once from the `Lark` instance;
- each state lexes with the scanner lark's contextual lexer built for that
  state (same regexes in the same order, same keyword re-typing), so the
  tokens are the ones lark would produce;
- whitespace and comments (the grammar's ignored terminals) are skipped by
  the same regex match that finds the next token;
- a reduction of `rule` calls `reducer(rule)(values, first, last)`, with the
  values of the rule's symbols and the positions of its first and last
  symbol; a rule whose reducer is None passes its single child on, which
  costs only a state change.

It does not report errors.  On input it cannot accept it returns `REJECTED`,
and the caller parses again with lark, which raises the precise
`UnexpectedInput` that diagnostics are made from.  tests/front_end/test_parser_driver.py
holds the two to the same answers.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from lark import Lark, Token
from lark.parsers.lalr_analysis import Shift

REJECTED = object()  # the input is not in the language (or not lexable)

# The grammar ignores exactly these terminals (common.WS and COMMENT), and no
# other terminal starts with whitespace or '//'.  Each state's token regex is
# prefixed with SKIP, so one match skips them and finds the next token; the
# group is atomic, so a failed match never backtracks into the skipped text.
IGNORED = frozenset({"WS", "COMMENT"})
SKIP = r"(?>(?:[ \t\f\r\n]+|//[^\n]*)*)"
END = re.compile(SKIP + r"\Z")

# A position: (line, column, end line, end column one past the last character).
Position = tuple[int, int, int, int]


class FastParser:
    """Parse text with lark's tables and lexers.

    `reducer(rule)` gives the function to call when `rule` is reduced, or None
    for a rule whose value is its only symbol's value.  `kept` names the
    terminals whose tokens the reductions read; other terminals (keywords,
    punctuation) are pushed as plain strings.
    """

    def __init__(self, instance: Lark, reducer: Callable, kept: frozenset[str]):
        frontend = instance.parser
        table = frontend.parser._parse_table
        contextual = frontend.lexer
        if set(frontend.lexer_conf.ignore) != IGNORED:
            raise ValueError("the grammar's ignored terminals changed; update SKIP")
        self.start_state = table.start_states["start"]
        self.end_state = table.end_states["start"]
        self.kept = kept
        # state -> {terminal or rule name -> (next state, None) | (None, reduction)}
        self.actions = {}
        for state, row in table.states.items():
            entries = {}
            for symbol, (action, argument) in row.items():
                if action is Shift:
                    entries[symbol] = (argument, None)
                else:
                    size = len(argument.expansion)
                    if not size:
                        raise ValueError(f"empty rule {argument}: not supported")
                    entries[symbol] = (None, (size, argument.origin.name, reducer(argument)))
            self.actions[state] = entries
        # state -> (compiled regexes in lark's order, {terminal: keyword scanner})
        scanners = {}
        self.lexers = {}
        for state, lexer in contextual.lexers.items():
            if id(lexer) not in scanners:
                patterns = [
                    re.compile(f"{SKIP}(?:{compiled.pattern})", compiled.flags)
                    for compiled in lexer.scanner._mres
                ]
                keywords = {kind: unless.scanner for kind, unless in lexer.callback.items()}
                scanners[id(lexer)] = (patterns, keywords)
            self.lexers[state] = scanners[id(lexer)]

    def parse(self, text: str):
        """The value of the start rule, or `REJECTED`."""
        actions, lexers, kept = self.actions, self.lexers, self.kept
        states = [self.start_state]
        values: list = []
        positions: list[Position] = []
        position, line, line_start = 0, 1, 0
        while True:
            # --- skip whitespace and comments, and lex one token for this state
            patterns, keywords = lexers[states[-1]]
            for pattern in patterns:
                match = pattern.match(text, position)
                if match:
                    break
            else:
                if not END.match(text, position):
                    return REJECTED
                kind = "$END"
            if match:
                kind = match.lastgroup
                skipped = match.start()
                start, position = match.span(kind)
                if skipped != start and "\n" in text[skipped:start]:
                    line += text.count("\n", skipped, start)
                    line_start = text.rindex("\n", skipped, start) + 1
                value = text[start:position]
                if kind in keywords:
                    kind = keywords[kind].fullmatch(value) or kind
                start_line, column = line, start - line_start + 1
                if "\n" in value:
                    line += value.count("\n")
                    line_start = start + value.rindex("\n") + 1
                spot = (start_line, column, line, position - line_start + 1)
                if kind in kept:
                    value = Token(kind, value, start, start_line, column, *spot[2:], position)
            # --- reduce as far as the token allows, then shift it
            while True:
                entry = actions[states[-1]].get(kind)
                if entry is None:
                    return REJECTED
                next_state, reduction = entry
                if reduction is None:
                    if kind == "$END":
                        return REJECTED
                    states.append(next_state)
                    values.append(value)
                    positions.append(spot)
                    break
                size, origin, reduce = reduction
                if reduce is None:  # the rule's value is its only symbol's value
                    del states[-1]
                else:
                    first, last = positions[-size], positions[-1]
                    result = reduce(values[-size:], first, last)
                    del states[-size:]
                    del values[-size:]
                    del positions[-size:]
                    values.append(result)
                    positions.append((first[0], first[1], last[2], last[3]))
                states.append(actions[states[-1]][origin][0])
                if kind == "$END" and states[-1] == self.end_state:
                    return values[-1]
