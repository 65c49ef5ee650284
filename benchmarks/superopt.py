"""The superoptimizer's funnel: regenerate the rule database and print what each stage kept.

Enumerates every sequence up to the given length over the alphabet of
compiler.superopt.enumerate, proves the candidates (compiler.superopt.generate) and
prints the funnel, the rules by pattern length, the sha256 of the rule list and
whether it matches the committed compiler/superopt/rules.json.  Writes the file only
with `--write` (as `tri superopt` does).

    python benchmarks/superopt.py [--length K] [--write]
"""

from __future__ import annotations

import argparse
import time

from compiler.superopt import database


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--length", type=int, choices=(1, 2, 3), default=3)
    parser.add_argument("--write", action="store_true", help="write compiler/superopt/rules.json")
    arguments = parser.parse_args()
    start = time.process_time()
    content = database.build(arguments.length)
    seconds = time.process_time() - start
    header = content["header"]
    for name, count in header["funnel"].items():
        print(f"{name:>16}  {count}")
    for size, count in header["by_length"].items():
        print(f"{'length ' + size:>16}  {count} rules")
    print(f"{'sha256':>16}  {header['sha256']}")
    print(f"{'process time':>16}  {seconds:.1f} s")
    try:
        committed = database.load().header["sha256"]
    except database.DatabaseError as error:
        committed = str(error)
    print(f"{'committed':>16}  {'same' if committed == header['sha256'] else committed}")
    if arguments.write:
        database.write(content)
        print(f"wrote {header['count']} rules to {database.PATH}")


if __name__ == "__main__":
    main()
