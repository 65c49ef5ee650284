"""The pairs of tests/verify/test_verify_adversarial.py that differ, as data, and the `Pair` record.

Input: nothing.  Output: `Pair` (two TASM blocks, the entry facts they may assume
(compiler.verify.assumptions), the corners (tests/adversarial_truth.py) where
they part or would part, a category, and -- for an equivalent pair that needs
a fact the checker does not know -- that fact, so the checker's answer must be
`unknown`), `pair(...)` to write one, and `DIFFERENT`.  The equivalent pairs are in
tests/adversarial_equivalent.py.

Every `DIFFERENT` pair is a mistake an optimizer could make (a wrong strength
reduction, a dead-store elimination across a possible alias, a dropped check
that is not implied, an effect moved, a shuffle off by one, a u32 identity used
on field values, an assumption used on the wrong slot, ...); the comment above
it says what is wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from adversarial_truth import (
    P,
    custom,
    initialized,
    length,
    same,
    shifted,
    u32,
    value,
    vector,
)

from compiler.verify.assumptions import Assumptions

TWO_32 = 1 << 32
ONE_THIRD = pow(3, P - 2, P)
ZEROS = "push 0 " * 10
ONES = "push 1 " * 10
SQUARE_IS_FOUR = "dup 0 dup 0 mul push 4 eq assert "  # passes for st0 = 2 or p - 2 only
# st0..st4 := 0, one word at a time, never below the 16-word floor
ZERO_FIVE = " ".join(f"push 0 swap {slot} pop 1" for slot in range(1, 6))
# merkle_step_mem with node index 4, written with read_mem and hash
MERKLE_AS_HASH = (
    "push {index} swap 6 pop 1 dup 7 addi 4 read_mem 5 pop 1 pick 9 pick 9 pick 9 pick 9 pick 9 "
    "hash push 2 swap 6 pop 1 swap 7 addi 5 swap 7"
)

# Facts the checker does not know (an equivalent pair it cannot prove; the lead's to add).
X_INVERSE_OF_A_PRODUCT = (
    "checker incompleteness: guards.nonzero_x does not split a product (the X-field has no zero "
    "divisors) and x_inverse atoms are not interpreted at random points: unknown"
)


@dataclass(frozen=True)
class Pair:
    name: str
    category: str
    first: str
    second: str
    corners: tuple[Callable, ...] = ()
    assumptions: Assumptions = field(default_factory=Assumptions)
    isa: str = "rel"
    incompleteness: str | None = None  # a fact the checker does not know: it says unknown


def pair(name, category, first, second, *corners, incompleteness=None, **facts):
    isa = facts.pop("isa", "rel")
    return Pair(name, category, first, second, corners, Assumptions(**facts), isa, incompleteness)


DIFFERENT = [
    # --- u32 preconditions: which operand each instruction checks -----------------------------
    # pow checks only its exponent (st1): the base's range check is not redundant
    pair("pow does not check its base", "u32", "dup 0 dup 0 and pop 1 pow", "pow", u32(1)),
    # lt(x, 1) = (x == 0) only for u32 x; lt also fails on a field x
    pair(
        "lt(x, 1) as x == 0", "u32", "push 1 swap 1 lt", "push 0 eq", value(0, 0, 1, TWO_32, P - 1)
    ),
    # and with 2^32 - 1 is the identity only after its range check
    pair("and with 2^32-1 dropped", "u32", "push 4294967295 and", ""),
    # x xor x = 0, but xor fails on a field x
    pair("x xor x as 0", "u32", "dup 0 xor", "pop 1 push 0"),
    # xor with the same constant twice cancels, its range check does not
    pair("xor 5 twice dropped", "u32", "push 5 xor push 5 xor", ""),
    # div_mod by 1 leaves (x, 0), but checks x
    pair("div_mod by 1 as push 0", "u32", "push 1 swap 1 div_mod", "push 0"),
    # split checks nothing: a range check in front of it is an added failure
    pair("split assumed to check its operand", "u32", "split", "dup 0 dup 0 lt pop 1 split"),
    # pop_count accepts 0; log_2_floor does not
    pair(
        "pop_count check as log_2_floor check",
        "u32",
        "dup 0 pop_count pop 1",
        "dup 0 log_2_floor pop 1",
        value(0, 0),
    ),
    # merkle_step checks the node index st5, not the word below it
    pair(
        "merkle_step checks st5, not st6",
        "merkle",
        "dup 6 split pop 1 push 0 eq assert merkle_step",
        "merkle_step",
        u32(5),
    ),
    # merkle_step_mem checks the node index, not its RAM pointer st7
    pair(
        "merkle_step_mem does not check its pointer",
        "merkle",
        "dup 7 dup 0 lt pop 1 merkle_step_mem",
        "merkle_step_mem",
        u32(5),
    ),
    # the range check moved after addi 1 checks x + 1: differs at 2^32 - 1 and at p - 1
    pair(
        "range check moved across addi",
        "failure order",
        "dup 0 dup 0 and pop 1 addi 1",
        "addi 1 dup 0 dup 0 and pop 1",
        value(0, TWO_32 - 1, P - 1),
    ),
    # --- division and inverse of zero -------------------------------------------------------------
    # x * x^-1 = 1 only where invert did not fail
    pair("x * x^-1 as 1", "division", "dup 0 invert mul", "pop 1 push 1", value(0, 0, 1)),
    # x_invert twice is the identity except on (0, 0, 0), where it fails
    pair(
        "x_invert twice dropped",
        "xfield",
        "x_invert x_invert",
        "",
        value(0, 0),
        value(1, 0),
        value(2, 0),
    ),
    # x div x = 1 needs x != 0 as well as x u32
    pair(
        "x div x keeps only the range check",
        "division",
        "dup 0 div_mod pop 1",
        "dup 0 dup 0 and pop 1 pop 1 push 1",
        value(0, 0, 1, 5),
    ),
    # log_2_floor checks non-zero; a range check alone does not
    pair(
        "log_2_floor check as a range check",
        "division",
        "dup 0 log_2_floor pop 1",
        "dup 0 dup 0 and pop 1",
        value(0, 0, 1),
    ),
    # div_mod checks its divisor, not its numerator, for zero
    pair(
        "invert of the numerator is not implied by div_mod",
        "division",
        "dup 0 invert pop 1 div_mod",
        "div_mod",
        u32(0, 1),
        value(0, 0),
    ),
    # invert by pow x^(p-2): the exponent p - 2 is not u32, so pow always fails
    pair(
        "invert as pow with exponent p-2",
        "constants",
        "invert",
        "push 18446744069414584319 swap 1 pow",
    ),
    # --- which failure comes first ----------------------------------------------------------------
    # the check moved across pop 1 reads another word
    pair(
        "invert check moved across a pop",
        "failure order",
        "dup 0 invert pop 1 pop 1",
        "pop 1 dup 0 invert pop 1",
        value(0, 0),
        value(1, 0),
    ),
    # a check moved after halt is never made
    pair(
        "failure moved past halt",
        "halt",
        "dup 0 invert pop 1 halt",
        "halt dup 0 invert pop 1",
        value(0, 0),
    ),
    # write_io below read_io needs 17 words; the reordered block needs 16
    pair(
        "write_io moved after read_io changes the depth",
        "stack",
        "write_io 1 read_io 1",
        "read_io 1 swap 1 write_io 1",
        length(16),
    ),
    # --- extension field --------------------------------------------------------------------------
    # x_invert of (c0, c1, c2) is not invert of c0 (nor does it fail on c0 = 0 alone)
    pair("x_invert as invert of c0", "xfield", "x_invert", "invert", value(1, 0), value(2, 0)),
    # the scalar pushed as (0, 0, s) is s X^2, not s
    pair("xb_mul as xx_mul by (0, 0, s)", "xfield", "xb_mul", "push 0 push 0 xx_mul"),
    # coefficient-wise xx_add with the last place off by one
    pair(
        "xx_add by hand, last place off by one",
        "xfield",
        "xx_add",
        "pick 3 add swap 1 pick 3 add swap 1 pick 3 pick 3 add place 1",
    ),
    # xb_dot_step reads a base word at st0's pointer and an X-field word at st1's: not symmetric
    pair("xb_dot_step pointers swapped", "xfield", "xb_dot_step", "swap 1 xb_dot_step swap 1"),
    # xx_dot_step reads b, b+1, b+2: a store to b+2 cannot move after it
    pair(
        "store moved after xx_dot_step that reads it",
        "xfield",
        "push 7 dup 2 addi 2 write_mem 1 pop 1 xx_dot_step",
        "xx_dot_step push 7 dup 2 addi -1 write_mem 1 pop 1",
    ),
    # b_horner_step reads RAM[p]: a store to p cannot move after it (HEAD)
    pair(
        "store moved after b_horner_step that reads it",
        "xfield",
        "push 7 dup 6 write_mem 1 pop 1 b_horner_step",
        "b_horner_step push 7 dup 6 addi 1 write_mem 1 pop 1",
        isa="head",
    ),
    # x_horner_step reads p, p-1, p-2 (downwards): a store to p-2 cannot move after it (HEAD)
    pair(
        "store moved after x_horner_step that reads it",
        "xfield",
        "push 7 dup 6 addi -2 write_mem 1 pop 1 x_horner_step",
        "x_horner_step push 7 dup 6 addi 1 write_mem 1 pop 1",
        isa="head",
    ),
    # --- RAM --------------------------------------------------------------------------------------
    # read_mem 2 at p+1 reads p+1, p; at p it reads p, p-1: forwarding with the wrong pointer
    pair(
        "store-to-load forwarding, read_mem walks down",
        "ram",
        "dup 1 dup 1 dup 4 write_mem 2 pop 1 dup 2 addi 1 read_mem 2 pop 1",
        "dup 1 dup 1 dup 4 write_mem 2 pop 1 dup 2 read_mem 2 pop 1",
    ),
    # read_mem 2 as two read_mem 1 going up instead of down
    pair(
        "read_mem 2 as two reads upwards",
        "ram",
        "read_mem 2",
        "read_mem 1 addi 2 read_mem 1 addi -2",
    ),
    # a store overwritten later is not dead when a read of a possibly equal address sits between
    pair(
        "dead store across a possibly aliasing read",
        "ram",
        "dup 0 dup 2 write_mem 1 pop 1 dup 2 read_mem 1 pop 1 push 0 dup 3 write_mem 1 pop 1",
        "dup 2 read_mem 1 pop 1 push 0 dup 3 write_mem 1 pop 1",
        same(1, 2),
    ),
    # two stores to p and q do not commute when p = q
    pair(
        "stores to possibly equal addresses reordered",
        "ram",
        "dup 0 dup 2 write_mem 1 pop 1 push 5 dup 3 write_mem 1 pop 1",
        "push 5 dup 3 write_mem 1 pop 1 dup 0 dup 2 write_mem 1 pop 1",
        same(1, 2),
    ),
    # a load of q hoisted above a store to p reads the old word when p = q
    pair(
        "load hoisted above a possibly aliasing store",
        "ram",
        "dup 0 dup 2 write_mem 1 pop 1 dup 2 read_mem 1 pop 1",
        "dup 2 read_mem 1 pop 1 dup 1 dup 3 write_mem 1 pop 1",
        same(1, 2),
    ),
    # forwarding x from the store to p past a store to q + 5, which is p when q = p - 5
    pair(
        "store-to-load forwarding past a store to q + 5",
        "ram",
        "dup 0 dup 2 write_mem 1 pop 1 push 9 dup 3 addi 5 write_mem 1 pop 1 "
        "dup 1 read_mem 1 pop 1",
        "dup 0 dup 2 write_mem 1 pop 1 push 9 dup 3 addi 5 write_mem 1 pop 1 dup 0",
        shifted(1, 2, 5),
    ),
    # the literals -1 and 2^64 - 2^32 are the same address p - 1
    pair(
        "load hoisted: -1 and 2^64-2^32 are one address",
        "constants",
        "push 5 push -1 write_mem 1 pop 1 push 18446744069414584320 read_mem 1 pop 1",
        "push 18446744069414584320 read_mem 1 pop 1 push 5 push -1 write_mem 1 pop 1",
    ),
    # sponge_absorb_mem reads p .. p+9 upwards: a store to p+9 cannot move after it
    pair(
        "store moved after sponge_absorb_mem that reads it",
        "sponge",
        "push 9 dup 1 addi 9 write_mem 1 pop 1 sponge_absorb_mem",
        "sponge_absorb_mem push 9 dup 1 addi -1 write_mem 1 pop 1",
        initialized,
    ),
    # merkle_step_mem reads st7 .. st7+4: a store to st7+4 cannot move after it
    pair(
        "store moved after merkle_step_mem that reads it",
        "merkle",
        "push 9 dup 8 addi 4 write_mem 1 pop 1 merkle_step_mem",
        "merkle_step_mem push 9 dup 8 addi -1 write_mem 1 pop 1",
        u32(5),
    ),
    # --- sponge and hash --------------------------------------------------------------------------
    # sponge_init is not redundant: the sponge may be uninitialized or hold anything
    pair(
        "sponge_init dropped before absorb",
        "sponge",
        "sponge_init sponge_absorb",
        "sponge_absorb",
        initialized,
    ),
    # a squeeze whose words are popped still permutes the sponge
    pair(
        "squeeze with popped words as dead code",
        "sponge",
        "sponge_squeeze pop 5 pop 5",
        "",
        initialized,
    ),
    # squeeze and absorb do not commute
    pair(
        "squeeze and absorb reordered",
        "sponge",
        "sponge_squeeze pop 5 pop 5 sponge_absorb",
        "sponge_absorb sponge_squeeze pop 5 pop 5",
        initialized,
    ),
    # an absorb into a sponge reset afterwards is not dead: it fails uninitialized, and permutes
    pair(
        "absorb before sponge_init as dead code",
        "sponge",
        "sponge_absorb sponge_init",
        "pop 5 pop 5 sponge_init",
        initialized,
    ),
    # hash is not sponge_init/absorb/squeeze: other capacity, the sponge changes
    pair(
        "hash as a sponge round",
        "hash",
        "hash",
        "sponge_init sponge_absorb sponge_squeeze "
        "pick 5 pop 1 pick 5 pop 1 pick 5 pop 1 pick 5 pop 1 "
        "pick 5 pop 1",
    ),
    # the same number of permutations, but (zeros, zeros, ones) is not (zeros, ones, ones)
    pair(
        "permutation inputs as a multiset",
        "hash",
        SQUARE_IS_FOUR + ZEROS + "hash pop 5 " + ZEROS + "hash pop 5 " + ONES + "hash pop 5",
        SQUARE_IS_FOUR + ZEROS + "hash pop 5 " + ONES + "hash pop 5 " + ONES + "hash pop 5",
        value(0, 2, P - 2),
    ),
    # --- Merkle steps -----------------------------------------------------------------------------
    # clearing the node index's low bit keeps i div 2 but swaps (current, sibling) for odd i
    pair(
        "node index parity dropped",
        "merkle",
        "merkle_step",
        "swap 5 push 2 swap 1 div_mod pop 1 push 2 mul swap 5 merkle_step",
        u32(5),
    ),
    # with an odd node index the sibling comes first
    pair(
        "merkle_step_mem with odd index as hash(current, sibling)",
        "merkle",
        "push 5 swap 6 pop 1 merkle_step_mem",
        MERKLE_AS_HASH.format(index=5),
    ),
    # --- divine and read_io -----------------------------------------------------------------------
    # read_io 2 write_io 2 writes the second token first
    pair(
        "streamed reads and writes reordered",
        "io",
        "read_io 2 write_io 2",
        "read_io 1 write_io 1 read_io 1 write_io 1",
    ),
    # a token read and popped is still consumed
    pair("discarded read_io dropped", "io", "read_io 1 pop 1 read_io 1", "read_io 1"),
    # divine 2 leaves the second token on top
    pair("divine 2 order", "io", "divine 2 swap 1", "divine 1 divine 1"),
    # --- deep stack positions and underflow -------------------------------------------------------
    # after pop 1, dup 15 reads the entry's st16, not st15
    pair(
        "dup 15 after pop 1 reads one deeper",
        "stack",
        "pop 1 dup 15",
        "dup 15 swap 1 pop 1",
        minimum_depth=17,
    ),
    # pick 15 is swap 1 .. swap 15; one swap missing
    pair(
        "pick 15 as swaps, one missing",
        "stack",
        "pick 15",
        " ".join(f"swap {slot}" for slot in range(1, 16) if slot != 8),
    ),
    # swap 15 swap 14 swap 15 exchanges st14 and st15, not st0 and st14
    pair("swap 15 swap 14 swap 15 as swap 14", "stack", "swap 15 swap 14 swap 15", "swap 14"),
    # pop 1 push 5 needs 17 words, push 5 swap 1 pop 1 needs 16
    pair(
        "pop 1 push 5 without the depth assumption", "stack", "pop 1 push 5", "push 5 swap 1 pop 1"
    ),
    # pop 5 and five pushes needs 21 words: the assumed 20 are one short
    pair(
        "pop 5 near the floor, minimum depth 20",
        "assumptions",
        "pop 5 push 0 push 0 push 0 push 0 push 0",
        ZERO_FIVE,
        minimum_depth=20,
    ),
    # pop 2 needs 18 words: the assumed 17 are one short
    pair(
        "pop 2 push 5 push 5, minimum depth 17",
        "assumptions",
        "pop 2 push 5 push 5",
        "push 5 swap 1 pop 1 push 5 swap 2 pop 1",
        minimum_depth=17,
    ),
    # an assert on the 17th word dropped (the corner sits where the stack has 16 words)
    pair(
        "assert on the 17th word dropped",
        "stack",
        "pop 1 dup 15 push 5 eq assert",
        "pop 1 dup 15 push 5 eq pop 1",
        value(16, 5),
    ),
    # --- constants near p -------------------------------------------------------------------------
    # 2^64 = 2^32 - 1 in F_p, not -1
    pair("2^64 taken as -1", "constants", "push 4294967296 dup 0 mul mul", "push -1 mul"),
    # 2^63 + 2^63 = 2^64 = 2^32 - 1, not 0
    pair(
        "2^63 + 2^63 taken as 0",
        "constants",
        "addi 9223372036854775808 addi 9223372036854775808",
        "",
    ),
    # x^(p-1) = [x != 0], but pow's exponent p - 1 is not u32
    pair(
        "Fermat through pow with exponent p-1",
        "constants",
        "push 18446744069414584320 swap 1 pow",
        "push 0 eq push -1 mul addi 1",
    ),
    # x * 3^-1 is integer division only for multiples of 3
    pair(
        "x / 3 as integer division",
        "strength reduction",
        "push 3 invert mul",
        "push 3 swap 1 div_mod swap 1 pop 1",
        u32(0),
    ),
    # lt against 2^32 fails: the constant itself is not u32
    pair(
        "u32 test as lt against 2^32",
        "constants",
        "split pop 1 push 0 eq",
        "push 4294967296 swap 1 lt",
    ),
    # --- equal operands ---------------------------------------------------------------------------
    # not(b < a) is a <= b, not a < b: wrong exactly when a = b
    pair("a < b as not(b < a)", "equal operands", "lt", "swap 1 lt push -1 mul addi 1", same(0, 1)),
    # lt(a, b) + lt(b, a) is 1 only when a != b
    pair(
        "lt(a,b) + lt(b,a) as 1",
        "equal operands",
        "dup 1 dup 1 lt dup 2 dup 2 swap 1 lt add",
        "dup 1 dup 1 and pop 1 push 1",
        same(0, 1),
    ),
    # "all three equal" folded to false: wrong exactly when st0 = st1 = st2
    pair(
        "three equal words as false",
        "equal operands",
        "dup 2 dup 2 eq dup 2 dup 2 eq mul",
        "push 0",
        same(0, 1),
        same(0, 2),
    ),
    # 0^e = 0 except 0^0 = 1
    pair("0^e as 0", "constants", "push 0 pow", "dup 0 dup 0 and pop 1 pop 1 push 0", value(0, 0)),
    # --- halt -------------------------------------------------------------------------------------
    # output moved after halt is never written
    pair("output moved after halt", "halt", "push 5 write_io 1 halt", "halt push 5 write_io 1"),
    # halt behind an assert that passes only for st0 = 3
    pair(
        "halt dropped behind an assert",
        "halt",
        "dup 0 push 3 eq assert halt",
        "dup 0 push 3 eq assert",
        value(0, 3),
    ),
    # --- assert_vector ----------------------------------------------------------------------------
    # swap 1 before assert_vector compares st0 with st6 and st1 with st5
    pair(
        "assert_vector after swap 1",
        "assert_vector",
        "assert_vector",
        "swap 1 assert_vector",
        vector(),
    ),
    # four of the five word checks: st4 = st9 is not implied
    pair(
        "assert_vector as four word checks",
        "assert_vector",
        "assert_vector",
        "dup 5 eq assert dup 5 eq assert dup 5 eq assert dup 5 eq assert pop 1",
        vector(),
        custom(lambda generator, state: state.stack.__setitem__(9, generator.randrange(P))),
    ),
    # --- assumptions used wrongly -----------------------------------------------------------------
    # split pop 1 is push 0 on a u32 word: slot 1 is u32, slot 0 is not
    pair(
        "split pop 1 with the u32 fact on the wrong slot",
        "assumptions",
        "split pop 1",
        "push 0 swap 1 pop 1",
        u32_entry={1},
    ),
    # st0 is u32, st0 + 1 need not be: its high half is 1 at 2^32 - 1
    pair(
        "u32 fact of st0 used for st0 + 1",
        "assumptions",
        "addi 1 split pop 1",
        "addi 1 pop 1 push 0",
        value(0, TWO_32 - 1),
        u32_entry={0},
    ),
    # the sum of two u32 words can reach 2^33 - 2
    pair(
        "u32 facts used for a sum",
        "assumptions",
        "add split pop 1",
        "add pop 1 push 0",
        value(0, TWO_32 - 1),
        u32_entry={0, 1},
    ),
    # eq by xor needs both operands u32: slot 1 is not
    pair("eq by xor with one u32 operand", "assumptions", "eq", "xor push 0 eq", u32_entry={0}),
    # dont_care {1}: the blocks differ at exit st0 (slots count from the top)
    pair(
        "don't-care slot counted from the bottom",
        "assumptions",
        "dup 0 addi 1 swap 1",
        "dup 0 addi 1",
        dont_care={1},
    ),
    # a don't-care slot does not excuse a different exit height
    pair("don't-care slot with a different height", "assumptions", "pop 1", "", dont_care={0}),
    # don't-care slots do not cover the output
    pair(
        "don't-care slots do not cover output",
        "assumptions",
        "dup 0 write_io 1",
        "dup 1 write_io 1",
        dont_care={0, 1},
    ),
    # both assert st0 + st1 = 0; for u32 words that means both are 0, and then A leaves 1, B 0
    pair(
        "sum asserted zero on u32 words, then 1 for 0",
        "assumptions",
        "dup 1 dup 1 add push 0 eq assert push 1",
        "dup 1 dup 1 add push 0 eq assert dup 1 split pop 1",
        value(0, 0),
        value(1, 0),
        u32_entry={0, 1},
    ),
    # --- u32 identities applied to field values ---------------------------------------------------
    # lt(x, y + 1) is x <= y only while y + 1 stays u32: fails at y = 2^32 - 1
    pair(
        "x <= y as lt(x, y + 1)",
        "u32 identity",
        "swap 1 addi 1 swap 1 lt",
        "swap 1 lt push -1 mul addi 1",
        u32(0, 1),
        value(1, TWO_32 - 1),
    ),
    # a + b = (a xor b) + 2 (a and b) for u32 words only
    pair(
        "a + b by xor and and on field words",
        "u32 identity",
        "add",
        "dup 1 dup 1 xor swap 2 and push 2 mul add",
    ),
    # the low word is x and 2^32 - 1 only for u32 x
    pair(
        "low word of split as and 2^32-1",
        "u32 identity",
        "split swap 1 pop 1",
        "push 4294967295 and",
    ),
    # log2(2x) = log2(x) + 1 until 2x leaves u32
    pair(
        "log2(2x) as log2(x) + 1",
        "u32 identity",
        "push 2 mul log_2_floor",
        "log_2_floor addi 1",
        value(0, 2**31, 2**31 + 5, TWO_32 - 1, 1),
    ),
    # the high word of x * 2^32 is x only for u32 x
    pair("high word of x * 2^32 as x", "u32 identity", "push 4294967296 mul split pop 1", ""),
]
