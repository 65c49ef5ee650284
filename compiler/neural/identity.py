"""The compiler's identity (optimizer.md §9): what the generated code depends on, as one
hash.

Input: the optimizer's TASM program digest (None until `optimizer.tri` runs as the
model: `-O3 --engine vm`), the weights' hash (compiler.neural.weights.Weights.identity,
None without a model) and the rule database's hash (compiler.superopt.database: the
sha256 its header records and `load` checks; the shipped database by default).
Output: 64 hex digits, the Poseidon2 hash (compiler.neural.poseidon2.hash_bytes) of the
text

    tri-identity 1
    optimizer <digest or "none">
    weights <hash or "none">
    rules <hash>

one line each, in this order.  Two builds with the same identity, source and level give
the same TASM (optimizer.md §1, invariant 3); `tri selfhost --iterate` stops when the
identity of stage k+1 equals that of stage k.
"""

from __future__ import annotations

from compiler.neural.poseidon2 import hash_bytes
from compiler.superopt import database

FORMAT = "tri-identity 1"


def rules_hash() -> str:
    """The shipped rule database's content hash (checked against its rules on load)."""
    return database.load().header["sha256"]


def compiler_identity(
    optimizer_digest: str | None, weights_hash: str | None, rules: str | None = None
) -> str:
    """The identity of a compiler made of this optimizer program, weights and rules."""
    rules = rules_hash() if rules is None else rules
    for name, value in (("optimizer", optimizer_digest), ("weights", weights_hash)):
        if value is not None and (not value or any(c.isspace() for c in value)):
            raise ValueError(f"a {name} digest is one word, not {value!r}")
    text = "\n".join(
        (
            FORMAT,
            f"optimizer {optimizer_digest or 'none'}",
            f"weights {weights_hash or 'none'}",
            f"rules {rules}",
        )
    )
    return hash_bytes((text + "\n").encode("utf-8"))


def program_digest(program) -> str:
    """A TASM program's digest (vm.tasm.Program.digest, five field elements) as one word:
    16 hex digits each, comma-separated."""
    return ",".join(f"{word:016x}" for word in program.digest)
