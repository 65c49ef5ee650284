"""Instruction semantics: one handler factory per instruction, as Triton VM defines them.

`HANDLERS[name](machine, site)` returns a step function for one instruction at
one address.  A step function executes the instruction on `machine`'s state
and returns the next instruction pointer, or raises `Fault` with the error
kind (docs/vm.md, Errors).  The generic depth check (`len(stack) + delta < 16`: TooShallow)
is made by each handler whose delta is negative, using `site.min_depth`.

Handlers record their effects on the co-processor tables -- u32 entries and
Tip5 permutation inputs -- in `machine.u32_entries` and
`machine.permutation_inputs`; everything else a table needs is static per
instruction and is counted from visit counts in `vm.tables`.

The stack is a Python list with the top at the end: `st_i = stack[-1 - i]`.
"""

from vm.handlers import coprocessor, core
from vm.handlers.common import Fault, Halt, Site

__all__ = ["HANDLERS", "Fault", "Halt", "Site"]

HANDLERS = {**core.HANDLERS, **coprocessor.HANDLERS}
