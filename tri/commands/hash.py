"""`tri hash FILE_OR_DIR... [--full] [--json]`: a content hash per function.

Each function of each file (the file's own, not those of the modules it uses) gets the
Tip5 hash of its normal form (compiler.content_hash): the same however its locals are
named, its lines laid out or commented; another when anything it means changes.  A
line per function, `HASH module::function`, the hash's first word in hex (16 digits) or,
with `--full`, all five words (80 digits); `--json` prints one object.

Exit codes: 0; 2 on bad usage or a file that does not parse.
"""

from __future__ import annotations

import json

from tri.commands.common import EXIT_OK, UsageError, existing_source_files


def register(commands) -> None:
    parser = commands.add_parser("hash")
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="FILE_OR_DIR",
        help=".tri files or directories (default: the project's directory)",
    )
    parser.add_argument("--full", action="store_true", help="all five words of each hash")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=command_hash)


def command_hash(arguments) -> int:
    from compiler.content_hash import function_hash
    from compiler.diagnostics import CompileError, read_text
    from compiler.syntax import ast
    from compiler.syntax.parser import parse
    from tri.commands.source import render_all

    rows = []
    for path in existing_source_files(arguments.paths):
        try:
            source = parse(read_text(path), str(path))
        except CompileError as failure:
            raise UsageError(render_all(failure.diagnostics)) from None
        module = source.name
        for item in source.items:
            if isinstance(item, ast.Function):
                digest = function_hash(item)
                rows.append((str(path), module, item.name, digest))
    if arguments.json:
        entries = [
            {"file": file, "module": module, "function": name, "hash": digest.text(True)}
            for file, module, name, digest in rows
        ]
        print(json.dumps({"functions": entries}))
    else:
        for _, module, name, digest in rows:
            print(f"{digest.text(arguments.full)} {module}::{name}")
    return EXIT_OK
