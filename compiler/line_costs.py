"""A run's rows in every table, per source line: `line_costs(program, inputs) -> LineCosts`.

Input: an assembled program with a source map (compiler.sourcemap: one origin per
instruction) and the inputs of one run.  Output: `LineCosts`, the rows each source line
added to each of the nine tables on that run, and the rows no line owns (`fixed`), whose
sums are exactly the run's measured heights (`vm.tables.heights`):

* processor, op stack, RAM, jump stack and hash: each instruction's static rows
  (`vm.cost.instruction_cost`) times how often it ran, to its origin's line;
* u32: a u32 entry that repeats adds nothing, so each distinct entry's rows
  (`vm.tables.u32_entry_rows`) go to the instruction that recorded it first;
* cascade: the 16-bit limbs of program attestation first (fixed), then each distinct
  Tip5 permutation's limbs not looked up before, to the instruction that ran it first;
* program: each instruction's words to its line; the padding to a multiple of 10 and
  the attestation rows of the hash table are fixed, as is the lookup table (256 rows).

An inlined function's code carries its callee's origins, so its rows are on the callee's
lines; they are also counted at the call (`inlined`: per line of a call that was inlined,
the rows of the code inlined there, already counted on the callee's lines). The branch and
loop control the lowering adds (`skiz`, `call`, a loop's counter test, `recurse`,
`return`) has no origin of its own: it is on the line of the instruction before it in the
same stretch of code (the condition, the loop's bound or body); what has nothing before it
(the entry stub, a function that starts without an origin) is on no line (key None). The
run is the interpreter's, with a recorder in place of the sets where the instructions
record u32 entries and permutations, so it notes who recorded each first; everything else
is `vm.interp.run_machine`.
"""

from __future__ import annotations

from dataclasses import dataclass

from vm import interp, tip5
from vm.cost import attestation_rows, instruction_cost, program_height
from vm.tables import LOOKUP_HEIGHT, REPORT_ORDER, Heights, heights, u32_entry_rows

Line = tuple[str, int] | None  # (file, line) of an origin, or None


class _FirstRecorder(set):
    """A set that remembers, for each item, the address current when it was first added."""

    def __init__(self):
        super().__init__()
        self.address = 0
        self.first: dict = {}

    def add(self, item) -> None:
        if item not in self:
            self.first[item] = self.address
            super().add(item)


@dataclass(frozen=True)
class LineCosts:
    rows: dict[Line, dict[str, int]]  # line -> table -> rows (every table of REPORT_ORDER)
    fixed: dict[str, int]  # the rows no instruction owns
    inlined: dict[Line, dict[str, int]]  # call line -> table -> rows of the code inlined there
    placed: dict[int, tuple[Line, int]]  # instruction address -> (its line, its runs)
    heights: Heights  # measured by vm.tables on the same run
    error: object | None  # the run's VMError, if it failed

    def within(self, path: str, first: int, last: int) -> dict[str, int]:
        """Per table, the rows of the lines `first` to `last` of file `path`."""
        total = dict.fromkeys(REPORT_ORDER, 0)
        for line, rows in self.rows.items():
            if line is not None and line[0] == path and first <= line[1] <= last:
                for table, value in rows.items():
                    total[table] += value
        return total

    def totals(self) -> dict[str, int]:
        """Per table, the lines' rows plus the fixed rows: the measured heights."""
        total = dict(self.fixed)
        for rows in self.rows.values():
            for table, value in rows.items():
                total[table] += value
        return total


def line_costs(program, inputs, max_steps: int = interp.DEFAULT_MAX_STEPS) -> LineCosts:
    """The rows per source line of one interpreter run of `program` on `inputs`
    (a `tri.api.Inputs`); see the module docstring."""
    machine = interp.initial_machine(
        program, inputs.public, inputs.secret, inputs.digests, _ram(inputs.ram)
    )
    entries, permutations = _FirstRecorder(), _FirstRecorder()
    machine.u32_entries, machine.permutation_inputs = entries, permutations
    steps = interp.step_functions(machine)
    recorded = [_recording(steps, address, entries, permutations) for address in range(len(steps))]
    run = interp.run_machine(machine, max_steps, recorded)
    run = _plain(run)
    origins = getattr(program, "source_map", ()) or ()
    owners = {}  # address -> the tables of its line, and of its call when inlined
    rows: dict[Line, dict[str, int]] = {}
    inlined: dict[Line, dict[str, int]] = {}
    placed: dict[int, tuple[Line, int]] = {}
    labelled = {address for _, address in program.labels}
    origin = None
    for index, (op, address) in enumerate(zip(program.ops, program.addresses)):
        here = origins[index] if index < len(origins) else None
        if here is not None:
            origin = here
        elif address in labelled:
            origin = None  # a function's first instruction: nothing before it to follow
        tables = [rows.setdefault(origin and origin.line, dict.fromkeys(REPORT_ORDER, 0))]
        if origin is not None and origin.call_site is not None:
            tables.append(inlined.setdefault(origin.call_site, dict.fromkeys(REPORT_ORDER, 0)))
        owners[address] = tables
        cost = instruction_cost(op.instruction, op.argument)
        visits = run.visits[address]
        placed[address] = (origin and origin.line, visits)
        for table in tables:
            table["program"] += cost.program_words
            if visits:
                table["processor"] += visits
                table["jump_stack"] += visits
                table["op_stack"] += cost.op_stack * visits
                table["ram"] += cost.ram * visits
                table["hash"] += cost.hash * visits
    for entry, address in entries.first.items():
        for table in owners[address]:
            table["u32"] += u32_entry_rows(entry)
    seen = set(tip5.cascade_limbs_many(tip5.varlen_permutation_inputs(program.words)))
    fixed = dict.fromkeys(REPORT_ORDER, 0)
    fixed["cascade"] = len(seen)
    for state, address in permutations.first.items():
        new = tip5.cascade_limbs_many([state]) - seen
        seen |= new
        for table in owners[address]:
            table["cascade"] += len(new)
    fixed["program"] = program_height(program.length) - program.length
    fixed["hash"] = attestation_rows(program.length)
    fixed["lookup"] = LOOKUP_HEIGHT
    return LineCosts(rows, fixed, inlined, placed, heights(run), run.error)


def source_loops(program) -> list[tuple[str, int, int]]:
    """The `for` statements the program's code came from: (file, first line, last line)."""
    loops = {
        (origin.path, origin.span.line, origin.span.end_line)
        for origin in getattr(program, "source_map", ()) or ()
        if origin is not None and origin.construct in ("loop", "bounded")
    }
    return sorted(loops)


def _recording(steps: list, address: int, entries: _FirstRecorder, permutations: _FirstRecorder):
    """The step at `address` (read from `steps` at each call: a step is made on its first
    run and put there), with the recorders told the current address."""

    def recorded():
        entries.address = permutations.address = address
        return steps[address]()

    return recorded


def _plain(run):
    """The run with plain sets, as vm.tables expects them."""
    from dataclasses import replace

    return replace(
        run, u32_entries=set(run.u32_entries), permutation_inputs=set(run.permutation_inputs)
    )


def _ram(ram):
    return ram if not isinstance(ram, tuple) else dict(ram)
