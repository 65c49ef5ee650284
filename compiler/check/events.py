"""Events, `reveal` and `seal` (docs/reference.md, Events), as the code they mean.

An event has at most nine fields, all `Field`; its tag is its index among the
events of its file.  `reveal E { .. }` writes the tag and then the fields,
last-declared first; `seal E { .. }` writes only a commitment: the Tip5 digest
of the tag, the fields and zeros.  Both evaluate the field values in the order
RC pushes them (declaration order for `reveal`, the reverse for `seal`), into
locals no program can name:

    reveal E { a: x, b: y }       let event@4:5#a = x
                                  let event@4:5#b = y
                                  pub_write(TAG)
                                  pub_write(event@4:5#b)
                                  pub_write(event@4:5#a)

    seal E { a: x, b: y }         let event@4:5#b = y
                                  let event@4:5#a = x
                                  let (d0, .., d4) = hash(b, a, 0, 0, 0, 0, 0, 0, 0, TAG)
                                  pub_write5(d0, d1, d2, d3, d4)

which is, instruction for instruction in effect, RC's `push` .. `push TAG`
`write_io 1` (`hash` `write_io 5` for `seal`).  The body checker calls `expand`
at each `reveal`/`seal` and checks the statements it returns like any others.
"""

from __future__ import annotations

from compiler.check.types import FIELD
from compiler.syntax import ast

MAX_FIELDS = 9


def validate(checker, scope) -> None:
    """Report events with too many fields or fields that are not `Field` (E0227)."""
    for event in scope.events.values():
        if len(event.fields) > MAX_FIELDS:
            checker.error(
                "E0227",
                f"event '{event.name}' has {len(event.fields)} fields; at most {MAX_FIELDS}",
                scope.path,
                event.span,
            )
        names = set()
        for event_field in event.fields:
            if event_field.name in names:
                checker.error(
                    "E0227",
                    f"event '{event.name}' has two fields '{event_field.name}'",
                    scope.path,
                    event_field.span,
                )
            names.add(event_field.name)
            found = checker.resolve_type(event_field.type, scope=scope)
            if found is not None and found != FIELD:
                checker.error(
                    "E0227",
                    f"event field '{event_field.name}' is {found}; event fields are Field",
                    scope.path,
                    event_field.span,
                )


def expand(body_checker, statement: ast.Emit) -> list | None:
    """The statements that mean `statement`; None after reporting its errors."""
    scope = body_checker.context.scopes[body_checker.instance.module]
    values = {}
    for name, value in statement.fields:
        if name in values:
            body_checker.error("E0206", f"field '{name}' given twice", value.span)
        values[name] = value
        body_checker.expect(FIELD, body_checker.expr(value), value.span, f"field '{name}': ")
    event = scope.events.get(statement.event)
    if event is None:
        body_checker.error("E0105", f"undefined event '{statement.event}'", statement.span)
        return None
    declared = [event_field.name for event_field in event.fields]
    problems = False
    for name, value in statement.fields:
        if name not in declared:
            body_checker.error("E0206", f"event {event.name} has no field '{name}'", value.span)
            problems = True
    what = f"{statement.kind} {event.name}"
    problems |= body_checker.report_missing(declared, values, what, statement.span)
    if problems or len(declared) > MAX_FIELDS:
        return None
    tag = list(scope.events).index(event.name)
    prefix = f"event@{statement.span.line}:{statement.span.column}"
    span = statement.span
    order = declared if statement.kind == "reveal" else declared[::-1]
    statements = []
    for name in order:
        let = ast.Let(False, ast.PatternName(f"{prefix}#{name}", span), None, values[name], span)
        body_checker.prechecked.add(let)  # its value was checked above
        body_checker.bind(f"{prefix}#{name}", FIELD)
        statements.append(let)
    if statement.kind == "reveal":
        written = [ast.IntLiteral(tag, span)]
        written += [ast.Var(f"{prefix}#{name}", span) for name in reversed(declared)]
        statements += [_call("pub_write", [value], span) for value in written]
        return statements
    words = [ast.Var(f"{prefix}#{name}", span) for name in reversed(declared)]
    words += [ast.IntLiteral(0, span) for _ in range(MAX_FIELDS - len(declared))]
    words.append(ast.IntLiteral(tag, span))
    digest = [f"{prefix}#digest{index}" for index in range(5)]
    pattern = ast.PatternTuple(digest, span)
    statements.append(ast.Let(False, pattern, None, ast.Call("hash", [], words, span), span))
    written = [ast.Var(name, span) for name in digest]
    statements.append(_call("pub_write5", written, span))
    return statements


def _call(callee: str, arguments: list, span) -> ast.ExprStatement:
    return ast.ExprStatement(ast.Call(callee, [], arguments, span), span)
