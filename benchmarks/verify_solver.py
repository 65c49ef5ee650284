"""The block verifier's solver on the pairs only it decides: verdict and time per pair.

Input: the pairs of tests/adversarial_algebraic.py (each differs, or is equivalent, only
at the roots of a polynomial guard).  Output (stdout, markdown): per pair and direction,
the verdict without the solver (it should be `unknown`), with it, its method, and the
seconds the solver took (wall clock, this machine: cvc5's finite-field solvers are
bounded by time, compiler.verify.solver).  The suite runs all but the slowest two
(tests/verify/test_verify_solver.py); this runs every one.

    python benchmarks/verify_solver.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))

from adversarial_algebraic import DIFFERENT, EQUIVALENT  # noqa: E402

from compiler.verify import check_equivalent  # noqa: E402
from vm.tasm import parse  # noqa: E402


def main() -> None:
    print("| pair | truth | direction | without the solver | with it | method | seconds |")
    print("|---|---|---|---|---|---|---:|")
    decided = total = 0
    for truth, pairs in (("different", DIFFERENT), ("equivalent", EQUIVALENT)):
        for pair in pairs:
            first, second = parse(pair.first, pair.isa), parse(pair.second, pair.isa)
            for direction, (one, other) in (("A, B", (first, second)), ("B, A", (second, first))):
                plain = check_equivalent(one, other, assumptions=pair.assumptions)
                start = time.perf_counter()
                verdict = check_equivalent(one, other, assumptions=pair.assumptions, solver=True)
                seconds = time.perf_counter() - start
                total += 1
                decided += verdict.status == truth
                print(
                    f"| {pair.name} | {truth} | {direction} | {plain.status} | "
                    f"{verdict.status} | {verdict.method} | {seconds:.1f} |"
                )
    print(f"\n{decided} of {total} checks decided right")


if __name__ == "__main__":
    main()
