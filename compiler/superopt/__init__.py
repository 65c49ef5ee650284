"""The superoptimizer (optimizer.md §4): a database of proven rewrite rules for `-O2`.

`enumerate` runs every short sequence over a small alphabet on fixed entry stacks and
fingerprints it; `generate` groups equal fingerprints and proves each sequence equal
to a cheaper one with compiler/verify; `database` writes and loads the content-hashed
`rules.json` the compiler applies after the hand rules.  docs/search.md has the figures.
"""
