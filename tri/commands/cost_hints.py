"""`tri cost --hints`: what a program run's figures suggest, each hint with a code.

The hints read one run's rows per source line (compiler.line_costs) and heights, and, for
H0003 and H0004, what produced them: the assembled program (its source map), the checked
program (its syntax tree, the checker's warnings) and the run record (visits per address,
the distinct u32 entries).  Each is a row of HINTS: a code, a name, and a rule that returns
the hint's text or None; a rule fires only where acting on it lowers a measured figure.

* H0001 hash table: the hash table is the tallest of the tables a program's own code
  fills (processor, op stack, RAM, jump stack, hash, u32), and above the lookup table's
  256 rows (below them it sets nothing): its rows come from hashing, 6
  per permutation, so the hashing lines are where to look; or, when most of them hash the
  program's own words (attestation), from the program's size.
* H0002 near the cliff (headroom): the tallest table is within 1/32 below the padded
  height; a few more rows (a longer input, one more iteration) double it.
* H0003 redundant range check: an `as_u32` whose value is already known to be a u32 and
  whose instructions ran: an `as_u32(x)` of an immutable name `x` (a `let`, a parameter, a
  loop variable in its body) that an earlier `as_u32(x)` of the same function checked on
  every path to it (before it in its block or an enclosing one: before a loop counts, an
  `if` arm only for that arm), or one the checker warns about (W0002, `as_u32(as_field(u))`).
  The compiler drops the checks it can bound (W0002's, one of a u32 operation's result) and
  at -O3 often a repeat; a repeat it keeps costs its instructions (at -O1 `dup 0`
  `pop_count` `pop 1`) on every run, and no u32 rows (its entry is the first check's,
  counted once).  The hint gives those instructions' processor rows (the instructions
  whose origin is that call, times their runs) and its line's u32 rows.  At -O2 the search
  lowerer may give a repeat the first check's origin: its rows are then the first check's
  and the hint does not see them.
* H0004 loose loop bound: the u32 table is the only tallest table and the bound checks of
  a `for .. bounded N` loop are part of it.  A bounded loop checks `count < N + 1` (with a
  constant START and a run-time END, `END < START + N + 1`) with `lt`, whose u32 entry
  costs the bit length of that limit plus 1 rows, once per distinct count.  From this run's
  u32 entries that compare with the limit: their rows, the largest count K, and the loosest
  bound whose limit has the bit length of K's (START + K + 1), the cheapest on this run; the
  rule fires when that bound, put in the run's entries, lowers the tallest table (below
  it, fewer u32 rows lower no figure the proof pays for).  The bound is a contract for
  every input: the hint says what this run shows.
* H0005 program attestation: the cascade table is the tallest and most of its rows come
  from hashing the program's own words, which every run pays: a shorter program, not a
  shorter run, lowers it.
* H0006 just over a cliff: the tallest table is less than 1/16 above a power of two; that
  many fewer rows would halve the padded height.

The codes follow the Trident compiler's where they mean the same (H0001 to H0004); the
Trident compiler's H0003 and H0004 are static, here they measure the run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from compiler.syntax import ast
from vm.tables import LOOKUP_HEIGHT, padded_height, u32_entry_rows

OWN_TABLES = ("processor", "op_stack", "ram", "jump_stack", "hash", "u32")
U32_LIMIT = 2**32


@dataclass(frozen=True)
class Hint:
    code: str
    name: str
    rule: Callable  # RunFacts -> str | None


@dataclass(frozen=True)
class RunFacts:
    """What the rules read: one run's rows per line, and what produced them (None when the
    caller has only the rows: the rules that need them do not fire)."""

    costs: object  # compiler.line_costs.LineCosts
    program: object = None  # the assembled program, with its source map
    checked: object = None  # the checked program: syntax trees, the checker's warnings
    record: object = None  # the run record: visits per address, the distinct u32 entries


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'s' * (number != 1)}"


def _top_line(costs, table: str) -> str:
    lines = [(rows[table], line) for line, rows in costs.rows.items() if line and rows[table]]
    if not lines:
        return ""
    rows, (path, number) = max(lines, key=lambda item: (item[0], -item[1][1]))
    try:
        text = Path(path).read_text(encoding="utf-8").splitlines()[number - 1].strip()
    except (OSError, IndexError):
        text = ""
    return f"; the most at {path}:{number} ({rows} rows): {text}"


def _hash_table(facts) -> str | None:
    costs = facts.costs
    heights = costs.heights.as_dict()
    tallest = max(OWN_TABLES, key=lambda table: heights[table])
    if tallest != "hash" or heights["hash"] <= max(heights["processor"], LOOKUP_HEIGHT):
        return None  # below the lookup table's 256 rows no table sets the padded height
    text = f"the hash table ({heights['hash']} rows) is taller than the processor's " + (
        f"({heights['processor']})"
    )
    attestation = costs.fixed["hash"]
    if attestation * 2 >= heights["hash"]:
        return (
            f"{text}: {attestation} of its rows hash the program's own words, which every run "
            "pays; code that runs rarely still costs them, a shorter program lowers them"
        )
    return f"{text}: 6 rows per Tip5 permutation" + _top_line(costs, "hash")


def _over_cliff(facts) -> str | None:
    costs = facts.costs
    heights = costs.heights
    below = heights.padded_height // 2
    over = heights.maximum - below
    if below < 256 or over * 16 >= below:
        return None
    tallest = heights.dominant[0]
    return (
        f"the {tallest} table ({heights.maximum} rows) is {over} rows above {below}: {over} "
        f"fewer would halve the padded height to {below}" + _top_line(costs, tallest)
    )


def _near_cliff(facts) -> str | None:
    heights = facts.costs.heights
    slack = heights.slack
    if slack * 32 >= heights.padded_height:
        return None
    more = "1 more row doubles" if slack == 0 else f"{slack + 1} more rows double"
    tallest = heights.tallest_growing
    return (
        f"the {tallest} table ({heights.growing[tallest]} rows) is {slack} rows below "
        f"{heights.padded_height}: {more} the padded height to "
        f"{padded_height(heights.padded_height + 1)}"
    )


def _attestation(facts) -> str | None:
    costs = facts.costs
    heights = costs.heights
    cascade, fixed = heights.cascade, costs.fixed["cascade"]
    if "cascade" not in heights.dominant or fixed * 2 < cascade:
        return None
    return (
        f"the cascade table ({cascade} rows) is the tallest and {fixed} of its rows hash the "
        "program's own words: every run pays them; a shorter program lowers them, a shorter "
        "run does not"
    )


# --- H0003: an as_u32 of a value already known to be a u32 --------------------------------


@dataclass(frozen=True)
class RangeCheck:
    """An `as_u32` call that needs no check: where it is, and why."""

    path: str
    span: ast.Span  # the call's
    reason: str  # what makes the value a u32 already


class _CheckScan:
    """The `as_u32` calls of one function whose immutable name an earlier `as_u32` checked on
    every path to them (see the module docstring)."""

    def __init__(self, instance):
        self.instance = instance
        self.found: list[RangeCheck] = []

    def scan(self) -> list[RangeCheck]:
        scope = {name: object() for name, _ in self.instance.params}
        self.block(self.instance.body, scope, {})
        return self.found

    def block(self, block: ast.Block, scope: dict, known: dict) -> None:
        scope, known = dict(scope), dict(known)  # what a block binds or checks stays in it
        for statement in block.statements:
            self.statement(statement, scope, known)

    def statement(self, statement, scope: dict, known: dict) -> None:
        from compiler.tir.walk import statement_expressions

        for expression in statement_expressions(statement):
            for call in self.checks_in(expression):
                self.check(call, scope, known)
        match statement:
            case ast.Let():
                for name in _bound_names(statement.pattern):
                    scope[name] = None if statement.mutable else object()
            case ast.Assign():
                for name in _assigned_names(statement.target):
                    scope[name] = None
            case ast.If():
                self.block(statement.then_block, scope, known)
                if statement.else_block is not None:
                    self.block(statement.else_block, scope, known)
            case ast.For():
                inner = dict(scope)
                if statement.variable is not None:
                    inner[statement.variable] = object()
                self.block(statement.body, inner, known)

    def checks_in(self, expression):
        """The `as_u32` calls in `expression`, in the order they run (operands first)."""
        from compiler.tir.walk import subexpressions

        for part in subexpressions(expression):
            yield from self.checks_in(part)
        target = self.instance.calls.get(expression) if isinstance(expression, ast.Call) else None
        if getattr(target, "name", None) == "as_u32":
            yield expression

    def check(self, call: ast.Call, scope: dict, known: dict) -> None:
        argument = call.arguments[0] if len(call.arguments) == 1 else None
        if not isinstance(argument, ast.Var) or scope.get(argument.path) is None:
            return
        binding = scope[argument.path]
        if binding in known:
            first = known[binding].span.line
            reason = f"`{argument.path}` was checked at line {first}: use the U32 it gave"
            self.found.append(RangeCheck(self.instance.path, call.span, reason))
        else:
            known[binding] = call


def _bound_names(pattern) -> list[str]:
    if isinstance(pattern, ast.PatternName):
        return [pattern.name]
    if isinstance(pattern, ast.PatternTuple):
        return [name for name in pattern.names if name is not None]
    return []


def _assigned_names(target) -> list[str]:
    if isinstance(target, ast.Var):
        return [target.path.split(".")[0]]
    if isinstance(target, ast.TupleExpr):
        return [name for element in target.elements for name in _assigned_names(element)]
    return []


def redundant_checks(checked) -> list[RangeCheck]:
    """Every `as_u32` of the program a value's earlier check or type makes needless."""
    found, seen = [], set()
    for instance in checked.instances.values():
        key = (instance.path, instance.function.span)
        if key not in seen and instance.body is not None:
            seen.add(key)
            found += _CheckScan(instance).scan()
    for diagnostic in checked.diagnostics:
        if diagnostic.code == "W0002":
            reason = "W0002, its value is a U32: drop the as_u32 and the as_field"
            found.append(RangeCheck(diagnostic.path, diagnostic.span, reason))
    return found


def _check_rows(check: RangeCheck, program, visits) -> tuple[int, int, int]:
    """(instructions, runs, processor rows) of the code the check's call became."""
    origins = getattr(program, "source_map", ()) or ()
    runs = [
        visits[address]
        for origin, address in zip(origins, program.addresses)
        if origin is not None
        and origin.builtin == "as_u32"
        and (origin.path, origin.span) == (check.path, check.span)
    ]
    return len(runs), max(runs, default=0), sum(runs)


def _redundant_check(facts) -> str | None:
    if facts.checked is None or facts.program is None or facts.record is None:
        return None
    costly = []
    for check in redundant_checks(facts.checked):
        instructions, runs, rows = _check_rows(check, facts.program, facts.record.visits)
        if rows:
            costly.append((rows, instructions, runs, check))
    if not costly:
        return None
    costly.sort(key=lambda item: (-item[0], item[3].path, item[3].span))
    rows, instructions, runs, check = costly[0]
    line = (check.path, check.span.line)
    u32 = facts.costs.rows.get(line, {}).get("u32", 0)
    text = (
        f"the as_u32 at {check.path}:{line[1]} checks a value known to be a u32 "
        f"({check.reason}): its {_count(instructions, 'instruction')} ran "
        f"{_count(runs, 'time')}, {rows} processor rows of this run; its line adds {u32} u32 "
        "rows (an entry that repeats is counted once)"
    )
    if len(costly) > 1:
        others = sum(item[0] for item in costly[1:])
        text += f"; {_count(len(costly) - 1, 'more such check')}, {others} processor rows"
    return text


# --- H0004: a loop bound looser than the counts, on the u32 table ---------------------------


@dataclass(frozen=True)
class BoundCheck:
    """A `for .. bounded N` loop's run-time check: `value < limit`, value = count + start."""

    path: str
    line: int
    bound: int
    start: int  # START when END is checked (a constant START), else 0 (the count is)

    @property
    def limit(self) -> int:
        return self.start + self.bound + 1


def bound_checks(checked) -> list[BoundCheck]:
    """The bounded loops whose count is checked at run time, as the builder checks them
    (compiler.tir.loops: `check_bound`)."""
    from compiler.tir.walk import statements

    found = {}
    for instance in checked.instances.values():
        if instance.body is None:
            continue
        for statement in statements(instance.body):
            if isinstance(statement, ast.For) and statement.bound is not None:
                check = _bound_check(statement, instance)
                if check is not None:
                    found[(check.path, statement.span)] = check
    return list(found.values())


def _bound_check(statement: ast.For, instance) -> BoundCheck | None:
    from compiler.tir.constants import fold

    start, end = fold(statement.start, instance), fold(statement.end, instance)
    if start is not None and end is not None:
        return None  # a constant count: checked at compile time
    end_first = start is not None and end is None and start + statement.bound < U32_LIMIT - 1
    offset = start if end_first else 0
    return BoundCheck(instance.path, statement.span.line, statement.bound, offset)


@dataclass(frozen=True)
class Tightening:
    """What a tighter bound would change on this run's u32 table."""

    loops: list[BoundCheck]
    entries: int  # distinct counts checked
    rows: int  # their rows now
    largest: int  # the largest count
    tighter: int  # the loosest bound whose entries cost least on this run
    saved: int  # u32 rows fewer with it


def _tightening(loops: list[BoundCheck], entries) -> Tightening | None:
    """The rows the checks against one limit cost on this run, and with the loosest bound
    whose check costs least (None when no entry compares with it, or it is that bound)."""
    limit, start = loops[0].limit, loops[0].start
    if any(loop.start != start for loop in loops):
        return None  # two loops' checks against one constant: which entry is whose is unknown
    values = [left for kind, left, right in entries if kind == "lt" and right == limit]
    values = [value for value in values if value < limit]
    if not values:
        return None
    largest = max(0, max(values) - start)
    tighter = 2 ** (start + largest + 1).bit_length() - 2 - start
    if tighter >= loops[0].bound:
        return None
    rows = sum(u32_entry_rows(("lt", value, limit)) for value in values)
    fresh = [("lt", value, start + tighter + 1) for value in values]
    added = sum(u32_entry_rows(entry) for entry in fresh if entry not in entries)
    return Tightening(loops, len(values), rows, largest, tighter, rows - added)


def _loose_bound(facts) -> str | None:
    heights = facts.costs.heights.as_dict()
    if facts.checked is None or facts.record is None or facts.costs.heights.dominant != ["u32"]:
        return None  # below the tallest table, fewer u32 rows lower no figure that counts
    by_limit: dict[int, list[BoundCheck]] = {}
    for loop in bound_checks(facts.checked):
        by_limit.setdefault(loop.limit, []).append(loop)
    entries = facts.record.u32_entries
    found = [_tightening(loops, entries) for loops in by_limit.values()]
    found = [tightening for tightening in found if tightening is not None and tightening.saved]
    if not found:
        return None
    best = max(found, key=lambda tightening: tightening.saved)
    others = max(rows for table, rows in heights.items() if table != "u32")
    tallest = max(others, heights["u32"] - best.saved)
    return _loose_bound_text(best, heights["u32"], tallest)


def _loose_bound_text(best: Tightening, u32: int, tallest: int) -> str:
    loop = best.loops[0]
    where = ", ".join(f"{check.path}:{check.line}" for check in best.loops)
    each = u32_entry_rows(("lt", 0, loop.limit))
    cheaper = u32_entry_rows(("lt", 0, loop.start + best.tighter + 1))
    padded = padded_height(tallest)
    counts = _count(best.entries, "distinct count")
    text = (
        f"the u32 table is the tallest ({u32} rows); {best.rows} of them are the bound checks "
        f"of the loop at {where} (bounded {loop.bound}): {counts}, {each} "
        f"rows each (an lt entry grows with the bit length of {loop.limit}); this run's "
        f"largest count was {best.largest}: a bound of at most {best.tighter} costs {cheaper} "
        f"rows each, {best.saved} u32 rows fewer, the tallest table {tallest} rows"
    )
    if padded < padded_height(u32):
        text += f" (padded height {padded_height(u32)} -> {padded})"
    return text + "; the bound holds for every input: tighten it only as far as they allow"


HINTS = (
    Hint("H0001", "hash table", _hash_table),
    Hint("H0002", "near the cliff", _near_cliff),
    Hint("H0003", "redundant range check", _redundant_check),
    Hint("H0004", "loose loop bound", _loose_bound),
    Hint("H0005", "program attestation", _attestation),
    Hint("H0006", "just over a cliff", _over_cliff),
)


def hints(costs, program=None, checked=None, record=None) -> list[dict]:
    """The hints that apply to the run, in code order: `code`, `name`, `message`.  `costs`:
    the run's rows per line; `program`, `checked`, `record`: the assembled and the checked
    program and the run record, which H0003 and H0004 read."""
    facts = RunFacts(costs, program, checked, record)
    found = []
    for hint in HINTS:
        message = hint.rule(facts)
        if message is not None:
            found.append({"code": hint.code, "name": hint.name, "message": message})
    return found


def print_hints(found: list[dict]) -> None:
    print("\nhints:" if found else "\nhints: none")
    for hint in found:
        print(f"  hint[{hint['code']}] {hint['name']}: {hint['message']}")
