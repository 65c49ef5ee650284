"""Handlers of the instructions that use RAM, Tip5 or the extension field: memory,
hashing and the sponge, X-field arithmetic, Merkle, dot and Horner steps."""

from __future__ import annotations

from vm import tip5, xfield
from vm.field import P
from vm.handlers.common import ONES, U32_LIMIT, Fault, not_u32, too_shallow
from vm.isa import Failure

# --- memory --------------------------------------------------------------------------------


def _read_mem(machine, site):
    stack, ram, count, after = machine.stack, machine.ram, site.op.argument, site.next_address

    def read_mem():
        pointer = stack.pop()
        for offset in range(count):
            stack.append(ram.get((pointer - offset) % P, 0))
        stack.append((pointer - count) % P)
        return after

    return read_mem


def _write_mem(machine, site):
    stack, ram, count, after, need = (
        machine.stack,
        machine.ram,
        site.op.argument,
        site.next_address,
        site.min_depth,
    )

    def write_mem():
        if len(stack) < need:
            raise too_shallow(site, len(stack))
        pointer = stack.pop()
        for offset in range(count):
            ram[(pointer + offset) % P] = stack.pop()
        stack.append((pointer + count) % P)
        return after

    return write_mem


# --- hashing ---------------------------------------------------------------------------------


def _permute(machine, state: tuple) -> tuple:
    machine.permutation_inputs.add(state)
    return tip5.permutation(state)


def _hash(machine, site):
    stack, after, need = machine.stack, site.next_address, site.min_depth

    def hash_():
        if len(stack) < need:
            raise too_shallow(site, len(stack))
        words = tuple(stack[-1:-11:-1])
        digest = _permute(machine, words + ONES)[:5]
        del stack[-10:]
        stack.extend(reversed(digest))
        return after

    return hash_


def _assert_vector(machine, site):
    stack, after, need, error_id = (
        machine.stack,
        site.next_address,
        site.min_depth,
        site.op.error_id,
    )
    suffix = "" if error_id is None else f" (error_id {error_id})"

    def assert_vector():
        if len(stack) < need:
            raise too_shallow(site, len(stack))
        for index in range(5):
            if stack[-1 - index] != stack[-6 - index]:
                raise Fault(
                    Failure.VECTOR_ASSERTION_FAILED,
                    f"vector assertion failed at index {index}: "
                    f"st{index} = {stack[-1 - index]}, st{index + 5} = {stack[-6 - index]}{suffix}",
                )
        del stack[-5:]
        return after

    return assert_vector


def _sponge_init(machine, site):
    after = site.next_address

    def sponge_init():
        machine.sponge = (0,) * 16
        return after

    return sponge_init


def _require_sponge(machine, name: str) -> tuple:
    if machine.sponge is None:
        raise Fault(Failure.SPONGE_NOT_INITIALIZED, f"'{name}' before 'sponge_init'")
    return machine.sponge


def _sponge_absorb(machine, site):
    stack, after, need = machine.stack, site.next_address, site.min_depth

    def sponge_absorb():
        if len(stack) < need:
            raise too_shallow(site, len(stack))
        state = _require_sponge(machine, "sponge_absorb")
        words = tuple(stack[-1:-11:-1])
        del stack[-10:]
        machine.sponge = _permute(machine, words + state[10:])
        return after

    return sponge_absorb


def _sponge_absorb_mem(machine, site):
    stack, ram, after = machine.stack, machine.ram, site.next_address

    def sponge_absorb_mem():
        state = _require_sponge(machine, "sponge_absorb_mem")
        pointer = stack.pop()
        words = tuple(ram.get((pointer + offset) % P, 0) for offset in range(10))
        stack[-4:] = words[3::-1]
        stack.append((pointer + 10) % P)
        machine.sponge = _permute(machine, words + state[10:])
        return after

    return sponge_absorb_mem


def _sponge_squeeze(machine, site):
    stack, after = machine.stack, site.next_address

    def sponge_squeeze():
        state = _require_sponge(machine, "sponge_squeeze")
        stack.extend(state[9::-1])
        machine.sponge = _permute(machine, state)
        return after

    return sponge_squeeze


# --- extension-field arithmetic (an element is `_ c2 c1 c0`, c0 on top) -----------------------


def _top_xfield(stack, depth: int = 0) -> tuple:
    """The X-field element whose c0 is st_depth."""
    end = len(stack) - depth
    return (stack[end - 1], stack[end - 2], stack[end - 3])


def _xx_binary(name: str, combine):
    def factory(machine, site):
        stack, after, need = machine.stack, site.next_address, site.min_depth

        def step():
            if len(stack) < need:
                raise too_shallow(site, len(stack))
            result = combine(_top_xfield(stack), _top_xfield(stack, 3))
            del stack[-6:]
            stack.extend(reversed(result))
            return after

        step.__name__ = name
        return step

    return factory


_xx_add = _xx_binary("xx_add", xfield.add)
_xx_mul = _xx_binary("xx_mul", xfield.mul)


def _x_invert(machine, site):
    stack, after = machine.stack, site.next_address

    def x_invert():
        element = _top_xfield(stack)
        if element == xfield.ZERO:
            raise Fault(Failure.INVERSE_OF_ZERO, "'x_invert' of 0")
        stack[-3:] = reversed(xfield.inverse(element))
        return after

    return x_invert


def _xb_mul(machine, site):
    stack, after, need = machine.stack, site.next_address, site.min_depth

    def xb_mul():
        if len(stack) < need:
            raise too_shallow(site, len(stack))
        scalar = stack.pop()
        stack[-3:] = reversed(xfield.scalar_mul(scalar, _top_xfield(stack)))
        return after

    return xb_mul


def _ram_xfield(ram, pointer: int) -> tuple:
    return tuple(ram.get((pointer + offset) % P, 0) for offset in range(3))


def _xx_dot_step(machine, site):
    stack, ram, after = machine.stack, machine.ram, site.next_address

    def xx_dot_step():
        left, right = stack[-1], stack[-2]
        product = xfield.mul(_ram_xfield(ram, left), _ram_xfield(ram, right))
        accumulator = xfield.add(_top_xfield(stack, 2), product)
        stack[-5:] = (*reversed(accumulator), (right + 3) % P, (left + 3) % P)
        return after

    return xx_dot_step


def _xb_dot_step(machine, site):
    stack, ram, after = machine.stack, machine.ram, site.next_address

    def xb_dot_step():
        left, right = stack[-1], stack[-2]
        product = xfield.scalar_mul(ram.get(left, 0), _ram_xfield(ram, right))
        accumulator = xfield.add(_top_xfield(stack, 2), product)
        stack[-5:] = (*reversed(accumulator), (right + 3) % P, (left + 1) % P)
        return after

    return xb_dot_step


def _horner_step(name: str, coefficients: int):
    """b_horner_step (1 base coefficient) and x_horner_step (3 coefficients)."""

    def factory(machine, site):
        stack, ram, after = machine.stack, machine.ram, site.next_address

        def step():
            pointer = stack[-6]
            read = [ram.get((pointer - offset) % P, 0) for offset in range(coefficients)]
            addend = (read[0], 0, 0) if coefficients == 1 else (read[2], read[1], read[0])
            accumulator = xfield.add(xfield.mul(_top_xfield(stack, 7), _top_xfield(stack)), addend)
            stack[-10:-7] = reversed(accumulator)
            stack[-6] = (pointer - coefficients) % P
            return after

        step.__name__ = name
        return step

    return factory


_b_horner_step = _horner_step("b_horner_step", 1)
_x_horner_step = _horner_step("x_horner_step", 3)


# --- Merkle steps ------------------------------------------------------------------------------


def _merkle(name: str, from_memory: bool):
    def factory(machine, site):
        stack, ram, digests, entries, after = (
            machine.stack,
            machine.ram,
            machine.secret_digests,
            machine.u32_entries,
            site.next_address,
        )

        def step():
            node_index = stack[-6]
            if node_index >= U32_LIMIT:
                raise not_u32(node_index, f"'{name}' node index st5 =")
            if from_memory:
                pointer = stack[-8]
                sibling = tuple(ram.get((pointer + offset) % P, 0) for offset in range(5))
                stack[-8] = (pointer + 5) % P
            elif not digests:
                raise Fault(
                    Failure.EMPTY_SECRET_DIGEST_INPUT, f"'{name}' with no secret digest left"
                )
            else:
                sibling = tuple(digests.popleft())
            current = tuple(stack[-1:-6:-1])
            pair = current + sibling if node_index % 2 == 0 else sibling + current
            digest = _permute(machine, pair + ONES)[:5]
            stack[-5:] = reversed(digest)
            stack[-6] = node_index >> 1
            entries.add(("split", node_index, node_index >> 1))
            return after

        step.__name__ = name
        return step

    return factory


HANDLERS = {
    "read_mem": _read_mem,
    "write_mem": _write_mem,
    "hash": _hash,
    "assert_vector": _assert_vector,
    "sponge_init": _sponge_init,
    "sponge_absorb": _sponge_absorb,
    "sponge_absorb_mem": _sponge_absorb_mem,
    "sponge_squeeze": _sponge_squeeze,
    "xx_add": _xx_add,
    "xx_mul": _xx_mul,
    "x_invert": _x_invert,
    "xb_mul": _xb_mul,
    "merkle_step": _merkle("merkle_step", False),
    "merkle_step_mem": _merkle("merkle_step_mem", True),
    "xx_dot_step": _xx_dot_step,
    "xb_dot_step": _xb_dot_step,
    "b_horner_step": _b_horner_step,
    "x_horner_step": _x_horner_step,
}
