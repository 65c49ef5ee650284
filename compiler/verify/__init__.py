"""Verification of straight-line TASM blocks: is a candidate the same as the original?

`check_equivalent(block_a, block_b) -> Verdict` takes two blocks (`vm.tasm.Program`s
or sequences of `Op`s without control flow) and answers `equivalent` (proven, with
an error bound when the proof used random evaluation), `different` (with a
counterexample the interpreter confirms) or `unknown` (not proven).  See
docs/verify.md.

Modules: `terms` (canonical polynomials, hash-consed atoms), `functions` (what
each atom means), `guards` (failure conditions in canonical form), `symbolic`
and `symbolic_handlers` (symbolic execution of a block), `concrete` (entry
states, interpreter runs, counterexamples), `vectorized` and
`vectorized_handlers` (numpy execution on many entry states at once),
`equivalence` (the comparison), `solver` and `solver_worker` (cvc5 for what the
comparison leaves open, with `check_equivalent(..., solver=True)`), `generate`
(random blocks and mutants for tests and benchmarks).
"""

from compiler.verify.assumptions import Assumptions
from compiler.verify.concrete import Counterexample
from compiler.verify.equivalence import Verdict, check_equivalent, prove_equivalent
from compiler.verify.symbolic import BlockError

__all__ = [
    "Assumptions",
    "BlockError",
    "Counterexample",
    "Verdict",
    "check_equivalent",
    "prove_equivalent",
]
