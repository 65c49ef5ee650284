"""TASM assembler and disassembler: text -> `Program` -> canonical text.

`parse(text, isa)` follows the syntax that Triton VM's parser accepts
(docs/vm.md, Assembler): whitespace- and comment-separated tokens, labels `name:`,
`call` targets resolved to absolute word addresses, debug annotations
(`break`, `hint ...`, `error_id N`) that occupy no words.  Every syntax error
is a `TasmSyntaxError` with a 1-based line and column.

A `Program` is a tuple of `Op`s plus the label table; its word encoding and
program digest (docs/vm.md, The machine) are derived from it.  `disassemble` prints the
canonical text, which parses back to the same program.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import cached_property

from vm import tip5
from vm.field import P
from vm.isa import (
    ALL_MNEMONICS,
    ARGUMENT_RANGE,
    RESERVED_WORDS,
    Arg,
    Failure,
    Instruction,
    instruction_set,
)

# `error_id` may follow the instructions that fail an assertion (`assert`, `assert_vector`).
ASSERTIONS = frozenset({Failure.ASSERTION_FAILED, Failure.VECTOR_ASSERTION_FAILED})


class TasmSyntaxError(Exception):
    """A TASM text that Triton VM's parser would reject."""

    def __init__(self, code: str, message: str, line: int, column: int):
        super().__init__(f"{line}:{column}: {message}")
        self.code = code
        self.message = message
        self.line = line
        self.column = column


@dataclass(frozen=True)
class Op:
    """One instruction of a program, with its argument resolved.

    `argument` is the encoded argument word: the field element of push/addi,
    the count or stack index, or the target address of call (whose label
    name is kept in `target`).
    """

    instruction: Instruction
    argument: int | None = None
    target: str | None = None
    error_id: int | None = None
    line: int = field(default=0, compare=False)  # source position, for messages
    column: int = field(default=0, compare=False)

    @property
    def words(self) -> tuple[int, ...]:
        if self.argument is None:
            return (self.instruction.opcode,)
        return (self.instruction.opcode, self.argument)

    @property
    def text(self) -> str:
        """The instruction as canonical TASM text."""
        if self.target is not None:
            return f"{self.instruction.name} {self.target}"
        if self.argument is None:
            return self.instruction.name
        if self.instruction.arg is Arg.FIELD:
            return f"{self.instruction.name} {signed_text(self.argument)}"
        return f"{self.instruction.name} {self.argument}"


@dataclass(frozen=True)
class Program:
    """An assembled TASM program."""

    ops: tuple[Op, ...]
    labels: tuple[tuple[str, int], ...] = ()  # (name, address), in source order
    isa: str = "rel"
    # per op, where a compiler put the source construct it came from (compiler.sourcemap);
    # empty for hand-written TASM.  Not part of the program's identity.
    source_map: tuple = field(default=(), compare=False, repr=False)

    @cached_property
    def addresses(self) -> tuple[int, ...]:
        """The word address of each op."""
        result, address = [], 0
        for op in self.ops:
            result.append(address)
            address += op.instruction.size
        return tuple(result)

    @cached_property
    def words(self) -> tuple[int, ...]:
        return tuple(word for op in self.ops for word in op.words)

    @property
    def length(self) -> int:
        """L, the program length in words."""
        return len(self.words)

    @cached_property
    def op_index(self) -> dict[int, int]:
        """Word address -> index into `ops`, for every instruction start."""
        return {address: index for index, address in enumerate(self.addresses)}

    @cached_property
    def digest(self) -> tuple[int, ...]:
        """The program digest: Tip5-varlen of the word list."""
        return tip5.hash_varlen(self.words)

    def label_at(self) -> dict[int, list[str]]:
        """Word address -> the labels declared there."""
        table: dict[int, list[str]] = {}
        for name, address in self.labels:
            table.setdefault(address, []).append(name)
        return table


def signed_text(value: int) -> str:
    """A field element as the shortest decimal literal: p-1 prints as -1."""
    return f"-{P - value}" if value > P // 2 else str(value)


def disassemble(program: Program) -> str:
    """Canonical TASM text: one label or instruction per line."""
    labels = program.label_at()
    lines = []
    for op, address in zip(program.ops, program.addresses):
        lines.extend(f"{name}:" for name in labels.get(address, ()))
        text = op.text if op.error_id is None else f"{op.text} error_id {op.error_id}"
        lines.append(f"    {text}")
    lines.extend(f"{name}:" for name in labels.get(program.length, ()))
    return "\n".join(lines) + "\n"


# --- the scanner -----------------------------------------------------------------------

# One token: a comment (skipped), a word with the colon that makes it a label, or any other
# character (an error: a stray ':' or an unterminated block comment).  White space between
# tokens is skipped by the search.
_TOKEN = re.compile(r"//[^\n]*|/\*.*?\*/|((?:(?!//|/\*)[^\s:])+)([ \t\r\n]*:)?|(\S)", re.DOTALL)
_LABEL_NAME = re.compile(r"[^\W\d][\w-]*\Z")
_DECIMAL = re.compile(r"[+-]?\d+\Z")
_SMALL = re.compile(r"(?:0|[1-9]\d?)\Z")
_HINT = re.compile(
    r"[ \t\r\n]+(?P<name>[a-z_][a-z0-9_]*)[ \t\r\n]*"
    r"(?::[ \t\r\n]*\**[A-Za-z_][A-Za-z0-9_]*(?:<[A-Za-z0-9_<>, *]*>)?[ \t\r\n]*)?"
    r"=[ \t\r\n]*stack\[(?P<start>\d+)(?:\.\.(?P<end>\d+))?\]"
)
_I128 = 2**127


class _Scanner:
    def __init__(self, text: str):
        self.text = text
        self.position = 0  # just after the last word
        self.colon = False  # whether a colon followed the last word
        self.tokens = _TOKEN.finditer(text)
        self.line_starts = [0] + [match.end() for match in re.finditer("\n", text)]

    def where(self, position: int) -> tuple[int, int]:
        """The 1-based line and column of a character position."""
        line = bisect_right(self.line_starts, position) - 1
        return line + 1, position - self.line_starts[line] + 1

    def error(self, code: str, message: str, position: int) -> TasmSyntaxError:
        line, column = self.where(position)
        return TasmSyntaxError(code, message, line, column)

    def word(self) -> tuple[str, int] | None:
        """The next word and its position, or None at the end of the text."""
        for match in self.tokens:
            word, colon, other = match.groups()
            if word is not None:
                self.position = match.end(1)
                self.colon = colon is not None
                return word, match.start()
            if other is not None:
                position = match.start()
                if self.text.startswith("/*", position):
                    raise self.error("A0008", "unterminated block comment", position)
                raise self.error("A0008", f"unexpected {other!r}", position)
        return None

    def colon_follows(self) -> bool:
        """Whether a colon followed the last word (a label): consumed with it."""
        colon, self.colon = self.colon, False
        return colon

    def resume(self, position: int) -> None:
        """Go on scanning at `position` (after a hint, which has a syntax of its own)."""
        self.position = position
        self.tokens = _TOKEN.finditer(self.text, position)


def parse(text: str, isa: str = "rel") -> Program:
    """Assemble TASM text into a `Program`; raise `TasmSyntaxError` on bad input."""
    instructions = instruction_set(isa)
    scanner = _Scanner(text)
    ops: list[Op] = []
    labels: dict[str, int] = {}
    calls: list[tuple[int, str, int]] = []  # (op index, label, position)
    address = 0
    last_was_assertion = False
    while (token := scanner.word()) is not None:
        word, position = token
        if scanner.colon_follows():
            _check_label_name(scanner, word, position)
            if word in labels:
                raise scanner.error("A0004", f"duplicate label '{word}'", position)
            labels[word] = address
            last_was_assertion = False
            continue
        if word == "error_id":
            value = _argument(scanner, word, position)
            if not last_was_assertion:
                raise scanner.error(
                    "A0006", "'error_id' must follow 'assert' or 'assert_vector'", position
                )
            if not (_DECIMAL.match(value[0]) and -_I128 <= int(value[0]) < _I128):
                raise scanner.error("A0002", f"invalid error id '{value[0]}'", value[1])
            ops[-1] = _with_error_id(ops[-1], int(value[0]))
            last_was_assertion = False
            continue
        last_was_assertion = False
        if word == "break":
            continue
        if word == "hint":
            _hint(scanner, position)
            continue
        instruction = instructions.get(word)
        if instruction is None:
            raise scanner.error("A0001", _unknown_instruction(word, isa), position)
        line, column = scanner.where(position)
        argument = target = None
        if instruction.arg is Arg.LABEL:
            target, target_position = _argument(scanner, word, position)
            calls.append((len(ops), target, target_position))
        elif instruction.arg is not Arg.NONE:
            argument = _encode_argument(scanner, instruction, *_argument(scanner, word, position))
        ops.append(Op(instruction, argument, target, None, line, column))
        address += instruction.size
        last_was_assertion = bool(instruction.failures & ASSERTIONS)
    for index, name, position in calls:
        if name not in labels:
            raise scanner.error("A0003", f"call to undefined label '{name}'", position)
        op = ops[index]
        ops[index] = Op(op.instruction, labels[name], name, op.error_id, op.line, op.column)
    return Program(tuple(ops), tuple(labels.items()), isa)


def _with_error_id(op: Op, error_id: int) -> Op:
    return Op(op.instruction, op.argument, op.target, error_id, op.line, op.column)


def _check_label_name(scanner: _Scanner, name: str, position: int) -> None:
    if name in ALL_MNEMONICS or name in RESERVED_WORDS:
        raise scanner.error("A0005", f"'{name}' is reserved and cannot name a label", position)
    if not _LABEL_NAME.match(name):
        raise scanner.error(
            "A0005",
            f"invalid label name '{name}': a label starts with a letter or '_' "
            "and continues with letters, digits, '_' or '-'",
            position,
        )


def _argument(scanner: _Scanner, mnemonic: str, position: int) -> tuple[str, int]:
    token = scanner.word()
    if token is None:
        raise scanner.error("A0002", f"'{mnemonic}' needs an argument", position)
    if scanner.colon_follows():
        raise scanner.error(
            "A0002", f"'{mnemonic}' needs an argument, found label '{token[0]}:'", token[1]
        )
    return token


def _encode_argument(scanner: _Scanner, instruction: Instruction, text: str, position: int) -> int:
    if instruction.arg is Arg.FIELD:
        if not _DECIMAL.match(text):
            raise scanner.error(
                "A0002", f"'{instruction.name}' needs a decimal integer, found '{text}'", position
            )
        value = int(text)
        if not -P < value < P:
            raise scanner.error(
                "A0002", f"constant {text} is out of bounds: it must lie in (-p, p)", position
            )
        return value % P
    allowed = ARGUMENT_RANGE[instruction.arg]
    if not _SMALL.match(text) or int(text) not in allowed:
        raise scanner.error(
            "A0002",
            f"'{instruction.name}' takes {allowed.start}..{allowed.stop - 1}, found '{text}'",
            position,
        )
    return int(text)


def _hint(scanner: _Scanner, position: int) -> None:
    match = _HINT.match(scanner.text, scanner.position)
    if match is None or (match["end"] is not None and int(match["end"]) <= int(match["start"])):
        raise scanner.error(
            "A0007",
            "malformed hint: expected 'hint name = stack[i]' or 'stack[i..j]' with j > i",
            position,
        )
    scanner.resume(match.end())


def _unknown_instruction(word: str, isa: str) -> str:
    if word in ALL_MNEMONICS:
        return f"'{word}' is not an instruction of the {isa.upper()} instruction set"
    return f"unknown instruction '{word}'"
