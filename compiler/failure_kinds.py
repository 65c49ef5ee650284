"""Every kind a run's failure can have, in one table: what `error[KIND]` says.

The VM's kinds are Triton VM's error names, one per instruction check (vm.isa.Failure,
whose members this table repeats by value, so each is spelled once in the code base's
reading of it); `StepLimitExceeded` is the run loop's own (vm.interp.STEP_LIMIT_KIND: the
run was cut off, not failed); `BoundExceeded` and `IndexOutOfBounds` are the language's
own, the kinds its reference evaluator reports for a `bounded` loop that runs past its
bound and an array index past its length (compiled code checks those with an assertion
or a u32 conversion: compiler.failures.CHECKED_AS maps those back).  A kind is a
`StrEnum` member, equal to its name as a string, so it reads and prints as the text.
"""

from __future__ import annotations

from enum import StrEnum


class Kind(StrEnum):
    # Triton VM's (vm.isa.Failure)
    ASSERTION_FAILED = "AssertionFailed"
    VECTOR_ASSERTION_FAILED = "VectorAssertionFailed"
    TOO_SHALLOW = "TooShallow"
    FAILED_U32_CONVERSION = "FailedU32Conversion"
    INVERSE_OF_ZERO = "InverseOfZero"
    DIVISION_BY_ZERO = "DivisionByZero"
    LOGARITHM_OF_ZERO = "LogarithmOfZero"
    JUMP_STACK_IS_EMPTY = "JumpStackIsEmpty"
    SPONGE_NOT_INITIALIZED = "SpongeNotInitialized"
    EMPTY_PUBLIC_INPUT = "EmptyPublicInput"
    EMPTY_SECRET_INPUT = "EmptySecretInput"
    EMPTY_SECRET_DIGEST_INPUT = "EmptySecretDigestInput"
    INSTRUCTION_POINTER_OVERFLOW = "InstructionPointerOverflow"
    # the run loop's (vm.interp.STEP_LIMIT_KIND)
    STEP_LIMIT_EXCEEDED = "StepLimitExceeded"
    # the language's
    BOUND_EXCEEDED = "BoundExceeded"
    INDEX_OUT_OF_BOUNDS = "IndexOutOfBounds"
