"""The training set of `-O3`: the search's large-budget schedules as step-by-step choices.

Input: the training modules -- the corpus programs (tests/programs/valid) and the stdlib
modules (each built alone), less the held-out ones (`held_out`).
Output: `build_dataset() -> dict`, saved by `save_dataset` as gzipped JSON (no time
stamp, sorted keys: the same bytes on every run) with its SHA-256 content hash.

* **Blocks** are what `-O2`'s search sees (compiler.search.lowerer): each block of a
  module's `-O1` build, its classical lowering after the TASM rules (the baseline),
  rewritten by the hand and superoptimizer rules (`o2_rules`), with the block's
  don't-care exit slots.  Blocks of fewer than two or more than `MAX_LENGTH`
  instructions are left out, and a block that recurs (the same code and don't-care
  slots) is kept once, with the first module it came from.
* **Targets**: `search_schedule` at `BUDGET` expanded states, unbounded.  A block is
  kept only when that search completes (the schedule is proven optimal for the
  block's DAG) and the schedule is no costlier than the baseline.  Blocks where it is
  only *as cheap as* the compiler are kept too: the model must learn whole schedules,
  and there the compiler's code is already optimal, which is worth learning; where a
  cheaper schedule exists, the target is that cheaper one (optimizer.md §7:
  "targets better than the compiler where they exist").  Each block records
  `cheaper` so either subset can be taken.
* **Trajectories**: the schedule replayed through `legal_moves` from the start
  state; per step the state (stack, done), the legal moves (their instructions),
  the index of the chosen one and `optimal`, the indices of every move after which
  the rest of the block can be done as cheaply as the target does it (a search from
  the move's state, bounded by the target's rest, within `LABEL_BUDGET` states): the
  moves that start *an* optimal schedule, not only the one the search happened to take.
* **Split**: whole modules; a module is held out when the first byte of the SHA-256
  of its path (relative to the repository, POSIX) is below `HELD_OUT_BELOW` (about 22%).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import time
from pathlib import Path

from compiler.blocks.dag import DagError, build_dag
from compiler.blocks.rule_engine import rewrite
from compiler.blocks.schedule import Problem, ScheduleError, cost, search_schedule, size
from compiler.check.checker import check
from compiler.check.resolve import load_project
from compiler.pipeline import Options, build
from compiler.search.budget import BlockRecorder
from compiler.search.lowerer import SearchLowerer, o2_rules
from compiler.search.moves import State, legal_moves, start
from compiler.search.policies import TABLE, frequency_table, save_table

ROOT = Path(__file__).resolve().parent.parent.parent
BUDGET = 20_000  # states the target search may expand per block
LABEL_BUDGET = 2_000  # states per move to decide whether it starts an optimal schedule
MAX_LENGTH = 24  # instructions a block may have to be searched whole
HELD_OUT_BELOW = 56  # of 256: a module whose path hash starts below this is held out
DATASET = ROOT / "compiler/neural/training_set.json.gz"


def modules() -> list[str]:
    """Every module path, relative to the repository: corpus programs, then stdlib."""
    programs = sorted((ROOT / "tests/programs/valid").glob("*.tri"))
    stdlib = sorted((ROOT / "stdlib").rglob("*.tri"))
    return [path.relative_to(ROOT).as_posix() for path in programs + stdlib]


def held_out(module: str) -> bool:
    return hashlib.sha256(module.encode()).digest()[0] < HELD_OUT_BELOW


def split() -> tuple[list[str], list[str]]:
    """(training modules, held-out modules)."""
    names = modules()
    return [m for m in names if not held_out(m)], [m for m in names if held_out(m)]


def module_blocks(module: str) -> list[tuple[list, list, tuple]]:
    """(baseline, rule-rewritten start, don't-care slots) per block of the module's -O1
    build, in build order."""
    return program_blocks(check(load_project(ROOT / module)))


def program_blocks(checked) -> list[tuple[list, list, tuple]]:
    """`module_blocks` of a checked program (tri selfhost: std.nn.optimizer's own)."""
    recorder = BlockRecorder()
    build(checked, Options(1, recorder))
    found = []
    for block in recorder.blocks:
        baseline = SearchLowerer.baseline(block)
        rewritten = rewrite(baseline, o2_rules())[0]
        found.append((baseline, rewritten, tuple(block.contract.dont_care)))
    return found


def trajectory(dag, instructions) -> list[dict] | None:
    """The schedule as choices among legal moves; None if it is not a path of legal
    moves to a goal state (or a step is ambiguous).  Per step, `optimal` lists the moves
    after which the rest of the block can still be done as cheaply as the schedule does
    it (`optimal_moves`), the chosen one among them."""
    problem = Problem(dag)
    state = start(problem)
    steps = []
    left = cost(instructions)
    for instruction in instructions:
        moves = legal_moves(problem, state)
        matching = [i for i, move in enumerate(moves) if move.instruction == instruction]
        if len(matching) != 1:
            return None
        steps.append(
            {
                "stack": list(state.stack),
                "done": state.done,
                "moves": [list(move.instruction) for move in moves],
                "chosen": matching[0],
                "optimal": optimal_moves(dag, moves, left, matching[0]),
            }
        )
        left = (left[0] - 1, left[1] - size(instruction[0]))
        state = State(moves[matching[0]].stack, moves[matching[0]].done)
    return steps if problem.goal(state.stack, state.done) else None


def optimal_moves(dag, moves, left: tuple[int, int], chosen: int) -> list[int]:
    """The indices of `moves` after which a rest of cost at most `left` (the optimal
    schedule's, from this state) is found by `search_schedule` within `LABEL_BUDGET`
    states: every move that starts an optimal schedule, as far as that budget shows (a
    move it cannot decide is left out; the chosen move is in by construction)."""
    found = []
    for index, move in enumerate(moves):
        # the bound is strict: a rest cheaper than this one costs at most `left` after the move
        rest = (left[0] - 1, left[1] - size(move.instruction[0]) + 1)
        if index == chosen:
            found.append(index)
        elif rest[0] >= 0:
            result = search_schedule(dag, LABEL_BUDGET, rest, origin=(move.stack, move.done))
            if result.instructions is not None:
                found.append(index)
    return found


def build_dataset(names: list[str] | None = None, budget: int = BUDGET) -> dict:
    """The training set over `names` (default: the training modules)."""
    names = split()[0] if names is None else names
    seen: set = set()
    counts = dict.fromkeys(("blocks", "searched", "not_proven", "costlier", "unreplayable"), 0)
    blocks = []
    for module in names:
        blocks += target_blocks(module, module_blocks(module), budget, seen, counts)
    counts["kept"] = len(blocks)
    counts["steps"] = sum(len(block["steps"]) for block in blocks)
    counts["cheaper"] = sum(block["cheaper"] for block in blocks)
    return {"budget": budget, "modules": names, "counts": counts, "blocks": blocks}


def target_blocks(
    module: str,
    found: list[tuple[list, list, tuple]],
    budget: int = BUDGET,
    seen: set | None = None,
    counts: dict | None = None,
    limit: int | None = None,
) -> list[dict]:
    """The training-set entries of a module's blocks (`module_blocks`): those the search
    schedules, proven optimal and no costlier than the baseline, each block once across
    `seen`; at most `limit`.  `counts` tallies what was left out and why."""
    seen = set() if seen is None else seen
    counts = {} if counts is None else counts
    blocks = []
    for baseline, rewritten, dont_care in found:
        if limit is not None and len(blocks) >= limit:
            break
        counts["blocks"] = counts.get("blocks", 0) + 1
        key = (tuple(rewritten), dont_care)
        if not 2 <= len(rewritten) <= MAX_LENGTH or key in seen:
            continue
        seen.add(key)
        try:
            dag = build_dag(rewritten, frozenset(dont_care))
            result = search_schedule(dag, budget)
        except (DagError, ScheduleError):
            continue
        counts["searched"] = counts.get("searched", 0) + 1
        if not result.optimal or result.instructions is None:
            counts["not_proven"] = counts.get("not_proven", 0) + 1
            continue
        if cost(result.instructions) > cost(baseline):
            counts["costlier"] = counts.get("costlier", 0) + 1
            continue
        steps = trajectory(dag, result.instructions)
        if steps is None:
            counts["unreplayable"] = counts.get("unreplayable", 0) + 1
            continue
        blocks.append(
            {
                "module": module,
                "baseline": [list(item) for item in baseline],
                "start": [list(item) for item in rewritten],
                "dont_care": list(dont_care),
                "schedule": [list(item) for item in result.instructions],
                "cheaper": cost(result.instructions) < cost(baseline),
                "expanded": result.expanded,
                "steps": steps,
            }
        )
    return blocks


def dataset_bytes(dataset: dict) -> bytes:
    text = json.dumps(dataset, sort_keys=True, separators=(",", ":")).encode()
    return gzip.compress(text, compresslevel=9, mtime=0)


def save_dataset(dataset: dict, path: Path = DATASET) -> str:
    """Write the dataset; returns the SHA-256 of the uncompressed JSON."""
    Path(path).write_bytes(dataset_bytes(dataset))
    return dataset_hash(dataset)


def dataset_hash(dataset: dict) -> str:
    text = json.dumps(dataset, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(text).hexdigest()


def load_dataset(path: Path = DATASET) -> dict:
    return json.loads(gzip.decompress(Path(path).read_bytes()))


def replay_steps(dataset: dict):
    """(previous move, legal moves, chosen index) per step of every block: what a policy
    is trained on (compiler.search.policies.frequency_table reads these)."""
    for block in dataset["blocks"]:
        dag = build_dag([tuple(item) for item in block["start"]], frozenset(block["dont_care"]))
        problem = Problem(dag)
        state = start(problem)
        previous = None
        for step in block["steps"]:
            moves = legal_moves(problem, state)
            yield previous, moves, step["chosen"]
            previous = moves[step["chosen"]]
            state = State(previous.stack, previous.done)


def main() -> int:
    begin = time.process_time()
    dataset = build_dataset()
    digest = save_dataset(dataset)
    table_digest = save_table(frequency_table(replay_steps(dataset)), TABLE)
    training, held = split()
    print(f"modules: {len(training)} training, {len(held)} held out: {', '.join(held)}")
    print(f"counts: {dataset['counts']}")
    print(f"sha256 {digest}, {DATASET.stat().st_size} bytes, "
          f"{time.process_time() - begin:.1f} process s")  # fmt: skip
    print(f"frequency table {TABLE.name}: sha256 {table_digest}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
