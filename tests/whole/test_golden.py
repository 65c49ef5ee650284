"""The compiled TASM of every stdlib module and corpus program, at every level, is the
committed golden text byte for byte (tests/golden_tasm.py says how it is made and
regenerated)."""

from __future__ import annotations

import pytest
from golden_tasm import GOLDEN, UPDATE_COMMAND, build, committed, short_diff, sources

from compiler.levels import LEVELS


@pytest.mark.parametrize("level", sorted(LEVELS), ids=lambda level: f"O{level}")
def test_the_compiled_tasm_is_the_golden_text(level):
    differ = []
    for name, path in sources().items():
        golden = GOLDEN / f"O{level}" / name
        text = build(path, level)
        if not golden.exists() or golden.read_text(encoding="utf-8") != text:
            differ.append((golden, text))
    if differ:
        first, text = differ[0]
        names = ", ".join(str(path.relative_to(GOLDEN)) for path, _ in differ)
        pytest.fail(
            f"{len(differ)} golden files differ ({names}); the first:\n"
            f"{short_diff(first, text)}\n"
            f"If the change is on purpose, regenerate them with `{UPDATE_COMMAND}` and "
            "review the diff."
        )


def test_every_golden_file_has_a_source():
    expected = {GOLDEN / f"O{level}" / name for level in LEVELS for name in sources()}
    stale = sorted(str(path.relative_to(GOLDEN)) for path in committed() - expected)
    assert not stale, f"golden files without a source: {stale}; run `{UPDATE_COMMAND}`"
    assert len(expected) == len(LEVELS) * len(sources()) > 100


def test_a_changed_golden_file_is_reported_with_a_diff(tmp_path):
    golden = tmp_path / "x.tasm"
    golden.write_text("    push 1\n    halt\n")
    diff = short_diff(golden, "    push 2\n    halt\n")
    assert "-    push 1" in diff and "+    push 2" in diff
