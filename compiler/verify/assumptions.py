"""What a block may assume about its entry and what its exit need not keep.

Input: facts a caller knows about the place where a block runs, usually from a
block's contract (compiler.lower.blocks) or from `tri equiv`'s options.
Output: an `Assumptions` value that `check_equivalent` takes, so that two blocks
are compared only on the entry states that can occur there, and only on the exit
slots someone reads again (optimizer.md §2):

* `minimum_depth`: the entry stack holds at least this many words.  Triton VM
  never has fewer than 16; compiled code has at least 16 plus the words of the
  current function below the block's reads, so a block that pops a word below
  its own reads (`pop 1 push 5` for `push 5 swap 1 pop 1`) is fine there.
* `u32_entry`: entry slots (0 = entry st0) known to hold values below 2^32, from
  types: `split pop 1` equals `push 0 swap 1 pop 1` on such a slot.
* `dont_care`: exit slots (0 = exit st0) whose values nobody reads again (the
  stack manager's garbage); the blocks must still leave the same number of words.

The default assumes nothing beyond the VM's own 16 words.
"""

from __future__ import annotations

from dataclasses import dataclass

from vm.isa import OP_STACK_MINIMUM as MINIMUM_STACK  # the op stack never holds fewer words


@dataclass(frozen=True)
class Assumptions:
    minimum_depth: int = MINIMUM_STACK
    u32_entry: frozenset[int] = frozenset()
    dont_care: frozenset[int] = frozenset()

    def __post_init__(self):
        if self.minimum_depth < MINIMUM_STACK:
            raise ValueError(f"the op stack never holds fewer than {MINIMUM_STACK} words")
        for name in ("u32_entry", "dont_care"):
            slots = getattr(self, name)
            if any(slot < 0 for slot in slots):
                raise ValueError(f"{name}: stack slots are counted from 0 (st0)")
            object.__setattr__(self, name, frozenset(slots))

    def as_json(self) -> dict:
        return {
            "minimum_depth": self.minimum_depth,
            "u32_entry": sorted(self.u32_entry),
            "dont_care": sorted(self.dont_care),
        }


NOTHING = Assumptions()
