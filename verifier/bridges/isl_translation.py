"""Where two relations of the same dims differ: the input points at which
their images are not the same set (isl), for the translation proofs of
`verifier.coalescing`.

``(d0)[s0] -> (d0 * 4 + s0 + 4)`` with ``s0 in [0, 3]``, and the same map
with its domain clipped by ``d0 * 4 + s0 in [0, 11]``, differ where the clip
empties the image (at ``d0 = 3``):

>>> from verifier.expr import parse_map
>>> a = parse_map("(d0)[s0] -> (d0 * 4 + s0 + 4), domain: d0 in [0, 3], s0 in [0, 3]")
>>> b = parse_map("(d0)[s0] -> (d0 * 4 + s0 + 4), domain: d0 in [0, 3], s0 in [0, 3], "
...               "d0 * 4 + s0 in [0, 11]")
>>> from verifier.expr import Interval
>>> differing_inputs([a], [b], [Interval(0, 3)], limit=10)
[(3,)]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from verifier.bridges.isl import (
    BudgetExhausted,
    _box_of,
    isl_points,
    operation_budget,
    set_space,
    to_isl_map,
)
from verifier.bridges.limits import ISL_COUNT_OPERATIONS
from verifier.expr import IndexingMap, Interval


def differing_inputs(
    a: Sequence[IndexingMap],
    b: Sequence[IndexingMap],
    box: Sequence[Interval],
    *,
    limit: int,
    max_operations: int = ISL_COUNT_OPERATIONS,
) -> list[tuple[int, ...]] | None:
    """The dim points in `box` where the image of the union of `a` (symbols
    existential) differs from that of `b`, sorted; `None` when there are
    more than `limit` or isl's budget runs out.  Every map has the box's
    dims and one result."""
    if any(m.num_dims != len(box) or m.num_results != 1 for m in (*a, *b)):
        raise ValueError("differing_inputs: the maps need the box's dims and one result")
    try:
        with operation_budget(max_operations):
            first, second = _union(a), _union(b)
            difference = first.subtract(second).union(second.subtract(first)).domain()
            names = tuple(f"d{i}" for i in range(len(box)))
            space = set_space(names)
            region = difference.intersect(_box_of(space, box)).coalesce()
            if region.count_val().to_str() is None:
                raise BudgetExhausted
            if int(region.count_val().to_str()) > limit:
                return None
            return sorted(isl_points(region))
    except BudgetExhausted:
        return None


def _union(maps: Sequence[IndexingMap]) -> Any:
    union = to_isl_map(maps[0])
    for indexing_map in maps[1:]:
        union = union.union(to_isl_map(indexing_map))
    return union
