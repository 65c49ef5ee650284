"""Code quality: compiled TASM against the hand baselines of `benches/` (`tri bench`).

Input: a directory of `<path>.baseline.tasm` files laid out like the module paths
(`benches/std/math/fibonacci.baseline.tasm` is `std.math.fibonacci`).  Output:
`bench(directory)` returns one `Row` per public function of each module, compiled vs
hand; `module_rows` sums them per module and `medians` summarises the ratios.

Splitting a text into functions (docs/backend.md, the linker).  Labels split the text into
blocks.  A label names a *function* when, after dropping the module prefix (`__` for the
module's own functions, `<mangled module>__` for any module), what is left has no `__`:
`__pair`, `std_crypto_digest__equal`.  Otherwise it is a *helper block* of the function
named by its first segment (`__pair__loop`, `__is_negative__then__2`), or, for RC-style
labels whose first segment names no function (`__then__3`), of the function before it.

The numbers, the same for both sides:

* static: RC's benchmark rule -- the instructions between the function's label and the
  next label, so its branch and loop blocks are not counted;
* inclusive: every instruction reachable from the function's label through `call`s and
  fall-through, each block once: its own helper blocks and, transitively, every function
  it calls (of this module or another one, as linked in the text);
* cycles: the mean processor cycles of `call <fn>` .. `return` (the harness `halt`
  excluded) over the cases on which both sides succeed, the same fixed-seed in-range
  arguments from `compiler.bench_cases` for both; padded height: the largest over those runs of a
  program holding only the harness and the reachable blocks.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import asdict, dataclass, field
from pathlib import Path

from compiler import bench_cases
from compiler.check.checker import check
from compiler.check.resolve import Resolver, load_project
from compiler.check.symbols import mangle
from compiler.check.types import width
from compiler.diagnostics import CompileError, render_files
from compiler.driver import compile_program
from compiler.levels import DEFAULT_LEVEL
from vm import interp, tables, tasm

SUFFIX = ".baseline.tasm"
MAX_STEPS = 5_000_000
CANARIES = (1234567, 7654321, 42)  # below the arguments; must survive every call


# --- blocks and functions ------------------------------------------------------------------------


@dataclass(frozen=True)
class Block:
    labels: tuple[str, ...]
    ops: tuple[tasm.Op, ...]

    @property
    def falls_through(self) -> bool:
        return not self.ops or self.ops[-1].instruction.flow.falls_through


@dataclass(frozen=True)
class Code:
    """A text split into blocks, and which block starts which function."""

    blocks: tuple[Block, ...]
    functions: dict[tuple[str, str], int]  # (mangled module, function) -> entry block
    owners: tuple[tuple[str, str] | None, ...]  # per block: the function it belongs to

    def block_of(self, label: str) -> int:
        return next(i for i, block in enumerate(self.blocks) if label in block.labels)

    def reachable(self, entry: int) -> list[int]:
        """Indices of the blocks reachable from `entry`, in text order."""
        seen, pending = {entry}, [entry]
        while pending:
            index = pending.pop()
            block = self.blocks[index]
            targets = [self.block_of(op.target) for op in block.ops if op.target is not None]
            if block.falls_through and index + 1 < len(self.blocks):
                targets.append(index + 1)
            for target in targets:
                if target not in seen:
                    seen.add(target)
                    pending.append(target)
        return sorted(seen)

    def static(self, function: tuple[str, str]) -> int:
        return len(self.blocks[self.functions[function]].ops)

    def inclusive(self, function: tuple[str, str]) -> int:
        return sum(len(self.blocks[i].ops) for i in self.reachable(self.functions[function]))


def classify(label: str, mangled: str) -> tuple[tuple[str, str] | None, bool]:
    """(module, first name segment) of a label and whether it names a helper block."""
    if label.startswith("__"):
        module, rest = mangled, label[2:]
    elif mangled and label.startswith(mangled + "__"):
        module, rest = mangled, label[len(mangled) + 2 :]
    elif "__" in label.strip("_"):
        module, _, rest = label.partition("__")
    else:
        return None, True  # a bare label: a block of the function before it
    name, separator, _ = rest.partition("__")
    return (module, name), bool(separator)


def split(program: tasm.Program, mangled: str) -> Code:
    """Blocks of an assembled text and the function each belongs to (`mangled`: its module)."""
    labels_at = program.label_at()
    blocks, current_labels, current_ops = [], (), []
    for op, address in zip(program.ops, program.addresses):
        if address in labels_at:
            if current_labels or current_ops:
                blocks.append(Block(tuple(current_labels), tuple(current_ops)))
            current_labels, current_ops = tuple(labels_at[address]), []
        current_ops.append(op)
    trailing = labels_at.get(program.length, ())
    if current_labels or current_ops:
        blocks.append(Block(tuple(current_labels), tuple(current_ops)))
    if trailing:
        blocks.append(Block(tuple(trailing), ()))
    functions: dict[tuple[str, str], int] = {}
    kinds = []
    for index, block in enumerate(blocks):
        named = [classify(label, mangled) for label in block.labels]
        entry = next((key for key, helper in named if key is not None and not helper), None)
        if entry is not None:
            functions.setdefault(entry, index)
        kinds.append((entry, next((key for key, helper in named if helper), None)))
    owners, previous = [], None
    for entry, helper_of in kinds:
        if entry is not None:
            previous = entry
        elif helper_of is not None and helper_of in functions:
            previous = helper_of
        owners.append(previous)
    return Code(tuple(blocks), functions, tuple(owners))


def harness(code: Code, function: tuple[str, str]) -> tasm.Program:
    """`call f` `halt` followed by the blocks reachable from f, in their text order."""
    entry = code.functions[function]
    lines = [f"call {code.blocks[entry].labels[0]}", "halt"]
    for index in code.reachable(entry):
        block = code.blocks[index]
        lines.extend(f"{label}:" for label in block.labels)
        lines.extend(f"    {op.text}" for op in block.ops)
    return tasm.parse("\n".join(lines) + "\n")


# --- baselines: finding and linking --------------------------------------------------------------


def baseline_files(directory: Path) -> dict[str, Path]:
    """Module name -> baseline file, for every `*.baseline.tasm` under `directory`."""
    found = {}
    for path in sorted(Path(directory).rglob("*" + SUFFIX)):
        relative = path.relative_to(directory).as_posix()[: -len(SUFFIX)]
        found[relative.replace("/", ".")] = path
    return found


_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_LABEL = re.compile(r"([A-Za-z_][\w-]*)\s*:")
_CALL = re.compile(r"\bcall\s+@?([A-Za-z_][\w-]*)")
_LOCAL = re.compile(r"(?<![\w-])__(?=[A-Za-z0-9])")


def link_baseline(path: Path, modules: dict[str, Path]) -> str:
    """A baseline's text with the baselines of the modules it calls appended, renamed.

    `call std_crypto_digest__equal` is resolved by appending the baseline of
    `std.crypto.digest` with its `__<fn>` labels (and calls) renamed to
    `std_crypto_digest__<fn>`; recursively, each module once.  A leading `@` on a
    call target (RC's "already mangled" mark) is dropped.
    """
    by_mangled = {mangle(name): name for name in modules}
    texts, linked, pending = [], set(), [(None, path)]
    while pending:
        mangled, source = pending.pop(0)
        text = source.read_text(encoding="utf-8").replace("call @", "call ")
        if mangled is not None:
            text = _LOCAL.sub(mangled + "__", text)
        texts.append(text)
        bare = _COMMENTS.sub(" ", text)
        defined = set(_LABEL.findall(bare))
        for target in _CALL.findall(bare):
            module = target.partition("__")[0]
            if target not in defined and module in by_mangled and module not in linked:
                linked.add(module)
                pending.append((module, modules[by_mangled[module]]))
    return "\n".join(texts)


# --- running one case ----------------------------------------------------------------------------


@dataclass
class Outcome:
    result: tuple[int, ...] | None  # the words above the canaries, None after a failure
    below_intact: bool
    output: list[int]
    ram: dict[int, int]
    error: str | None
    cycles: int
    padded_height: int | None = None


def case_machine(program: tasm.Program, case) -> interp.Machine:
    """A machine for a harness program: the case's arguments pushed above `CANARIES`."""
    machine = interp.initial_machine(program, (), case.secret, case.digests, dict(case.ram))
    machine.stack.extend([*CANARIES, *case.words])
    return machine


def run_case(program: tasm.Program, case, measure: bool = False, max_steps: int = MAX_STEPS):
    """Run a harness program with the case's arguments pushed above `CANARIES`."""
    machine = case_machine(program, case)
    below = machine.stack[: len(machine.stack) - len(case.words)]
    run = interp.run_machine(machine, max_steps)
    failed = run.error is not None
    return Outcome(
        result=None if failed else tuple(run.stack[len(below) :]),
        below_intact=failed or run.stack[: len(below)] == below,
        output=list(run.output),
        ram=dict(run.ram),
        error=None if not failed else run.error.kind,
        cycles=run.cycles - (0 if failed else 1),
        padded_height=tables.heights(run).padded_height if measure and not failed else None,
    )


# --- the benchmark -------------------------------------------------------------------------------


@dataclass
class Side:
    static: int | None = None
    inclusive: int | None = None
    cycles: float | None = None
    padded_height: int | None = None


@dataclass
class Row:
    module: str
    function: str
    compiled: Side
    hand: Side
    cases: int = 0  # cases measured (both sides succeeded)
    mismatches: int = 0  # cases where the compiled code disagrees with the hand code
    note: str = ""

    def ratio(self, metric: str) -> float | None:
        compiled, hand = getattr(self.compiled, metric), getattr(self.hand, metric)
        return None if not compiled or not hand else compiled / hand

    def as_json(self) -> dict:
        data = asdict(self)
        data["ratios"] = {m: _round(self.ratio(m)) for m in ("static", "inclusive", "cycles")}
        return data


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


@dataclass
class Module:
    name: str
    checked: object
    compiled: Code
    hand: Code
    mangled: str
    functions: list[str] = field(default_factory=list)


class BenchError(Exception):
    """A problem with the benchmark's input (a missing source, a bad baseline): exit 2."""


DEBUG = frozenset({"debug"})  # the default #[cfg] flags (docs/reference.md, Attributes)


def load_module(
    name: str, path: Path, modules, directory: Path, resolver, level: int, flags=DEBUG, seed=0
):
    """Check and compile the module of a baseline; split both texts into functions.  From
    `-O2` on, the build's profile (which loops to unroll, compiler.pipeline) is the runs of
    every public function on the cases of seed `seed + 1`: not the measured ones."""
    source = resolver.locate(name, Path(directory).resolve())
    if source is None:
        raise BenchError(f"error: {path}: no source for module '{name}'")
    try:
        checked = check(load_project(source, resolver), flags)
        profile = bench_profile(checked, name, seed + 1) if level >= 2 else None
        compiled = compile_program(checked, level, profile=profile)
    except CompileError as failure:
        raise BenchError(render_files(failure.diagnostics)) from None
    if checked.errors:
        raise BenchError(render_files(checked.errors))
    text = link_baseline(path, modules)
    try:
        hand = tasm.parse(text)
    except tasm.TasmSyntaxError as error:
        raise BenchError(_syntax_error(path, text, error)) from None
    mangled = mangle(name)
    exported = [key[len(mangled) + 2 :] for key in checked.exported]
    return Module(
        name, checked, split(compiled.program, mangled), split(hand, mangled), mangled, exported
    )


def bench_profile(checked, name: str, seed: int, count: int = 8):
    """A profile for `compile_program`: a module-alone program -> the runs of each of its
    public functions (through `harness`) on `count` cases of seed `seed` that finish."""
    mangled = mangle(name)
    functions = [key[len(mangled) + 2 :] for key in checked.exported]

    def profile(program: tasm.Program) -> list:
        code, runs = split(program, mangled), []
        for function in functions:
            instance = checked.instances[f"{mangled}__{function}"]
            params = [(n, width(t), getattr(t, "name", "")) for n, t in instance.params]
            harnessed = harness(code, (mangled, function))
            for case in bench_cases.cases(name, function, params, count, seed, False, True):
                run = interp.run_machine(case_machine(harnessed, case), MAX_STEPS)
                if run.error is None:
                    runs.append(run)
        return runs

    return profile


def _syntax_error(path: Path, text: str, error) -> str:
    own = path.read_text(encoding="utf-8")
    if error.line <= own.count("\n"):  # in the baseline itself, not in a linked one
        line = own.splitlines()[error.line - 1]
        return f"{path}:{error.line}:{error.column}: error[{error.code}]: {error.message}\n{line}"
    return f"{path}: error[{error.code}]: {error.message} (in a linked baseline)"


def measure_function(module: Module, function: str, count: int, seed: int) -> Row:
    key = (module.mangled, function)
    row = Row(module.name, function, Side(), Side())
    if key not in module.hand.functions:
        row.note = "no hand baseline"
        return row
    for side, code in ((row.compiled, module.compiled), (row.hand, module.hand)):
        side.static, side.inclusive = code.static(key), code.inclusive(key)
    instance = module.checked.instances[f"{module.mangled}__{function}"]
    params = [(n, width(t), getattr(t, "name", "")) for n, t in instance.params]
    programs = (harness(module.compiled, key), harness(module.hand, key))
    totals, heights = [0, 0], [0, 0]
    for case in bench_cases.cases(module.name, function, params, count, seed, False, True):
        compiled, hand = (run_case(program, case, measure=True) for program in programs)
        if hand.error is not None:  # not a valid input: only check that both fail
            row.mismatches += compiled.error is None
            continue
        if not agree(compiled, hand):
            row.mismatches += 1
            if compiled.error is not None:
                continue
        row.cases += 1
        for index, outcome in enumerate((compiled, hand)):
            totals[index] += outcome.cycles
            heights[index] = max(heights[index], outcome.padded_height)
    if row.cases:
        row.compiled.cycles, row.hand.cycles = (total / row.cases for total in totals)
        row.compiled.padded_height, row.hand.padded_height = heights
    return row


SPILL_REGION = 1 << 29  # the compiler's scratch RAM (docs/backend.md, Reserved RAM)


def agree(first: Outcome, second: Outcome) -> bool:
    """Same failure or same result, output and RAM below the compiler's scratch region."""

    def user(ram: dict[int, int]) -> dict[int, int]:
        return {address: value for address, value in ram.items() if address < SPILL_REGION}

    if first.error is not None or second.error is not None:
        return (first.error is None) == (second.error is None)
    return (first.result, first.output, user(first.ram)) == (
        second.result,
        second.output,
        user(second.ram),
    )


def bench(
    directory: Path,
    level: int = DEFAULT_LEVEL,
    count: int = 8,
    seed: int = 0,
    resolver: Resolver | None = None,
    flags: frozenset[str] = DEBUG,
) -> list[Row]:
    """One row per public function of every module with a baseline under `directory`
    (modules checked with the #[cfg] `flags`)."""
    resolver = resolver or Resolver()
    modules = baseline_files(Path(directory))
    rows = []
    for name, path in modules.items():
        module = load_module(name, path, modules, directory, resolver, level, flags, seed)
        for function in module.functions:
            rows.append(measure_function(module, function, count, seed))
    return rows


# --- summaries -----------------------------------------------------------------------------------

METRICS = ("static", "inclusive", "cycles")


def module_rows(rows: list[Row]) -> list[Row]:
    """Per module: sums of the functions' numbers (padded height: the largest)."""
    result: dict[str, Row] = {}
    for row in rows:
        total = result.setdefault(
            row.module, Row(row.module, "*", Side(0, 0, 0.0, 0), Side(0, 0, 0.0, 0))
        )
        total.cases += row.cases
        total.mismatches += row.mismatches
        if row.hand.static is None:
            total.note = "incomplete"
            continue
        for mine, theirs in ((total.compiled, row.compiled), (total.hand, row.hand)):
            mine.static += theirs.static
            mine.inclusive += theirs.inclusive
            if row.hand.cycles is not None:
                mine.cycles += theirs.cycles
                mine.padded_height = max(mine.padded_height, theirs.padded_height)
    return list(result.values())


def medians(rows: list[Row]) -> dict[str, float | None]:
    """Median compiled/hand ratio of each metric over the rows that have it."""
    result = {}
    for metric in METRICS:
        ratios = [r for row in rows if (r := row.ratio(metric)) is not None]
        result[metric] = _round(statistics.median(ratios)) if ratios else None
    return result


def report(rows: list[Row], level: int, directory: Path) -> dict:
    """The JSON object `tri bench --json` prints (`optimize`: whether any peephole ran)."""
    modules = module_rows(rows)
    return {
        "directory": str(directory),
        "level": level,
        "optimize": level > 0,
        "functions": [row.as_json() for row in rows],
        "modules": [row.as_json() for row in modules],
        "medians": {"functions": medians(rows), "modules": medians(modules)},
    }
