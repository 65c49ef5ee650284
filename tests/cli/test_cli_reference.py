"""docs/cli.md names every command and every option `tri` has, so it cannot fall behind."""

import argparse
import re
from pathlib import Path

from tri.cli import build_parser

REFERENCE = (Path(__file__).parents[2] / "docs" / "cli.md").read_text()


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("tri has no subcommands")


def test_every_command_has_a_section_and_every_option_is_named():
    missing = []
    for name, command in _subcommands(build_parser()).items():
        if not re.search(rf"^## .*\btri {name}\b", REFERENCE, re.M):
            missing.append(f"section for tri {name}")
        for action in command._actions:
            for option in action.option_strings:
                if option not in ("-h", "--help") and f"`{option}" not in REFERENCE:
                    if not re.search(rf"[\[ ]{re.escape(option)}[ \]]", REFERENCE):
                        missing.append(f"tri {name} {option}")
    assert not missing, missing
