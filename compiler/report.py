"""What the optimizer did to each function: the text of `tri build --report`.

Input: the outputs of a build's pipeline steps by name (`compiler.pipeline.Compiled.outputs`);
output: one `Section` per row of `SECTIONS`, each a function of those outputs giving, per
function label, the lines to show (a section with nothing for a function says nothing).
`render` prints them grouped by function, in build order.  The list is open: another pass
adds its row (a section's function may read any step's output, and may put lines for the
whole program under the label "").

The sections of the classical passes (docs/backend.md):

* inlined -- calls replaced by the callee's body (compiler.optimize.inline_source);
* specialized -- calls of a copy of the callee bound to constant arguments (the same);
* updated in place -- literals built in a dead value's slots (compiler.tir.updates);
* laid out inline -- branch arms of one instruction lowered right after their `skiz`, with
  no subroutine (compiler.lower.control; a select `skiz swap 1 pop 1` is one), selects
  with a 0 arm computed as a product (compiler.tir.builder), and select pairs, two selects
  on one comparison made with one comparison and a swap (compiler.tir.select_pairs);
* memory grouped -- neighbouring reads or writes of RAM at one base address done with one
  `read_mem`/`write_mem` per five words (compiler.tir.memory_groups);
* named in place -- immutable names for the words of a value an enclosing loop holds in
  place, read where they are (compiler.tir.aliases);
* checks dropped -- `as_u32` checks that cannot fail by the bounds of mutable names, through
  assignments and loops of a constant trip count (compiler.tir.flow_ranges), and checks that
  the instruction using the value makes again (compiler.optimize.checks);
* moves shortened -- runs of stack moves replaced by cheaper ones with the same effect
  (compiler.optimize.shuffles), each as "before -> after";
* counts made products -- a count of conditions compared with their number, computed as
  the product of the conditions (compiler.optimize.conjunctions).

And at `-O2`:

* loops unrolled -- loops whose body runs twice per test, where the profile's runs made the
  program strictly cheaper (compiler.optimize.unroll), each by its label's last part;

and for the whole program:

* search -- the funnel of compiler.search.lowerer (blocks, searched, proven optimal,
  verified, strictly cheaper, applied) and its processor time; "kept -O1" where the
  whole program was not strictly cheaper and the `-O1` build is the output.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Section:
    title: str
    rows: dict[str, list[str]]  # function label ("" for the whole program) -> lines


@dataclass(frozen=True)
class SectionKind:
    title: str
    collect: Callable[[dict], dict[str, list[str]]]  # step outputs -> rows


def _decisions(outputs: dict, kind: str) -> dict[str, list[str]]:
    rows: dict[str, Counter] = {}
    for decision in getattr(outputs.get("inline"), "decisions", ()):
        if decision.kind == kind:
            text = decision.callee
            if decision.constants:
                bound = ", ".join(f"{name} = {value}" for name, value in decision.constants)
                text += f" ({bound})"
            rows.setdefault(decision.caller, Counter())[text] += 1
    return {
        caller: [text if count == 1 else f"{text} x{count}" for text, count in counter.items()]
        for caller, counter in rows.items()
    }


def _inlined(outputs: dict) -> dict[str, list[str]]:
    return _decisions(outputs, "inlined")


def _specialized(outputs: dict) -> dict[str, list[str]]:
    return _decisions(outputs, "specialized")


def _noted(steps: tuple[str, ...], title: str) -> Callable[[dict], dict[str, list[str]]]:
    """Rows from the (section, text) notes the steps' functions carry, repeats counted."""

    def collect(outputs: dict) -> dict[str, list[str]]:
        counts: dict[str, Counter] = {}
        for step in steps:
            program = outputs.get(step)
            for function in program.functions if program is not None else []:
                texts = [text for section, text in function.notes if section == title]
                counts.setdefault(function.label, Counter()).update(texts)
        return {
            label: [text if n == 1 else f"{text} x{n}" for text, n in counter.items()]
            for label, counter in counts.items()
            if counter
        }

    return collect


def _search(outputs: dict) -> dict[str, list[str]]:
    funnel = outputs.get("search")
    if funnel is None:
        return {}
    line = (
        f"{funnel.blocks} blocks, {funnel.searched} searched, "
        f"{funnel.superopt} changed by the superoptimizer's rules, "
        f"{funnel.optimal} proven optimal, "
        f"{funnel.verified} verified, {funnel.cheaper} strictly cheaper, "
        f"{funnel.applied} applied ({funnel.instructions_before} -> "
        f"{funnel.instructions_after} instructions), {funnel.seconds:.2f} s"
    )
    if funnel.displaced:
        line += f"; {funnel.displaced} not cheaper with the code around them: baseline kept"
    if "model" in outputs:  # -O3
        identity = outputs["model"]
        if identity is None:
            line += "; no usable model: the -O2 search alone"
        else:
            line += f"; model {identity[:16]}: {funnel.model} blocks from its schedules"
    if funnel.cheaper and not funnel.applied:
        line += "; kept -O1: the program as a whole was not strictly cheaper"
    return {"": [line]}


def _unrolled(outputs: dict) -> dict[str, list[str]]:
    from compiler.optimize.unroll import unrolled_loops

    program = outputs.get("unroll")
    rows: dict[str, list[str]] = {}
    for function in getattr(program, "functions", ()):
        for loop in unrolled_loops(function.body):
            name = loop.label[len(function.label) + 2 :]
            rows.setdefault(function.label, []).append(f"{name} x{loop.unroll}")
    return rows


SECTIONS: list[SectionKind] = [
    SectionKind("inlined", _inlined),
    SectionKind("specialized", _specialized),
    SectionKind("updated in place", _noted(("tir",), "updated in place")),
    SectionKind("laid out inline", _noted(("tir", "tasm-lowered"), "laid out inline")),
    SectionKind("memory grouped", _noted(("tir",), "memory grouped")),
    SectionKind("named in place", _noted(("tir",), "named in place")),
    SectionKind("checks dropped", _noted(("tir", "tasm-selects"), "checks dropped")),
    SectionKind("moves shortened", _noted(("tir-moves",), "moves shortened")),
    SectionKind("counts made products", _noted(("tasm-selects",), "counts made products")),
    SectionKind("loops unrolled", _unrolled),
    SectionKind("search", _search),
]


def report(outputs: dict, kinds: list[SectionKind] = SECTIONS) -> list[Section]:
    return [Section(kind.title, kind.collect(outputs)) for kind in kinds]


def render(sections: list[Section], functions: list[str], level: int) -> str:
    """The report as text: per function (in `functions` order, then any other label a
    section names), each section with something to say, one line per entry."""
    lines = [f";; optimization report (-O{level})"]
    program = [(s.title, entry) for s in sections for entry in s.rows.get("", [])]
    for title, entry in program:
        lines.append(f"{title}: {entry}")
    named = list(functions) + sorted(
        {label for s in sections for label in s.rows if label and label not in functions}
    )
    for label in named:
        lines.append(label)
        said = [(s.title, s.rows[label]) for s in sections if s.rows.get(label)]
        for title, entries in said:
            lines.append(f"    {title}: {', '.join(entries)}")
        if not said:
            lines.append("    nothing")
    return "\n".join(lines) + "\n"
