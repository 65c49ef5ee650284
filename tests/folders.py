"""The test folders, each on `sys.path`: tests are grouped by the package they test, and a
test (or a script the tests start, such as build_digests.py) imports the helpers here and
other folders' test modules by their names alone."""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
FOLDERS = ("vm", "front_end", "back_end", "optimizer", "verify", "cli", "whole")


def on_path() -> None:
    for folder in (TESTS, *(TESTS / name for name in FOLDERS)):
        if str(folder) not in sys.path:
            sys.path.append(str(folder))
