"""The equivalent pairs of tests/verify/test_verify_adversarial.py, as data.

Input: nothing.  Output: `EQUIVALENT`, a list of `Pair`s (tests/adversarial_pairs.py):
rewrites an optimizer may make -- identities in context, legal reorderings of
independent effects, failures moved to another instruction but on the same entry
states, shuffles and strength reductions written two ways, checks implied by
other checks, and rewrites that hold only under the pair's assumptions.  The
comment above each pair says why it is right.
"""

from __future__ import annotations

from adversarial_pairs import (
    MERKLE_AS_HASH,
    ONE_THIRD,
    X_INVERSE_OF_A_PRODUCT,
    ZERO_FIVE,
    pair,
)
from adversarial_truth import cell, initialized, same, u32, value, vector

EQUIVALENT = [
    # --- failures in other places, on the same entry states ---------------------------------------
    # pop_count and lt make the same range check
    pair("range check by pop_count or lt", "u32", "dup 0 pop_count pop 1", "dup 0 dup 0 lt pop 1"),
    # 1/(xy) = (1/x)(1/y), and xy = 0 exactly when x = 0 or y = 0
    pair(
        "inverse of a product",
        "division",
        "mul invert",
        "invert swap 1 invert mul",
        value(0, 0, 1),
        value(1, 0, 1),
    ),
    # two checks in either order fail on the same states
    pair(
        "two invert checks reordered",
        "failure order",
        "dup 0 invert pop 1 dup 1 invert pop 1",
        "dup 1 invert pop 1 dup 0 invert pop 1",
        value(0, 0, 1),
        value(1, 0, 1),
    ),
    # a failing run shows nothing, so a check may move before an output
    pair(
        "check moved before an output",
        "failure order",
        "write_io 1 dup 0 invert pop 1",
        "dup 1 invert pop 1 write_io 1",
        value(1, 0, 1),
    ),
    # a range check moves across a mul that does not touch its word
    pair(
        "range check moved across mul",
        "failure order",
        "dup 2 dup 0 and pop 1 mul",
        "mul dup 1 dup 0 and pop 1",
        u32(2),
    ),
    # div_mod fails on a zero divisor: an invert check of it is implied
    pair(
        "divisor invert check implied by div_mod",
        "division",
        "dup 1 invert pop 1 div_mod",
        "div_mod",
        u32(0, 1),
        value(1, 0, 1),
    ),
    # lt(n mod d, d) = 1 after div_mod: the assert is implied
    pair(
        "r < d asserted after div_mod",
        "division",
        "dup 1 dup 1 div_mod dup 3 dup 1 lt assert",
        "dup 1 dup 1 div_mod",
        u32(0, 1),
    ),
    # an earlier range check implies the later one
    pair(
        "range check implied by an earlier one",
        "u32",
        "dup 0 dup 0 and pop 1 dup 0 split pop 1 push 0 eq assert",
        "dup 0 dup 0 lt pop 1",
        u32(0),
    ),
    # --- identities in context --------------------------------------------------------------------
    # y * (x^-1 * x) = y where invert passed
    pair(
        "x * x^-1 cancels in y * x * x^-1",
        "identity",
        "dup 0 invert dup 2 mul mul",
        "dup 0 invert pop 1 dup 1 swap 1 pop 1",
        value(0, 0, 1),
    ),
    # x - lo = hi * 2^32
    pair(
        "x minus its low word is hi * 2^32",
        "identity",
        "dup 0 split swap 1 pop 1 push -1 mul add",
        "split pop 1 push 4294967296 mul",
    ),
    # n - (n mod d) = d * (n div d)
    pair(
        "n - n mod d is d * (n div d)",
        "identity",
        "dup 1 dup 1 div_mod swap 1 pop 1 push -1 mul add swap 1 pop 1",
        "dup 1 dup 1 div_mod pop 1 swap 1 pop 1 mul",
        u32(0, 1),
    ),
    # x <= y as 1 - lt(y, x) or as lt(x, y) + eq(x, y)
    pair(
        "x <= y two ways",
        "identity",
        "swap 1 lt push -1 mul addi 1",
        "dup 1 dup 1 lt swap 2 eq add",
        same(0, 1),
    ),
    # a + b = (a xor b) + 2 (a and b) on u32 words
    pair(
        "a + b by xor and and on u32 slots",
        "assumptions",
        "add",
        "dup 1 dup 1 xor swap 2 and push 2 mul add",
        u32_entry={0, 1},
    ),
    # --- extension field --------------------------------------------------------------------------
    # s * A = (s, 0, 0) * A
    pair("xb_mul as xx_mul by (s, 0, 0)", "xfield", "xb_mul", "push 0 swap 1 push 0 swap 1 xx_mul"),
    # xx_mul commutes
    pair("xx_mul commutes", "xfield", "xx_mul", "pick 5 pick 5 pick 5 xx_mul"),
    # xx_add coefficient by coefficient
    pair(
        "xx_add by hand",
        "xfield",
        "xx_add",
        "pick 3 add swap 1 pick 3 add swap 1 pick 3 pick 3 add place 2",
    ),
    # A * B = B * A through RAM: the pointers come back in place
    pair(
        "xx_dot_step with its pointers swapped",
        "xfield",
        "xx_dot_step",
        "swap 1 xx_dot_step swap 1",
        same(0, 1),
    ),
    # b_horner_step reads only RAM[p]: a store to p - 1 moves after it (HEAD)
    pair(
        "store below p moved after b_horner_step",
        "xfield",
        "push 7 dup 6 addi -1 write_mem 1 pop 1 b_horner_step",
        "b_horner_step push 7 dup 6 write_mem 1 pop 1",
        isa="head",
    ),
    # x_horner_step reads p, p-1, p-2: a store to p + 1 moves after it (HEAD)
    pair(
        "store above p moved after x_horner_step",
        "xfield",
        "push 7 dup 6 addi 1 write_mem 1 pop 1 x_horner_step",
        "x_horner_step push 7 dup 6 addi 4 write_mem 1 pop 1",
        isa="head",
    ),
    # (AB)^-1 = A^-1 B^-1, and AB = 0 exactly when A = 0 or B = 0
    pair(
        "x_invert of a product",
        "xfield",
        "xx_mul x_invert",
        "x_invert pick 5 pick 5 pick 5 x_invert xx_mul",
        incompleteness=X_INVERSE_OF_A_PRODUCT,
    ),
    # --- RAM, sponge, Merkle ----------------------------------------------------------------------
    # write_mem 2 at p then read_mem 2 at p + 1 gives the two words back
    pair(
        "store-to-load forwarding of two words",
        "ram",
        "dup 1 dup 1 dup 4 write_mem 2 pop 1 dup 2 addi 1 read_mem 2 pop 1",
        "dup 1 dup 1 dup 4 write_mem 2 pop 1 dup 1 dup 1",
    ),
    # read_mem 2 is read_mem 1 twice (both walk down)
    pair("read_mem 2 as two read_mem 1", "ram", "read_mem 2", "read_mem 1 read_mem 1"),
    # a store overwritten with no read in between is dead, whatever q is
    pair(
        "dead store with no read in between",
        "ram",
        "dup 0 dup 2 write_mem 1 pop 1 push 5 dup 3 write_mem 1 pop 1 "
        "push 0 dup 2 write_mem 1 pop 1",
        "push 5 dup 3 write_mem 1 pop 1 push 0 dup 2 write_mem 1 pop 1",
        same(1, 2),
    ),
    # stores to p and p + 1 commute
    pair(
        "stores a constant apart commute",
        "ram",
        "dup 0 dup 2 write_mem 1 pop 1 push 5 dup 2 addi 1 write_mem 1 pop 1",
        "push 5 dup 2 addi 1 write_mem 1 pop 1 dup 0 dup 2 write_mem 1 pop 1",
    ),
    # a load of p + 1 moves above a store to p
    pair(
        "load of p+1 hoisted above a store to p",
        "ram",
        "dup 0 dup 2 write_mem 1 pop 1 dup 1 addi 1 read_mem 1 pop 1",
        "dup 1 addi 1 read_mem 1 pop 1 dup 1 dup 3 write_mem 1 pop 1",
        cell(1, 1),
    ),
    # sponge_absorb_mem reads p .. p+9: a store to p + 10 moves after it
    pair(
        "store to p+10 moved after sponge_absorb_mem",
        "sponge",
        "push 9 dup 1 addi 10 write_mem 1 pop 1 sponge_absorb_mem",
        "sponge_absorb_mem push 9 dup 1 write_mem 1 pop 1",
        initialized,
    ),
    # merkle_step_mem with a known even node index is a hash of (current, sibling)
    pair(
        "merkle_step_mem with even index as hash",
        "merkle",
        "push 4 swap 6 pop 1 merkle_step_mem",
        MERKLE_AS_HASH.format(index=4),
        cell(7, 0),
    ),
    # --- I/O, halt, stack shapes ------------------------------------------------------------------
    # the two streams are independent
    pair("divine and read_io commute", "io", "divine 1 read_io 1", "read_io 1 divine 1 swap 1"),
    # write_io 3 writes st0, st1, st2 in order, as write_io 1 then write_io 2 do
    pair("write_io 3 split in two", "io", "write_io 3", "write_io 1 write_io 2"),
    # write_io then read_io, reordered, with the 17 words the first one needs
    pair(
        "write_io moved after read_io at depth 17",
        "io",
        "write_io 1 read_io 1",
        "read_io 1 swap 1 write_io 1",
        minimum_depth=17,
    ),
    # nothing after halt runs, not even a failing assert or a write_io below the floor
    pair(
        "code after halt", "halt", "halt push 0 assert write_io 5 pop 5 pop 5 pop 5 pop 5", "halt"
    ),
    # assert_vector is five word checks
    pair(
        "assert_vector as five eq asserts",
        "assert_vector",
        "assert_vector",
        "dup 5 eq assert dup 5 eq assert dup 5 eq assert dup 5 eq assert dup 5 eq assert",
        vector(),
    ),
    # conjugating swap 14 by swap 15 exchanges st14 and st15, and so does the other way
    pair(
        "swap 15 swap 14 swap 15 two ways",
        "stack",
        "swap 15 swap 14 swap 15",
        "swap 14 swap 15 swap 14",
    ),
    # pick 15 is swap 1, swap 2, ..., swap 15
    pair(
        "pick 15 as fifteen swaps",
        "stack",
        "pick 15",
        " ".join(f"swap {slot}" for slot in range(1, 16)),
    ),
    # --- constants --------------------------------------------------------------------------------
    # 2^64 = 2^32 - 1 in F_p
    pair(
        "x * 2^64 as x * (2^32 - 1)",
        "constants",
        "push 4294967296 dup 0 mul mul",
        "push 4294967295 mul",
    ),
    # x / 3 by the constant 3^-1
    pair("x / 3 by the constant 3^-1", "constants", "push 3 invert mul", f"push {ONE_THIRD} mul"),
    # --- assumptions ------------------------------------------------------------------------------
    # the brief's example: pop 1 needs a 17th word, which the assumption provides
    pair(
        "pop 1 push 5 at minimum depth 17",
        "assumptions",
        "pop 1 push 5",
        "push 5 swap 1 pop 1",
        minimum_depth=17,
    ),
    # pop 2 needs 18 words
    pair(
        "pop 2 push 5 push 5 at minimum depth 18",
        "assumptions",
        "pop 2 push 5 push 5",
        "push 5 swap 1 pop 1 push 5 swap 2 pop 1",
        minimum_depth=18,
    ),
    # pop 5 and five pushes needs 21 words
    pair(
        "pop 5 near the floor at minimum depth 21",
        "assumptions",
        "pop 5 push 0 push 0 push 0 push 0 push 0",
        ZERO_FIVE,
        minimum_depth=21,
    ),
    # the high word of a u32 word is 0
    pair(
        "split pop 1 on a u32 slot",
        "assumptions",
        "split pop 1",
        "push 0 swap 1 pop 1",
        u32_entry={0},
    ),
    # exit st0 is garbage: read_io's token doubled or not
    pair("don't-care exit slot", "assumptions", "read_io 1 dup 0 add", "read_io 1", dont_care={0}),
    # for u32 words a xor b = 0 exactly when a = b
    pair(
        "eq by xor on u32 slots",
        "assumptions",
        "eq",
        "xor push 0 eq",
        same(0, 1),
        u32_entry={0, 1},
    ),
    # for a u32 word the high word of x * 2^32 is x
    pair(
        "high word of x * 2^32 on a u32 slot",
        "assumptions",
        "push 4294967296 mul split pop 1",
        "",
        u32_entry={0},
    ),
    # u32 words that sum to 0 are both 0, so the high word of st1 is 0
    pair(
        "sum asserted zero on u32 words",
        "assumptions",
        "dup 1 dup 1 add push 0 eq assert dup 1 split pop 1",
        "dup 1 dup 1 add push 0 eq assert push 0",
        value(0, 0),
        value(1, 0),
        u32_entry={0, 1},
    ),
    # the 17th word asserted to be 5, written two ways
    pair(
        "assert on the 17th word written two ways",
        "stack",
        "pop 1 dup 15 push 5 eq assert",
        "pop 1 dup 15 addi -5 push 0 eq assert",
        value(16, 5),
    ),
]
