"""Lowering: TIR -> TASM, one straight-line block at a time, plus program layout."""
