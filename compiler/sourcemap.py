"""Source maps: the source construct every emitted instruction came from.

An `Origin` names a construct of the source: its file and span, what kind of construct
it is (`construct`) and the name the user wrote (`name`: `assert.eq`, `<`, a loop's
bound), and for a builtin call the builtin it resolves to.  It travels with the code:

* the TIR builder keeps a current origin (`compiler.tir.stack.Stack.origin`), set while
  it compiles each statement and expression, and stamps it on every op it emits;
* lowering copies an op's origin onto each instruction the op becomes
  (`compiler.lower.asm.Instr.origin`); the search lowerer (-O2, -O3) keeps -O1's origins
  on a block it leaves as it is, and a block it rewrites gets them from `stamp_block`: a
  check takes the origin of the -O1 instruction that checks the same condition;
* the peephole engine gives each instruction a rewrite produces the origin of the first
  instruction of the matched pattern with the same name, else the pattern's first origin
  (`compiler.blocks.rule_engine.rewrite`): an `assert` stays where its `assert` was, and a
  folded sequence stays with the construct it started;
* the linker keeps the order of instructions, which is the assembled program's, so
  `program_origins(asm)` is one entry per instruction of the program (None for the entry
  stub and `asm` blocks), stored as `vm.tasm.Program.source_map`.

`origin_at(program, ip)` reads the table; compiler.failures turns a failure there into a
message in the language's terms.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from compiler.syntax import ast
from compiler.syntax.ast import Span
from vm.isa import CONTROL


@dataclass(frozen=True)
class Origin:
    path: str
    span: Span
    construct: str  # "builtin", "call", "operator", "bounded", "index", "match", "statement", ...
    name: str = ""  # as written: the callee, the operator, the bound, the array type
    builtin: str = ""  # for construct "builtin": the builtin's name (compiler.builtins)
    # inlined code: the calls it was inlined at, innermost first, each (file, span); the
    # last is in the function the code is now part of
    inlined_at: tuple[tuple[str, Span], ...] = ()

    @property
    def line(self) -> tuple[str, int]:
        return (self.path, self.span.line)

    @property
    def call_site(self) -> tuple[str, int] | None:
        """Inlined code: the (file, line) of the call in the function it is part of."""
        if not self.inlined_at:
            return None
        path, span = self.inlined_at[-1]
        return (path, span.line)

    def as_json(self) -> dict:
        return {
            "file": self.path,
            "line": self.span.line,
            "column": self.span.column,
            "end_line": self.span.end_line,
            "end_column": self.span.end_column,
        }

    @property
    def where(self) -> str:
        return f"{self.path}:{self.span.line}:{self.span.column}"


def origin_of(instance, node) -> Origin:
    """The construct `node` (a statement or expression of the function `instance`) is,
    where it was written: a node the inliner copied from another function says so
    (`source_origin`, compiler.optimize.inline_source), and its span is then the call's, in
    the function it was inlined into: the last of its `inlined_at`, after the calls it was
    inlined at before (`source_calls`).  A call's argument is the caller's own code: its
    span moved to the call's, and it keeps its own (`kept_span`)."""
    copied = getattr(node, "source_origin", None)
    own = getattr(node, "kept_span", None) or node.span  # an inlined call's argument
    path, span = copied or (instance.path, own)
    here = getattr(node, "site_span", None) or node.span  # the call it was inlined at
    site = (*getattr(node, "source_calls", ()), (instance.path, here)) if copied else ()
    contract = getattr(node, "contract", None)  # compiler.contracts: `requires(a < b)`
    if contract is not None:
        return Origin(path, span, "contract", contract, inlined_at=site)
    match node:
        case ast.Call():
            target = instance.calls.get(node)
            builtin = getattr(target, "name", None) if not isinstance(target, str) else None
            if builtin is not None:
                return Origin(path, span, "builtin", node.callee, builtin, site)
            return Origin(path, span, "call", node.callee, inlined_at=site)
        case ast.Binary():
            return Origin(path, span, "operator", node.operator, inlined_at=site)
        case ast.Index():
            index_type = str(instance.types.get(node.base, ""))
            return Origin(path, span, "index", index_type, inlined_at=site)
        case ast.For():
            if node.bound is None:
                return Origin(path, span, "loop", inlined_at=site)
            return Origin(path, span, "bounded", str(node.bound), inlined_at=site)
    return Origin(path, span, type(node).__name__.lower(), inlined_at=site)


def program_origins(asm, module: str | None = None) -> tuple:
    """One origin per instruction of the linked program (compiler.lower.link), in order."""
    from compiler.lower.asm import Instr
    from compiler.lower.link import linked_items

    return tuple(item.origin for item in linked_items(asm, module) if isinstance(item, Instr))


def stamp_block(instructions: list, block) -> list:
    """A lowered block's instructions, each with an origin.  One its lowerer left without
    (a block lowerer that is not the classical one, -O2 and -O3) takes, in this order:
    the origin of the classical lowering's first instruction that checks the same
    condition (`guard_origins`: a failing `assert` names the assert that fails, a u32
    check the construct that first checks that value); that of the classical
    instruction of the same name at the same place among those of its name (the k-th
    `read_io` is the k-th read); that of the block's first op whose TASM has the same
    instruction; else that of the block's first op with an origin."""
    if all(instruction.origin is not None for instruction in instructions):
        return instructions
    from compiler.lower.classical import CLASSICAL
    from compiler.tir.ops import tasm_of

    reference = CLASSICAL.lower_block(block)
    checked = guard_origins(reference, instructions)
    by_place: dict = {}
    for instruction in reference:
        by_place.setdefault(instruction.name, []).append(instruction.origin)
    by_name: dict = {}
    for op in block.ops:
        if op.origin is not None:
            for mnemonic, _ in tasm_of(op):
                by_name.setdefault(mnemonic, op.origin)
    first = next((op.origin for op in block.ops if op.origin is not None), None)
    stamped, seen = [], {}
    for instruction, origin in zip(instructions, checked):
        place = seen.get(instruction.name, 0)
        seen[instruction.name] = place + 1
        if instruction.origin is None:
            places = by_place.get(instruction.name, ())
            origin = origin or (places[place] if place < len(places) else None)
            origin = origin or by_name.get(instruction.name, first)
            instruction = replace(instruction, origin=origin)
        stamped.append(instruction)
    return stamped


def guard_origins(reference: list, instructions: list) -> list:
    """Per instruction of `instructions`, the origin of the first instruction of
    `reference` (an equivalent block with origins) that requires a condition it requires,
    or None.  The conditions are compiler.verify's guards, each rewritten by what the
    block's earlier guards establish (`split_low(x)` is x once x is known a u32), so a
    check of the same value matches however each block reaches it."""
    from compiler.verify.guards import normalize_each
    from compiler.verify.identities import Canonical
    from compiler.verify.symbolic import BlockError, execute
    from compiler.verify.terms import TermTable
    from vm.isa import instruction_set
    from vm.tasm import Op

    table = TermTable()
    eliminate = Canonical(table).eliminator
    named = instruction_set("rel")

    def conditions(code: list) -> list[tuple]:
        """Per instruction of `code`, the normalized guards it requires."""
        trace: list = []
        execute([Op(named[item.name], item.arg) for item in code], table, trace)
        ordered = dict.fromkeys(guard for required in trace for guard in required)
        each, _ = normalize_each(table, ordered, eliminate)
        return [tuple(new for guard in required for new in each[guard]) for required in trace]

    try:
        reference_conditions, found_conditions = conditions(reference), conditions(instructions)
    except (BlockError, KeyError):
        return [None] * len(instructions)
    origins: dict = {}
    for instruction, required in zip(reference, reference_conditions):
        if instruction.origin is not None:
            for guard in required:
                origins.setdefault(guard, instruction.origin)
    found = [
        next((origins[g] for g in required if g in origins), None) for required in found_conditions
    ]
    return found + [None] * (len(instructions) - len(found))


def origin_at(program, ip: int) -> Origin | None:
    """The origin of the instruction at word address `ip` of an assembled program."""
    table = getattr(program, "source_map", ())
    index = program.op_index.get(ip)
    if not table or index is None or index >= len(table):
        return None
    return table[index]


def construct_start(program, ip: int) -> int:
    """How many instructions before the one at `ip` the construct it belongs to started:
    the run of instructions with the same origin that ends there, without crossing a
    label (a jump target) or a control instruction."""
    table = getattr(program, "source_map", ())
    index = program.op_index.get(ip)
    if not table or index is None:
        return 0
    origin = table[index]
    targets = {address for _, address in program.labels}
    back = 0
    while index - back - 1 >= 0 and program.addresses[index - back] not in targets:
        previous = index - back - 1
        if table[previous] != origin or program.ops[previous].instruction.name in CONTROL:
            break
        back += 1
    return back
