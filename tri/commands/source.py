"""Loading .tri source for the commands: module roots, checking, printing diagnostics."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from compiler.levels import DEFAULT_LEVEL, LEVELS
from tri.commands.common import OUTPUT, UsageError, missing

if TYPE_CHECKING:  # the front end loads on use, not when a command is registered
    from compiler.check.checker import Checked
    from compiler.check.resolve import Resolver
    from compiler.diagnostics import Diagnostic


def add_source_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-I",
        dest="include",
        action="append",
        default=[],
        metavar="DIR",
        help="another directory to look for imported modules in (repeatable)",
    )
    parser.add_argument(
        "--stdlib",
        type=Path,
        default=None,
        metavar="DIR",
        help="library root laid out like stdlib/ (default: the project's, else the bundled one)",
    )
    parser.add_argument(
        "--profile",
        choices=PROFILES,
        default=None,
        help="the #[cfg(flag)] items kept: those for 'debug' (default) or 'release'",
    )


def add_contract_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--check-contracts",
        action="store_true",
        help="check each #[requires(...)] at a call and each #[ensures(...)] at its return: "
        "a contract that does not hold fails there",
    )


PROFILES = ("debug", "release")  # the active #[cfg] flag (docs/reference.md, Attributes)


def add_level_options(parser: argparse.ArgumentParser) -> None:
    """`-O LEVEL` (also written `-O0`, `-O1`) and `--no-opt`, its older spelling of -O0."""
    levels = "; ".join(f"{level}: {meaning}" for level, meaning in LEVELS.items())
    parser.add_argument(
        "-O",
        dest="level",
        type=int,
        choices=sorted(LEVELS),
        default=None,
        metavar="LEVEL",
        help=f"optimization level (default {DEFAULT_LEVEL}): {levels}",
    )
    parser.add_argument(
        "--no-opt",
        dest="level",
        action="store_const",
        const=0,
        default=None,
        help="the same as -O0",
    )


def add_model_options(parser: argparse.ArgumentParser) -> None:
    """The -O3 model's options, on every command that compiles a program at a level:
    where the shipped model runs, or a model program of the user's and its weights."""
    parser.add_argument(
        "--model-engine",
        choices=("numpy", "vm"),
        default="numpy",
        help="where the -O3 model runs: numpy (default) or its own program, std.nn.optimizer, "
        "on the VM (the same TASM)",
    )
    parser.add_argument(
        "--model",
        metavar="FILE.tri",
        help="at -O3, this model program instead of the shipped model, run on the JIT "
        "(docs/optimizer-experiments.md); needs --weights",
    )
    parser.add_argument(
        "--weights",
        metavar="FILE",
        help="the -O3 model's weight file (default: the shipped one, or $TRI_WEIGHTS)",
    )


def add_profile_option(parser: argparse.ArgumentParser) -> None:
    """`--profile-input WORDS`: the public input of one representative run, for `-O2`."""
    from tri.commands.common import field_list

    parser.add_argument(
        "--profile-input",
        dest="profile_inputs",
        type=field_list,
        action="append",
        default=[],
        metavar="1,2,3",
        help="at -O2 and -O3, the public input of one representative run (repeatable; @FILE "
        "reads the words): loops are unrolled where these runs say the program is cheaper",
    )


MAXIMUM_SEARCH_BUDGET = 64.0  # --search-budget: a bound, so a build stays bounded


def search_budget(text: str) -> float:
    """A `--search-budget` factor: a number above 0, at most `MAXIMUM_SEARCH_BUDGET`."""
    try:
        factor = float(text)
    except ValueError:
        factor = None
    if factor is None or not 0 < factor <= MAXIMUM_SEARCH_BUDGET:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a factor above 0 and at most {MAXIMUM_SEARCH_BUDGET:g} (1 is the "
            "default budget, 0.5 half of it)"
        )
    return factor


def add_budget_options(parser: argparse.ArgumentParser) -> None:
    """How much the -O2/-O3 search may do, and where: `--search-budget`, `--hot-first`."""
    parser.add_argument(
        "--search-budget",
        type=search_budget,
        default=None,
        metavar="FACTOR",
        help="at -O2 and -O3, multiply the search's budget for every block by FACTOR (default "
        "1; lower builds faster: at 0.05 the corpus's search takes a quarter of the time)",
    )
    parser.add_argument(
        "--hot-first",
        action="store_true",
        help="with --profile-input, spend the same total budget on the blocks the runs execute "
        "most first, and give back what a search does not use",
    )


def budget_plan(arguments, level: int):
    """The search lowerer's `BudgetPlan` (compiler.search.budget) the budget options ask
    for, None for the default; a UsageError below -O2 or for --hot-first with no profile."""
    factor = getattr(arguments, "search_budget", None)
    hot = getattr(arguments, "hot_first", False)
    if level < 2 and (factor is not None or hot):
        option = "--search-budget" if factor is not None else "--hot-first"
        raise UsageError(f"error: {option} is for the -O2 and -O3 search; add -O2 or -O3")
    if hot and not getattr(arguments, "profile_inputs", None):
        raise UsageError(
            "error: --hot-first spends the search budget on the blocks the --profile-input runs "
            "execute most; add --profile-input"
        )
    if factor is None and not hot:
        return None
    from compiler.search.budget import BudgetPlan

    return BudgetPlan(1.0 if factor is None else factor, spread="profile" if hot else "even")


def profile_for(arguments, checked):
    """The `compile_program` profile that `--profile-input` gives (None without one): a
    program -> its runs on those inputs that finish."""
    inputs = getattr(arguments, "profile_inputs", None)
    if not inputs:
        return None
    if checked.entry is None:
        raise UsageError("error: --profile-input runs a program; a module alone has no input")
    from vm import interp

    def profile(program) -> list:
        runs = [
            interp.execute(program, words, (), (), {}, interp.DEFAULT_MAX_STEPS) for words in inputs
        ]
        return [run for run in runs if run.error is None]

    return profile


def resolver_for(arguments) -> Resolver:
    """The module roots: -I directories (a warning for one that is not a directory) and the
    library."""
    from compiler.check.resolve import DEFAULT_LIBRARY, Resolver

    for directory in arguments.include:
        if not Path(directory).is_dir() and not OUTPUT.quiet:
            what = "a file" if Path(directory).exists() else "not found"
            print(
                f"warning: -I {directory}: {what}; -I names a directory to look for modules in",
                file=sys.stderr,
            )
    library = arguments.stdlib or DEFAULT_LIBRARY
    return Resolver(library, tuple(Path(directory) for directory in arguments.include))


def flags_for(arguments) -> frozenset[str]:
    """The #[cfg] flag of the profile, and compiler.contracts.CHECK_FLAG with
    `--check-contracts`."""
    from compiler.contracts import CHECK_FLAG

    flags = {arguments.profile or "debug"}
    if getattr(arguments, "check_contracts", False):
        flags.add(CHECK_FLAG)
    return frozenset(flags)


def render_all(diagnostics: list[Diagnostic]) -> str:
    from compiler.diagnostics import render_files

    return render_files(diagnostics, OUTPUT.color, as_json=OUTPUT.message_format == "json")


def print_diagnostics(diagnostics: list[Diagnostic], stream=None) -> None:
    """Print diagnostics to `stream` (default stderr; with --quiet, only errors)."""
    if OUTPUT.quiet:
        diagnostics = [diagnostic for diagnostic in diagnostics if diagnostic.is_error]
    if diagnostics:
        print(render_all(diagnostics), file=stream or sys.stderr)


def check_path(
    path: Path, resolver: Resolver, flags: frozenset[str] = frozenset({"debug"}), dump=None
) -> tuple[Checked | None, list[Diagnostic]]:
    """Load and check one file through the pipeline's front end: (the checked program or
    None, every diagnostic).  `dump` as in compiler.pipeline.run_steps."""
    if not path.exists():
        raise missing(path)
    if path.is_dir():
        raise UsageError(f"error: {path} is a directory; name a .tri file")
    from compiler.diagnostics import CompileError
    from compiler.pipeline import Options, check_source  # the back end loads on use

    try:
        checked = check_source(path, Options(resolver=resolver, flags=flags), dump)
    except CompileError as failure:
        return None, failure.diagnostics
    return checked, checked.diagnostics


def load_checked(path_text: str, arguments, dump=None) -> Checked:
    """A checked program for run/build; errors become a UsageError (exit 2) showing them all."""
    checked, diagnostics = check_path(
        Path(path_text), resolver_for(arguments), flags_for(arguments), dump
    )
    if checked is None:
        raise UsageError(render_all(diagnostics))
    print_diagnostics(diagnostics)  # warnings
    return checked
