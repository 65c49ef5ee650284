"""Contracts: `#[requires(P)]` and `#[ensures(Q)]` on a function, as generated code.

Input: a loaded `Project` (compiler.check.resolve) and whether contracts are checked at
run time.  Output: the same project with, for each function that has contracts:

* per predicate, a function of Bool the checker types like any other, so that a predicate
  that is not a Bool, names an unknown variable or has a side effect is an error at its
  own place: `NAME__requires_K(params) -> Bool { P }` and
  `NAME__ensures_K(params, result: R) -> Bool { Q }` (`result` is the return value), both
  `#[pure]`;
* with `check` (`tri run`/`tri test --check-contracts`), the function's body moved to
  `NAME__body`, and `NAME` asserting each requires, calling the body, asserting each
  ensures on its result and returning it.  Each assert carries the contract's text
  (`contract`, read by compiler.sourcemap.origin_of), so a violation is reported at the
  attribute, in its words, on every engine and level.

Without `check` the functions are generated and checked, never called: a build's code
is the same with or without contracts.  The parsed modules are not changed (the parser
caches them): changed functions are copies.
"""

from __future__ import annotations

import dataclasses

from compiler.diagnostics import CompileError
from compiler.syntax import ast
from compiler.syntax.parser import parse

KINDS = ("requires", "ensures")
CHECK_FLAG = "--check-contracts"  # in Options.flags: a flag no #[cfg(...)] can name
_PREFIX = "module contract\n\nfn predicate() -> Bool {\n"  # the predicate is on line 4


def expand_contracts(project, check: bool):
    """The project with every module's contracts as generated code (see the module)."""
    modules = {}
    for name, module in project.modules.items():
        source = _expanded(module, check)
        modules[name] = module if source is None else dataclasses.replace(module, source=source)
    return dataclasses.replace(project, modules=modules, entry=modules[project.entry.name])


def _expanded(module, check: bool) -> ast.SourceFile | None:
    items, changed = [], False
    for item in module.source.items:
        contracts = _contracts(item)
        if not contracts:
            items.append(item)
            continue
        changed = True
        predicates = [
            _predicate(item, module, kind, index, attribute)
            for index, (kind, attribute) in enumerate(contracts, start=1)
        ]
        items += [function for function, _ in predicates]
        items += _checked(item, predicates) if check else [item]
    return dataclasses.replace(module.source, items=items) if changed else None


def _contracts(item) -> list[tuple[str, ast.Attribute]]:
    if not isinstance(item, ast.Function) or item.body is None:
        return []
    return [(a.name, a) for a in item.attributes if a.name in KINDS and a.argument is not None]


def _predicate(function: ast.Function, module, kind: str, index: int, attribute):
    """(the generated function of one contract, the contract's text)."""
    expression = _parse_predicate(module, attribute)
    params = list(function.params)
    if kind == "ensures" and function.return_type is not None:
        params.append(ast.Param("result", function.return_type, attribute.span))
    body = ast.Block([ast.ExprStatement(expression, expression.span)], attribute.span)
    generated = ast.Function(
        f"{function.name}__{kind}_{index}",
        False,
        [ast.Attribute("pure", None, attribute.span)],
        list(function.size_parameters),
        params,
        ast.NamedType("Bool", attribute.span),
        body,
        attribute.span,
    )
    generated.contract_of = function.name  # not a function a user wrote (checker: W0008)
    return generated, f"{kind}({attribute.argument})"


def _parse_predicate(module, attribute: ast.Attribute) -> ast.Expr:
    """The attribute's argument parsed as an expression, its spans where it is written."""
    line_text = module.text.splitlines()[attribute.span.line - 1]
    opening = line_text.find(f"{attribute.name}(", attribute.span.column - 1)
    column = opening + len(attribute.name) + 2 if opening >= 0 else attribute.span.column
    shift = _Shift(attribute.span.line, column, len(attribute.argument))
    text = f"{_PREFIX}{attribute.argument}\n}}\n"
    try:
        source = parse(text, module.source.path)
    except CompileError as failure:
        raise CompileError([shift.diagnostic(d) for d in failure.diagnostics]) from None
    (function,) = source.items
    statements = function.body.statements
    if len(statements) != 1 or not isinstance(statements[0], ast.ExprStatement):
        span = ast.Span(attribute.span.line, column, attribute.span.line, column)
        from compiler.diagnostics import error

        message = f"#[{attribute.name}(...)] holds one expression, a Bool"
        raise CompileError([error("E0001", message, module.source.path, span)])
    expression = ast.copy_tree(statements[0].expr, {})
    shift.tree(expression)
    return expression


class _Shift:
    """Moves spans of the parsed predicate (line 4 of `_PREFIX`'s text) to the attribute."""

    def __init__(self, line: int, column: int, length: int):
        self.line, self.column, self.length = line, column, length

    def span(self, span: ast.Span) -> ast.Span:
        if span == ast.NO_SPAN:
            return span

        def moved(line, column):
            if line == 4:
                return self.line, column + self.column - 1
            return self.line, self.column + self.length  # the end: the closing parenthesis

        return ast.Span(*moved(span.line, span.column), *moved(span.end_line, span.end_column))

    def diagnostic(self, diagnostic):
        message = diagnostic.message
        if diagnostic.span.line > 4:  # at the `}` after the predicate, which no one wrote
            message = message.replace("unexpected '}'", "the expression ends too early")
        return dataclasses.replace(diagnostic, span=self.span(diagnostic.span), message=message)

    def tree(self, node) -> None:
        if isinstance(node, list | tuple) and not isinstance(node, ast.Span):
            for element in node:
                self.tree(element)
        elif dataclasses.is_dataclass(node) and not isinstance(node, type):
            for field in dataclasses.fields(node):
                value = getattr(node, field.name)
                if field.name == "span":
                    node.span = self.span(value)
                else:
                    self.tree(value)


def _checked(function: ast.Function, predicates) -> list[ast.Function]:
    """`NAME__body` (the original) and `NAME`, which checks the contracts around it."""
    span = function.span
    sizes = [ast.SizeName(name, span) for name in function.size_parameters]
    arguments = [ast.Var(param.name, span) for param in function.params]
    body = dataclasses.replace(
        function,
        name=f"{function.name}__body",
        public=False,
        attributes=[a for a in function.attributes if a.name not in KINDS],
    )
    body.contract_of = function.name
    statements = []
    for generated, text in predicates:
        if "__requires_" in generated.name:
            statements.append(_assert(generated, sizes, arguments, text))
    call = ast.Call(body.name, sizes, arguments, span)
    returns = function.return_type is not None
    if returns:
        result = ast.PatternName("result", span)
        statements.append(ast.Let(False, result, function.return_type, call, span))
    else:
        statements.append(ast.ExprStatement(call, span))
    for generated, text in predicates:
        if "__ensures_" in generated.name:
            extra = [ast.Var("result", span)] if returns else []
            statements.append(_assert(generated, sizes, [*arguments, *extra], text))
    if returns:
        statements.append(ast.ExprStatement(ast.Var("result", span), span))
    wrapper = dataclasses.replace(
        function,
        attributes=[a for a in function.attributes if a.name not in KINDS],
        body=ast.Block(statements, function.body.span),
    )
    return [body, wrapper]


def _assert(generated: ast.Function, sizes, arguments, text: str) -> ast.ExprStatement:
    span = generated.span  # the attribute's
    holds = ast.Call(generated.name, list(sizes), list(arguments), span)
    check = ast.Call("assert", [], [holds], span)
    check.contract = text
    return ast.ExprStatement(check, span)
