"""Types of checked values, their widths, and their text (docs/reference.md, Types).

A type is an immutable value: one of the primitive singletons, or an
`ArrayType`, `TupleType` or `StructType`.  Every value flattens to `width(t)`
field elements; the first component is deepest on the stack.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Primitive:
    name: str
    width: int

    def __str__(self) -> str:
        return self.name


FIELD = Primitive("Field", 1)
XFIELD = Primitive("XField", 3)
BOOL = Primitive("Bool", 1)
U32 = Primitive("U32", 1)
DIGEST = Primitive("Digest", 5)
UNIT = Primitive("()", 0)

PRIMITIVES = {t.name: t for t in (FIELD, XFIELD, BOOL, U32, DIGEST)}


@dataclass(frozen=True)
class ArrayType:
    element: Type
    length: int

    def __str__(self) -> str:
        return f"[{self.element}; {self.length}]"


@dataclass(frozen=True)
class TupleType:
    elements: tuple[Type, ...]

    def __str__(self) -> str:
        return "(" + ", ".join(map(str, self.elements)) + ")"


@dataclass(frozen=True)
class StructType:
    """A struct, named by its defining module and name; fields in declaration order."""

    module: str
    name: str
    fields: tuple[tuple[str, Type], ...]

    def __str__(self) -> str:
        return self.name

    def field(self, name: str) -> tuple[int, Type] | None:
        """(offset in elements from the deepest element, type) of a field."""
        offset = 0
        for field_name, field_type in self.fields:
            if field_name == name:
                return offset, field_type
            offset += width(field_type)
        return None


Type = Primitive | ArrayType | TupleType | StructType


def width(t: Type) -> int:
    """How many field elements a value of type `t` occupies."""
    match t:
        case Primitive():
            return t.width
        case ArrayType():
            return t.length * width(t.element)
        case TupleType():
            return sum(width(element) for element in t.elements)
        case StructType():
            return sum(width(field_type) for _, field_type in t.fields)
    raise TypeError(f"not a type: {t!r}")


FIVE_FIELDS = TupleType((FIELD,) * DIGEST.width)


def returnable(result: Type, found: Type | None) -> bool:
    """Whether a function declared to return `result` may return a value of type `found`:
    the same type, or a tuple of five Fields from a function declared `-> Digest`, which
    Trident's own library writes (`(acc0, acc1, acc2, ptr_a, ptr_b)` in its recursive
    verifier).  Both are the same five words, the first deepest (docs/reference.md, Layout); the
    declaration says they are a digest, as an intrinsic's does.  Anywhere else a tuple of
    five Fields is not a Digest (E0201)."""
    return found == result or (result == DIGEST and found == FIVE_FIELDS)


def tuple_offsets(t: TupleType) -> list[int]:
    """The offset of each element of a tuple, from the deepest element."""
    offsets, offset = [], 0
    for element in t.elements:
        offsets.append(offset)
        offset += width(element)
    return offsets


def flatten(t: Type) -> list[Primitive]:
    """The primitive type each element of a value of type `t` belongs to, deepest first
    (an XField's or a Digest's elements all say XField or Digest)."""
    match t:
        case Primitive():
            return [t] * t.width
        case ArrayType():
            return flatten(t.element) * t.length
        case TupleType():
            return [p for element in t.elements for p in flatten(element)]
        case StructType():
            return [p for _, field_type in t.fields for p in flatten(field_type)]
    raise TypeError(f"not a type: {t!r}")
