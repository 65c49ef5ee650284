"""The `-O3` results table (issue 13, item 7): policies against the controls, same blocks.

For the held-out modules and, labelled as such, the training modules
(compiler.neural.dataset.split), at a small and a larger node budget, every module is
built once per row:

* `-O1`: the classical build, the reference of every column;
* `unguided search`: `-O2`'s search (compiler.blocks.schedule.search_schedule);
* `search + <policy>`: the policy-guided search (compiler.search.guided) with the
  uniform-random control, the frequency-table control, and every `--policy` given; one
  such row per `--guide-weights` weight (0 by default: the policy breaks A*'s ties);
* `led search + <policy>`: the search the policy leads (compiler.search.guided
  `led_schedule`: the state the policy doubts least is expanded next), what `-O3` runs;
* `greedy + <policy>`: greedy decoding alone (no search), for the same policies;
* `decode, search + <policy>`: the greedy decode, then the search it guides with the
  states left of the budget, bounded by the decode: the two together, as `-O3` runs them.

Every searched row uses compiler.search.lowerer's `SearchLowerer` with the row's
strategy on whole blocks of up to `WHOLE` instructions at the row's node budget, and no
windows (so the rows differ only in the strategy); candidates are checked by
compiler.verify under the block's contract and used only where strictly cheaper, and a
program keeps its `-O1` build unless strictly cheaper as a whole (compiler.pipeline).

Columns: the funnel (optimizer.md §10: blocks seen, candidates, valid (a straight-line
program with the block's stack effect), verified equivalent, strictly cheaper, applied)
-- a candidate is any code that differs from the block's `-O1` code: the superoptimizer's
rules rewrite it before any search, so every searched row shares those candidates and
`found` counts what the row's strategy itself returned (schedules strictly cheaper than
the rules' output);
instructions, total cycles and summed padded heights over the corpus programs' run cases
against `-O1`, runs whose padded height falls, search states expanded and process seconds
in the strategy.  `<` not `<=`: identical output is not a win.

    python benchmarks/neural.py [--markdown] [--budgets 100,1000] [--policy module:callable]
        [--model FILE.tri --weights W ...] [--greedy-only] [--modules N] [--held-out-only]
        [--guide-weights 0,1,2]

A `--policy` names a callable of no arguments that returns a `Policy`
(compiler.search.moves); it adds its search, greedy and decode-then-search rows.  Each
`--model` adds a model program of the user's with the weight file of the `--weights` in
the same position the same way (compiler.neural.program_model, on the JIT;
docs/optimizer-experiments.md), named by both files.  `--greedy-only` keeps the `-O1` and
greedy rows, `--modules N` the first N modules of each part: a quick comparison.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path

from report import print_table  # benchmarks/report.py
from search import run_cases  # benchmarks/search.py

from compiler.blocks.dag import DagError, build_dag
from compiler.blocks.schedule import Result, cost, search_schedule
from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.driver import compile_program
from compiler.lower.classical import CLASSICAL
from compiler.neural.dataset import split
from compiler.search.guided import decode_greedy, guided_schedule, led_schedule
from compiler.search.lowerer import SearchLowerer
from compiler.search.policies import UniformRandomPolicy, frequency_policy
from vm.tables import heights

ROOT = Path(__file__).resolve().parent.parent
WHOLE = 24  # blocks of up to this many instructions are searched (compiler.neural.dataset)
BUDGETS = (100, 1000)


class Strategy:
    """A row's scheduler for `SearchLowerer`, counting what it returns."""

    def __init__(self, search):
        self.search = search
        self.found = 0  # schedules returned (strictly cheaper than the bound)
        self.expanded = 0
        self.seconds = 0.0

    def __call__(self, dag, budget, bound) -> Result:
        begin = time.process_time()
        result = self.search(dag, budget, bound)
        self.seconds += time.process_time() - begin
        self.expanded += result.expanded
        self.found += result.instructions is not None
        return result


class CountingLowerer(SearchLowerer):
    """`SearchLowerer`, also counting the valid candidates: those that differ from the
    baseline and are a straight-line program with the baseline's stack effect."""

    valid = 0
    current: list = []

    def choose(self, block, baseline):
        self.current = baseline
        return super().choose(block, baseline)

    def search(self, start, dont_care, funnel=None):
        schedule, optimal = super().search(start, dont_care, funnel)
        if schedule != self.current and _effect(schedule) == _effect(self.current):
            self.valid += 1
        return schedule, optimal


def _effect(instructions) -> int | None:
    """The words a straight-line program adds to the stack; None if it is not one."""
    try:
        built = build_dag(instructions)
    except DagError:
        return None
    return len(built.exit) - built.entry


def guided(policy, weight: int = 0):
    def search(dag, budget, bound):
        return guided_schedule(dag, policy, budget, bound, weight)

    return search


def led(policy):
    def search(dag, budget, bound):
        return led_schedule(dag, policy, budget, bound)

    return search


def greedy(policy):
    def search(dag, budget, bound):
        result = decode_greedy(policy, dag, bound[0])  # no longer than the block's code
        if result.instructions is None or cost(result.instructions) >= bound:
            return Result(None, False, result.expanded)
        return result

    return search


def decode_then_search(policy):
    """The policy's greedy decode, then the search it guides with the states left of the
    budget, bounded by the decode when that is cheaper (what `-O3` does after `-O2`'s
    search, compiler.search.lowerer): the decode's moves count against the budget."""

    def search(dag, budget, bound):
        decoded = decode_greedy(policy, dag, bound[0])
        best = None
        if decoded.instructions is not None and cost(decoded.instructions) < bound:
            best, bound = decoded.instructions, cost(decoded.instructions)
        left = max(0, budget - decoded.expanded)
        result = guided_schedule(dag, policy, left, bound)
        if result.instructions is not None:
            best = result.instructions
        return Result(best, result.optimal, decoded.expanded + result.expanded)

    return search


def strategies(policies: list, weights=(0,), greedy_only: bool = False) -> list[tuple[str, object]]:
    """(row name, search) per row after `-O1`: a search row per policy and weight, a led
    search row, a greedy row and a decode-then-search row per policy (`greedy_only`: the
    greedy rows alone)."""
    if greedy_only:
        return [(f"greedy + {name}", greedy(policy)) for name, policy in policies]
    rows = [("unguided search", search_schedule)]
    for weight in weights:
        label = "search" if weight == 0 else f"search (weight {weight})"
        rows += [(f"{label} + {name}", guided(policy, weight)) for name, policy in policies]
    rows += [(f"led search + {name}", led(policy)) for name, policy in policies]
    rows += [(f"greedy + {name}", greedy(policy)) for name, policy in policies]
    rows += [(f"decode, search + {name}", decode_then_search(policy)) for name, policy in policies]
    return rows


def measure(modules: list[str], search, budget: int) -> dict:
    """One row over `modules`: `search` None is `-O1`."""
    strategy = None if search is None else Strategy(search)
    figures = dict.fromkeys(("blocks", "candidates", "verified", "cheaper", "applied"), 0)
    figures |= {"valid": 0, "instructions": 0, "programs": []}
    for module in modules:
        path = ROOT / module
        checked = check(load_project(path))
        if strategy is None:
            recorder = BlockCounter()
            built = compile_program(checked, 1, lowerer=recorder)
            figures["blocks"] += recorder.blocks
        else:
            # no decision cache: every row runs its own strategy on every block
            lowerer = CountingLowerer(
                whole=WHOLE, whole_budget=budget, schedule=strategy, windows=False, cache=None
            )
            built = compile_program(checked, 2, lowerer=lowerer)
            for name in ("blocks", "candidates", "verified", "cheaper", "applied"):
                figures[name] += getattr(lowerer.funnel, name)
            figures["valid"] += lowerer.valid
        figures["instructions"] += len(built.program.ops)
        if module.startswith("tests/"):
            figures["programs"].append(run_cases(built.program, path))
    figures["found"] = 0 if strategy is None else strategy.found
    figures["expanded"] = 0 if strategy is None else strategy.expanded
    figures["seconds"] = 0.0 if strategy is None else strategy.seconds
    return figures


class BlockCounter:
    """The classical block lowerer, counting the blocks of an `-O1` build."""

    name = "classical"

    def __init__(self):
        self.blocks = 0

    def lower_block(self, block):
        self.blocks += 1
        return CLASSICAL.lower_block(block)


def compare(row: dict, control: dict) -> tuple[str, str, str]:
    """(cycles, padded heights, runs whose padded height falls) against `-O1`, over the
    runs that finish in both."""
    cycles = [0, 0]
    padded = [0, 0]
    lower = total = 0
    for mine, theirs in zip(row["programs"], control["programs"]):
        for after, before in zip(mine, theirs):
            if before.error is not None or after.error is not None:
                continue
            total += 1
            cycles[0] += before.cycles
            cycles[1] += after.cycles
            height_before = heights(before).padded_height
            height_after = heights(after).padded_height
            padded[0] += height_before
            padded[1] += height_after
            lower += height_after < height_before
    change = 100 * (cycles[1] / max(1, cycles[0]) - 1)
    return f"{cycles[1]} ({change:+.2f}%)", f"{padded[1]}", f"{lower}/{total}"


def table(title: str, modules: list[str], budget: int, rows: list, markdown: bool) -> None:
    control = measure(modules, None, budget)
    lines = []
    for name, search in [("-O1", None), *rows]:
        figures = control if search is None else measure(modules, search, budget)
        cycles, padded, lower = compare(figures, control)
        lines.append(
            (
                name,
                str(figures["blocks"]),
                str(figures["found"]),
                *(str(figures[key]) for key in ("candidates", "valid", "verified")),
                *(str(figures[key]) for key in ("cheaper", "applied", "instructions")),
                cycles,
                padded,
                lower,
                str(figures["expanded"]),
                f"{figures['seconds']:.1f}",
            )
        )
        print(f"  {title}: {name} done", file=sys.stderr, flush=True)
    header = (
        "row", "blocks", "found", "candidates", "valid", "verified", "strictly cheaper", "applied",
        "instructions", "cycles", "padded heights", "runs lower", "expanded", "search s",
    )  # fmt: skip
    print_table(title, header, lines, markdown, frozenset({"row"}))
    print()


def load_policy(text: str):
    """`module:callable` -> (name, policy): the name is `model` and the first 12 digits of
    the policy's identity (a weights hash) or the identity itself when short."""
    module_name, _, attribute = text.partition(":")
    policy = getattr(importlib.import_module(module_name), attribute)()
    identity = policy.identity
    return (f"model {identity[:12]}" if len(identity) > 16 else identity), policy


def program_policy(model: str, weights: str):
    """`--model FILE.tri --weights W` -> (name, policy): the name is the program's file
    name and the weight file's; a program or weight file that cannot be used stops the
    bench with its one-line reason."""
    from compiler.neural.program_model import ProgramModelError, program_policy
    from compiler.neural.weights import WeightsError

    try:
        return f"{Path(model).name} {Path(weights).name}", program_policy(model, weights)
    except (ProgramModelError, WeightsError) as error:
        raise SystemExit(f"error: --model {error}") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--markdown", action="store_true", help="markdown tables for docs/")
    parser.add_argument("--budgets", default=",".join(map(str, BUDGETS)), help="node budgets")
    parser.add_argument("--policy", action="append", default=[], help="module:callable")
    parser.add_argument("--held-out-only", action="store_true", help="skip the training table")
    parser.add_argument(
        "--guide-weights",
        default="0",
        help="the guided search's weights, a search row each (0: the policy breaks ties only)",
    )
    parser.add_argument(
        "--model", action="append", default=[], metavar="FILE.tri", help="a model program"
    )
    parser.add_argument(
        "--weights", action="append", default=[], metavar="FILE", help="its weight file"
    )
    parser.add_argument("--greedy-only", action="store_true", help="the -O1 and greedy rows only")
    parser.add_argument("--modules", type=int, metavar="N", help="the first N modules of each part")
    arguments = parser.parse_args(argv)
    if len(arguments.model) != len(arguments.weights):
        parser.error("every --model goes with its --weights")
    policies = [("uniform-random", UniformRandomPolicy(0)), ("frequency", frequency_policy())]
    policies += [load_policy(text) for text in arguments.policy]
    for model, weights in zip(arguments.model, arguments.weights):
        policies.append(program_policy(model, weights))
    weights = [int(text) for text in arguments.guide_weights.split(",")]
    rows = strategies(policies, weights, arguments.greedy_only)
    training, held = (part[: arguments.modules] for part in split())
    parts = [("held-out modules", held)]
    if not arguments.held_out_only:
        parts.append(("training modules", training))
    for budget in (int(text) for text in arguments.budgets.split(",")):
        for label, modules in parts:
            title = f"{label} ({len(modules)}), node budget {budget}"
            if arguments.markdown:
                print(f"### {title}\n")
            table(title, modules, budget, rows, arguments.markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
