"""The same source and level give byte-identical TASM in every process, whatever the hash seed.

Each child process (tests/build_digests.py) builds every stdlib module and corpus program at
the levels it is given and prints one digest per build, which must be the digest of the
golden file (tests/golden/), the text tests/whole/test_golden.py compares with a build in the
test's own process, under its own hash seed: five child processes with five PYTHONHASHSEED
values at the classical levels, one at -O2 and -O3 (whose search is the slow part of a
build; with the test process, two seeds).  Generated programs (the fuzzer's, wide
functions, deep spills), which have no golden files, are built in two processes that
must agree.  Object addresses differ between processes too, so a choice that follows a set
of objects hashed by identity shows up here.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

from golden_tasm import GOLDEN, sources

from compiler.levels import CLASSICAL_LEVELS, LEVELS

CHILD = Path(__file__).parents[1] / "build_digests.py"
AT_ONCE = 2  # child processes running together (the suite runs on two cores)


def digests(seeds, *arguments: str) -> dict[int, str]:
    """The child's output for each hash seed."""
    outputs = {}
    seeds = list(seeds)
    for start in range(0, len(seeds), AT_ONCE):
        running = {
            seed: subprocess.Popen(
                [sys.executable, str(CHILD), *arguments],
                # no decision cache: each process searches every block itself
                env={**os.environ, "PYTHONHASHSEED": str(seed), "TRI_CACHE": "off"},
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for seed in seeds[start : start + AT_ONCE]
        }
        for seed, process in running.items():
            out, err = process.communicate()
            assert process.returncode == 0, f"PYTHONHASHSEED={seed}: {err[-2000:]}"
            outputs[seed] = out
    return outputs


def differing(outputs: dict[int, str]) -> list[str]:
    """The builds whose digest is not the same in every process."""
    lines = Counter(line for out in outputs.values() for line in out.splitlines())
    return sorted({line.rsplit(" ", 1)[0] for line, count in lines.items() if count < len(outputs)})


def golden_digests(levels) -> dict[str, str]:
    """`NAME -O<level>` -> the sha256 of its golden file, for every golden source."""
    return {
        f"{name} -O{level}": hashlib.sha256((GOLDEN / f"O{level}" / name).read_bytes()).hexdigest()
        for level in levels
        for name in sources()
    }


def unlike_golden(outputs: dict[int, str], levels) -> list[str]:
    """The builds whose digest in some process is not the golden file's."""
    golden = golden_digests(levels)
    found = []
    for seed, out in outputs.items():
        digests = dict(line.rsplit(" ", 1) for line in out.splitlines())
        assert set(digests) == set(golden), f"PYTHONHASHSEED={seed}: another set of builds"
        found += [f"{key} (PYTHONHASHSEED={seed})" for key in golden if digests[key] != golden[key]]
    return found


def test_stdlib_and_corpus_build_as_the_golden_files_under_five_hash_seeds():
    outputs = digests(range(1, 6), "--levels", ",".join(map(str, CLASSICAL_LEVELS)))
    unlike = unlike_golden(outputs, CLASSICAL_LEVELS)
    assert not unlike, f"TASM unlike the golden file (is test_golden green?): {unlike}"


def test_the_search_builds_as_the_golden_files_under_another_hash_seed():
    searched = [level for level in LEVELS if level not in CLASSICAL_LEVELS]
    assert searched
    outputs = digests((2024,), "--levels", ",".join(map(str, searched)))
    unlike = unlike_golden(outputs, searched)
    assert not unlike, f"TASM unlike the golden file (is test_golden green?): {unlike}"


def test_generated_programs_build_identically_under_two_hash_seeds():
    outputs = digests((7, 1234), "--generated", "30", "--levels", "0,1,2")
    assert not differing(outputs), f"different TASM across processes: {differing(outputs)}"
    [out] = set(outputs.values())
    names = {line.split()[0] for line in out.splitlines()}
    assert {f"wide{seed}" for seed in range(30)} <= names and "spills_params20" in names
