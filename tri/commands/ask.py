"""`tri ask "QUESTION"`: an arithmetic question in words, answered exactly on the VM.

The question is normalized into the canonical form (tri.ask.rules, tri.ask.learned), which
is compiled to a program in the language and run (tri.ask.answer).  Printed: the canonical
form and the answer, or why the question was refused; `--show program`, `--show tasm` or
`--show wasm` also prints the program, its TASM or its WebAssembly text.  `--json` prints
one object: `question`, `canonical`, `program`, `answer` (the exact value as text, null
when refused), `refused` (null or the reason), `tier`, `vm` (`cycles`, `padded_height`;
null when nothing ran) and `wasm` (`fuel`: the same program run on WebAssembly, which must
give the same answer; null without the `wasm` extra).

Exit codes: 0 answered; 1 refused; 2 on bad usage.
"""

from __future__ import annotations

import json

from tri.commands.common import EXIT_OK

EXIT_REFUSED = 1
SHOWN = ("program", "tasm", "wasm")


def register(commands) -> None:
    from tri.ask.answer import TIERS

    parser = commands.add_parser("ask")
    parser.add_argument("question", help="the question, in quotes")
    parser.add_argument(
        "--tier",
        choices=TIERS,
        default="auto",
        help="who normalizes the question: the deterministic rules, the learned tier, or auto "
        "(default): the rules, the learned tier where they refuse, refused where they disagree",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--show",
        choices=SHOWN,
        action="append",
        default=[],
        help="also print the program it was compiled to, its TASM, or its WebAssembly text "
        "(repeatable)",
    )
    parser.set_defaults(handler=command_ask)


def command_ask(arguments) -> int:
    from tri.ask.answer import ask

    answer = ask(arguments.question, arguments.tier)
    if arguments.json:
        print(json.dumps(answer.as_json(), indent=2))
        return EXIT_OK if answer.refused is None else EXIT_REFUSED
    if answer.canonical is not None:
        print(f"canonical: {answer.canonical}")
    for what in arguments.show:
        text = {"program": answer.program, "tasm": answer.tasm, "wasm": answer.wat}[what]
        if text is not None:
            print(f"{what}:")
            print(text.rstrip("\n"))
    if answer.refused is not None:
        print(f"refused: {answer.refused}")
        return EXIT_REFUSED
    print(f"answer: {answer.answer}")
    return EXIT_OK
