"""`tri cost --hints`: what a program run's figures suggest, each hint with a code.

The hints read one run's rows per source line (compiler.line_costs) and heights; each is
a row of HINTS: a code, a name, and a rule that returns the hint's text or None.

* H0001 hash table: the hash table is the tallest of the tables a program's own code
  fills (processor, op stack, RAM, jump stack, hash, u32), and above the lookup table's
  256 rows (below them it sets nothing): its rows come from hashing, 6
  per permutation, so the hashing lines are where to look; or, when most of them hash the
  program's own words (attestation), from the program's size.
* H0002 near the cliff (headroom): the tallest table is within 1/32 below the padded
  height; a few more rows (a longer input, one more iteration) double it.
* H0005 program attestation: the cascade table is the tallest and most of its rows come
  from hashing the program's own words, which every run pays: a shorter program, not a
  shorter run, lowers it.
* H0006 just over a cliff: the tallest table is less than 1/16 above a power of two; that
  many fewer rows would halve the padded height.

The codes follow the Trident compiler's where they mean the same (H0001, H0002); its
H0003, a redundant range check, is the checker's warning W0002 here.
Its H0004, a loose loop bound, has no rule here: a loop's bound costs one comparison in
tri's code, whatever it is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from vm.tables import LOOKUP_HEIGHT, padded_height

OWN_TABLES = ("processor", "op_stack", "ram", "jump_stack", "hash", "u32")


@dataclass(frozen=True)
class Hint:
    code: str
    name: str
    rule: Callable  # LineCosts -> str | None


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


def _hash_table(costs) -> str | None:
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


def _over_cliff(costs) -> str | None:
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


def _near_cliff(costs) -> str | None:
    heights = costs.heights
    slack = heights.padded_height - heights.maximum
    if slack * 32 >= heights.padded_height:
        return None
    more = "1 more row doubles" if slack == 0 else f"{slack + 1} more rows double"
    return (
        f"the {heights.dominant[0]} table ({heights.maximum} rows) is {slack} rows below "
        f"{heights.padded_height}: {more} the padded height to "
        f"{padded_height(heights.padded_height + 1)}"
    )


def _attestation(costs) -> str | None:
    heights = costs.heights
    cascade, fixed = heights.cascade, costs.fixed["cascade"]
    if "cascade" not in heights.dominant or fixed * 2 < cascade:
        return None
    return (
        f"the cascade table ({cascade} rows) is the tallest and {fixed} of its rows hash the "
        "program's own words: every run pays them; a shorter program lowers them, a shorter "
        "run does not"
    )


HINTS = (
    Hint("H0001", "hash table", _hash_table),
    Hint("H0002", "near the cliff", _near_cliff),
    Hint("H0005", "program attestation", _attestation),
    Hint("H0006", "just over a cliff", _over_cliff),
)


def hints(costs) -> list[dict]:
    """The hints that apply to the run, in code order: `code`, `name`, `message`."""
    found = []
    for hint in HINTS:
        message = hint.rule(costs)
        if message is not None:
            found.append({"code": hint.code, "name": hint.name, "message": message})
    return found


def print_hints(found: list[dict]) -> None:
    print("\nhints:" if found else "\nhints: none")
    for hint in found:
        print(f"  hint[{hint['code']}] {hint['name']}: {hint['message']}")
