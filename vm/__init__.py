"""Triton VM in Python: field arithmetic, Tip5, the TASM assembler, the
interpreter and the table-height cost model."""
