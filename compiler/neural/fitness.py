"""The fitness of a model's weights for evolution (optimizer.md §7): verified savings.

Input: the training blocks (compiler.neural.dataset: per block its baseline -- what `-O1`
emits --, the rewritten start the search schedules, the don't-care exit slots and the
search's own schedule) and the weights (signed fixed-point integers).  Output:
`GreedyFitness(blocks)(weights) -> (saved, closeness, completed)`, larger is better,
compared in that order:

* `saved`: over the blocks whose greedy decode (the model alone, no search) is a
  complete schedule, strictly cheaper than the baseline in (instructions, words) and
  proven equal to it by compiler.verify under the block's don't-care slots, the
  instructions saved -- a block's cycles per execution -- as the primary figure:
  what the model adds that is *verified and strictly cheaper*, nothing else counts.
* `closeness`: the dense tie-break, minus the instructions by which complete decodes
  exceed the search's schedule (an incomplete decode counts its step limit), so weights
  that decode closer to the teacher's schedules rank higher before any win appears.
* `completed`: decodes that reach the block's exit (all of them since greedy decoding
  keeps a plain completion within its limit: compiler.search.guided.decode_greedy; the
  figure stays as a check).

All integer, computed by the fixed-point model (compiler.neural.model, numpy), or by the
policy `policy(weights)` makes (`tri train --model`: a model program on the VM,
compiler.neural.program_model.ProgramPolicies): the same fitness for the same weights on
every machine and worker (compiler.neural.workers).
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.blocks.dag import build_dag
from compiler.neural.model import NeuralPolicy
from compiler.search.guided import decode_greedy
from compiler.verify import check_equivalent
from compiler.verify.assumptions import Assumptions
from vm.cost import static_cost
from vm.isa import instruction_set
from vm.tasm import Op

SLACK = 4  # moves a decode may take beyond the search's schedule


@dataclass(frozen=True)
class TrainingBlock:
    baseline: tuple[tuple[str, int | None], ...]
    start: tuple[tuple[str, int | None], ...]
    dont_care: frozenset[int]
    schedule: tuple[tuple[str, int | None], ...]


def training_blocks(dataset: dict) -> list[TrainingBlock]:
    def code(items):
        return tuple((name, argument) for name, argument in items)

    return [
        TrainingBlock(
            code(block["baseline"]),
            code(block["start"]),
            frozenset(block["dont_care"]),
            code(block["schedule"]),
        )
        for block in dataset["blocks"]
    ]


def neural_policy(weights) -> NeuralPolicy:
    """The shipped model's policy with `weights` (GreedyFitness's default)."""
    return NeuralPolicy(weights, "candidate")


class GreedyFitness:
    """See the module docstring; picklable, for local and Ray workers.  `policy`: weights
    -> the `compiler.search.moves.Policy` whose greedy decodes are scored."""

    def __init__(self, blocks: list[TrainingBlock], policy=neural_policy):
        self.blocks = blocks
        self.policy = policy

    def __call__(self, weights) -> tuple[int, int, int]:
        policy = self.policy(weights)
        saved = closeness = completed = 0
        for block in self.blocks:
            limit = len(block.schedule) + SLACK
            dag = build_dag(list(block.start), block.dont_care)
            decoded = decode_greedy(policy, dag, limit).instructions
            if decoded is None:
                closeness -= limit
                continue
            completed += 1
            closeness -= max(0, len(decoded) - len(block.schedule))
            if strictly_cheaper(decoded, block.baseline) and verified(block, decoded):
                saved += len(block.baseline) - len(decoded)
        return saved, closeness, completed


def strictly_cheaper(candidate, baseline) -> bool:
    """No figure a block adds to a run grows (instructions, op-stack rows, program words)
    and one shrinks: the test the `-O2` lowerer applies (compiler.search.lowerer)."""
    after, before = static_cost(candidate), static_cost(baseline)
    pairs = [(after.processor, before.processor), (after.op_stack, before.op_stack)]
    pairs.append((after.program_words, before.program_words))
    return all(a <= b for a, b in pairs) and any(a < b for a, b in pairs)


def verified(block: TrainingBlock, decoded) -> bool:
    """Whether the checker proves `decoded` equal to the block's baseline."""
    table = instruction_set()

    def program(code):
        return [Op(table[name], argument) for name, argument in code]

    verdict = check_equivalent(
        program(block.baseline),
        program(decoded),
        assumptions=Assumptions(dont_care=block.dont_care),
    )
    return verdict.equivalent
