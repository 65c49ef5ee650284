"""TASM -> WebAssembly text: `translate(program)` returns the WAT of one module whose
exported function `run` executes the program exactly as `vm.interp` does.

The module's shape:

- memory `stack`: the op stack, one u64 word per slot, bottom first; `$sp` is the byte
  offset just above the top word (st_i is at `$sp - 8 (i + 1)`).  Memory `jumps`: the jump
  stack, one u64 per entry, `(return address << 32) | call target`.  Memory `data`: the
  visit count of every word address (u64, at `8 * address`), then the public and the
  secret input words and the secret digests (5 words each; the host writes them and passes
  where they start and how many).  Memory `hash` (vm.wasm.tip5): the Tip5 tables, the
  state `hash` and the Merkle steps permute, and the sponge's state.
- one function, `run`: a dispatch loop whose `br_table` on the instruction pointer enters
  the code of any instruction; straight-line code falls through to the next instruction.
  Each instruction first checks the step limit, then its failures in the interpreter's
  order, then does its work, counts one cycle and one visit of its address, and goes on.
- on halt or a failure `run` stores the status (0: halted; else 1 + the index of the
  failure kind in `STATUS_KINDS`), the failing address, the cycle count, both stack
  pointers, how many public words, secret words and digests were read and whether the
  sponge is initialized in exported globals: with the memories, the state before the
  failing instruction.
- the host provides `output` (write_io), `ram_read` and `ram_write` (RAM is sparse over the
  whole field, a Python dict).

Field arithmetic (vm.wasm.arithmetic) is exact mod p = 2^64 - 2^32 + 1: products are formed
128 bits wide from 32-bit limbs and reduced with 2^64 = 2^32 - 1 and 2^96 = -1 (mod p).  The
extension field F_p^3 = F_p[X] / (X^3 - X + 1) is done as `vm.xfield` does it.

Translated: stack manipulation, control flow, base- and extension-field arithmetic, u32
arithmetic, I/O, RAM, `assert_vector`, Tip5 `hash`, the sponge, the Merkle, dot and Horner
steps: every instruction of both ISAs (`TRANSLATIONS`; the permutation is vm.wasm.tip5).
An instruction without a row would make `translate` raise `WasmUnsupported` naming it and its
address: no code is produced for a program it cannot run exactly.
"""

from __future__ import annotations

from vm.field import P
from vm.handlers.common import U32_LIMIT
from vm.interp import STEP_LIMIT_KIND
from vm.isa import Failure
from vm.tasm import Op, Program
from vm.wasm.arithmetic import ARITHMETIC_WAT, MASK32
from vm.wasm.tip5 import HASH_STATE, PERMUTATION_WAT, SPONGE_STATE

STATUS_KINDS: tuple[str, ...] = (*Failure, STEP_LIMIT_KIND)
"""A nonzero status `s` means the run failed with `STATUS_KINDS[s - 1]`."""

WORD = 8  # bytes per u64 word


class WasmUnsupported(Exception):
    """The program uses an instruction this target does not translate."""


def _status(kind: str) -> int:
    return 1 + STATUS_KINDS.index(kind)


# --- small WAT pieces ----------------------------------------------------------------------


def _const(value: int) -> str:
    """An i64 constant for a u64 value (WAT accepts the unsigned spelling)."""
    return f"(i64.const {value})"


def _slot(index: int) -> str:
    """The byte address of st_index."""
    return f"(i32.sub (local.get $sp) (i32.const {WORD * (index + 1)}))"


def _load(index: int) -> str:
    return f"(i64.load $stack {_slot(index)})"


def _store(index: int, value: str) -> str:
    return f"(i64.store $stack {_slot(index)} {value})"


def _shrink(count: int) -> str:
    return f"(local.set $sp (i32.sub (local.get $sp) (i32.const {WORD * count})))"


def _grow(count: int) -> str:
    return f"(local.set $sp (i32.add (local.get $sp) (i32.const {WORD * count})))"


def _push(value: str) -> list[str]:
    """Append one word (room was made by the prologue's `$reserve`)."""
    return [f"(i64.store $stack (local.get $sp) {value})", _grow(1)]


def _fail(kind: str, address: int) -> str:
    return (
        f"(local.set $ip (i32.const {address})) "
        f"(local.set $status (i32.const {_status(kind)})) (br $exit)"
    )


def _fail_if(condition: str, kind: str, address: int) -> str:
    return f"(if {condition} (then {_fail(kind, address)}))"


def _depth_check(op: Op, address: int) -> list[str]:
    """TooShallow unless the stack holds the instruction's minimum depth."""
    need = op.instruction.minimum_depth(op.argument)
    if need <= 16:
        return []
    condition = f"(i32.lt_u (local.get $sp) (i32.const {WORD * need}))"
    return [_fail_if(condition, Failure.TOO_SHALLOW, address)]


def _u32_check(value: str, address: int) -> str:
    condition = f"(i64.ge_u {value} {_const(U32_LIMIT)})"
    return _fail_if(condition, Failure.FAILED_U32_CONVERSION, address)


def _jump(target: str) -> list[str]:
    return [f"(local.set $ip {target})", "(br $dispatch)"]


def _jump_stack_check(address: int) -> str:
    condition = "(i32.eqz (local.get $jsp))"
    return _fail_if(condition, Failure.JUMP_STACK_IS_EMPTY, address)


_TOP_JUMP = "(i64.load $jumps (i32.sub (local.get $jsp) (i32.const 8)))"
_POP_JUMP = "(local.set $jsp (i32.sub (local.get $jsp) (i32.const 8)))"
_RETURN_ADDRESS = f"(i32.wrap_i64 (i64.shr_u {_TOP_JUMP} (i64.const 32)))"
_CALL_TARGET = f"(i32.wrap_i64 (i64.and {_TOP_JUMP} {_const(MASK32)}))"


def _offset(pointer: str, offset: int) -> str:
    """`pointer + offset` mod p, for a small signed offset."""
    return pointer if offset == 0 else f"(call $add {pointer} {_const(offset % P)})"


# --- one translation per instruction ---------------------------------------------------------
# Each takes (op, address, site) and returns the body lines between the prologue (step limit,
# room on the stack) and the epilogue (count the cycle; go on, unless the body jumped).
# `site` is (next address, skip address or None).


def _binary(expression):
    def body(op, address, site):
        return [
            *_depth_check(op, address),
            f"(local.set $a {_load(0)})",
            _shrink(1),
            _store(0, expression("(local.get $a)", _load(0))),
        ]

    return body


def _binary_u32(expression):
    """`_ b a -> _ f(a, b)`, both operands checked to be u32 (st0 first)."""

    def body(op, address, site):
        return [
            *_depth_check(op, address),
            f"(local.set $a {_load(0)})",
            f"(local.set $b {_load(1)})",
            _u32_check("(local.get $a)", address),
            _u32_check("(local.get $b)", address),
            _shrink(1),
            _store(0, expression("(local.get $a)", "(local.get $b)")),
        ]

    return body


def _unary_u32(expression, zero_fails: str | None = None):
    def body(op, address, site):
        lines = [f"(local.set $a {_load(0)})", _u32_check("(local.get $a)", address)]
        if zero_fails:
            lines.append(_fail_if("(i64.eqz (local.get $a))", zero_fails, address))
        return [*lines, _store(0, expression("(local.get $a)"))]

    return body


def _push_op(op, address, site):
    return _push(_const(op.argument))


def _pop_op(op, address, site):
    return [*_depth_check(op, address), _shrink(op.argument)]


def _stream(kind: str, read: str, length: str, base: str):
    """divine / read_io: `count` words from one input stream, first word deepest."""

    def body(op, address, site):
        count = op.argument
        left = f"(i32.sub (local.get {length}) (local.get {read}))"
        lines = [_fail_if(f"(i32.lt_u {left} (i32.const {count}))", kind, address)]
        for _ in range(count):
            word = f"(i32.add (local.get {base}) (i32.shl (local.get {read}) (i32.const 3)))"
            lines += _push(f"(i64.load $data {word})")
            lines.append(f"(local.set {read} (i32.add (local.get {read}) (i32.const 1)))")
        return lines

    return body


def _pick(op, address, site):
    index = op.argument
    moves = [_store(position, _load(position - 1)) for position in range(index, 0, -1)]
    return [f"(local.set $a {_load(index)})", *moves, _store(0, "(local.get $a)")]


def _place(op, address, site):
    index = op.argument
    moves = [_store(position, _load(position + 1)) for position in range(index)]
    return [f"(local.set $a {_load(0)})", *moves, _store(index, "(local.get $a)")]


def _dup(op, address, site):
    return [f"(local.set $a {_load(op.argument)})", *_push("(local.get $a)")]


def _swap(op, address, site):
    index = op.argument
    return [
        f"(local.set $a {_load(0)})",
        _store(0, _load(index)),
        _store(index, "(local.get $a)"),
    ]


def _nop(op, address, site):
    return []


def _skiz(op, address, site):
    following, skip = site
    if skip is None:
        skipped = [_fail(Failure.INSTRUCTION_POINTER_OVERFLOW, address)]
    else:
        skipped = [f"(local.set $ip (i32.const {skip}))", "(local.set $skip (i32.const 1))"]
    return [
        *_depth_check(op, address),
        f"(local.set $a {_load(0)})",
        _shrink(1),
        "(local.set $skip (i32.const 0))",
        f"(if (i64.eqz (local.get $a)) (then {' '.join(skipped)}))",
    ]


def _call(op, address, site):
    following, _ = site
    entry = (following << 32) | op.argument
    return [
        f"(i64.store $jumps (local.get $jsp) {_const(entry)})",
        "(local.set $jsp (i32.add (local.get $jsp) (i32.const 8)))",
    ]


def _return(op, address, site):
    return [_jump_stack_check(address), f"(local.set $ip {_RETURN_ADDRESS})", _POP_JUMP]


def _recurse(op, address, site):
    return [_jump_stack_check(address), f"(local.set $ip {_CALL_TARGET})"]


def _recurse_or_return(op, address, site):
    return [
        _jump_stack_check(address),
        f"(if (i64.eq {_load(5)} {_load(6)})"
        f" (then (local.set $ip {_RETURN_ADDRESS}) {_POP_JUMP})"
        f" (else (local.set $ip {_CALL_TARGET})))",
    ]


def _assert(op, address, site):
    condition = f"(i64.ne {_load(0)} (i64.const 1))"
    return [
        *_depth_check(op, address),
        _fail_if(condition, Failure.ASSERTION_FAILED, address),
        _shrink(1),
    ]


def _assert_vector(op, address, site):
    checks = [
        _fail_if(
            f"(i64.ne {_load(index)} {_load(index + 5)})", Failure.VECTOR_ASSERTION_FAILED, address
        )
        for index in range(5)
    ]
    return [*_depth_check(op, address), *checks, _shrink(5)]


def _addi(op, address, site):
    return [_store(0, f"(call $add {_load(0)} {_const(op.argument)})")]


def _invert(op, address, site):
    return [
        f"(local.set $a {_load(0)})",
        _fail_if("(i64.eqz (local.get $a))", Failure.INVERSE_OF_ZERO, address),
        _store(0, f"(call $power (local.get $a) {_const(P - 2)})"),
    ]


def _split(op, address, site):
    return [
        f"(local.set $a {_load(0)})",
        _store(0, "(i64.shr_u (local.get $a) (i64.const 32))"),
        *_push(f"(i64.and (local.get $a) {_const(MASK32)})"),
    ]


def _pow(op, address, site):
    return [
        *_depth_check(op, address),
        f"(local.set $a {_load(0)})",
        f"(local.set $b {_load(1)})",
        _u32_check("(local.get $b)", address),
        _shrink(1),
        _store(0, "(call $power (local.get $a) (local.get $b))"),
    ]


def _div_mod(op, address, site):
    return [
        f"(local.set $a {_load(0)})",
        f"(local.set $b {_load(1)})",
        _u32_check("(local.get $a)", address),
        _u32_check("(local.get $b)", address),
        _fail_if("(i64.eqz (local.get $b))", Failure.DIVISION_BY_ZERO, address),
        _store(1, "(i64.div_u (local.get $a) (local.get $b))"),
        _store(0, "(i64.rem_u (local.get $a) (local.get $b))"),
    ]


def _x_product(left: list[str], right: list[str]) -> list[str]:
    """$r0, $r1, $r2 := left * right, two X-field elements given as (c0, c1, c2)."""
    return [
        f"(call $x_mul {' '.join(left)} {' '.join(right)})",
        "(local.set $r2)",
        "(local.set $r1)",
        "(local.set $r0)",
    ]


def _store_sum(lanes: tuple[int, int, int], addend: list[str]) -> list[str]:
    """st at `lanes` (c0, c1, c2) := ($r0, $r1, $r2) + addend."""
    return [
        _store(lane, f"(call $add (local.get $r{index}) {addend[index]})")
        for index, lane in enumerate(lanes)
    ]


def _stack_element(depth: int) -> list[str]:
    return [_load(depth + index) for index in range(3)]


def _xx_add(op, address, site):
    return [*_depth_check(op, address), "(call $xx_add (local.get $sp))", _shrink(3)]


def _xx_mul(op, address, site):
    product = _x_product(_stack_element(0), _stack_element(3))
    stores = [_store(3 + index, f"(local.get $r{index})") for index in range(3)]
    return [*_depth_check(op, address), *product, *stores, _shrink(3)]


def _ram_element(pointer: str) -> list[str]:
    return [f"(call $ram_read {_offset(pointer, offset)})" for offset in range(3)]


def _xx_dot_step(op, address, site):
    """st2..st4 += RAM[st0..] * RAM[st1..]; both pointers move on 3."""
    product = _x_product(_ram_element("(local.get $a)"), _ram_element("(local.get $b)"))
    return [
        f"(local.set $a {_load(0)})",
        f"(local.set $b {_load(1)})",
        *product,
        *_store_sum((2, 3, 4), _stack_element(2)),
        _store(1, _offset("(local.get $b)", 3)),
        _store(0, _offset("(local.get $a)", 3)),
    ]


def _xb_dot_step(op, address, site):
    """st2..st4 += RAM[st0] * RAM[st1..]; st0 moves on 1, st1 on 3."""
    scalar = "(call $ram_read (local.get $a))"
    products = [f"(call $mul {scalar} {word})" for word in _ram_element("(local.get $b)")]
    return [
        f"(local.set $a {_load(0)})",
        f"(local.set $b {_load(1)})",
        *[f"(local.set $r{index} {product})" for index, product in enumerate(products)],
        *_store_sum((2, 3, 4), _stack_element(2)),
        _store(1, _offset("(local.get $b)", 3)),
        _store(0, _offset("(local.get $a)", 1)),
    ]


def _horner_step(coefficients: int):
    """b_horner_step, x_horner_step: st7..st9 := st7..st9 * st0..st2 + the coefficients read
    from RAM at st5 downwards; st5 moves down by their number."""

    def body(op, address, site):
        pointer = "(local.get $a)"
        read = [f"(call $ram_read {_offset(pointer, -offset)})" for offset in range(coefficients)]
        addend = [read[0], "(i64.const 0)", "(i64.const 0)"] if coefficients == 1 else read[::-1]
        return [
            f"(local.set $a {_load(5)})",
            *_x_product(_stack_element(7), _stack_element(0)),
            *_store_sum((7, 8, 9), addend),
            _store(5, _offset(pointer, -coefficients)),
        ]

    return body


def _xb_mul(op, address, site):
    scaled = [_store(index, f"(call $mul (local.get $a) {_load(index)})") for index in range(3)]
    return [*_depth_check(op, address), f"(local.set $a {_load(0)})", _shrink(1), *scaled]


def _x_invert(op, address, site):
    zero = f"(i64.eqz (i64.or (i64.or {_load(0)} {_load(1)}) {_load(2)}))"
    return [
        _fail_if(zero, Failure.INVERSE_OF_ZERO, address),
        "(call $x_invert (local.get $sp))",
    ]


def _state_store(area: int, lane: int, value: str) -> str:
    return f"(i64.store $hash offset={area + WORD * lane} (i32.const 0) {value})"


def _state_load(area: int, lane: int) -> str:
    return f"(i64.load $hash offset={area + WORD * lane} (i32.const 0))"


def _sponge_check(address: int) -> str:
    condition = "(i32.eqz (local.get $sponge_ready))"
    return _fail_if(condition, Failure.SPONGE_NOT_INITIALIZED, address)


def _hash(op, address, site):
    """st0..st9 and six 1s permuted; the first 5 words replace the 10."""
    words = [_state_store(HASH_STATE, lane, _load(lane)) for lane in range(10)]
    ones = [_state_store(HASH_STATE, lane, "(i64.const 1)") for lane in range(10, 16)]
    digest = [_store(lane, _state_load(HASH_STATE, lane)) for lane in range(5)]
    permute = f"(call $permutation (i32.const {HASH_STATE}))"
    return [*_depth_check(op, address), *words, *ones, permute, _shrink(5), *digest]


def _sponge_init(op, address, site):
    zeros = [_state_store(SPONGE_STATE, lane, "(i64.const 0)") for lane in range(16)]
    return [*zeros, "(local.set $sponge_ready (i32.const 1))"]


_PERMUTE_SPONGE = f"(call $permutation (i32.const {SPONGE_STATE}))"


def _sponge_absorb(op, address, site):
    words = [_state_store(SPONGE_STATE, lane, _load(lane)) for lane in range(10)]
    return [
        *_depth_check(op, address),
        _sponge_check(address),
        *words,
        _shrink(10),
        _PERMUTE_SPONGE,
    ]


def _sponge_absorb_mem(op, address, site):
    """Ten RAM words from st0 absorbed; the first four replace st1..st4; st0 moves on 10."""
    words = [
        _state_store(SPONGE_STATE, lane, f"(call $ram_read {_offset('(local.get $a)', lane)})")
        for lane in range(10)
    ]
    tops = [_store(lane, _state_load(SPONGE_STATE, lane)) for lane in range(4)]
    return [
        _sponge_check(address),
        f"(local.set $a {_load(0)})",
        _shrink(1),
        *words,
        *tops,
        *_push(_offset("(local.get $a)", 10)),
        _PERMUTE_SPONGE,
    ]


def _sponge_squeeze(op, address, site):
    pushes = [line for lane in range(9, -1, -1) for line in _push(_state_load(SPONGE_STATE, lane))]
    return [_sponge_check(address), *pushes, _PERMUTE_SPONGE]


def _merkle_step(from_memory: bool):
    """st0..st4 and the sibling digest (from the secret digests, or RAM at st7), in the order
    st5's lowest bit says, hashed; st5 halves."""

    def body(op, address, site):
        lines = [f"(local.set $a {_load(5)})", _u32_check("(local.get $a)", address)]
        if from_memory:
            lines += [
                f"(local.set $b {_load(7)})",
                _store(7, _offset("(local.get $b)", 5)),
            ]
            sibling = [f"(call $ram_read {_offset('(local.get $b)', lane)})" for lane in range(5)]
        else:
            left = "(i32.sub (local.get $digests_length) (local.get $digests_read))"
            lines.append(_fail_if(f"(i32.eqz {left})", Failure.EMPTY_SECRET_DIGEST_INPUT, address))
            digest = (
                "(i32.add (local.get $digests_base)"
                " (i32.mul (local.get $digests_read) (i32.const 40)))"
            )
            sibling = [f"(i64.load $data offset={WORD * lane} {digest})" for lane in range(5)]
        odd = "(i32.wrap_i64 (i64.and (local.get $a) (i64.const 1)))"
        lines += [
            # an even node is the left one: st0..st4 at lanes 0-4, the sibling at 5-9
            f"(local.set $current_at (i32.add (i32.const {HASH_STATE})"
            f" (i32.mul {odd} (i32.const 40))))",
            f"(local.set $sibling_at (i32.add (i32.const {HASH_STATE})"
            f" (i32.mul (i32.xor {odd} (i32.const 1)) (i32.const 40))))",
        ]
        for lane in range(5):
            lines.append(
                f"(i64.store $hash offset={WORD * lane} (local.get $current_at) {_load(lane)})"
            )
            lines.append(
                f"(i64.store $hash offset={WORD * lane} (local.get $sibling_at) {sibling[lane]})"
            )
        if not from_memory:
            lines.append(
                "(local.set $digests_read (i32.add (local.get $digests_read) (i32.const 1)))"
            )
        lines += [_state_store(HASH_STATE, lane, "(i64.const 1)") for lane in range(10, 16)]
        lines.append(f"(call $permutation (i32.const {HASH_STATE}))")
        lines += [_store(lane, _state_load(HASH_STATE, lane)) for lane in range(5)]
        return [*lines, _store(5, "(i64.shr_u (local.get $a) (i64.const 1))")]

    return body


def _write_io(op, address, site):
    lines = _depth_check(op, address)
    for _ in range(op.argument):
        lines += [f"(call $output {_load(0)})", _shrink(1)]
    return lines


def _read_mem(op, address, site):
    count = op.argument
    lines = [f"(local.set $a {_load(0)})", _shrink(1)]
    for offset in range(count):
        lines += _push(f"(call $ram_read {_offset('(local.get $a)', -offset)})")
    return [*lines, *_push(_offset("(local.get $a)", -count))]


def _write_mem(op, address, site):
    count = op.argument
    lines = [*_depth_check(op, address), f"(local.set $a {_load(0)})", _shrink(1)]
    for offset in range(count):
        lines += [f"(call $ram_write {_offset('(local.get $a)', offset)} {_load(0)})", _shrink(1)]
    return [*lines, *_push(_offset("(local.get $a)", count))]


TRANSLATIONS = {
    "push": _push_op,
    "pop": _pop_op,
    "divine": _stream(Failure.EMPTY_SECRET_INPUT, "$secret_read", "$secret_length", "$secret_base"),
    "pick": _pick,
    "place": _place,
    "dup": _dup,
    "swap": _swap,
    "halt": _nop,  # the epilogue counts the cycle and stops
    "nop": _nop,
    "skiz": _skiz,
    "call": _call,
    "return": _return,
    "recurse": _recurse,
    "recurse_or_return": _recurse_or_return,
    "assert": _assert,
    "assert_vector": _assert_vector,
    "add": _binary(lambda top, below: f"(call $add {below} {top})"),
    "hash": _hash,
    "sponge_init": _sponge_init,
    "sponge_absorb": _sponge_absorb,
    "sponge_absorb_mem": _sponge_absorb_mem,
    "sponge_squeeze": _sponge_squeeze,
    "merkle_step": _merkle_step(from_memory=False),
    "merkle_step_mem": _merkle_step(from_memory=True),
    "addi": _addi,
    "mul": _binary(lambda top, below: f"(call $mul {below} {top})"),
    "invert": _invert,
    "eq": _binary(lambda top, below: f"(i64.extend_i32_u (i64.eq {below} {top}))"),
    "xx_add": _xx_add,
    "xx_mul": _xx_mul,
    "xx_dot_step": _xx_dot_step,
    "xb_dot_step": _xb_dot_step,
    "b_horner_step": _horner_step(1),
    "x_horner_step": _horner_step(3),
    "xb_mul": _xb_mul,
    "x_invert": _x_invert,
    "split": _split,
    "lt": _binary_u32(lambda top, below: f"(i64.extend_i32_u (i64.lt_u {top} {below}))"),
    "and": _binary_u32(lambda top, below: f"(i64.and {top} {below})"),
    "xor": _binary_u32(lambda top, below: f"(i64.xor {top} {below})"),
    "log_2_floor": _unary_u32(
        lambda value: f"(i64.sub (i64.const 63) (i64.clz {value}))", Failure.LOGARITHM_OF_ZERO
    ),
    "pow": _pow,
    "div_mod": _div_mod,
    "pop_count": _unary_u32(lambda value: f"(i64.popcnt {value})"),
    "read_io": _stream(
        Failure.EMPTY_PUBLIC_INPUT, "$public_read", "$public_length", "$public_base"
    ),
    "write_io": _write_io,
    "read_mem": _read_mem,
    "write_mem": _write_mem,
}
"""The instructions of this slice; every other one is refused."""


# --- the module --------------------------------------------------------------------------


def supported(program: Program) -> bool:
    return all(op.instruction.name in TRANSLATIONS for op in program.ops)


def _refuse_unsupported(program: Program) -> None:
    for op, address in zip(program.ops, program.addresses):
        if op.instruction.name not in TRANSLATIONS:
            raise WasmUnsupported(
                f"the wasm target does not yet support '{op.instruction.name}' (address {address})"
            )


def _instruction_code(program: Program, index: int) -> list[str]:
    """Prologue, body and epilogue of the `index`-th instruction."""
    ops, addresses, length = program.ops, program.addresses, program.length
    op, address = ops[index], addresses[index]
    following = addresses[index + 1] if index + 1 < len(ops) else length
    skip = (
        addresses[index + 2] if index + 2 < len(ops) else (length if index + 1 < len(ops) else None)
    )
    name = op.instruction.name
    lines = [f";; {address}: {op.text}", _step_limit_check(address)]
    growth = op.instruction.stack_delta(op.argument)
    if growth > 0:
        lines.append(f"(call $reserve_stack (i32.add (local.get $sp) (i32.const {WORD * growth})))")
    if name == "call":
        lines.append("(call $reserve_jumps (i32.add (local.get $jsp) (i32.const 8)))")
    lines += TRANSLATIONS[name](op, address, (following, skip))
    visits = f"(i32.const {WORD * address})"
    lines += [
        "(local.set $cycle (i64.add (local.get $cycle) (i64.const 1)))",
        f"(i64.store $data {visits} (i64.add (i64.load $data {visits}) (i64.const 1)))",
    ]
    match name:
        case "halt":
            lines += [f"(local.set $ip (i32.const {address}))", "(br $exit)"]
        case "call":
            lines += _jump(f"(i32.const {op.argument})")
        case "return" | "recurse" | "recurse_or_return":
            lines.append("(br $dispatch)")
        case "skiz" if skip is not None:
            lines.append("(br_if $dispatch (local.get $skip))")
    return lines


def _step_limit_check(address: int) -> str:
    condition = "(i64.ge_u (local.get $cycle) (local.get $max_steps))"
    return _fail_if(condition, STEP_LIMIT_KIND, address)


def translate(program: Program) -> str:
    """The WAT module of `program` (see the module docstring); `WasmUnsupported` if the
    program uses an instruction outside this slice."""
    _refuse_unsupported(program)
    length = len(program.ops)
    labels = [f"$i{index}" for index in range(length)]
    table = ["$overflow"] * (program.length + 1)
    for index, address in enumerate(program.addresses):
        table[address] = labels[index]
    code = ["(block $exit", "(loop $dispatch", "(block $overflow"]
    code += [f"(block {label}" for label in reversed(labels)]
    code.append(f"(br_table {' '.join(table)} $overflow (local.get $ip))")
    for index in range(length):
        code.append(f") ;; end {labels[index]}")
        code += _instruction_code(program, index)
    code += [
        f"(local.set $ip (i32.const {program.length}))",  # fell through the last instruction
        ") ;; end $overflow",
        "(if (i64.ge_u (local.get $cycle) (local.get $max_steps)) (then"
        f" (local.set $status (i32.const {_status(STEP_LIMIT_KIND)})) (br $exit)))",
        f"(local.set $status (i32.const {_status(Failure.INSTRUCTION_POINTER_OVERFLOW)}))",
        "(br $exit)",
        ") ;; end $dispatch",
        ") ;; end $exit",
    ]
    return _MODULE.replace("{{code}}", "\n    ".join(code))


_MODULE = f"""(module
  (import "host" "output" (func $output (param i64)))
  (import "host" "ram_read" (func $ram_read (param i64) (result i64)))
  (import "host" "ram_write" (func $ram_write (param i64 i64)))
  (memory $stack (export "stack") 1)
  (memory $jumps (export "jumps") 1)
  (memory $data (export "data") 1)
  (global $status_out (export "status") (mut i32) (i32.const 0))
  (global $ip_out (export "ip") (mut i32) (i32.const 0))
  (global $cycle_out (export "cycles") (mut i64) (i64.const 0))
  (global $sp_out (export "sp") (mut i32) (i32.const 0))
  (global $jsp_out (export "jsp") (mut i32) (i32.const 0))
  (global $public_read_out (export "public_read") (mut i32) (i32.const 0))
  (global $secret_read_out (export "secret_read") (mut i32) (i32.const 0))
  (global $digests_read_out (export "digests_read") (mut i32) (i32.const 0))
  (global $sponge_ready_out (export "sponge_ready") (mut i32) (i32.const 0))

  ;; grow a memory until it holds `end` bytes
  (func $reserve_stack (param $end i32)
    (block $done (loop $more
      (br_if $done (i32.le_u (local.get $end) (i32.shl (memory.size $stack) (i32.const 16))))
      (if (i32.eq (memory.grow $stack (memory.size $stack)) (i32.const -1)) (then unreachable))
      (br $more))))
  (func $reserve_jumps (param $end i32)
    (block $done (loop $more
      (br_if $done (i32.le_u (local.get $end) (i32.shl (memory.size $jumps) (i32.const 16))))
      (if (i32.eq (memory.grow $jumps (memory.size $jumps)) (i32.const -1)) (then unreachable))
      (br $more))))

{ARITHMETIC_WAT}
{PERMUTATION_WAT}
  (func (export "run") (param $max_steps i64) (param $sp i32)
      (param $public_base i32) (param $public_length i32)
      (param $secret_base i32) (param $secret_length i32)
      (param $digests_base i32) (param $digests_length i32)
    (local $ip i32) (local $jsp i32) (local $cycle i64) (local $status i32) (local $skip i32)
    (local $public_read i32) (local $secret_read i32) (local $a i64) (local $b i64)
    (local $sponge_ready i32) (local $digests_read i32)
    (local $current_at i32) (local $sibling_at i32) (local $r0 i64) (local $r1 i64) (local $r2 i64)
    {{{{code}}}}
    (global.set $status_out (local.get $status))
    (global.set $ip_out (local.get $ip))
    (global.set $cycle_out (local.get $cycle))
    (global.set $sp_out (local.get $sp))
    (global.set $jsp_out (local.get $jsp))
    (global.set $public_read_out (local.get $public_read))
    (global.set $secret_read_out (local.get $secret_read))
    (global.set $digests_read_out (local.get $digests_read))
    (global.set $sponge_ready_out (local.get $sponge_ready)))
)
"""
