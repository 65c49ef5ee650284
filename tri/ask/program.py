"""The program in the language that computes a canonical expression (tri.ask.canonical).

Input: a canonical tree whose exact value `canonical.evaluate` has accepted (so no value
leaves the range the field stands for exactly, every division is exact and every
remainder and comparison is of u32-sized numbers).  Output: the text of a program that
writes that value, a field element (a negative value as p minus its magnitude), with
`io.write`; a comparison writes 1 or 0.

Each node becomes one `let` of a fresh name, in evaluation order, so the program reads as
the computation: `+` and `*` are the field's, `-` is `field.sub`, unary `-` `field.neg`,
`a / b` is `a * field.inv(b)` (exact, since b divides a), `%` the u32 `/%`; a range
reduction is a loop over its integers (the count known: the ends are numbers); a
comparison adds 2^31 to both sides and compares them as u32 values.
"""

from __future__ import annotations

from tri.ask.canonical import (
    COMPARE_LIMIT,
    Binary,
    Compare,
    Negate,
    Number,
    Reduce,
    evaluate,
    render,
    span,
)


class _Writer:
    def __init__(self):
        self.lines: list[str] = []
        self.count = 0

    def name(self) -> str:
        self.count += 1
        return f"v{self.count}"

    def let(self, expression: str, mutable: bool = False) -> str:
        name = self.name()
        self.lines.append(f"let {'mut ' if mutable else ''}{name}: Field = {expression}")
        return name

    def value(self, node) -> str:
        """The name that holds `node`'s value once the lines so far have run."""
        match node:
            case Number(value):
                return self.let(str(value))
            case Negate(operand):
                return self.let(f"field.neg({self.value(operand)})")
            case Binary(operator, left, right):
                a, b = self.value(left), self.value(right)
                match operator:
                    case "+":
                        return self.let(f"{a} + {b}")
                    case "-":
                        return self.let(f"field.sub({a}, {b})")
                    case "*":
                        return self.let(f"{a} * {b}")
                    case "/":
                        return self.let(f"{a} * field.inv({b})")
                    case "%":
                        quotient, remainder = self.name(), self.name()
                        self.lines.append(
                            f"let ({quotient}, {remainder}) = "
                            f"convert.as_u32({a}) /% convert.as_u32({b})"
                        )
                        return self.let(f"convert.as_field({remainder})")
            case Reduce(kind, first, last):
                return self.reduction(kind, node, evaluate(first), evaluate(last))
        raise TypeError(f"not a canonical node: {node!r}")

    def reduction(self, kind: str, node, first: int, last: int) -> str:
        numbers = span(first, last)
        start = self.value(node.first)
        result = self.let({"sum": "0", "product": "1", "count": "0", "last": start}[kind], True)
        current = self.let(start, True)
        update = {
            "sum": f"{result} = {result} + {current}",
            "product": f"{result} = {result} * {current}",
            "count": f"{result} = {result} + 1",
            "last": f"{result} = {current}",
        }[kind]
        advance = f"{current} = {current} + 1"
        if last < first:  # counting down
            advance = f"{current} = field.sub({current}, 1)"
        self.lines.append(f"for _ in 0..{len(numbers)} {{")
        self.lines.append(f"    {update}")
        self.lines.append(f"    {advance}")
        self.lines.append("}")
        return result

    def comparison(self, node: Compare) -> None:
        a, b = self.value(node.left), self.value(node.right)
        left, right = self.name(), self.name()
        self.lines.append(f"let {left}: U32 = convert.as_u32({a} + {COMPARE_LIMIT})")
        self.lines.append(f"let {right}: U32 = convert.as_u32({b} + {COMPARE_LIMIT})")
        condition = {
            "<": f"{left} < {right}",
            ">": f"{right} < {left}",
            "<=": f"({right} < {left}) == false",
            ">=": f"({left} < {right}) == false",
            "==": f"{a} == {b}",
            "!=": f"({a} == {b}) == false",
        }[node.operator]
        self.lines.append(f"if {condition} {{")
        self.lines.append("    io.write(1)")
        self.lines.append("} else {")
        self.lines.append("    io.write(0)")
        self.lines.append("}")


def program_text(node) -> str:
    """The program that writes `node`'s value (see the module docstring)."""
    evaluate(node)  # refuses what has no exact answer before any code is written
    writer = _Writer()
    if isinstance(node, Compare):
        writer.comparison(node)
    else:
        writer.lines.append(f"io.write({writer.value(node)})")
    body = "\n".join(f"    {line}" for line in writer.lines)
    return (
        f"// {render(node)}\n"
        "program answer\n\n"
        "use vm.io.io\nuse vm.core.field\nuse vm.core.convert\n\n"
        f"fn main() {{\n{body}\n}}\n"
    )
