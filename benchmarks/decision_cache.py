"""What the `-O2` decision cache (compiler.search.cache) saves: the stdlib built at `-O2`
twice, each build in its own process, against one fresh cache directory.

Printed: the process time of the first build (every block searched, its decision
written), of the second (every decision read from the cache and re-validated), and of a
build with the cache off; and whether the three builds' TASM are byte-identical.

    python benchmarks/decision_cache.py
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STDLIB = sorted((ROOT / "stdlib").rglob("*.tri"))


def build_stdlib() -> dict:
    """Build every stdlib module at -O2 in this process: process time, TASM digest."""
    from compiler.check.checker import check
    from compiler.check.resolve import load_project
    from compiler.driver import compile_program

    checked = [check(load_project(path)) for path in STDLIB]
    start = time.process_time()
    digest = hashlib.sha256()
    for program in checked:
        digest.update(compile_program(program, 2).text.encode())
    return {"seconds": time.process_time() - start, "tasm": digest.hexdigest()}


def in_process(cache: str) -> dict:
    environment = {**os.environ, "TRI_CACHE": cache, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, __file__, "--build"]
    result = subprocess.run(command, env=environment, capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


def main() -> int:
    if sys.argv[1:] == ["--build"]:
        print(json.dumps(build_stdlib()))
        return 0
    with tempfile.TemporaryDirectory(prefix="tri-decisions-") as directory:
        first, second = in_process(directory), in_process(directory)
    off = in_process("off")
    print(f"stdlib at -O2, {len(STDLIB)} modules, process time of the back end:")
    print(f"  cache off:                 {off['seconds']:7.2f} s")
    print(f"  first build, empty cache:  {first['seconds']:7.2f} s")
    print(f"  second build, from cache:  {second['seconds']:7.2f} s")
    same = first["tasm"] == second["tasm"] == off["tasm"]
    print(f"  TASM identical in all three: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
