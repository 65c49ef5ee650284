"""Counted conjunctions: a count of k conditions compared with k becomes their product.

The language has no `&&`: a test that k conditions all hold is written by counting the ones
that hold and comparing the count with k (`if a0 == b0 { same = same + 1 }` ...
`same == 5`, std.crypto.digest.equal).  After the select rules (`eq skiz addi 1` ->
`eq add`, compiler.optimize.rules) such a count is one straight run: `push 0`, k times a
condition made by `eq` or `lt` (0 or 1) and added to the count, then `push k` `eq`.  A sum
of k values in {0, 1} is k exactly when each is 1, that is when their product is 1, so the
run becomes the first condition with each further one multiplied in (`mul` for `add`),
without the `push 0`, the first `add` and the `push k` `eq`: 4 instructions fewer.  Between
the `push 0` and the first `add` the count sits under the words that make the first
condition; without it, the depths of the moves that reach past it are one less.

`conjoin(items)` takes one straight-line TASM run (engine `Item`s or plain pairs) and makes
each such rewrite that the equivalence checker (compiler.verify) proves on the window from
the `push 0` to the final `eq`; the checker's expansion of `is_zero` over 0/1 atoms
(compiler.verify.functions) is what proves it.  Each one is noted for `tri build --report`
under `counts made products`.  Answers are remembered per window.
"""

from __future__ import annotations

from compiler.blocks.rule_engine import Item, origin_of
from compiler.verify import check_equivalent
from vm.isa import BOOLEAN_RESULT, BY_NAME, Arg
from vm.tasm import Op

LONGEST = 64  # instructions from the `push 0` to the final `eq` that the proof looks at
NOTE = "counts made products"  # the section of `tri build --report` (compiler.report)

_answers: dict[tuple, bool] = {}  # window -> whether its rewrite is proven


def conjoin(items: list, notes: list | None = None) -> list:
    """`items` with every proven counted conjunction made a product (see the module
    docstring); each is added to `notes` (when given) as (NOTE, text)."""
    items = list(items)
    position = 0
    while position < len(items):
        found = _count(items, position) if tuple(items[position]) == ("push", 0) else None
        if found is None:
            position += 1
            continue
        end, product = found
        window = tuple((name, arg) for name, arg in items[position:end])
        if not _proven(window, tuple((name, arg) for name, arg in product)):
            position += 1
            continue
        if notes is not None:
            notes.append((NOTE, _text(items[end - 1], len(window) - len(product))))
        items[position:end] = product
        position += len(product)
    return items


def _count(items: list, start: int) -> tuple[int, list] | None:
    """For a `push 0` at `start` that begins a counted conjunction: the end of its window
    (after the final `eq`) and the window rewritten as a product; else None."""
    depth = 0  # of the count, from the top
    adds: list[int] = []  # positions of the adds of conditions to the count
    moved: dict[int, int] = {}  # position -> its index argument without the count
    for position in range(start + 1, min(len(items), start + LONGEST)):
        name, arg = items[position]
        if name == "add" and depth == 1 and tuple(items[position - 1])[0] in BOOLEAN_RESULT:
            if position - 1 > start:
                adds.append(position)
                depth = 0
                continue
        if (name, arg) == ("push", len(adds)) and depth == 0 and len(adds) >= 2:
            if position + 1 < len(items) and tuple(items[position + 1]) == ("eq", None):
                return position + 2, _product(items, start, position, adds, moved)
        if not adds and BY_NAME[name].arg is Arg.INDEX and arg + (name == "place") > depth:
            moved[position] = arg - 1  # (`place d` puts the top under the count when d >= it)
        depth = _follow(name, arg, depth, movable=bool(adds))
        if depth is None:
            return None
    return None


def _product(items: list, start: int, push: int, adds: list[int], moved: dict) -> list:
    """The window without the `push 0`, the first add and the `push k` `eq`, the other adds
    made `mul`s and the first condition's moves past the count one less deep."""
    product = []
    for position in range(start + 1, push):
        item = items[position]
        if position == adds[0]:
            continue
        if position in adds:
            item = Item("mul", None, origin_of(item))
        elif position in moved:
            item = Item(item[0], moved[position], origin_of(item))
        product.append(item)
    return product


def _follow(name: str, arg, depth: int, movable: bool) -> int | None:
    """The count's depth after the instruction, or None when the instruction reads it, moves
    it while not `movable`, or is one the rewrite does not cross (`write_io`: a failure
    after it must have written the same)."""
    if name == "write_io" or (name == "dup" and arg == depth):
        return None
    if name in ("dup", "pick", "place", "swap"):
        if name == "dup":
            return depth + 1
        relocated = arg == depth if name == "pick" else depth == 0 or arg == depth
        if relocated and not movable:
            return None
        if name == "pick":
            return 0 if arg == depth else depth + (arg > depth)
        if name == "place":
            return arg if depth == 0 else depth - (arg >= depth)
        return arg if depth == 0 else 0 if arg == depth else depth
    instruction = BY_NAME[name]
    if depth < instruction.stack_read(arg):
        return None
    return depth + instruction.stack_delta(arg)


def _proven(window: tuple, product: tuple) -> bool:
    key = (window, product)
    if key not in _answers:
        ops = [[Op(BY_NAME[name], arg) for name, arg in code] for code in key]
        _answers[key] = check_equivalent(*ops).equivalent
    return _answers[key]


def _text(item, saved: int) -> str:
    origin = origin_of(item)
    where = "" if origin is None else f" at line {origin.span.line}"
    return f"count compared{where}: a product of its conditions, {saved} instructions fewer"


def forget() -> None:
    """Drop the remembered answers (to time a build from scratch)."""
    _answers.clear()


__all__ = ["conjoin", "forget"]
