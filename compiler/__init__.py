"""The Trident compiler: source text -> checked AST -> TIR -> TASM."""
