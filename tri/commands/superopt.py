"""`tri superopt [--length K] [--output FILE] [--check]`: regenerate the superoptimizer's rules.

Enumerates every sequence of up to K instructions over the alphabet of
compiler.superopt.enumerate, proves the cheaper equivalents (compiler.superopt.generate)
and writes the content-hashed rule database (default: the one `-O2` uses,
compiler/superopt/rules.json), then prints the funnel.  `--check` writes nothing and
compares the regenerated rules with the file instead.

Exit codes: 0; 1 when `--check` finds the file different from what generation gives;
2 on bad usage or an unwritable or unreadable file.
"""

from __future__ import annotations

from pathlib import Path

from tri.commands.common import EXIT_FAILED, EXIT_OK, UsageError


def register(commands) -> None:
    parser = commands.add_parser("superopt")
    parser.add_argument(
        "--length",
        type=int,
        choices=(1, 2, 3),
        default=3,
        metavar="K",
        help="longest pattern: 1, 2 or 3 (default 3)",
    )
    parser.add_argument(
        "--output", metavar="FILE", help="where to write (default: the database -O2 uses)"
    )
    parser.add_argument(
        "--check", action="store_true", help="compare with the file instead of writing it"
    )
    parser.set_defaults(handler=command_superopt)


def command_superopt(arguments) -> int:
    from compiler.superopt import database  # imported on use: it loads the verifier

    path = Path(arguments.output) if arguments.output else database.PATH
    content = database.build(arguments.length)
    header = content["header"]
    for name, count in header["funnel"].items():
        print(f"{name:>16}  {count}")
    print(f"{'sha256':>16}  {header['sha256']}")
    if arguments.check:
        try:
            committed = database.load(path)
        except database.DatabaseError as error:
            raise UsageError(f"error: {error}") from None
        if committed.header["sha256"] != header["sha256"]:
            print(f"{path}: differs from the regenerated rules ({committed.header['sha256']})")
            return EXIT_FAILED
        print(f"{path}: up to date")
        return EXIT_OK
    try:
        database.write(content, path)
    except OSError as error:
        raise UsageError(f"error: {path}: cannot write ({error.strerror})") from None
    print(f"wrote {header['count']} rules to {path}")
    return EXIT_OK
