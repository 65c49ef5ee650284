"""The same source and level give byte-identical TASM in every process, whatever the hash seed.

Each child process (tests/build_digests.py) builds every stdlib module and corpus program at
the levels it is given and prints one digest per build; ten processes with ten
PYTHONHASHSEED values must print the same at the classical levels, two at -O2 (whose
search is the slow part of a build).  Generated programs (the fuzzer's, wide functions,
deep spills) are built the same way in three processes.  Object addresses differ between
processes too, so a choice that follows a set of objects hashed by identity shows up here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

from golden_tasm import sources

from compiler.levels import CLASSICAL_LEVELS, LEVELS

CHILD = Path(__file__).parent / "build_digests.py"
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


def test_stdlib_and_corpus_build_identically_under_ten_hash_seeds():
    classical = ",".join(map(str, CLASSICAL_LEVELS))
    outputs = digests(range(1, 11), "--levels", classical)
    assert not differing(outputs), f"different TASM across processes: {differing(outputs)}"
    [out] = set(outputs.values())
    assert len(out.splitlines()) == len(sources()) * len(CLASSICAL_LEVELS)


def test_the_search_builds_identically_under_two_hash_seeds():
    searched = [level for level in LEVELS if level not in CLASSICAL_LEVELS]
    outputs = digests((3, 2024), "--levels", ",".join(map(str, searched)))
    assert not differing(outputs), f"different TASM across processes: {differing(outputs)}"
    [out] = set(outputs.values())
    assert len(out.splitlines()) == len(sources()) * len(searched) > 0


def test_generated_programs_build_identically_under_three_hash_seeds():
    outputs = digests((0, 7, 1234), "--generated", "30", "--levels", "0,1,2")
    assert not differing(outputs), f"different TASM across processes: {differing(outputs)}"
    [out] = set(outputs.values())
    names = {line.split()[0] for line in out.splitlines()}
    assert {f"wide{seed}" for seed in range(30)} <= names and "spills_params20" in names
