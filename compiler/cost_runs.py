"""Representative runs of a module built alone, for its cost (optimizer.md §3).

Input: a checked module and its module-alone build (`compiler.pipeline.Compiled`).
Output: one `CaseRun` per public function and bench case: the function, the program
it ran as and the `vm.interp.Run`.  A module has no `main` and no inputs of its own,
so each public function runs on the cases `tri bench` uses (`compiler.bench_cases`:
a fixed seed, arguments in range), pushed above the canaries as there.  The program
is `call __fn` `halt` followed by the module's whole text, so the programs of all its
functions have the same blocks at the same addresses and their runs add up block by
block (`vm.attribution.combine`).
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler import bench_cases
from compiler.bench import MAX_STEPS, case_machine
from compiler.check.symbols import mangle
from compiler.check.types import width
from vm import interp, tasm


@dataclass(frozen=True)
class CaseRun:
    function: str  # the public function's name
    case: bench_cases.Case
    program: tasm.Program
    run: interp.Run


def public_functions(checked) -> list[tuple[str, str]]:
    """(name, instance key) of each public function of a module built alone."""
    prefix = mangle(checked.project.entry.name) + "__"
    return [(key[len(prefix) :], key) for key in checked.exported]


def module_runs(checked, compiled, count: int, seed: int = 0, max_steps: int = MAX_STEPS):
    """`count` bench cases per public function, each run on the interpreter."""
    runs = []
    for name, key in public_functions(checked):
        program = tasm.parse(f"call __{name}\nhalt\n{compiled.text}", compiled.program.isa)
        instance = checked.instances[key]
        params = [(n, width(t), getattr(t, "name", "")) for n, t in instance.params]
        module = checked.project.entry.name
        for case in bench_cases.cases(module, name, params, count, seed, False, True):
            machine = case_machine(program, case)
            runs.append(CaseRun(name, case, program, interp.run_machine(machine, max_steps)))
    return runs
