"""`tri lsp`: the language server (tri.lsp) on standard input and output.

An editor starts it and speaks the Language Server Protocol to it: diagnostics as `tri
check` reports them, hover, definition, document symbols, completion after `m.` and
formatting as `tri fmt` does ([docs/editor.md](../../docs/editor.md#language-server)).
`-I`, `--stdlib` and `--profile` apply to every file, as they do to `tri check`; each
file's own `tri.toml` (the nearest above it) adds its settings under them.

The server needs pygls, the `lsp` extra; without it the command says how to install it
and exits 2.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from tri.commands.common import EXIT_OK, EXIT_USAGE
from tri.commands.source import add_source_options

NEEDED = ("pygls", "lsprotocol", "cattrs")  # what `pip install 'tri[lsp]'` brings


def register(commands) -> None:
    parser = commands.add_parser("lsp")
    parser.add_argument(
        "--stdio",
        action="store_true",
        help="speak over standard input and output (the default; editors may pass it)",
    )
    add_source_options(parser)
    parser.set_defaults(handler=command_lsp)


def command_lsp(arguments) -> int:
    try:
        from tri.lsp.analysis import ServerOptions
        from tri.lsp.server import serve
    except ImportError as problem:
        if (problem.name or "").split(".")[0] not in NEEDED:
            raise
        print(
            f"error: tri lsp needs {problem.name.split('.')[0]}, which is not installed: "
            "pip install 'tri[lsp]'",
            file=sys.stderr,
        )
        return EXIT_USAGE
    logging.basicConfig(
        stream=sys.stderr, level=logging.WARNING, format="tri lsp: %(levelname)s: %(message)s"
    )
    options = ServerOptions(
        include=tuple(arguments.include),
        stdlib=None if arguments.stdlib is None else Path(arguments.stdlib),
        profile=arguments.profile,
    )
    channel_in, channel_out = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # whatever is printed goes to the log, never into the protocol
    serve(options, channel_in, channel_out)
    return EXIT_OK
