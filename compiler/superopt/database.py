"""The superoptimizer's rule database: a committed JSON file, content-addressed.

Input: `rules.json` next to this module, written by `write` (from
compiler.superopt.generate's rules; `tri superopt` and benchmarks/superopt.py
regenerate it).  Output: `load() -> Database` (the header and the rules as JSON
objects), `rules() -> tuple[engine.Rule, ...]` for the peephole engine, and
`content_hash(rules)`.

The header records the content hash (sha256 of the canonical rule list: sorted
keys, no spaces), the alphabet, the maximum length, the fingerprint lanes and
seed, the proof budget and the funnel.  `load` refuses a file whose hash does
not match its rules (`DatabaseError`).  Every rule is one exact instance
(literal arguments) proven by compiler.verify; `-O2` applies them after the hand
rules (compiler.search.lowerer).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from compiler.blocks.rule_engine import Rule

PATH = Path(__file__).with_name("rules.json")
FORMAT = 1


class DatabaseError(ValueError):
    """The rule file is missing, malformed, or its hash does not match its rules."""


@dataclass(frozen=True)
class Database:
    header: dict
    rules: tuple[dict, ...]


def canonical(rules) -> str:
    return json.dumps(list(rules), sort_keys=True, separators=(",", ":"))


def content_hash(rules) -> str:
    return hashlib.sha256(canonical(rules).encode()).hexdigest()


def document(generated, parameters: dict) -> dict:
    """The file's content for a `generate.Generated` and the parameters that made it."""
    rules = [rule.as_json() for rule in generated.rules]
    header = {
        "format": FORMAT,
        "sha256": content_hash(rules),
        "count": len(rules),
        **parameters,
        "funnel": generated.funnel,
        "by_length": {str(size): count for size, count in sorted(generated.by_length.items())},
    }
    return {"header": header, "rules": rules}


def write(content: dict, path: Path = PATH) -> None:
    text = json.dumps(content, indent=1, sort_keys=True) + "\n"
    path.write_text(text, encoding="utf-8")


def load(path: Path = PATH) -> Database:
    try:
        content = json.loads(path.read_text(encoding="utf-8"))
        header, rules = content["header"], content["rules"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise DatabaseError(f"{path}: not a rule database ({error})") from None
    if header.get("format") != FORMAT:
        raise DatabaseError(f"{path}: format {header.get('format')!r}, expected {FORMAT}")
    if header.get("sha256") != content_hash(rules):
        raise DatabaseError(f"{path}: the sha256 in the header does not match the rules")
    return Database(header, tuple(rules))


@cache
def rules(path: Path = PATH) -> tuple[Rule, ...]:
    """The database as engine rules (literal arguments), in the file's order."""
    return tuple(
        Rule(rule["pattern"], rule["replacement"], "superoptimizer: proven for this instance")
        for rule in load(path).rules
    )


def parameters(length: int) -> dict:
    """What the generation depends on, recorded in the header."""
    from compiler.superopt import enumerate as enumeration
    from compiler.superopt import generate

    return {
        "length": length,
        "alphabet": [enumeration.text([letter]) for letter in enumeration.ALPHABET],
        "lanes": enumeration.LANES,
        "lane_depth": enumeration.DEPTH,
        "seed": enumeration.SEED,
        "attempts": generate.ATTEMPTS,
    }


def build(length: int) -> dict:
    """Enumerate, prove and return the file's content (compiler.superopt.generate)."""
    from compiler.superopt.generate import generate

    return document(generate(length), parameters(length))
