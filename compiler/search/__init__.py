"""Search-based lowering (`-O2`, optimizer.md §4): what a block computes, and the cheapest
instruction sequence that computes it.

Modules: `dag` (a straight-line TASM block -> its `Dag`: the values it computes, the
order of its effects, the exit layout it must leave), `schedule` (best-first search for
the cheapest instruction sequence that realizes a `Dag`, and a plain scheduler used as
a reference), `lowerer` (the `-O2` block lowerer: search, verify against the classical
lowering under the block's contract, keep only what is strictly cheaper), `superopt`
(the superoptimizer that writes the proven rule database).
"""
