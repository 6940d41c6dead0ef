"""Small shape helpers shared by the indexing rules."""

from __future__ import annotations

from collections.abc import Sequence

from verifier.expr import Interval
from verifier.hlo import Shape


def dims_box(shape: Shape | Sequence[int]) -> list[Interval]:
    """One interval ``[0, n - 1]`` per dimension of `shape`."""
    dimensions = shape.dimensions if isinstance(shape, Shape) else shape
    return [Interval(0, n - 1) for n in dimensions]
