"""The test folders, each on `sys.path`: tests are grouped by the package they test, and a
test (or a script the tests start, such as build_digests.py) imports the helpers here and
other folders' test modules by their names alone."""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def on_path() -> None:
    """Put tests/ and every folder of it that holds test files on `sys.path`."""
    folders = sorted({path.parent for path in TESTS.glob("*/test_*.py")})
    for folder in (TESTS, *folders):
        if str(folder) not in sys.path:
            sys.path.append(str(folder))
