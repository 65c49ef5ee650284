"""`tri equiv A.tasm B.tasm`: are two straight-line blocks the same?

Prints `equivalent` (exit 0), `different` with a counterexample the interpreter
confirms (exit 1), or `unknown` when neither could be shown (exit 1: not
proven).  Unreadable files, syntax errors and blocks with control flow are
usage errors (exit 2).
"""

from __future__ import annotations

import argparse
import json
import math

from tri.commands.common import EXIT_FAILED, EXIT_OK, UsageError, load_tasm
from vm.isa import ISAS


def non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError("must not be negative")
    return value


def register(commands) -> None:
    parser = commands.add_parser(
        "equiv", help="check that two straight-line TASM blocks mean the same, failures included"
    )
    parser.add_argument("first", help="block A (.tasm, no control flow)")
    parser.add_argument("second", help="block B (.tasm, no control flow)")
    parser.add_argument(
        "--inputs",
        type=non_negative,
        default=0,
        metavar="K",
        help="compare at least K entry stack words (default: as deep as either block reaches)",
    )
    parser.add_argument("--isa", choices=ISAS, default="rel", help="instruction set (default: rel)")
    parser.add_argument("--seed", type=non_negative, default=0, help="seed of the random inputs")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=command_equiv)


def _load_block(path: str, isa: str):
    from compiler.verify import BlockError  # imported on use, like the rest of the verifier
    from compiler.verify.symbolic import block_ops

    program = load_tasm(path, isa)
    try:
        block_ops(program)
    except BlockError as error:
        op = error.op
        problem = f"'{op.text}' is control flow; tri equiv compares straight-line blocks"
        if op.instruction.name == "skiz":
            problem += " (a skiz only before swap, pick, place or nop)"
        raise UsageError(f"{path}:{op.line}:{op.column}: error: {problem}") from None
    return program


def _bound_text(bound: float) -> str:
    if bound <= 0:
        return "0"
    return f"2^{math.floor(math.log2(bound))}"


def command_equiv(arguments) -> int:
    from compiler.verify import check_equivalent

    first = _load_block(arguments.first, arguments.isa)
    second = _load_block(arguments.second, arguments.isa)
    verdict = check_equivalent(
        first, second, inputs=arguments.inputs, isa=arguments.isa, seed=arguments.seed
    )
    if arguments.json:
        report = verdict.as_json()
        report["files"] = {"a": arguments.first, "b": arguments.second}
        print(json.dumps(report))
    elif verdict.status == "equivalent":
        detail = verdict.reason
        if verdict.method == "schwartz-zippel":
            detail += f"; error bound {_bound_text(verdict.error_bound)}"
        print(f"equivalent ({detail}; {verdict.entry_depth} entry stack words)")
        for name, kinds in zip("AB", verdict.failure_kinds):
            if kinds:
                print(f"  {name} can fail with {', '.join(kinds)}")
    elif verdict.status == "different":
        print(f"different: {verdict.reason}")
        for line in verdict.counterexample.describe():
            print(f"  {line}")
    else:
        print(f"unknown: {verdict.reason}")
    return EXIT_OK if verdict.equivalent else EXIT_FAILED
