"""The peephole rules, as data: (pattern, replacement, comment, condition).

Only sound rules are here: each one leaves the same stack, output, RAM and
failure behaviour (both fail or neither) for every entry state, and each is
proven so by the equivalence checker for every argument
(compiler/optimize/proofs.py, tests/back_end/test_backend_peephole.py).  RC's `eliminate_dead_spills` and the
(b)/(c) forms of `collapse_epilogue_cleanup` are not sound (docs/backend.md, Peephole) and
are not reproduced; RC's passes 1, 2, 3, 5, 6 and 8a are rules below.
"""

from __future__ import annotations

from compiler.blocks.rule_engine import Rule

# --- TIR (op names of compiler.tir.ops) ----------------------------------------------------

TIR_RULES: tuple[Rule, ...] = (
    Rule("Pop {a}; Pop {b}", "Pop {a + b}", "merge_pops: one pop of the total", "a + b <= 5"),
    Rule(
        "Hint {a}; Hint {b}",
        "Hint {a + b}",
        "merge_hints: divine pushes in read order",
        "a + b <= 5",
    ),
    Rule("Swap 0", "", "eliminate_nops: swapping st0 with itself"),
    Rule("Dup {d}; Pop 1", "", "eliminate_dup_pop: a copy dropped at once"),
    Rule("Push {a}; Pop 1", "", "a constant dropped at once"),
    Rule("Swap {n}; Swap {n}", "", "eliminate_double_swaps: a swap undone"),
    Rule("Pick {n}; Place {n}", "", "a move undone"),
    Rule("Place {n}; Pick {n}", "", "a move undone"),
    Rule(
        "Swap 1; Pop 1; Swap {a}; Pop {a}",
        "Swap {a + 1}; Pop {a + 1}",
        "collapse_epilogue_cleanup (a): drop a+1 elements under the top",
        "a + 1 <= 5",
    ),
    Rule("Push {a}; Add", "AddI {a}", "add a constant in one instruction"),
    Rule("AddI {a}; AddI {b}", "AddI {a + b}", "fold two constant additions"),
    Rule("AddI 0", "", "adding zero"),
    Rule("Push {a}; AddI {b}", "Push {a + b}", "fold a constant addition"),
    Rule("Push {a}; Push {b}; Mul", "Push {a * b}", "fold a constant product"),
    Rule("Push 1; Mul", "", "multiplying by one"),
    Rule("Swap 1; Add", "Add", "addition commutes"),
    Rule("Swap 1; Mul", "Mul", "multiplication commutes"),
    Rule("Swap 1; Eq", "Eq", "equality is symmetric"),
    Rule(
        "WriteIo {a}; WriteIo {b}", "WriteIo {a + b}", "write_io writes the top first", "a + b <= 5"
    ),
    Rule(
        "ReadIo {a}; ReadIo {b}",
        "ReadIo {a + b}",
        "read_io pushes the first word deepest",
        "a + b <= 5",
    ),
    Rule(
        "Push 1; And; Push 1; Eq",
        "Push 1; And",
        "a word and 1 is 0 or 1: comparing with 1 keeps it",
    ),
    Rule(
        "Push 1; Eq; Assert 1",
        "Assert 1",
        "assert fails unless st0 is 1, as comparing st0 with 1 first does (assert.eq(x, 1); "
        "compiler.failures quotes x and 1 for the lone assert)",
    ),
    Rule(
        "Push {a}; Split; Swap 1; Push 0; Eq; Assert 1",
        "Push {a}",
        "as_u32 of a constant that is a u32",
        "a < 2**32",
    ),
)

# --- TASM ----------------------------------------------------------------------------------

TASM_RULES: tuple[Rule, ...] = (
    Rule("pop {a}; pop {b}", "pop {a + b}", "one pop of the total", "a + b <= 5"),
    Rule("divine {a}; divine {b}", "divine {a + b}", "divine pushes in read order", "a + b <= 5"),
    Rule("swap 0", "", "swapping st0 with itself"),
    Rule("pick 0", "", "moving st0 to the top"),
    Rule("place 0", "", "moving the top to the top"),
    Rule("pick 1", "swap 1", "the same move, cheaper to prove nothing about"),
    Rule("place 1", "swap 1", "the same move"),
    Rule("dup {d}; pop 1", "", "a copy dropped at once"),
    Rule("push {a}; pop 1", "", "a constant dropped at once"),
    Rule("swap {n}; swap {n}", "", "a swap undone"),
    Rule("pick {n}; place {n}", "", "a move undone"),
    Rule("place {n}; pick {n}", "", "a move undone"),
    Rule(
        "swap 1; pop 1; swap {a}; pop {a}",
        "swap {a + 1}; pop {a + 1}",
        "drop a+1 elements under the top",
        "a + 1 <= 5",
    ),
    Rule("push {a}; add", "addi {a}", "add a constant in one instruction"),
    Rule("addi {a}; addi {b}", "addi {a + b}", "fold two constant additions"),
    Rule("addi 0", "", "adding zero"),
    Rule("push {a}; addi {b}", "push {a + b}", "fold a constant addition"),
    Rule("push {a}; push {b}; mul", "push {a * b}", "fold a constant product"),
    Rule("push 1; mul", "", "multiplying by one"),
    Rule("push -1; mul; push -1; mul", "", "negating twice"),
    Rule("swap 1; add", "add", "addition commutes"),
    Rule("swap 1; mul", "mul", "multiplication commutes"),
    Rule("swap 1; eq", "eq", "equality is symmetric"),
    Rule("swap 1; and", "and", "and commutes (both operands are checked either way)"),
    Rule("swap 1; xor", "xor", "xor commutes (both operands are checked either way)"),
    *(
        Rule(
            f"dup 1; place 2; {name}",
            f"dup 1; {name}",
            f"{name} commutes: a copy of st1 slid under st0 or left above it gives one result",
        )
        for name in ("add", "mul", "eq", "and", "xor")
    ),
    Rule(
        "write_io {a}; write_io {b}",
        "write_io {a + b}",
        "write_io writes the top first",
        "a + b <= 5",
    ),
    Rule(
        "read_io {a}; read_io {b}",
        "read_io {a + b}",
        "read_io pushes the first word deepest",
        "a + b <= 5",
    ),
    Rule(
        "split; swap 1; push 0; eq; assert",
        "dup 0; pop_count; pop 1",
        "as_u32: pop_count fails exactly when the value is not a u32",
    ),
    Rule("push {a}; dup 0; pop_count; pop 1", "push {a}", "as_u32 of a constant u32", "a < 2**32"),
    Rule(
        "pick 9; pick 9; pick 9; pick 9; pick 9; assert_vector",
        "assert_vector",
        "assert_vector compares st0..st4 with st5..st9 pair by pair, in either order, and when "
        "it passes the five words it leaves equal the five it pops",
    ),
)

# --- TASM, at the end of a run that a `skiz` follows (only zero / non-zero matters) ----------

SKIZ_RULES: tuple[Rule, ...] = (
    Rule("push 0; eq; push 0; eq", "", "a double negation does not change which way skiz goes"),
)

# --- TASM rules for booleans (the value is 0 or 1) -------------------------------------------

TASM_RULES = TASM_RULES + (
    Rule("eq; push 0; eq; push 0; eq", "eq", "eq gives 0 or 1: negating twice is the identity"),
    Rule("lt; push 0; eq; push 0; eq", "lt", "lt gives 0 or 1: negating twice is the identity"),
)


# --- TASM rules across a `skiz`: choosing one of two values ------------------------------------
# A pattern holds the `skiz` and the one instruction it guards, so rewriting it whole is safe;
# the pass never starts a pattern at the instruction a `skiz` guards.

SELECT_RULES: tuple[Rule, ...] = (
    Rule(
        "push 0; eq; skiz; swap 1; swap 1; pop 1",
        "skiz; swap 1; pop 1",
        "select with a negated condition: the extra swap undoes the negation",
    ),
    Rule(
        "dup 0; dup 2; lt; skiz; swap 1; swap 1; pop 1",
        "dup 1; dup 1; lt; skiz; swap 1; pop 1",
        "select the smaller: compare the other way round; equal operands select the same value",
    ),
    Rule("eq; skiz; addi 1", "eq; add", "count an equality: eq gives 0 or 1, so add it"),
    Rule("lt; skiz; addi 1", "lt; add", "count a comparison: lt gives 0 or 1, so add it"),
)
