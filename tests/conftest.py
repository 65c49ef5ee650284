"""Test-session setup: the suite never reads or writes the user's caches.

`TRI_CACHE` (the `-O2` decision cache, compiler.search.cache) points at a fresh
temporary directory made by the first process of the session (the only one without
pytest-xdist, else the controller), shared by its workers and inherited by the
subprocesses the tests start, and removed by that process at the end.  Sharing it is safe:
entries are written by rename, and a cached decision is proven again before it is used, so
a decision one worker searched only saves another the search.

The tests are grouped in folders by the package they test (vm/, front_end/, back_end/,
optimizer/, verify/, cli/, whole/); the helpers they share sit here, and every folder is on
`sys.path` (`folders.py`), so a test imports a helper or another folder's test module by
its name alone, whichever file pytest collects first.
"""

from __future__ import annotations

import os
import shutil
import tempfile

from folders import on_path

on_path()

_SHARED = "TRI_TEST_SESSION_CACHE"  # set by the process that made the directory
_OWNER = _SHARED not in os.environ or "PYTEST_XDIST_WORKER" not in os.environ
if _OWNER:
    os.environ[_SHARED] = tempfile.mkdtemp(prefix="tri-test-cache-")
os.environ["TRI_CACHE"] = os.environ[_SHARED]


def pytest_unconfigure(config):
    if _OWNER:
        shutil.rmtree(os.environ[_SHARED], ignore_errors=True)
