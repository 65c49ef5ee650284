"""Test-session setup: the suite never reads or writes the user's caches.

`TRI_CACHE` (the `-O2` decision cache, compiler.search.cache) points at a fresh
temporary directory per test process (each pytest-xdist worker has its own), removed at
the end; subprocesses the tests start inherit it.
"""

from __future__ import annotations

import os
import shutil
import tempfile

_CACHE = tempfile.mkdtemp(prefix="tri-test-cache-")
os.environ["TRI_CACHE"] = _CACHE


def pytest_unconfigure(config):
    shutil.rmtree(_CACHE, ignore_errors=True)
