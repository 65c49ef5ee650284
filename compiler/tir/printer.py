"""The text form of TIR (`tri build --emit tir`): one op per line, bodies indented."""

from __future__ import annotations

from compiler.tir.ops import Asm, Call, Comment, IfElse, IfOnly, Loop, Op, Program, ProofBlock

INDENT = "    "


def print_program(program: Program) -> str:
    lines: list[str] = []
    if program.entry is not None:
        lines.append(f"Entry({program.entry})")
    for function in program.functions:
        lines.append("")
        lines.append(
            f"FnStart({function.label})  // params {function.params}, result {function.result}"
        )
        _body(function.body, 1, lines)
        lines.append("FnEnd")
    return "\n".join(lines) + "\n"


def print_ops(ops, depth: int = 0) -> str:
    lines: list[str] = []
    _body(ops, depth, lines)
    return "\n".join(lines) + "\n"


def _body(ops, depth: int, lines: list[str]) -> None:
    pad = INDENT * depth
    for op in ops:
        match op:
            case Op():  # Facts print as a comment
                lines.append(pad + str(op))
            case Call():
                lines.append(f"{pad}Call({op.label})  // {op.consumes} -> {op.produces}")
            case IfElse():
                lines.append(pad + "IfElse")
                lines.append(pad + "  then:")
                _body(op.then, depth + 1, lines)
                lines.append(pad + "  else:")
                _body(op.otherwise, depth + 1, lines)
            case IfOnly():
                lines.append(pad + "IfOnly")
                _body(op.then, depth + 1, lines)
            case Loop():
                end = "" if op.end is None else f", end {op.end}"
                under = f", under {op.depth}" if op.depth else ""
                under += (", advanced" if op.advanced else "") + (
                    f", step {op.step}" if op.step != 1 else ""
                )
                under += f", unrolled {op.unroll}" if op.unroll != 1 else ""
                lines.append(f"{pad}Loop({op.label}, {op.kind}{end}{under})")
                _body(op.body, depth + 1, lines)
            case ProofBlock():
                lines.append(pad + "ProofBlock")
                _body(op.body, depth + 1, lines)
            case Comment():
                lines.append(f"{pad}// {op.text}")
            case Asm():
                lines.append(f"{pad}Asm({op.consumes} -> {op.produces})")
                lines.extend(pad + INDENT + line for line in op.lines)
            case _:
                raise TypeError(f"not a TIR op: {op!r}")
