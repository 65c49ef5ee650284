"""The blocks core: what every optimizer of a straight-line TASM block builds on, and that
depends on none of them (tests/whole/test_import_graph.py).

Modules: `dag` (a block -> its `Dag`: the values it computes, the order of its effects,
the exit layout it must leave), `schedule` (best-first search for the cheapest instruction
sequence that realizes a `Dag`, and a plain scheduler as a reference), `windows` (a long
block scheduled window by window, joined by dynamic programming), `objective` (what
"cheaper" means for a block and for a whole program, u32-table entries included, with
`u32_entries`: the entries a block records), and `rule_engine` (pattern -> replacement
rules applied to instruction runs to a fixpoint).  The peephole passes
(compiler.optimize), the search lowerer (compiler.search), the superoptimizer
(compiler.superopt) and the `-O3` model (compiler.neural) use them.
"""
