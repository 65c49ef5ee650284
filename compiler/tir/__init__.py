"""TIR: the stack IR between the checked AST and TASM (tir.md)."""
