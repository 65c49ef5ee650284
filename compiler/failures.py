"""Run failures in the language's terms, at the source line that caused them.

Input: a failure of a run -- the VM's `VMError` (interpreter or JIT: the same record) with
the program's source map (compiler.sourcemap), or the reference evaluator's `Failure`,
which carries its origin itself.  Output: a `RunFailure`: the error kind, a message about
the construct that failed (`bounded loop ran past 8 iterations`, `assert.eq failed: 3 != 4`,
`as_u32: 4294967296 is not a u32`), its origin, and for the VM where it stopped.

The values a message quotes are the failing construct's operands: the evaluator has them;
for the VM they are the top words of the stack just before the construct's first
instruction, which `vm_failure` reads from a second run of the same program that stops
there (`rerun(cycles)`; runs are deterministic).  Without a source map (hand-written TASM)
or an origin, the message is the VM's own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from compiler.failure_kinds import Kind
from compiler.sourcemap import Origin, construct_start, origin_at

U32_LIMIT = 1 << 32


@dataclass(frozen=True)
class RunFailure:
    kind: str
    message: str  # in the language's terms when the origin is known
    origin: Origin | None = None
    where: str = ""  # for the VM: "at ip 17 ('assert'), cycle 9"
    # the failure the source order gives the same input, when it is another construct's
    # (compiled code may check in another order: `first_in_source`)
    source_order: RunFailure | None = None
    # the calls the failing construct ran inside, innermost first, each (file, span)
    calls: tuple = ()
    machine: str = "the VM"  # what stopped `where` says: "the wasm run" for --target wasm

    def as_json(self) -> dict | None:
        """The `location` of a JSON error: the origin's file and span, and the message; with
        `first_in_source`, the source order's failure where it is at another construct."""
        if self.origin is None:
            return None
        location = {**self.origin.as_json(), "message": self.message}
        location["calls"] = [_place(path, span) for path, span in self.calls]
        if self.source_order is not None:
            first = self.source_order
            location["first_in_source"] = {**first.origin.as_json(), "kind": first.kind}
            location["first_in_source"]["message"] = first.message
        return location

    def as_message(self) -> dict:
        """The failure as `--message-format json` prints it: the fields of a diagnostic
        (`compiler.diagnostics.Diagnostic.as_json`, the kind as its code) and `calls`."""
        span = self.origin.span if self.origin is not None else None
        return {
            "severity": "error",
            "code": self.kind,
            "message": self.message,
            "file": self.origin.path if self.origin is not None else None,
            "line": span.line if span else 0,
            "column": span.column if span else 0,
            "end_line": span.end_line if span else 0,
            "end_column": span.end_column if span else 0,
            "hints": [],
            "calls": [_place(path, call) for path, call in self.calls],
            "rendered": render(self),
        }


def _place(path: str, span) -> dict:
    return {"file": path, "line": span.line, "column": span.column}


def first_in_source(failure: RunFailure, reference: RunFailure | None) -> RunFailure:
    """`failure` (a compiled run's) with the reference evaluator's failure of the same input
    attached when that is at another construct.  Every level rejects exactly the inputs the
    source rejects, but compiled code may check in another order than the source's (a
    range check merged into the instruction that uses the value, a block rescheduled), so an
    input that breaks more than one check can stop at another of them."""
    if reference is None or reference.origin is None or failure.origin is None:
        return failure
    here, there = failure.origin, reference.origin
    if (here.path, here.span) == (there.path, there.span):
        return failure
    return replace(failure, source_order=reference)


# The VM kinds a construct's check may fail with in compiled code, and the kind the source
# gives it (the reference evaluator's): a bounded loop checks its count and an index its range
# with `lt` and `assert`, and -O0 checks `as_u32` with `split` and `assert`.
CHECKED_AS = {
    "bounded": (Kind.BOUND_EXCEEDED, (Kind.ASSERTION_FAILED, Kind.FAILED_U32_CONVERSION)),
    "index": (Kind.INDEX_OUT_OF_BOUNDS, (Kind.ASSERTION_FAILED, Kind.FAILED_U32_CONVERSION)),
    "as_u32": (Kind.FAILED_U32_CONVERSION, (Kind.ASSERTION_FAILED,)),
}


def language_kind(kind: str, origin: Origin | None) -> str:
    """The kind in the language's terms of a compiled run's failure of `kind` at `origin`:
    the kind the reference evaluator reports for the same construct (CHECKED_AS)."""
    if origin is None:
        return kind
    construct = origin.builtin if origin.construct == "builtin" else origin.construct
    source_kind, vm_kinds = CHECKED_AS.get(construct, (kind, ()))
    return source_kind if kind in vm_kinds else kind


# --- messages ----------------------------------------------------------------------------------


def _values(operands) -> str:
    return " != ".join(str(value) for value in operands)


def _not_u32(operands) -> int | None:
    return next((value for value in operands or () if value >= U32_LIMIT), None)


def _builtin_message(kind: str, origin: Origin, operands, fallback: str) -> str:
    name, builtin = origin.name, origin.builtin
    match builtin, kind:
        case "assert", _:
            return f"{name} failed: the condition is false"
        case "assert_eq", _:
            if operands and len(operands) == 2:
                return f"{name} failed: {_values(operands)}"
            return f"{name} failed: the two values differ"
        case "assert_digest", _:
            if operands and len(operands) == 10:
                first, second = operands[:5], operands[5:]
                word = next(i for i in range(5) if first[i] != second[i])
                return (
                    f"{name} failed: the digests differ in word {word}: "
                    f"{first[word]} != {second[word]}"
                )
            return f"{name} failed: the digests differ"
        case ("as_u32", _) | (_, Kind.FAILED_U32_CONVERSION):
            value = _not_u32(operands)
            if value is not None:
                return f"{name}: {value} is not a u32"
            return f"{name}: the value is not a u32"
        case _, Kind.INVERSE_OF_ZERO:
            return f"{name}: 0 has no inverse"
        case _, Kind.LOGARITHM_OF_ZERO:
            return f"{name}: the logarithm of 0 is undefined"
        case _, Kind.SPONGE_NOT_INITIALIZED:
            return f"{name} before sponge_init"
    return f"{name}: {fallback}"


def describe(kind: str, origin: Origin | None, operands, fallback: str) -> str:
    """The message for a failure of `kind` at `origin` with the construct's `operands`
    (its argument words, deepest first, or None if unknown); `fallback` is the message
    of the VM or evaluator, used when the construct says nothing more."""
    if origin is None or kind == Kind.STEP_LIMIT_EXCEEDED:
        return fallback
    match origin.construct:
        case "bounded" if kind in (
            Kind.ASSERTION_FAILED,
            Kind.BOUND_EXCEEDED,
            Kind.FAILED_U32_CONVERSION,
        ):
            # a count of 2^32 or more fails the VM's u32 test of the count: more than any bound
            return f"bounded loop ran past {origin.name} iterations"
        case "index" if kind in (
            Kind.ASSERTION_FAILED,
            Kind.INDEX_OUT_OF_BOUNDS,
            Kind.FAILED_U32_CONVERSION,
        ):
            length = array_length(origin.name)
            if operands is not None and len(operands) == 1:
                return f"index {operands[0]} is out of bounds for {origin.name} (length {length})"
            return f"index out of bounds for {origin.name} (length {length})"
        case "contract" if kind == Kind.ASSERTION_FAILED:
            return f"contract #[{origin.name}] does not hold"
        case "match" if kind == Kind.ASSERTION_FAILED:
            return f"the value does not fit the pattern: {origin.name}"
        case "builtin":
            return _builtin_message(kind, origin, operands, fallback)
        case "operator" if kind == Kind.FAILED_U32_CONVERSION:
            value = _not_u32(operands)
            if value is not None:
                return f"'{origin.name}': {value} is not a u32"
            return f"'{origin.name}': an operand is not a u32"
        case "operator" if kind == Kind.DIVISION_BY_ZERO:
            return f"'{origin.name}': division by zero"
    return fallback


def array_length(array_type: str) -> int:
    """The length of an array type as the source prints it: `[[Field; 2]; 3]` -> 3."""
    return int(array_type.rsplit(";", 1)[1].strip(" ]"))


def operand_count(origin: Origin | None) -> int:
    """How many stack words a message about `origin` quotes."""
    if origin is None:
        return 0
    if origin.construct == "operator" and origin.name in ("<", "&", "^", "/%"):
        return 2
    if origin.construct == "builtin":
        from compiler.builtins import BUILTINS
        from compiler.check.types import width

        quoted = ("assert_eq", "assert_digest", "as_u32", "log2", "pow", "popcount")
        if origin.builtin in quoted:
            return sum(width(param) for param in BUILTINS[origin.builtin].params)
    return 0


# --- the VM ------------------------------------------------------------------------------------

Rerun = Callable[[int], object]  # cycles -> the run record of the same run stopped there


def vm_failure(program, error, rerun: Rerun | None = None) -> RunFailure:
    """The failure a `vm.interp.VMError` of `program` is in the language's terms;
    `rerun`, when given, reads the failing construct's operands."""
    where = f"at ip {error.ip} ('{error.instruction}'), cycle {error.cycle}"
    origin = origin_at(program, error.ip)
    if origin is None and error.kind == Kind.STEP_LIMIT_EXCEEDED:
        origin = _running_construct(program, error)
    operands = None
    count = operand_count(origin)
    if rerun is not None and error.kind != Kind.STEP_LIMIT_EXCEEDED:
        if origin is not None and origin.construct == "index":
            operands = _index_operand(program, error, array_length(origin.name), rerun)
        elif count:
            operands = _operands(program, error, count, rerun)
    message = describe(error.kind, origin, operands, error.message)
    kind = language_kind(error.kind, origin)
    return RunFailure(kind, message, origin, where, calls=vm_calls(program, error, origin))


def _running_construct(program, error) -> Origin | None:
    """Where a run stopped by the step limit was, when its instruction has no source (a
    loop's counter and jump): the construct that called the innermost subroutine running,
    for a loop its `for` statement -- the origin of that `call`, or of the nearest
    instruction before it in its block."""
    targets = {address for _, address in program.labels}
    for after in reversed(error.calls):
        index = program.op_index.get(after - 2)  # `call` is two words
        while index is not None and index >= 0:
            origin = program.source_map[index] if index < len(program.source_map) else None
            if origin is not None:
                return origin
            if program.addresses[index] in targets:
                break
            index -= 1
    return None


def vm_calls(program, error, origin: Origin | None) -> tuple:
    """The calls a failure of the VM ran inside, innermost first, in the source's terms:
    the calls its code was inlined at, then for each frame of the jump stack (innermost
    first) that is a function call (not a loop's or branch's subroutine), the call and
    the calls it was inlined at."""
    calls = list(origin.inlined_at) if origin is not None else []
    for after in reversed(error.calls):
        call = origin_at(program, after - 2)  # `call` is two words
        if call is not None and call.construct == "call":
            calls.append((call.path, call.span))
            calls.extend(call.inlined_at)
    return tuple(calls)


def _index_operand(program, error, length: int, rerun: Rerun):
    """(the index,) of a failed bounds check: the check is an `lt` of the index (st0)
    against the length (st1) followed by an `assert`, in the construct's straight-line
    run; read at that `lt` on a rerun, trusted only if st1 is the array's length."""
    back = construct_start(program, error.ip)
    at = program.op_index[error.ip]
    for offset in range(back + 1):
        if program.ops[at - offset].instruction.name == "lt":
            break
    else:
        return None
    record = rerun(error.cycle - offset)
    stopped = record.error
    if stopped is None or stopped.kind != Kind.STEP_LIMIT_EXCEEDED:
        return None
    if stopped.ip != program.addresses[at - offset] or len(record.stack) < 2:
        return None
    if record.stack[-2] != length:
        return None
    return (record.stack[-1],)


def _operands(program, error, count: int, rerun: Rerun):
    back = construct_start(program, error.ip)
    cycles = error.cycle - back
    if cycles < 1:
        return None
    record = rerun(cycles)
    start = program.addresses[program.op_index[error.ip] - back]
    stopped = record.error
    if stopped is None or stopped.kind != Kind.STEP_LIMIT_EXCEEDED or stopped.ip != start:
        return None
    if back == 0 and count == 2 and error.instruction == "assert" and record.stack:
        # `assert.eq(x, 1)` whose `push 1 eq assert` the TIR peephole made `assert`
        # (compiler.optimize.rules): the construct is that one instruction, on x
        return (record.stack[-1], 1)
    if len(record.stack) < count:
        return None
    return tuple(record.stack[-count:])


# --- rendering -----------------------------------------------------------------------------------


def render(failure: RunFailure, color: bool = False) -> str:
    """`file:line:col: error[KIND]: message`, the source line with a caret under the
    construct (its first line), and where the VM stopped; without an origin, one line."""
    from compiler.diagnostics import Diagnostic
    from compiler.diagnostics import render as render_diagnostic

    if failure.origin is None:
        text = f"error: {failure.kind}"
        if failure.where:
            text += f" {failure.where}"
        return f"{text}: {failure.message}"
    origin = failure.origin
    source = _read(origin.path)
    span = _first_line(origin.span, source)
    diagnostic = Diagnostic("error", failure.kind, failure.message, origin.path, span)
    text = render_diagnostic(diagnostic, source, color)
    gutter = " " * len(str(span.line))
    for path, call in failure.calls:
        text += f"\n {gutter} = note: called from {path}:{call.line}:{call.column}"
    if failure.where:
        text += f"\n {gutter} = note: {failure.machine} stopped {failure.where}"
    first = failure.source_order
    if first is not None:
        text += (
            f"\n {gutter} = note: in source order this input fails first at {first.origin.where}"
            f": {first.message} ({first.kind}); compiled code may check in another order and "
            "stop at another check the input breaks; every -O level rejects the same inputs"
        )
    return text


def _first_line(span, source: str | None):
    """A span that covers more than one line, cut to the end of its first (less a `{`)."""
    if span.end_line == span.line or source is None:
        return span
    lines = source.splitlines()
    if not 1 <= span.line <= len(lines):
        return span
    text = lines[span.line - 1].rstrip()
    if text.endswith("{"):
        text = text[:-1].rstrip()
    return type(span)(span.line, span.column, span.line, max(len(text), span.column))


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as file:
            return file.read()
    except (OSError, UnicodeDecodeError):
        return None
