"""The audit on its corpus: how many contracts are decided, how they compare with the
truth, and what each costs.

Input: tests/audit_corpus/ (each audited function annotated `// audit: proven` or
`// audit: refuted ...`, each pair `// equiv: same|different F G`).  Output (stdout,
markdown): per file, functions, goals, how many are proven, refuted and unknown, false
"proven" (the gate: must be 0), wrong verdicts, and the time per goal (median and
slowest, wall clock, this machine), then the same for the equivalence pairs.  Solvers
run with step limits, so the verdicts are the same everywhere; only the times vary.

    python benchmarks/audit.py
"""

from __future__ import annotations

import re
import statistics
import time
from pathlib import Path

from compiler.audit import audit_function, equivalent_functions
from compiler.check.resolve import DEFAULT_LIBRARY, Resolver
from compiler.contracts import CHECK_FLAG
from compiler.pipeline import Options, check_source

CORPUS = Path(__file__).parents[1] / "tests" / "audit_corpus"
AUDIT = re.compile(r"^// audit: (proven|refuted)")
EQUIV = re.compile(r"^// equiv: (same|different) (\w+) (\w+)")
FUNCTION = re.compile(r"^(?:pub )?fn (\w+)")


def checked(path: Path):
    flags = frozenset({"debug", CHECK_FLAG})
    return check_source(path, Options(resolver=Resolver(DEFAULT_LIBRARY, ()), flags=flags))


def annotations(path: Path) -> dict[str, str]:
    found, pending = {}, None
    for line in path.read_text().splitlines():
        if match := AUDIT.match(line):
            pending = match.group(1)
        elif (match := FUNCTION.match(line)) and pending is not None:
            found[match.group(1)] = pending
            pending = None
    return found


def main() -> None:
    print(
        "| file | functions | goals | proven | refuted | unknown | false proven | wrong "
        "| ms per goal (median) | slowest goal, ms |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    totals = [0] * 7
    all_times = []
    for path in sorted(CORPUS.glob("*.tri")):
        expected = annotations(path)
        if not expected:
            continue
        program = checked(path)
        statuses, times, false_proven, wrong = [], [], 0, 0
        for name, truth in expected.items():
            start = time.perf_counter()
            verdicts = audit_function(program, name)
            elapsed = (time.perf_counter() - start) * 1000
            times += [elapsed / max(len(verdicts), 1)] * len(verdicts)
            found = [verdict.status for verdict in verdicts]
            statuses += found
            if truth == "refuted" and set(found) == {"proven"}:
                false_proven += 1
            if (truth == "proven") != (set(found) == {"proven"}):
                wrong += 1
        counts = [statuses.count(s) for s in ("proven", "refuted", "unknown")]
        row = [len(expected), len(statuses), *counts, false_proven, wrong]
        totals = [a + b for a, b in zip(totals, row, strict=True)]
        all_times += times
        print(
            f"| {path.name} | "
            + " | ".join(map(str, row))
            + f" | {statistics.median(times):.0f} | {max(times):.0f} |"
        )
    print(
        "| all | "
        + " | ".join(map(str, totals))
        + f" | {statistics.median(all_times):.0f} | {max(all_times):.0f} |"
    )
    print()
    print(
        "| pairs | equivalent | different | unknown | wrong | ms per pair (median) | slowest, ms |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|")
    results, times, wrong = [], [], 0
    for path in sorted(CORPUS.glob("*.tri")):
        pairs = [m.groups() for line in path.read_text().splitlines() if (m := EQUIV.match(line))]
        if not pairs:
            continue
        program = checked(path)
        for kind, first, second in pairs:
            start = time.perf_counter()
            verdict = equivalent_functions(program, first, second)
            times.append((time.perf_counter() - start) * 1000)
            results.append(verdict.status)
            if verdict.status != ("equivalent" if kind == "same" else "different"):
                wrong += 1
    counts = [results.count(s) for s in ("equivalent", "different", "unknown")]
    print(
        f"| {len(results)} | "
        + " | ".join(map(str, counts))
        + f" | {wrong} | {statistics.median(times):.0f} | {max(times):.0f} |"
    )


if __name__ == "__main__":
    main()
