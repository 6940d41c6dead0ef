"""Small helpers shared by the indexing rules: index boxes of shapes, scalar constants."""

from __future__ import annotations

from collections.abc import Sequence

from verifier.expr import Interval
from verifier.hlo import Instruction, Shape


def dims_box(shape: Shape | Sequence[int]) -> list[Interval]:
    """One interval ``[0, n - 1]`` per dimension of `shape`."""
    dimensions = shape.dimensions if isinstance(shape, Shape) else shape
    return [Interval(0, n - 1) for n in dimensions]


def scalar_constant(instruction: Instruction) -> int | None:
    """The value of a rank-0 integer `constant`, or None (``s32[] constant(5)`` → 5)."""
    if instruction.opcode != "constant" or instruction.shape.rank != 0:
        return None
    literal = (instruction.literal or "").strip()
    try:
        return int(literal)
    except ValueError:
        return None
