"""`match` (docs/reference.md, match), checked and rewritten as the if-chain it means.

    match e {                     let match@3:5 = e
        0 => { A }                if match@3:5 == 0 { A }
        1 => { B }        ->      else if match@3:5 == 1 { B }
        _ => { C }                else { C }
    }

The scrutinee is evaluated once, into a local whose name no program can write.
Integer patterns compare a `Field` (or a `U32`, through `as_field`), `true` and
`false` a `Bool`.  A struct pattern `P { f, g: y, h: 0, k: _ }` matches any `P`:
it binds `f` and `y` to fields, and asserts `h == 0` (a failed test is an
assertion failure, not a fall-through, as in RC).  The arms are tried in order.

The body checker calls `expand` when it reaches a `match`: it types the
scrutinee, checks the patterns against it (reporting E0224 non-exhaustive, E0225
unreachable arm, E0226 pattern that does not fit), and returns the statements
that replace the `match` in its block; the checker then checks those like any
others.  `rebuilt` makes the function body later stages compile, with every
`match` replaced: new blocks along the way, everything else shared.
"""

from __future__ import annotations

from compiler.check.types import BOOL, FIELD, U32, StructType
from compiler.syntax import ast

U32_LIMIT = 1 << 32


def expand(checker, statement: ast.Match, last: bool) -> list | None:
    """The statements that mean `statement`, its temporary already bound in `checker`;
    None if the `match` has errors (reported; the arm bodies are still checked)."""
    scrutinee = checker.expr(statement.scrutinee)
    if scrutinee is None:
        _check_arms_alone(checker, statement)
        return None
    temporary = f"match@{statement.span.line}:{statement.span.column}"
    arms = _reachable_arms(checker, statement, scrutinee)
    if arms is None or not all(_fits(checker, arm, scrutinee) for arm in arms):
        _check_arms_alone(checker, statement)
        return None
    binding = ast.PatternName(temporary, statement.span)
    let = ast.Let(False, binding, None, statement.scrutinee, statement.span)
    checker.prechecked.add(let)
    checker.bind(temporary, scrutinee)
    *tested, final = arms
    chain = _arm_statements(final, temporary, scrutinee)
    if not tested and not last:  # a block of its own, for the names the arm binds
        chain = [ast.If(ast.BoolLiteral(True, final.span), ast.Block(chain, final.span), None)]
        chain[0].span = final.span
    for arm in reversed(tested):
        test = _test(arm.pattern, temporary, scrutinee, arm.span)
        chain = [ast.If(test, arm.body, ast.Block(chain, arm.span), arm.span)]
    return [let, *chain]


def _reachable_arms(checker, statement: ast.Match, scrutinee) -> list | None:
    """The arms, if the last one catches everything and each can run; else None, after
    reporting E0224 or E0225."""
    seen: set[tuple[str, object]] = set()
    for index, arm in enumerate(statement.arms):
        pattern = arm.pattern
        if isinstance(pattern, bool | int):
            key = (type(pattern).__name__, pattern)
            if key in seen:
                checker.error("E0225", "this arm can never run: an earlier arm matches", arm.span)
                return None
            seen.add(key)
        exhaustive = (
            pattern is None
            or isinstance(pattern, tuple)
            or (scrutinee == BOOL and isinstance(pattern, bool) and ("bool", not pattern) in seen)
        )
        if exhaustive:
            later = statement.arms[index + 1 :]
            for unreachable in later:
                checker.error(
                    "E0225", "this arm can never run: an earlier arm matches", unreachable.span
                )
            return None if later else list(statement.arms)
    checker.error(
        "E0224", "this match is not exhaustive", statement.span, "add a final '_ => { ... }' arm"
    )
    return None


def _fits(checker, arm: ast.MatchArm, scrutinee) -> bool:
    pattern = arm.pattern
    match pattern:
        case None:
            return True
        case bool():
            if scrutinee != BOOL:
                return _misfit(checker, arm, f"'{str(pattern).lower()}' needs a Bool", scrutinee)
            return True
        case int():
            if scrutinee not in (FIELD, U32):
                return _misfit(checker, arm, f"{pattern} needs a Field or a U32", scrutinee)
            if scrutinee == U32 and pattern >= U32_LIMIT:
                return _misfit(checker, arm, f"{pattern} is not a U32 value", scrutinee)
            return True
        case (name, fields):
            expected = checker.context.lookup_struct(checker.instance, name, arm.span)
            if expected is None:
                return False
            if expected != scrutinee:
                return _misfit(checker, arm, f"'{name} {{ .. }}' needs a {name}", scrutinee)
            return all(_field_fits(checker, arm, expected, field) for field in fields)
    raise AssertionError(f"unknown match pattern {pattern!r}")


def _field_fits(checker, arm: ast.MatchArm, struct: StructType, field) -> bool:
    name, pattern = field
    found = struct.field(name)
    if found is None:
        checker.error("E0206", f"struct {struct} has no field '{name}'", arm.span)
        return False
    field_type = found[1]
    if pattern is None or pattern == "_" or not _is_literal(pattern):
        return True
    if pattern in ("true", "false"):
        fits = field_type == BOOL
    else:
        fits = field_type == FIELD or (field_type == U32 and int(pattern) < U32_LIMIT)
    if not fits:
        message = f"field '{name}' is {field_type}; the pattern {pattern} does not fit"
        checker.error("E0226", message, arm.span)
    return fits


def _misfit(checker, arm, needs: str, scrutinee) -> bool:
    checker.error("E0226", f"the pattern {needs}; the value matched is {scrutinee}", arm.span)
    return False


def _is_literal(pattern: str) -> bool:
    return pattern.isdigit() or pattern in ("true", "false")


def _test(pattern, temporary: str, scrutinee, span) -> ast.Expr:
    """The condition under which an integer or Bool pattern matches."""
    value = ast.Var(temporary, span)
    if isinstance(pattern, bool):
        return value if pattern else ast.Binary("==", value, ast.BoolLiteral(False, span), span)
    if scrutinee == U32:
        value = ast.Call("as_field", [], [value], span)
    return ast.Binary("==", value, ast.IntLiteral(pattern, span), span)


def _arm_statements(arm: ast.MatchArm, temporary: str, scrutinee) -> list:
    """The final arm's statements: a struct pattern's bindings and tests, then its body."""
    statements = []
    if isinstance(arm.pattern, tuple):
        _, fields = arm.pattern
        for name, pattern in fields:
            value = ast.Var(f"{temporary}.{name}", arm.span)
            if pattern is None or not (pattern == "_" or _is_literal(pattern)):
                binding = ast.PatternName(pattern or name, arm.span)
                statements.append(ast.Let(False, binding, None, value, arm.span))
            elif _is_literal(pattern):
                field_type = scrutinee.field(name)[1]
                statements.append(_assertion(value, pattern, field_type, arm.span))
    return statements + list(arm.body.statements)


def _assertion(value: ast.Var, pattern: str, field_type, span) -> ast.ExprStatement:
    if pattern in ("true", "false"):
        expected: ast.Expr = ast.BoolLiteral(pattern == "true", span)
    else:
        expected = ast.IntLiteral(int(pattern), span)
        if field_type == U32:
            value = ast.Call("as_field", [], [value], span)
    test = ast.Binary("==", value, expected, span)
    return ast.ExprStatement(ast.Call("assert", [], [test], span), span)


def _check_arms_alone(checker, statement: ast.Match) -> None:
    """After a pattern error: still check each arm's body, with the names its struct
    pattern binds (typed when the struct is known here, else of unknown type)."""
    for arm in statement.arms:
        checker.scopes.append({})
        if isinstance(arm.pattern, tuple):
            name, fields = arm.pattern
            struct = _known_struct(checker, name)
            for field, pattern in fields:
                if pattern is None or not (pattern == "_" or _is_literal(pattern)):
                    found = struct.field(field) if struct is not None else None
                    checker.bind(pattern or field, found[1] if found else None)
        checker.block(arm.body)
        checker.close_scope()


def _known_struct(checker, name: str) -> StructType | None:
    """The struct `name` of the current module, without reporting anything."""
    scope = checker.context.scopes[checker.instance.module]
    item = scope.structs.get(name)
    if item is None:
        return None
    return checker.context.struct_types.get((scope.name, item.name))


def rebuilt(checker, block: ast.Block) -> ast.Block:
    """`block` with every rewritten block's statements in place of its own."""
    statements = checker.rewritten.get(block, block.statements)
    new = [_rebuilt_statement(checker, statement) for statement in statements]
    if block not in checker.rewritten and all(a is b for a, b in zip(new, statements, strict=True)):
        return block
    return ast.Block(new, block.span)


def _rebuilt_statement(checker, statement):
    match statement:
        case ast.If():
            then_block = rebuilt(checker, statement.then_block)
            else_block = (
                None if statement.else_block is None else rebuilt(checker, statement.else_block)
            )
            if then_block is statement.then_block and else_block is statement.else_block:
                return statement
            new = ast.If(statement.condition, then_block, else_block, statement.span)
            valued = checker.instance.valued_ifs
            if statement in valued:
                valued[new] = valued.pop(statement)
            return new
        case ast.For():
            body = rebuilt(checker, statement.body)
            if body is statement.body:
                return statement
            return ast.For(
                statement.variable,
                statement.start,
                statement.end,
                statement.bound,
                body,
                statement.span,
            )
    return statement
