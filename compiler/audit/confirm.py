"""Running one function on the VM with given arguments: the check of a counterexample.

Input: a `Checked` program (checked with `--check-contracts`, so that contracts are the
asserts of compiler.contracts), a function instance's key, its argument words in stack
order and the public and secret input.  Output: the `RunFailure` of the run
(compiler.failures, at its source line), or None when the call returns.

The function is compiled at -O0 (each check where the source has it) as the program's
entry, and the program starts with a `push` of each argument word, so that the entry is
called as any caller calls it: its parameters on the stack, the first deepest.  The RAM
starts as given.
"""

from __future__ import annotations

import dataclasses

from compiler.check.types import width
from compiler.failures import RunFailure, vm_failure
from vm import interp, tasm

STEP_LIMIT = 1 << 22  # cycles: a counterexample's run is short


def _run(checked, key: str, words: list[int], public, secret, ram):
    from compiler.driver import compile_program

    compiled = compile_program(dataclasses.replace(checked, entry=key), 0)
    pushes = "".join(f"push {word}\n" for word in words)
    program = tasm.parse(pushes + compiled.text)
    program = dataclasses.replace(
        program, source_map=(None,) * len(words) + tuple(compiled.program.source_map)
    )

    def run(cycles: int):
        return interp.execute(
            program,
            public_input=list(public),
            secret_input=list(secret),
            ram=dict(ram),
            max_steps=cycles,
        )

    return program, run


def run_function(
    checked, key: str, words: list[int], public=(), secret=(), ram=None
) -> RunFailure | None:
    """The failure of the call on the VM, or None when it returns."""
    program, run = _run(checked, key, words, public, secret, ram or {})
    record = run(STEP_LIMIT)
    if record.error is None:
        return None
    return vm_failure(program, record.error, run)


def run_result(
    checked, key: str, words: list[int], public=(), secret=(), ram=None
) -> tuple[str, str]:
    """(what the call did, for comparing two functions; the same, for a reader): it fails,
    or it returns its result words (in stack layout), writes its output and stores."""
    program, run = _run(checked, key, words, public, secret, ram or {})
    record = run(STEP_LIMIT)
    if record.error is not None:
        failure = vm_failure(program, record.error, run)
        return "fails", f"fails: {failure.kind}: {failure.message}"
    size = width(checked.instances[key].result)
    result = record.stack[len(record.stack) - size :] if size else []
    text = f"returns {', '.join(map(str, result)) or 'nothing'}"
    if record.output:
        text += f" and writes {', '.join(map(str, record.output))}"
    changed = {a: v for a, v in sorted(record.ram.items()) if (ram or {}).get(a, 0) != v}
    if changed:
        text += " and stores " + ", ".join(f"{v} at {a}" for a, v in changed.items())
    return text, text
