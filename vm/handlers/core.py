"""Handlers of the instructions that touch only the op stack, the jump stack, the
input streams and the u32 table: stack manipulation, control flow, base-field and
u32 arithmetic, I/O."""

from __future__ import annotations

from vm.field import P
from vm.handlers.common import U32_LIMIT, Fault, Halt, not_u32, plural, too_shallow
from vm.isa import Failure

# --- stack manipulation ------------------------------------------------------------------


def _push(machine, site):
    stack, value, after = machine.stack, site.op.argument, site.next_address

    def push():
        stack.append(value)
        return after

    return push


def _pop(machine, site):
    stack, count, after, need = machine.stack, site.op.argument, site.next_address, site.min_depth

    def pop():
        if len(stack) < need:
            raise too_shallow(site, len(stack))
        del stack[-count:]
        return after

    return pop


def _divine(machine, site):
    stack, secret, count, after = (
        machine.stack,
        machine.secret_input,
        site.op.argument,
        site.next_address,
    )

    def divine():
        if len(secret) < count:
            raise Fault(
                Failure.EMPTY_SECRET_INPUT,
                f"'divine {count}' needs {plural(count, 'secret word')}, {len(secret)} left",
            )
        for _ in range(count):
            stack.append(secret.popleft())
        return after

    return divine


def _pick(machine, site):
    stack, position, after = machine.stack, -1 - site.op.argument, site.next_address

    def pick():
        stack.append(stack.pop(position))
        return after

    return pick


def _place(machine, site):
    stack, index, after = machine.stack, site.op.argument, site.next_address

    def place():
        value = stack.pop()
        stack.insert(len(stack) - index, value)
        return after

    return place


def _dup(machine, site):
    stack, position, after = machine.stack, -1 - site.op.argument, site.next_address

    def dup():
        stack.append(stack[position])
        return after

    return dup


def _swap(machine, site):
    stack, position, after = machine.stack, -1 - site.op.argument, site.next_address

    def swap():
        stack[-1], stack[position] = stack[position], stack[-1]
        return after

    return swap


# --- control flow ------------------------------------------------------------------------


def _halt(machine, site):
    def halt():
        raise Halt

    return halt


def _nop(machine, site):
    after = site.next_address

    def nop():
        return after

    return nop


def _skiz(machine, site):
    stack, after, skip, need = machine.stack, site.next_address, site.skip_address, site.min_depth

    def skiz():
        if len(stack) < need:
            raise too_shallow(site, len(stack))
        if stack.pop():
            return after
        if skip is None:
            raise Fault(
                Failure.INSTRUCTION_POINTER_OVERFLOW, "'skiz' has no next instruction to skip"
            )
        return skip

    return skiz


def _call(machine, site):
    jump_stack, target, after = machine.jump_stack, site.op.argument, site.next_address

    def call():
        jump_stack.append((after, target))
        return target

    return call


def _empty_jump_stack(name: str) -> Fault:
    return Fault(Failure.JUMP_STACK_IS_EMPTY, f"'{name}' with an empty jump stack")


def _return(machine, site):
    jump_stack = machine.jump_stack

    def return_():
        if not jump_stack:
            raise _empty_jump_stack("return")
        return jump_stack.pop()[0]

    return return_


def _recurse(machine, site):
    jump_stack = machine.jump_stack

    def recurse():
        if not jump_stack:
            raise _empty_jump_stack("recurse")
        return jump_stack[-1][1]

    return recurse


def _recurse_or_return(machine, site):
    stack, jump_stack = machine.stack, machine.jump_stack

    def recurse_or_return():
        if not jump_stack:
            raise _empty_jump_stack("recurse_or_return")
        if stack[-6] == stack[-7]:
            return jump_stack.pop()[0]
        return jump_stack[-1][1]

    return recurse_or_return


def _assert(machine, site):
    stack, after, need, error_id = (
        machine.stack,
        site.next_address,
        site.min_depth,
        site.op.error_id,
    )
    suffix = "" if error_id is None else f" (error_id {error_id})"

    def assert_():
        if len(stack) < need:
            raise too_shallow(site, len(stack))
        if stack[-1] != 1:
            raise Fault(
                Failure.ASSERTION_FAILED, f"assertion failed: st0 = {stack[-1]}, expected 1{suffix}"
            )
        stack.pop()
        return after

    return assert_


# --- base-field arithmetic -------------------------------------------------------------------


def _add(machine, site):
    stack, after, need = machine.stack, site.next_address, site.min_depth

    def add():
        if len(stack) < need:
            raise too_shallow(site, len(stack))
        top = stack.pop()
        stack[-1] = (stack[-1] + top) % P
        return after

    return add


def _addi(machine, site):
    stack, value, after = machine.stack, site.op.argument, site.next_address

    def addi():
        stack[-1] = (stack[-1] + value) % P
        return after

    return addi


def _mul(machine, site):
    stack, after, need = machine.stack, site.next_address, site.min_depth

    def mul():
        if len(stack) < need:
            raise too_shallow(site, len(stack))
        top = stack.pop()
        stack[-1] = stack[-1] * top % P
        return after

    return mul


def _invert(machine, site):
    stack, after = machine.stack, site.next_address

    def invert():
        if stack[-1] == 0:
            raise Fault(Failure.INVERSE_OF_ZERO, "'invert' of 0")
        stack[-1] = pow(stack[-1], P - 2, P)
        return after

    return invert


def _eq(machine, site):
    stack, after, need = machine.stack, site.next_address, site.min_depth

    def eq():
        if len(stack) < need:
            raise too_shallow(site, len(stack))
        top = stack.pop()
        stack[-1] = 1 if stack[-1] == top else 0
        return after

    return eq


# --- u32 arithmetic --------------------------------------------------------------------------


def _split(machine, site):
    stack, entries, after = machine.stack, machine.u32_entries, site.next_address

    def split():
        value = stack[-1]
        high, low = value >> 32, value & 0xFFFFFFFF
        stack[-1] = high
        stack.append(low)
        entries.add(("split", low, high))
        return after

    return split


def _binary_u32(name: str, kind: str, compute):
    """A handler for `_ b a -> _ compute(a, b)` on u32 operands, recording (kind, a, b)."""

    def factory(machine, site):
        stack, entries, after, need = (
            machine.stack,
            machine.u32_entries,
            site.next_address,
            site.min_depth,
        )

        def step():
            if len(stack) < need:
                raise too_shallow(site, len(stack))
            top, below = stack[-1], stack[-2]
            if top >= U32_LIMIT:
                raise not_u32(top, f"'{name}' operand st0 =")
            if below >= U32_LIMIT:
                raise not_u32(below, f"'{name}' operand st1 =")
            stack.pop()
            stack[-1] = compute(top, below)
            entries.add((kind, top, below))
            return after

        step.__name__ = name
        return step

    return factory


_lt = _binary_u32("lt", "lt", lambda top, below: 1 if top < below else 0)
_and = _binary_u32("and", "and", lambda top, below: top & below)
_xor = _binary_u32("xor", "and", lambda top, below: top ^ below)


def _log_2_floor(machine, site):
    stack, entries, after = machine.stack, machine.u32_entries, site.next_address

    def log_2_floor():
        value = stack[-1]
        if value >= U32_LIMIT:
            raise not_u32(value, "'log_2_floor' operand")
        if value == 0:
            raise Fault(Failure.LOGARITHM_OF_ZERO, "'log_2_floor' of 0")
        stack[-1] = value.bit_length() - 1
        entries.add(("log2", value, 0))
        return after

    return log_2_floor


def _pow(machine, site):
    stack, entries, after, need = (
        machine.stack,
        machine.u32_entries,
        site.next_address,
        site.min_depth,
    )

    def pow_():
        if len(stack) < need:
            raise too_shallow(site, len(stack))
        base, exponent = stack[-1], stack[-2]
        if exponent >= U32_LIMIT:
            raise not_u32(exponent, "'pow' exponent st1 =")
        stack.pop()
        stack[-1] = pow(base, exponent, P)
        entries.add(("pow", base, exponent))
        return after

    return pow_


def _div_mod(machine, site):
    stack, entries, after = machine.stack, machine.u32_entries, site.next_address

    def div_mod():
        numerator, denominator = stack[-1], stack[-2]
        if numerator >= U32_LIMIT:
            raise not_u32(numerator, "'div_mod' numerator st0 =")
        if denominator >= U32_LIMIT:
            raise not_u32(denominator, "'div_mod' denominator st1 =")
        if denominator == 0:
            raise Fault(Failure.DIVISION_BY_ZERO, "'div_mod' by 0")
        quotient, remainder = divmod(numerator, denominator)
        stack[-2], stack[-1] = quotient, remainder
        entries.add(("lt", remainder, denominator))
        entries.add(("split", numerator, quotient))
        return after

    return div_mod


def _pop_count(machine, site):
    stack, entries, after = machine.stack, machine.u32_entries, site.next_address

    def pop_count():
        value = stack[-1]
        if value >= U32_LIMIT:
            raise not_u32(value, "'pop_count' operand")
        stack[-1] = value.bit_count()
        entries.add(("popcount", value, 0))
        return after

    return pop_count


# --- input / output ------------------------------------------------------------------------


def _read_io(machine, site):
    stack, public, count, after = (
        machine.stack,
        machine.public_input,
        site.op.argument,
        site.next_address,
    )

    def read_io():
        if len(public) < count:
            raise Fault(
                Failure.EMPTY_PUBLIC_INPUT,
                f"'read_io {count}' needs {plural(count, 'public word')}, {len(public)} left",
            )
        for _ in range(count):
            stack.append(public.popleft())
        return after

    return read_io


def _write_io(machine, site):
    stack, output, count, after, need = (
        machine.stack,
        machine.output,
        site.op.argument,
        site.next_address,
        site.min_depth,
    )

    def write_io():
        if len(stack) < need:
            raise too_shallow(site, len(stack))
        for _ in range(count):
            output.append(stack.pop())
        return after

    return write_io


HANDLERS = {
    "push": _push,
    "pop": _pop,
    "divine": _divine,
    "pick": _pick,
    "place": _place,
    "dup": _dup,
    "swap": _swap,
    "halt": _halt,
    "nop": _nop,
    "skiz": _skiz,
    "call": _call,
    "return": _return,
    "recurse": _recurse,
    "recurse_or_return": _recurse_or_return,
    "assert": _assert,
    "add": _add,
    "addi": _addi,
    "mul": _mul,
    "invert": _invert,
    "eq": _eq,
    "split": _split,
    "lt": _lt,
    "and": _and,
    "xor": _xor,
    "log_2_floor": _log_2_floor,
    "pow": _pow,
    "div_mod": _div_mod,
    "pop_count": _pop_count,
    "read_io": _read_io,
    "write_io": _write_io,
}
