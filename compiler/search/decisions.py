"""The decision table: what `-O2`/`-O3` decided for each block, as a readable file a project
can commit, freeze and build from (`tri build --decisions FILE`, `tri decisions`).

Input: decisions as the block lowerer makes them (compiler.search.lowerer.SearchLowerer:
a block's baseline, its contract, the `Decision` and the level, model, rules and code it
was decided under).  Output: a `DecisionTable`, read from and written to one JSON file.

**Key.** A block is known by what it is, not by a name: sha256 of its baseline (what `-O1`
makes of it, where the search starts) and the contract facts the search and the checker
use (compiler.search.cache.contract_facts).  The search settings, the model and the rules
are not in the key: decisions made under different ones are samples of the same entry,
and how often they agree is its stability.

**Entry.** The baseline and the contract; each distinct code chosen for it with how many
decisions chose it, at which levels, and the funnel figures of the latest of them; the
level and the model, rule-database and code identities of the latest decision; the frozen
code, if any; and drift, if `check` found any.

**Use.** A frozen entry without drift is a hit: the lowerer re-validates it exactly as it
re-validates a cached decision (proven equivalent to the baseline under the contract and
strictly cheaper, or the baseline itself) and emits it without searching or running the
model.  A refused hit, an entry that is not frozen, and a block the table does not hold are
decided afresh and recorded as a sample; a refused or drifted entry stops being frozen.
`freeze` freezes the entries whose most frequent choice has at least `stability` of the
samples and is proven equivalent and no costlier than the baseline; `check` re-validates
every frozen entry and decides it again with the current compiler, and marks the ones it
refuses or would decide differently, so that the next build re-decides exactly those; an
entry the build decides as `check` did is frozen again with its new code (decided the
same way twice by the current compiler, and proven), else left open.

**File.** `{"format": "tri decisions", "version": 1, "entries": {key: entry}}`, keys sorted,
code written as TASM lines (`"push 1"`), choices most frequent first: the same decisions
give the same bytes on any machine.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from compiler.blocks.objective import static_figures, strictly_cheaper
from compiler.lower.blocks import Block, Contract
from compiler.search.cache import FUNNEL_FIELDS, Decision, contract_facts

FORMAT, VERSION = "tri decisions", 1
STABILITY = 0.8  # freeze: the share of samples the most frequent choice needs


class TableError(ValueError):
    """A file that is not a decision table this version can read."""


def table_key(baseline, contract_facts_: dict) -> str:
    content = {"baseline": [list(pair) for pair in baseline], "contract": contract_facts_}
    text = json.dumps(content, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def code_text(code) -> list[str]:
    return [name if argument is None else f"{name} {argument}" for name, argument in code]


def parse_code(lines) -> tuple:
    """((name, argument or None), ...) from TASM lines; ValueError if one is not a line of
    an instruction name and at most one integer."""
    code = []
    for line in lines:
        words = str(line).split()
        if not 1 <= len(words) <= 2:
            raise ValueError(f"not an instruction: {line!r}")
        code.append((words[0], int(words[1]) if len(words) == 2 else None))
    return tuple(code)


@dataclass
class Choice:
    code: tuple  # ((name, argument or None), ...)
    count: int  # decisions that chose it
    levels: set  # the levels they were made at
    figures: dict  # FUNNEL_FIELDS -> int, of the latest of them
    by_size: tuple

    def decision(self) -> Decision:
        return Decision(self.code, dict(self.figures), tuple(self.by_size))


@dataclass
class Entry:
    baseline: tuple
    contract: dict  # contract_facts
    choices: list = field(default_factory=list)  # Choice, most frequent first
    level: int = 2  # of the latest decision
    decided_under: dict = field(default_factory=dict)  # model, rules, code identities
    frozen: tuple | None = None  # the frozen code
    drift: dict | None = None  # from `check`: reason, and the code decided now

    @property
    def samples(self) -> int:
        return sum(choice.count for choice in self.choices)

    @property
    def stability(self) -> float:
        """The share of samples that chose the most frequent code."""
        return self.choices[0].count / self.samples if self.choices else 0.0

    def block(self) -> Block:
        """A block with this entry's contract (its ops are not needed to decide it)."""
        facts = self.contract
        contract = Contract(
            entry_depth=facts["entry_depth"],
            exit_depth=facts["exit_depth"],
            exit_layout=(),
            effects=(),
            dont_care=tuple(facts["dont_care"]),
            u32_entry=tuple(facts["u32_entry"]),
            minimum_entry_length=facts["minimum_entry_length"],
        )
        return Block((), contract)

    def choice(self, code) -> Choice | None:
        return next((choice for choice in self.choices if choice.code == code), None)

    def add(self, decision: Decision, level: int, identities: dict) -> None:
        """One more sample: `decision`, made at `level` under `identities`."""
        found = self.choice(decision.instructions)
        if found is None:
            found = Choice(decision.instructions, 0, set(), {}, ())
            self.choices.append(found)
        found.count += 1
        found.levels.add(level)
        found.figures, found.by_size = dict(decision.figures), tuple(decision.by_size)
        self.choices.sort(key=lambda choice: (-choice.count, code_text(choice.code)))
        self.level, self.decided_under = level, dict(identities)

    def to_json(self) -> dict:
        frozen = None if self.frozen is None else code_text(self.frozen)
        chosen = self.frozen or (self.choices[0].code if self.choices else self.baseline)
        return {
            "baseline": code_text(self.baseline),
            "contract": self.contract,
            "choices": [
                {
                    "code": code_text(choice.code),
                    "count": choice.count,
                    "levels": sorted(choice.levels),
                    "figures": choice.figures,
                    "by_size": list(choice.by_size),
                }
                for choice in self.choices
            ],
            "samples": self.samples,
            "cost": {
                "baseline": dict(zip(COST_NAMES, static_figures(self.baseline))),
                "chosen": dict(zip(COST_NAMES, static_figures(chosen))),
            },
            "level": self.level,
            "decided_under": self.decided_under,
            "frozen": frozen,
            "drift": self.drift,
        }

    @classmethod
    def from_json(cls, content) -> Entry:
        """An entry from its JSON; KeyError, TypeError or ValueError if malformed."""
        choices = []
        for item in content["choices"]:
            figures = {name: int(item["figures"][name]) for name in FUNNEL_FIELDS}
            by_size = tuple(int(n) for n in item["by_size"])
            if len(by_size) != 3 or int(item["count"]) < 1:
                raise ValueError("a choice needs a count and three size figures")
            levels = {int(level) for level in item["levels"]}
            choices.append(
                Choice(parse_code(item["code"]), int(item["count"]), levels, figures, by_size)
            )
        facts = content["contract"]
        contract = {
            "dont_care": sorted(int(n) for n in facts["dont_care"]),
            "u32_entry": sorted(int(n) for n in facts["u32_entry"]),
            "minimum_entry_length": int(facts["minimum_entry_length"]),
            "entry_depth": int(facts["entry_depth"]),
            "exit_depth": int(facts["exit_depth"]),
        }
        frozen = content.get("frozen")
        drift = content.get("drift")
        if drift is not None and not isinstance(drift, dict):
            raise TypeError("drift is an object or null")
        return cls(
            parse_code(content["baseline"]),
            contract,
            choices,
            int(content["level"]),
            dict(content["decided_under"]),
            None if frozen is None else parse_code(frozen),
            drift,
        )


COST_NAMES = ("instructions", "op_stack_rows", "program_words")


def _layout(value, indent: str) -> str:
    """JSON text with keys sorted, an object or array of plain values on one line, and
    everything else one member per line."""
    plain = (str, int, float, bool, type(None))
    if isinstance(value, dict) and value and not all(isinstance(v, plain) for v in value.values()):
        inner = indent + " "
        members = [f"{inner}{json.dumps(k)}: {_layout(value[k], inner)}" for k in sorted(value)]
        return "{\n" + ",\n".join(members) + "\n" + indent + "}"
    if isinstance(value, list) and value and not all(isinstance(v, plain) for v in value):
        inner = indent + " "
        return "[\n" + ",\n".join(inner + _layout(v, inner) for v in value) + "\n" + indent + "]"
    return json.dumps(value, sort_keys=True, separators=(", ", ": "))


class DecisionTable:
    """The entries of one table file, and what builds did with them: `hits` (frozen entries
    emitted), `refused` (frozen entries that failed re-validation), `decided` (blocks decided
    afresh and sampled), `malformed` (entries of the file that could not be read, dropped)."""

    def __init__(self, entries: dict | None = None):
        self.entries: dict[str, Entry] = dict(entries or {})
        self.hits = self.refused = self.decided = self.malformed = 0

    @classmethod
    def read(cls, path: Path) -> DecisionTable:
        """The table in `path`: empty if there is no such file; TableError if it is not a
        table; entries that cannot be read are dropped (and counted as malformed)."""
        path = Path(path)
        if not path.exists():
            return cls()
        try:
            content = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as problem:
            raise TableError(f"{path}: not a decision table: {problem}") from None
        if not isinstance(content, dict) or content.get("format") != FORMAT:
            raise TableError(f'{path}: not a decision table (no "format": "{FORMAT}")')
        if content.get("version") != VERSION:
            raise TableError(
                f"{path}: a decision table of version {content.get('version')}; "
                f"this tri reads version {VERSION}"
            )
        table = cls()
        entries = content.get("entries")
        if not isinstance(entries, dict):
            raise TableError(f'{path}: a decision table needs "entries": an object')
        for key, item in entries.items():
            try:
                entry = Entry.from_json(item)
            except (KeyError, TypeError, ValueError, AttributeError):
                table.malformed += 1
                continue
            if table_key(entry.baseline, entry.contract) != key:
                table.malformed += 1  # an entry under another block's key
                continue
            table.entries[key] = entry
        return table

    def text(self) -> str:
        entries = {key: self.entries[key].to_json() for key in sorted(self.entries)}
        content = {"format": FORMAT, "version": VERSION, "entries": entries}
        return _layout(content, "") + "\n"

    def write(self, path: Path) -> None:
        Path(path).write_text(self.text(), encoding="utf-8")

    def key(self, baseline, contract) -> str:
        return table_key(baseline, contract_facts(contract))

    def frozen(self, key: str) -> Decision | None:
        """The frozen decision of a table hit, or None (no entry, not frozen, drifted)."""
        entry = self.entries.get(key)
        if entry is None or entry.frozen is None or entry.drift is not None:
            return None
        choice = entry.choice(entry.frozen)
        if choice is None:  # frozen code that no sample chose: figures made up
            return Decision(entry.frozen, {name: -1 for name in FUNNEL_FIELDS}, (0, 0, 0))
        return choice.decision()

    def refuse(self, key: str) -> None:
        """A frozen entry failed re-validation: no longer frozen, its frozen code no longer
        one of its choices; the block is decided afresh."""
        self.refused += 1
        entry = self.entries[key]
        entry.choices = [choice for choice in entry.choices if choice.code != entry.frozen]
        entry.frozen = None

    def add(self, key: str, baseline, contract, decision: Decision, level: int, identities) -> None:
        """A block decided afresh: one sample (the lowerer adds each block once per build)."""
        self.decided += 1
        entry = self.entries.get(key)
        if entry is None:
            entry = self.entries[key] = Entry(tuple(baseline), contract_facts(contract))
        if entry.drift is not None:  # re-decided: frozen again if as `check` decided it
            now = entry.drift.get("now")
            agrees = now is not None and parse_code(now) == tuple(decision.instructions)
            entry.drift, entry.frozen = None, tuple(decision.instructions) if agrees else None
        entry.add(decision, level, identities)

    def summary(self) -> dict:
        frozen = sum(entry.frozen is not None for entry in self.entries.values())
        drifted = sum(entry.drift is not None for entry in self.entries.values())
        return {
            "entries": len(self.entries),
            "frozen": frozen,
            "drifted": drifted,
            "hits": self.hits,
            "refused": self.refused,
            "decided": self.decided,
            "malformed": self.malformed,
        }


def valid(lowerer, entry: Entry, code) -> bool:
    """Whether `code` may stand for the entry's block: the baseline itself, or proven
    equivalent to it under the contract and strictly cheaper (the lowerer's check)."""
    if tuple(code) == tuple(entry.baseline):
        return True
    try:
        candidate = lowerer.program(code)
    except (KeyError, TypeError, ValueError):
        return False
    from compiler.verify import check_equivalent

    assumptions = entry.block().contract.assumptions()
    verdict = check_equivalent(lowerer.program(entry.baseline), candidate, assumptions=assumptions)
    return verdict.equivalent and strictly_cheaper(list(code), list(entry.baseline))


@dataclass
class FreezeReport:
    frozen: int = 0
    unstable: int = 0  # the most frequent choice has less than the stability asked for
    refused: int = 0  # stable, but not proven equivalent and no costlier
    unfrozen: list = field(default_factory=list)  # keys that were frozen and are not now


def freeze(table: DecisionTable, lowerer, stability: float = STABILITY) -> FreezeReport:
    """Freeze each entry whose most frequent choice has at least `stability` of its samples
    and is valid (`valid`); unfreeze the others."""
    report = FreezeReport()
    for key in sorted(table.entries):
        entry = table.entries[key]
        was = entry.frozen
        entry.frozen = None
        if not entry.choices or entry.stability < stability:
            report.unstable += 1
        elif not valid(lowerer, entry, entry.choices[0].code):
            report.refused += 1
        else:
            entry.frozen, entry.drift = entry.choices[0].code, None
            report.frozen += 1
        if was is not None and entry.frozen is None:
            report.unfrozen.append(key)
    return report


@dataclass
class CheckReport:
    checked: int = 0  # frozen entries
    drifted: int = 0  # decided differently now
    cheaper: int = 0  # ... and the new decision strictly cheaper than the frozen one
    refused: int = 0  # no longer valid
    churn: int = 0  # frozen instructions in drifted or refused entries
    instructions: int = 0  # frozen instructions in all
    keys: list = field(default_factory=list)  # the entries marked for re-decision

    def to_json(self) -> dict:
        return {
            "checked": self.checked,
            "drifted": self.drifted,
            "cheaper": self.cheaper,
            "refused": self.refused,
            "churn": self.churn,
            "instructions": self.instructions,
            "marked": self.keys,
        }


def check(table: DecisionTable, lowerers: dict) -> CheckReport:
    """Re-validate each frozen entry and decide it again with `lowerers[level]` (the
    current compiler at the entry's level); mark the refused and the drifted (`drift`)."""
    report = CheckReport()
    for key in sorted(table.entries):
        entry = table.entries[key]
        if entry.frozen is None:
            continue
        report.checked += 1
        report.instructions += len(entry.frozen)
        lowerer = lowerers[max(2, min(3, entry.level))]
        entry.drift = None
        now = lowerer.decide(entry.block(), list(entry.baseline)).instructions
        if not valid(lowerer, entry, entry.frozen):
            entry.drift = {"reason": "refused", "now": code_text(now)}
            entry.choices = [choice for choice in entry.choices if choice.code != entry.frozen]
            report.refused += 1
        elif tuple(now) != tuple(entry.frozen):
            cheaper = strictly_cheaper(list(now), list(entry.frozen))
            entry.drift = {
                "reason": "decided differently",
                "now": code_text(now),
                "cheaper": cheaper,
            }
            report.drifted += 1
            report.cheaper += cheaper
        if entry.drift is not None:
            report.churn += len(entry.frozen)
            report.keys.append(key)
    return report
