"""`tri equiv A.tasm B.tasm`: are two straight-line blocks the same?
`tri equiv FILE.tri F G`: are two functions of a program the same?

Prints `equivalent` (exit 0), `different` with a counterexample the interpreter
(for functions: the VM, running each function on it) confirms (exit 1), or `unknown`
when neither could be shown (exit 1: not proven).  Unreadable files, syntax errors,
blocks with control flow and functions of other types are usage errors (exit 2).
Functions are compared by compiler.audit: same result, same output, and failing on the
same inputs, for every input.
"""

from __future__ import annotations

import argparse
import json
import math

from tri.commands.common import EXIT_FAILED, EXIT_OK, UsageError, load_tasm
from tri.commands.source import add_source_options
from vm.isa import ISAS


def non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError("must not be negative")
    return value


def stack_depth(text: str) -> int:
    value = non_negative(text)
    if value < 16:
        raise argparse.ArgumentTypeError("the op stack never holds fewer than 16 words")
    return value


def slots(text: str) -> frozenset[int]:
    """Stack slots as `0,2,5`: each 0..15."""
    try:
        values = frozenset(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a list of stack slots") from None
    if any(not 0 <= value <= 15 for value in values):
        raise argparse.ArgumentTypeError("stack slots are 0 (st0) to 15")
    return values


def register(commands) -> None:
    parser = commands.add_parser("equiv")
    parser.add_argument("first", help="block A (.tasm, no control flow), or a .tri file")
    parser.add_argument("second", help="block B (.tasm, no control flow), or function F")
    parser.add_argument("third", nargs="?", metavar="G", help="with a .tri file: function G")
    parser.add_argument(
        "--inputs",
        type=non_negative,
        default=0,
        metavar="K",
        help="compare at least K entry stack words (default: as deep as either block reaches)",
    )
    parser.add_argument(
        "--min-depth",
        type=stack_depth,
        default=16,
        metavar="N",
        help="assume the entry stack holds at least N words (default 16, the VM's minimum)",
    )
    parser.add_argument(
        "--u32",
        type=slots,
        default=frozenset(),
        metavar="SLOTS",
        help="assume these entry slots hold u32 values (0 = st0; e.g. 0,2)",
    )
    parser.add_argument(
        "--dont-care",
        type=slots,
        default=frozenset(),
        metavar="SLOTS",
        help="exit slots whose values do not matter (0 = st0 after the block; e.g. 1,3)",
    )
    parser.add_argument("--isa", choices=ISAS, default="rel", help="instruction set (default: rel)")
    parser.add_argument("--seed", type=non_negative, default=0, help="seed of the random inputs")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_source_options(parser)
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
            problem += " (a skiz only before swap, pick, place, nop or addi)"
        raise UsageError(f"{path}:{op.line}:{op.column}: error: {problem}") from None
    return program


def _bound_text(bound: float) -> str:
    if bound <= 0:
        return "0"
    return f"2^{math.floor(math.log2(bound))}"


def command_equiv(arguments) -> int:
    if arguments.first.endswith(".tri") or arguments.third is not None:
        return _functions(arguments)
    from compiler.verify import Assumptions, check_equivalent

    first = _load_block(arguments.first, arguments.isa)
    second = _load_block(arguments.second, arguments.isa)
    assumptions = Assumptions(arguments.min_depth, arguments.u32, arguments.dont_care)
    verdict = check_equivalent(
        first,
        second,
        assumptions=assumptions,
        inputs=arguments.inputs,
        isa=arguments.isa,
        seed=arguments.seed,
        solver=True,  # a proof tool: what the comparison leaves open goes to cvc5
    )
    if arguments.json:
        report = verdict.as_json()
        report["files"] = {"a": arguments.first, "b": arguments.second}
        report["assumptions"] = assumptions.as_json()
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


def _functions(arguments) -> int:
    """`tri equiv FILE F G`."""
    from compiler.audit import equivalent_functions
    from compiler.audit.audit import instance_key
    from tri.commands.audit import (
        checked_with_contracts,
        counterexample_text,
        function_names,
        proof_text,
        require_solvers,
    )

    if arguments.third is None:
        raise UsageError(f"error: name two functions of {arguments.first}: tri equiv FILE F G")
    checked = checked_with_contracts(arguments.first, arguments)
    function_names(checked, [arguments.second, arguments.third])
    first, second = (
        checked.instances[instance_key(checked, name)]
        for name in (arguments.second, arguments.third)
    )
    if [type_ for _, type_ in first.params] != [type_ for _, type_ in second.params] or (
        first.result != second.result
    ):
        raise UsageError(
            f"error: '{arguments.second}' and '{arguments.third}' have different types: "
            f"{_signature(first)} and {_signature(second)}"
        )
    require_solvers()
    verdict = equivalent_functions(checked, arguments.second, arguments.third)
    if arguments.json:
        report = verdict.as_json()
        report["file"], report["functions"] = arguments.first, [arguments.second, arguments.third]
        print(json.dumps(report))
    elif verdict.status == "equivalent":
        print(f"equivalent (proven for every input: {proof_text(verdict.solver)})")
    elif verdict.status == "different":
        print(f"different: on {counterexample_text(verdict)}")
        for name, observed in zip(
            (arguments.second, arguments.third), verdict.observed, strict=True
        ):
            print(f"  {name} {observed}")
    else:
        print(f"unknown: not proven: {verdict.reason}")
    return EXIT_OK if verdict.status == "equivalent" else EXIT_FAILED


def _signature(instance) -> str:
    params = ", ".join(str(type_) for _, type_ in instance.params)
    return f"({params}) -> {instance.result}"
