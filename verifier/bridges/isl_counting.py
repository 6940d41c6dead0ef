"""Exact counts by isl: the elements a union of maps reads of an operand
(`count_image`), and the points of a domain (`count_domain`), each under an
operation budget of its own (`None` when it runs out).

``(d0) -> (d0 floordiv 2)`` and ``(d0) -> (d0 + 4)`` over ``d0 in [0, 7]``
read ``{0, …, 3} ∪ {4, …, 9}`` of an operand of 10 elements:

>>> from verifier.expr import parse_map
>>> count_image([parse_map("(d0) -> (d0 floordiv 2), domain: d0 in [0, 7]"),
...              parse_map("(d0) -> (d0 + 4), domain: d0 in [0, 7]")], [10])
10
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import islpy as isl

from verifier.bridges.isl import (
    BudgetExhausted,
    isl_val,
    operation_budget,
    question_context,
    to_isl_map,
    to_isl_set,
)
from verifier.bridges.limits import ISL_COUNT_OPERATIONS
from verifier.errors import InvalidMapError, SolverError
from verifier.expr import IndexingMap

_DIM = isl.dim_type.set


def _box(space: Any, dimensions: Sequence[int]) -> Any:
    """``{ [x…] : 0 <= x_i < dimensions_i }`` in `space`."""
    local_space = isl.LocalSpace.from_space(space)
    box = isl.BasicSet.universe(space)
    for position, size in enumerate(dimensions):
        lower = isl.Constraint.inequality_alloc(local_space).set_coefficient_val(
            _DIM, position, isl_val(1)
        )
        box = box.add_constraint(lower)
        upper = isl.Constraint.inequality_alloc(local_space).set_coefficient_val(
            _DIM, position, isl_val(-1)
        )
        box = box.add_constraint(upper.set_constant_val(isl_val(size - 1)))
    return isl.Set.from_basic_set(box)


def _count(points: Any) -> int:
    value = points.count_val()
    # Once its operation quota is spent, isl hands back a value it can no
    # longer print (no text): the count is not known.
    text = value.to_str()
    if text is None:
        raise BudgetExhausted
    if not value.is_int():
        raise SolverError(f"isl counts {text} points in {points}: not a finite set")
    return int(text)


def count_image(
    maps: Sequence[IndexingMap],
    dimensions: Sequence[int],
    *,
    max_operations: int = ISL_COUNT_OPERATIONS,
) -> int | None:
    """``|(⋃ image(m)) ∩ box(dimensions)|``, every symbol (range and runtime)
    existential; `None` when the budget runs out.  The maps must have
    ``len(dimensions)`` results.

    ``(d0) -> (d0 floordiv 2)`` and ``(d0) -> (d0 + 4)`` over ``d0 in [0, 7]``
    into ``[10]`` read ``{0, …, 3} ∪ {4, …, 9}``: 10 elements.
    """
    try:
        with operation_budget(max_operations):
            space = isl.Space.set_alloc(question_context(), 0, len(dimensions))
            image = isl.Set.empty(space)
            for indexing_map in maps:
                if indexing_map.num_results != len(dimensions):
                    raise InvalidMapError(
                        f"a map with {indexing_map.num_results} results cannot read "
                        f"an operand of rank {len(dimensions)}"
                    )
                image = image.union(to_isl_map(indexing_map).range())
            return _count(image.intersect(_box(space, dimensions)).coalesce())
    except BudgetExhausted:
        return None


def count_domain(
    indexing_map: IndexingMap, *, max_operations: int = ISL_COUNT_OPERATIONS
) -> int | None:
    """The number of points ``(d, s)`` (dims and range variables) of the
    domain for which some runtime value is feasible; `None` when the budget
    runs out.

    ``(d0)[s0] -> (d0 + s0), domain: d0 in [0, 3], s0 in [0, 2], d0 + s0 in
    [0, 3]`` has 3 + 3 + 2 + 1 = 9 points.
    """
    try:
        with operation_budget(max_operations):
            domain = to_isl_set(indexing_map)
            kept = indexing_map.num_dims + len(indexing_map.range_vars)
            return _count(domain.project_out(_DIM, kept, len(indexing_map.rt_vars)).coalesce())
    except BudgetExhausted:
        return None
