"""TIR: the stack IR between the checked AST and TASM (docs/backend.md, TIR)."""
