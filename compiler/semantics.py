"""The meaning of every builtin (compiler.builtins), for the reference evaluator.

`BUILTIN_SEMANTICS[name](state, *arguments)` takes the evaluator's state (inputs, output,
RAM, sponge) and the argument values, each a tuple of field elements in stack layout
(first component deepest, docs/reference.md, Layout), and returns the result the same way.  They
follow Triton VM exactly: u32 preconditions, Tip5 through `vm.tip5`, the argument order
of hashing and output, the RAM layout of blocks.  A failure raises `Failure`, with an
error kind named like the VM's (`AssertionFailed`, `FailedU32Conversion`, ...) and the
operands a message may quote (compiler.failures).
"""

from __future__ import annotations

from collections import deque

from compiler.builtins import BUILTINS
from compiler.failure_kinds import Kind
from compiler.failures import describe
from vm import tip5, xfield
from vm.field import P

U32_LIMIT = 1 << 32


class Failure(Exception):
    """The program failed: `kind` names the failure the way the VM does; `origin` is the
    construct that failed (compiler.sourcemap) and `message` says so in its terms
    (compiler.failures), once `locate` has found it."""

    def __init__(self, kind: str, message: str, operands: tuple | None = None):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.operands = operands
        self.origin = None
        self.calls: list = []  # the calls it happened inside, innermost first: (file, span)

    def locate(self, origin) -> None:
        """Attach the innermost construct the failure happened in (the first one given)."""
        if self.origin is None:
            self.origin = origin
            self.message = describe(self.kind, origin, self.operands, self.message)

    def called_from(self, origin) -> None:
        """Note a call of a function the failure happened inside (innermost first)."""
        if self.origin is None:
            self.locate(origin)
        else:
            self.calls.append((origin.path, origin.span))


def u32_operand(value: int, what: str) -> int:
    if value >= U32_LIMIT:
        raise Failure(Kind.FAILED_U32_CONVERSION, f"{what} {value} is not a u32 value", (value,))
    return value


# --- builtins: each takes the state and the argument values (tuples) -----------------------------


def _take(queue: deque, count: int, kind: str, what: str) -> tuple:
    if len(queue) < count:
        plural = "s" * (count != 1)
        raise Failure(kind, f"{what} needs {count} word{plural}, {len(queue)} left")
    return tuple(queue.popleft() for _ in range(count))


def _reader(count: int, secret: bool = False):
    kind, what = (
        (Kind.EMPTY_SECRET_INPUT, "divine") if secret else (Kind.EMPTY_PUBLIC_INPUT, "read_io")
    )
    return lambda state: _take(state.secret if secret else state.public, count, kind, what)


def _write(state, *arguments) -> tuple:
    state.output.extend(word for argument in reversed(arguments) for word in argument)
    return ()


def _assert(state, condition) -> tuple:
    if condition[0] != 1:
        raise Failure(Kind.ASSERTION_FAILED, "assertion failed")
    return ()


def _assert_eq(state, a, b) -> tuple:
    if a != b:
        raise Failure(Kind.ASSERTION_FAILED, f"assert_eq failed: {a[0]} != {b[0]}", (a[0], b[0]))
    return ()


def _assert_digest(state, a, b) -> tuple:
    if a != b:
        raise Failure(
            Kind.VECTOR_ASSERTION_FAILED, "assert_digest failed: the digests differ", a + b
        )
    return ()


def _inverse(state, a) -> tuple:
    if a[0] == 0:
        raise Failure(Kind.INVERSE_OF_ZERO, "inverse of 0")
    return (pow(a[0], P - 2, P),)


def _log2(state, a) -> tuple:
    if u32_operand(a[0], "log2 operand") == 0:
        raise Failure(Kind.LOGARITHM_OF_ZERO, "log2 of 0")
    return (a[0].bit_length() - 1,)


def _hash(state, *words) -> tuple:
    digest = tip5.hash10([word[0] for word in reversed(words)])
    return tuple(reversed(digest))


def _sponge(state, name: str) -> list[int]:
    if state.sponge is None:
        raise Failure(Kind.SPONGE_NOT_INITIALIZED, f"{name} before sponge_init")
    return state.sponge


def _sponge_init(state) -> tuple:
    state.sponge = [0] * 16
    return ()


def _sponge_absorb(state, *words) -> tuple:
    sponge = _sponge(state, "sponge_absorb")
    state.sponge = list(tip5.permutation([word[0] for word in reversed(words)] + sponge[10:]))
    return ()


def _sponge_squeeze(state) -> tuple:
    sponge = _sponge(state, "sponge_squeeze")
    state.sponge = list(tip5.permutation(sponge))
    return tuple(sponge[9::-1])


def _sponge_absorb_mem(state, pointer) -> tuple:
    sponge = _sponge(state, "sponge_absorb_mem")
    words = [state.ram.get((pointer[0] + offset) % P, 0) for offset in range(10)]
    state.sponge = list(tip5.permutation(words + sponge[10:]))
    return ()


def _merkle_step(state, index, *digest) -> tuple:
    node = u32_operand(index[0], "merkle_step node index")
    if not state.digests:
        raise Failure(Kind.EMPTY_SECRET_DIGEST_INPUT, "merkle_step with no secret digest left")
    sibling = list(state.digests.popleft())
    current = [word[0] for word in reversed(digest)]
    pair = current + sibling if node % 2 == 0 else sibling + current
    return (node >> 1, *reversed(tip5.hash10(pair)))


def _ram_read_block(state, address) -> tuple:
    return tuple(state.ram.get((address[0] + 4 - i) % P, 0) for i in range(5))


def _ram_write_block(state, address, digest) -> tuple:
    for i, word in enumerate(digest):
        state.ram[(address[0] + 4 - i) % P] = word
    return ()


def _ram_write(state, address, value) -> tuple:
    state.ram[address[0]] = value[0]
    return ()


def _xinvert(state, value) -> tuple:
    element = (value[2], value[1], value[0])
    if element == xfield.ZERO:
        raise Failure(Kind.INVERSE_OF_ZERO, "xinvert of 0")
    inverse = xfield.inverse(element)
    return (inverse[2], inverse[1], inverse[0])


def _dot_step(extension: bool):
    """xx_dot_step (extension) and xb_dot_step: arguments (e2, e1, e0, b, a) as the stack
    holds them (`a` on top); the accumulator E = e0 + e1 X + e2 X^2 gains A * B, where
    B is the X-field element at RAM b..b+2 and A the one at a..a+2 (xx) or the word at a
    (xb); the pointers move past what was read."""

    def step(state, e2, e1, e0, b, a) -> tuple:
        left, right = a[0], b[0]

        def element(pointer):
            return tuple(state.ram.get((pointer + offset) % P, 0) for offset in range(3))

        if extension:
            product = xfield.mul(element(left), element(right))
            moved = 3
        else:
            product = xfield.scalar_mul(state.ram.get(left, 0), element(right))
            moved = 1
        total = xfield.add((e0[0], e1[0], e2[0]), product)
        return (total[2], total[1], total[0], (right + 3) % P, (left + moved) % P)

    return step


BUILTIN_SEMANTICS = {
    "pub_read": _reader(1),
    "pub_read2": _reader(2),
    "pub_read3": _reader(3),
    "pub_read4": _reader(4),
    "pub_read5": _reader(5),
    "pub_write": _write,
    "pub_write2": _write,
    "pub_write3": _write,
    "pub_write4": _write,
    "pub_write5": _write,
    "divine": _reader(1, True),
    "divine3": _reader(3, True),
    "divine5": _reader(5, True),
    "assert": _assert,
    "assert_eq": _assert_eq,
    "assert_digest": _assert_digest,
    "field_add": lambda state, a, b: ((a[0] + b[0]) % P,),
    "field_mul": lambda state, a, b: (a[0] * b[0] % P,),
    "sub": lambda state, a, b: ((a[0] - b[0]) % P,),
    "neg": lambda state, a: (-a[0] % P,),
    "inv": _inverse,
    "as_u32": lambda state, a: (u32_operand(a[0], "as_u32 of"),),
    "as_field": lambda state, a: a,
    "split": lambda state, a: (a[0] >> 32, a[0] & 0xFFFFFFFF),
    "log2": _log2,
    "pow": lambda state, base, exponent: (
        pow(base[0], u32_operand(exponent[0], "pow exponent"), P),
    ),
    "popcount": lambda state, a: (u32_operand(a[0], "popcount operand").bit_count(),),
    "hash": _hash,
    "sponge_init": _sponge_init,
    "sponge_absorb": _sponge_absorb,
    "sponge_squeeze": _sponge_squeeze,
    "sponge_absorb_mem": _sponge_absorb_mem,
    "merkle_step": _merkle_step,
    "ram_read": lambda state, address: (state.ram.get(address[0], 0),),
    "ram_write": _ram_write,
    "ram_read_block": _ram_read_block,
    "ram_write_block": _ram_write_block,
    "xfield": lambda state, a, b, c: (a[0], b[0], c[0]),
    "xinvert": _xinvert,
    "xx_dot_step": _dot_step(extension=True),
    "xb_dot_step": _dot_step(extension=False),
}
assert set(BUILTIN_SEMANTICS) == set(BUILTINS), "every builtin needs reference semantics"
