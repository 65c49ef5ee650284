"""How fast Poseidon2 (compiler.neural.poseidon2) hashes a weight file.

Printed: process time of one permutation in pure Python, and of `hash_bytes` on
100,000 int64 values (800 KB, the size of a ~100K-parameter weight file), which hashes
its leaves on numpy lanes (compiler.neural.poseidon2_numpy).

    python benchmarks/poseidon2_speed.py
"""

from __future__ import annotations

import time

import numpy as np

from compiler.neural.poseidon2 import hash_bytes, permute

VALUES = 100_000
PERMUTATIONS = 2_000


def main() -> None:
    start = time.process_time()
    state = list(range(8))
    for _ in range(PERMUTATIONS):
        state = permute(state)
    per_permutation = (time.process_time() - start) / PERMUTATIONS
    data = np.random.default_rng(0).integers(-(2**20), 2**20, VALUES).astype("<i8").tobytes()
    start = time.process_time()
    hash_bytes(data)
    seconds = time.process_time() - start
    print(f"one permutation, pure Python:      {per_permutation * 1e6:8.1f} µs")
    print(f"hash_bytes, {len(data):,} bytes:       {seconds:8.3f} s")


if __name__ == "__main__":
    main()
