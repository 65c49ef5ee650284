"""What the command-line tests share: running `tri` in-process, and the JSON height names."""

from tri.cli import main

# The order of `heights` in `tri run --json` (issue 2), written out independently of vm/tables.py.
HEIGHT_NAMES = [
    "program",
    "processor",
    "op_stack",
    "ram",
    "jump_stack",
    "hash",
    "cascade",
    "lookup",
    "u32",
]


def tri(capsys, *arguments):
    """Run `tri ARGUMENTS...` in this process: (exit code, stdout, stderr)."""
    code = main([str(argument) for argument in arguments])
    captured = capsys.readouterr()
    return code, captured.out, captured.err
