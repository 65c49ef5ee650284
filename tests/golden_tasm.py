"""Golden TASM: the committed output of `tri build` for every stdlib module and corpus program.

For each level of compiler.levels.LEVELS, `tests/golden/O<level>/` holds what
`tri build FILE -O<level>` prints for every stdlib module (built alone, as
`tri build stdlib/x/y.tri` does: `stdlib/x/y.tasm`) and every program of the corpus
(`tests.corpus.corpus("valid")`, which leaves out the modules under `lib/`: they are
compiled inside the programs that use them; `programs/NAME.tasm`).  The text is made by
the function `tri build` itself uses (`tri.commands.build.build_output`, from arguments
parsed by the real command line), so the files are exactly the command's output.

tests/whole/test_golden.py compares them byte for byte.  When a change to the compiler changes
its output on purpose, regenerate them all, review the diff and commit it:

    python tests/golden_tasm.py --update
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import io
import sys
from pathlib import Path

from corpus import corpus

from compiler.check.resolve import DEFAULT_LIBRARY
from compiler.levels import LEVELS
from tri.cli import build_parser
from tri.commands.build import build_output

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).parent / "golden"
UPDATE_COMMAND = "python tests/golden_tasm.py --update"


def sources() -> dict[str, Path]:
    """Every source with a golden file: its path under a level's folder -> the source."""
    found = {}
    for path in sorted(DEFAULT_LIBRARY.rglob("*.tri")):
        found[str(Path("stdlib") / path.relative_to(DEFAULT_LIBRARY).with_suffix(".tasm"))] = path
    for path in corpus("valid"):
        found[f"programs/{path.stem}.tasm"] = path
    return found


def build(path: Path, level: int) -> str:
    """`tri build PATH -O<level>`'s output (its warnings, on stderr, are not kept)."""
    arguments = build_parser().parse_args(["build", str(path), f"-O{level}"])
    with contextlib.redirect_stderr(io.StringIO()):
        return build_output(arguments)


def expected() -> dict[Path, str]:
    """The golden file of every source at every level -> its text, as built now."""
    return {
        GOLDEN / f"O{level}" / name: build(path, level)
        for level in LEVELS
        for name, path in sources().items()
    }


def committed() -> set[Path]:
    return set(GOLDEN.rglob("*.tasm"))


def short_diff(path: Path, new: str, lines: int = 30) -> str:
    old = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    name = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
    diff = list(difflib.unified_diff(old, new.splitlines(), name, name + " (now)", lineterm=""))
    more = f"\n... {len(diff) - lines} more lines" if len(diff) > lines else ""
    return "\n".join(diff[:lines]) + more


def update() -> list[Path]:
    """Write every golden file and delete those of sources that no longer exist; the
    paths that changed."""
    texts = expected()
    changed = []
    for path, text in texts.items():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            changed.append(path)
    for path in committed() - set(texts):
        path.unlink()
        changed.append(path)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--update", action="store_true", help="rewrite the golden files")
    arguments = parser.parse_args(argv)
    if arguments.update:
        changed = update()
        for path in changed:
            print(f"updated {path.relative_to(ROOT)}")
        print(f"{len(changed)} golden files changed")
        return 0
    texts = expected()
    stale = [path for path, text in texts.items() if not path.exists() or path.read_text() != text]
    for path in stale:
        print(short_diff(path, texts[path]))
    print(f"{len(stale)} of {len(texts)} golden files differ; to regenerate: {UPDATE_COMMAND}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
