"""Pairs that part (or meet) only at algebraic corners: the roots of a polynomial guard.

Input: nothing.  Output: `DIFFERENT` and `EQUIVALENT`, `Pair`s of
tests/adversarial_pairs.py with corners for the ground truth
(tests/adversarial_truth.py).  Random entry states never reach a root of
x^3 = 8 or x^2 = -1, the corners' steering solves only linear equations, and
Schwartz-Zippel does not apply to a guard: without the solver every pair here is
`unknown` (tests/verify/test_verify_solver.py checks that, and that the solver decides
them: the different ones with a counterexample the interpreter replays).

The roots used: x^3 = 8 at 2, 2^33 - 2 and p - 2^33 (2 times the cube roots of
unity); x^2 = -1 at 2^48 and p - 2^48; y^3 + 7 = -1 at y = -2, so x^2 = y^3 + 7
at (2^48, -2).
"""

from __future__ import annotations

from adversarial_pairs import pair
from adversarial_truth import P, value

TWO_48 = 1 << 48
CUBE_ROOTS = (2, (1 << 33) - 2, P - (1 << 33))  # the three x with x^3 = 8
CUBE_IS_EIGHT = "dup 0 dup 0 mul dup 1 mul push 8 eq assert "  # st0^3 = 8
SQUARE_IS_MINUS_ONE = "dup 0 dup 0 mul addi 1 push 0 eq assert "  # st0^2 = -1
# stack [x, p, q]: store x at p^2, load q^3 + 7; or load first, then store
STORE_SQUARE = "dup 0 dup 2 dup 0 mul write_mem 1 pop 1 "
LOAD_CUBE = "dup 2 dup 0 dup 0 mul mul addi 7 read_mem 1 pop 1 "
STORE_SQUARE_BELOW = "dup 1 dup 3 dup 0 mul write_mem 1 pop 1 "


def _conditions(count: int) -> str:
    """The number of slots i < count with st_i = i + 3, computed on top of the stack."""
    text = "dup 0 push 3 eq "
    for slot in range(1, count):
        text += f"dup {slot + 1} push {slot + 3} eq add "
    return text


def _product(count: int) -> str:
    """The product of the conditions st_i = i + 3 for i < count."""
    text = "dup 0 push 3 eq "
    for slot in range(1, count):
        text += f"dup {slot + 1} push {slot + 3} eq mul "
    return text


SEVEN_HOLD = tuple(value(slot, slot + 3) for slot in range(7))  # every condition holds

DIFFERENT = [
    # x^3 = 8 does not make x = 2: two more roots
    pair(
        "x^3 = 8 taken for x = 2",
        "algebraic",
        CUBE_IS_EIGHT + "push 2 swap 1 pop 1",
        CUBE_IS_EIGHT,
        value(0, *CUBE_ROOTS),
    ),
    # nor x^2 = 4
    pair(
        "x^3 = 8 taken for x^2 = 4",
        "algebraic",
        CUBE_IS_EIGHT + "dup 0 mul",
        CUBE_IS_EIGHT + "push 4 swap 1 pop 1",
        value(0, *CUBE_ROOTS),
    ),
    # a dropped check x = 2 is not implied by x^3 = 8
    pair(
        "x = 2 dropped after x^3 = 8",
        "algebraic",
        CUBE_IS_EIGHT + "dup 0 push 2 eq assert",
        CUBE_IS_EIGHT,
        value(0, *CUBE_ROOTS),
    ),
    # under x^2 = -1, x^3 is -x, not x
    pair(
        "x^3 taken for x under x^2 = -1",
        "algebraic",
        SQUARE_IS_MINUS_ONE,
        SQUARE_IS_MINUS_ONE + "dup 0 dup 0 mul mul",
        value(0, TWO_48, P - TWO_48),
    ),
    # seven conditions counted against six: the seventh is not implied
    pair(
        "seven conditions against six",
        "algebraic",
        _conditions(7) + "push 7 eq assert",
        _conditions(6) + "push 6 eq assert",
        *SEVEN_HOLD[:6],
        value(6, 0, 1, 2),
    ),
    # a load of q^3 + 7 hoisted above a store to p^2: they alias at (p, q) = (2^48, -2)
    pair(
        "load hoisted above a store through a squared pointer",
        "algebraic",
        STORE_SQUARE + LOAD_CUBE,
        LOAD_CUBE + STORE_SQUARE_BELOW,
        value(1, TWO_48, P - TWO_48),
        value(2, P - 2),
    ),
]

EQUIVALENT = [
    # x^3 + x = x (x^2 + 1) = 0 where x^2 = -1 passed
    pair(
        "x^3 + x is 0 under x^2 = -1",
        "algebraic",
        SQUARE_IS_MINUS_ONE + "dup 0 dup 0 dup 0 mul mul add",
        SQUARE_IS_MINUS_ONE + "push 0 swap 1 pop 1",
        value(0, TWO_48, P - TWO_48),
    ),
    # x^9 = (x^3)^3 = 512 where x^3 = 8 passed
    pair(
        "x^9 is 512 under x^3 = 8",
        "algebraic",
        CUBE_IS_EIGHT + "dup 0 dup 0 mul dup 1 mul dup 0 dup 0 mul mul",
        CUBE_IS_EIGHT + "push 512",
        value(0, *CUBE_ROOTS),
    ),
    # x^(2^64) = x^(2^32) for every x (2^64 = (p - 1) + 2^32): 64 squarings against 32
    pair("x^(2^64) as x^(2^32)", "algebraic", "dup 0 mul " * 64, "dup 0 mul " * 32),
    # seven conditions counted and compared with 7 are their product
    pair(
        "seven conditions counted as their product",
        "algebraic",
        _conditions(7) + "push 7 eq",
        _product(7),
        *SEVEN_HOLD[:6],
        value(6, 9, 10),
    ),
    # a store to p then a load of q is the stored word when (p - q)^2 = 0 was asserted
    pair(
        "RAM forwarding through an asserted square alias",
        "algebraic",
        "dup 1 dup 3 push -1 mul add dup 0 mul push 0 eq assert "
        "dup 0 dup 2 write_mem 1 pop 1 dup 2 read_mem 1 pop 1",
        "dup 1 dup 3 push -1 mul add dup 0 mul push 0 eq assert "
        "dup 0 dup 2 write_mem 1 pop 1 dup 0",
        value(1, 5),
        value(2, 5),
    ),
]
