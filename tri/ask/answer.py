"""A question answered the whole way: normalized, compiled, run on the VM and on WebAssembly.

Input: the question's text and a tier: `rules` (tri.ask.rules), `learned` (tri.ask.learned)
or `auto`: the rules' answer when they answer and the learned tier does not propose another
(where the two disagree, the question is refused), else the learned tier's.  Output: an
`Answer`: the canonical form, the program, its TASM, the VM's answer and run figures, or the
reason it was refused.

The canonical form's exact value (tri.ask.canonical.evaluate) decides what is refused; the
answer printed is the VM's: the program (tri.ask.program) is written to a temporary
directory, checked and compiled at `-O1` like any user's program, and run (the `auto`
engine) and on WebAssembly (vm.wasm, with the `wasm` extra: it must write the same word), and
the output word read as a signed integer.  Should the two ever differ, the
question is refused and says so: a wrong answer is never printed.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tri.ask import canonical, rules
from tri.ask.program import program_text

TIERS = ("rules", "learned", "auto")
MAX_STEPS = 1 << 28  # the longest range's loop with room to spare


@dataclass
class Answer:
    question: str
    tier: str
    canonical: str | None = None
    program: str | None = None
    tasm: str | None = None
    wat: str | None = None  # the program as WebAssembly text (with the wasm extra)
    answer: str | None = None
    refused: str | None = None
    vm: dict = field(default_factory=dict)  # cycles, padded_height
    wasm: dict = field(default_factory=dict)  # fuel (with the wasm extra)

    def as_json(self) -> dict:
        return {
            "question": self.question,
            "canonical": self.canonical,
            "program": self.program,
            "answer": self.answer,
            "refused": self.refused,
            "tier": self.tier,
            "vm": self.vm or None,
            "wasm": self.wasm or None,
        }


def ask(question: str, tier: str = "auto") -> Answer:
    """The answer to `question` by `tier` (see the module docstring)."""
    if tier not in TIERS:
        raise ValueError(f"no tier {tier!r}; the tiers are {', '.join(TIERS)}")
    answer = Answer(question, tier)
    try:
        tree, answer.tier = normalize(question, tier)
        answer.canonical = canonical.render(tree)
        exact = canonical.evaluate(tree)
        answer.program = program_text(tree)
        word, answer.tasm, answer.vm, answer.wasm, answer.wat = run_program(answer.program)
    except canonical.Refused as refusal:
        answer.refused = str(refusal)
        return answer
    if canonical.signed(word) != exact:
        answer.refused = (
            f"the VM computed {canonical.signed(word)} but the exact value is {exact}; "
            "no answer is given"
        )
        return answer
    answer.answer = str(exact)
    return answer


def normalize(question: str, tier: str):
    """(the canonical tree of `question` by `tier`, the tier that gave it), or `Refused`."""
    from tri.ask import learned

    if tier == "rules":
        return rules.normalize(question), "rules"
    if tier == "learned":
        return learned.propose(question), "learned"
    try:
        ruled = rules.normalize(question)
    except canonical.Refused as refusal:
        try:
            return learned.propose(question), "learned"
        except canonical.Refused:
            raise refusal from None
    try:
        proposed = learned.propose(question)
    except canonical.Refused:
        return ruled, "rules"
    if proposed != ruled:
        raise canonical.Refused(
            f"the tiers disagree: the rules read {canonical.render(ruled)}, "
            f"the learned tier {canonical.render(proposed)}"
        )
    return ruled, "rules"


def run_program(text: str) -> tuple[int, str, dict, dict, str | None]:
    """(the word the program writes, its TASM, the VM run's figures, the WebAssembly run's
    and the module's text: the same program run by vm.wasm when wasmtime is installed, which
    must write the same word)."""
    from compiler.check.checker import check
    from compiler.check.resolve import load_project
    from compiler.driver import compile_program
    from tri import api
    from vm.tables import heights

    with tempfile.TemporaryDirectory(prefix="tri-ask-") as directory:
        path = Path(directory) / "answer.tri"
        path.write_text(text)
        compiled = compile_program(check(load_project(path)), 1)
    record = api.run(compiled.program, max_steps=MAX_STEPS)
    if record.error is not None or len(record.output) != 1:
        raise canonical.Refused(f"the program did not give one answer: {record.error}")
    figures = {"cycles": record.cycles, "padded_height": heights(record).padded_height}
    wasm, wat = run_wasm(compiled.program, record)
    return record.output[0], compiled.text, figures, wasm, wat


def run_wasm(program, record) -> tuple[dict, str | None]:
    """(the WebAssembly run's figures, the module's text), or ({}, None) without wasmtime
    (the `wasm` extra); `Refused` if it does not write what the VM wrote."""
    try:
        import wasmtime  # noqa: F401

        from vm.wasm.runtime import execute_wasm
        from vm.wasm.translate import translate
    except ImportError:
        return {}, None
    run = execute_wasm(program, max_steps=MAX_STEPS)
    if run.output != record.output or run.error is not None:
        raise canonical.Refused(f"the WebAssembly run gave {run.output}, the VM {record.output}")
    return {"fuel": run.fuel}, translate(program)
