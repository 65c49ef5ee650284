"""Proven source: contracts proven for all inputs and functions proven equivalent.

Steps: compiler.audit.symbolic (a checked function -> its result and failures as terms,
compiler.audit.terms), compiler.audit.solvers (a condition -> unsat, a model or unknown,
with cvc5's finite-field theory or z3), compiler.audit.confirm (a model -> a VM run of the
function), compiler.audit.audit (the verdicts; `tri audit` and `tri equiv FILE F G`).
"""

from compiler.audit.audit import (
    Equivalence,
    Verdict,
    audit_function,
    audited_functions,
    equivalent_functions,
)

__all__ = ["Equivalence", "Verdict", "audit_function", "audited_functions", "equivalent_functions"]
