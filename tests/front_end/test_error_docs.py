"""docs/errors.md: every code the compiler can report is documented, and every example
there prints what the page says it prints."""

import re
from pathlib import Path

import pytest

from tri.cli import main

ROOT = Path(__file__).parents[2]
PAGE = (ROOT / "docs" / "errors.md").read_text()
SECTIONS = dict(re.findall(r"^### ([EW]\d{4}):.*?\n(.*?)(?=^### |\Z)", PAGE, re.S | re.M))


def _codes_in_sources() -> set[str]:
    codes = set()
    for path in [*(ROOT / "compiler").rglob("*.py"), *(ROOT / "tri").rglob("*.py")]:
        codes |= set(re.findall(r"\"([EW]\d{4})\"", path.read_text()))
    return codes


def test_every_code_in_the_sources_has_a_section():
    assert _codes_in_sources() - set(SECTIONS) == set()


def _single_file_examples():
    for code, section in SECTIONS.items():
        programs = re.findall(r"```\n((?:program|module) .*?)```", section, re.S)
        shown = re.search(r"```console\n\$ tri check example\.tri\n(.*?)```", section, re.S)
        if len(programs) == 1 and shown:
            yield code, programs[0], shown.group(1)


EXAMPLES = list(_single_file_examples())


def test_most_codes_have_a_runnable_example():
    assert len(EXAMPLES) >= 40


@pytest.mark.parametrize("code, program, shown", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_the_example_prints_what_the_page_shows(
    code, program, shown, tmp_path, capsys, monkeypatch
):
    (tmp_path / "example.tri").write_text(program)
    monkeypatch.chdir(tmp_path)
    main(["check", "example.tri"])
    printed = capsys.readouterr().err.replace(f"{ROOT}/", "")  # the page shows library paths
    assert f"[{code}]" in shown
    assert shown.strip() in printed, printed
