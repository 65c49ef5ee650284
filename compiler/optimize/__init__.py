"""Peephole optimization over TIR and over lowered TASM (sound rules only)."""
