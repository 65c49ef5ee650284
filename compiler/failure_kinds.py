"""Every kind a run's failure can have, in one table: what `error[KIND]` says.

The VM's kinds are Triton VM's error names, one per instruction check (vm.isa.Failure,
whose members this table takes over); `StepLimitExceeded` is the run loop's own
(vm.isa.STEP_LIMIT_KIND: the run was cut off, not failed); `BoundExceeded` and
`IndexOutOfBounds` are the language's own, the kinds its reference evaluator reports for a
`bounded` loop that runs past its bound and an array index past its length (compiled code
checks those with an assertion or a u32 conversion: compiler.failures.CHECKED_AS maps those
back).  A kind is a `StrEnum` member, equal to its name as a string, so it reads and prints
as the text.
"""

from __future__ import annotations

from enum import StrEnum

from vm.isa import STEP_LIMIT_KIND, Failure

# Triton VM's (vm.isa.Failure), the run loop's, the language's
Kind = StrEnum(
    "Kind",
    {
        **{failure.name: failure.value for failure in Failure},
        "STEP_LIMIT_EXCEEDED": STEP_LIMIT_KIND,
        "BOUND_EXCEEDED": "BoundExceeded",
        "INDEX_OUT_OF_BOUNDS": "IndexOutOfBounds",
    },
    module=__name__,
)
