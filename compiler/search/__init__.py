"""Search-based lowering (`-O2`, optimizer.md §4): the cheapest instruction sequence that
computes what a block computes (its DAG and scheduler are in the blocks core,
compiler.blocks).

Modules: `lowerer` (the `-O2` block lowerer: search, verify against the classical
lowering under the block's contract, keep only what is strictly cheaper), `cache` and
`decisions` (decisions kept on disk and frozen per project), `budget` (how much search
each block gets), `moves`, `guided` and `policies` (the `-O3` search a policy guides).
"""
