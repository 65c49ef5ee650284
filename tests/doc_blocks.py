"""The fenced blocks of a document, for the tests that run what docs/ shows.

`fenced(text, language)` -> the text of every ```language block, in order
(tests/front_end/test_guide.py: the guide's ```trident programs; tests/optimizer/test_optimizer_experiments.py:
the experiments page's programs and ```console sessions).  `session(text)` splits a
```console block into (command, the output lines shown after it) pairs: a command is a
line starting with `$ `.
"""

import re


def fenced(text: str, language: str) -> list[str]:
    return re.findall(rf"```{re.escape(language)}\n(.*?)```", text, re.S)


def session(block: str) -> list[tuple[str, list[str]]]:
    steps: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line)
        else:
            raise ValueError(f"output before any command: {line!r}")
    return steps
