"""Build the rule database: enumerate, fingerprint, group, prove, keep the minimal rules.

Input: a maximum length and the alphabet (compiler.superopt.enumerate).  Output:
`generate(length) -> Generated`: the proven rules (pattern, replacement, both costs)
and the funnel (optimizer.md §10): sequences enumerated, left out because the hand
rules (compiler.optimize.rules.TASM_RULES) rewrite them, left out because a shorter
window of theirs is rewritable already, fingerprinted, fingerprint groups, candidate
pairs, proven, refuted, unknown, rules kept.

Lengths are done in order 0, 1, ..., `length`.  A sequence of length k is
enumerated only if both its windows of length k - 1 are *irreducible* (no rule and
no hand rule rewrites them, so no shorter window of it does either): any other
sequence is neither a minimal pattern nor the cheapest member of its class.  A
sequence that fails on every lane is left out too (and not extended): it stands for
no code worth running, and a rule for it would only trade one failure for another.
Each other sequence is fingerprinted; if its class holds a strictly cheaper member (cost:
instructions, then op-stack rows, then program words; and no more instructions that
add u32-table entries, a table the cost leaves out), the cheapest such members
are tried in order (at most `ATTEMPTS`) with the equivalence checker (`prove`)
under the VM's own assumptions (a 16-word stack floor, nothing else), and the first
one proven equal becomes the rule's replacement.  Everything is deterministic: the
lanes have a fixed seed, the order is the alphabet's, the budget is a count.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from compiler.blocks.rule_engine import rewrite
from compiler.optimize.rules import TASM_RULES
from compiler.superopt.enumerate import ALPHABET, Fingerprinter, cost, text, u32_uses
from compiler.verify import check_equivalent, prove_equivalent
from vm.isa import instruction_set
from vm.tasm import Op

ATTEMPTS = 3  # cheaper class members tried per sequence before giving up on it
FUNNEL_NAMES = (
    "enumerated", "hand_rewritten", "pruned", "fingerprinted", "always_fail", "groups",
    "candidates", "pairs_tried", "proven", "refuted", "unknown", "rules",
)  # fmt: skip


@dataclass(frozen=True)
class FoundRule:
    pattern: tuple
    replacement: tuple

    def as_json(self) -> dict:
        return {
            "pattern": text(self.pattern),
            "replacement": text(self.replacement),
            "cost_before": list(cost(self.pattern)),
            "cost_after": list(cost(self.replacement)),
        }


@dataclass
class Generated:
    rules: list[FoundRule] = field(default_factory=list)
    funnel: dict = field(default_factory=lambda: dict.fromkeys(FUNNEL_NAMES, 0))
    by_length: dict = field(default_factory=dict)  # length -> rules of that pattern length


def _ops(sequence) -> list[Op]:
    instructions = instruction_set()
    return [Op(instructions[name], argument) for name, argument in sequence]


def prove(pattern, replacement) -> str:
    """The checker's verdict on `pattern` == `replacement`: equivalent, different, unknown.

    The symbolic comparison alone (`prove_equivalent`) first: it is what proves a pair
    equal inside `check_equivalent`, without the counterexample search that comes
    before it, which a pair with equal fingerprints rarely needs.  Only a pair it
    cannot prove goes to `check_equivalent`, which may refute it.
    """
    first, second = _ops(pattern), _ops(replacement)
    if prove_equivalent(first, second).equivalent:
        return "equivalent"
    return check_equivalent(first, second).status


def _order(sequence, position: dict) -> tuple:
    """Cheapest first, then shorter, then the alphabet's order: a total, fixed order."""
    return (cost(sequence), len(sequence), tuple(position[letter] for letter in sequence))


def generate(length: int = 3, alphabet=ALPHABET, attempts: int = ATTEMPTS) -> Generated:
    """See the module docstring."""
    result = Generated()
    funnel = result.funnel
    position = {letter: index for index, letter in enumerate(alphabet)}
    fingerprinter = Fingerprinter()
    classes: dict[bytes, list[tuple]] = {}  # fingerprint -> irreducible members, in order
    irreducible: set[tuple] = {()}
    previous: list[tuple] = [()]
    classes[fingerprinter.fingerprint(())] = [()]
    for size in range(1, length + 1):
        fresh = []
        for prefix in previous:
            for letter in alphabet:
                sequence = (*prefix, letter)
                funnel["enumerated"] += 1
                if size >= 2 and sequence[1:] not in irreducible:
                    funnel["pruned"] += 1
                elif rewrite(list(sequence), TASM_RULES)[1]:
                    funnel["hand_rewritten"] += 1
                else:
                    fresh.append(sequence)
        funnel["fingerprinted"] += len(fresh)
        failing = {sequence for sequence in fresh if fingerprinter.always_fails(sequence)}
        funnel["always_fail"] += len(failing)
        fresh = [sequence for sequence in fresh if sequence not in failing]
        keys = {}
        for sequence in fresh:
            key = fingerprinter.fingerprint(sequence)
            keys[sequence] = key
            classes.setdefault(key, []).append(sequence)
        survivors = []
        reducible = set()
        for sequence in fresh:
            found = _reduce(sequence, classes[keys[sequence]], position, attempts, funnel)
            if found is None:
                survivors.append(sequence)
            else:
                reducible.add(sequence)
                result.rules.append(FoundRule(sequence, found))
                result.by_length[size] = result.by_length.get(size, 0) + 1
        for key in {keys[sequence] for sequence in reducible}:
            # a reducible sequence is nobody's cheapest replacement
            classes[key] = [member for member in classes[key] if member not in reducible]
        irreducible.update(survivors)
        previous = survivors
    funnel["groups"] = len(classes)
    funnel["rules"] = len(result.rules)
    return result


def _reduce(sequence, members, position, attempts, funnel) -> tuple | None:
    """The cheapest member proven equal to `sequence` and strictly cheaper, or None."""
    own, u32 = cost(sequence), u32_uses(sequence)
    cheaper = sorted(
        (member for member in members if cost(member) < own and u32_uses(member) <= u32),
        key=lambda member: _order(member, position),
    )
    if not cheaper:
        return None
    funnel["candidates"] += 1
    for member in cheaper[:attempts]:
        funnel["pairs_tried"] += 1
        verdict = prove(sequence, member)
        if verdict == "equivalent":
            funnel["proven"] += 1
            return member
        funnel["refuted" if verdict == "different" else "unknown"] += 1
    return None
