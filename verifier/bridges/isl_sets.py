"""Set questions about unions of indexing maps, answered by isl with a small
witness: the questions the checks ask beyond "are two maps equal?".

* `escape` — a domain point of a map whose result lies outside a box (the
  older indexing document's ``(d0, d1, d2)[s0] -> (d0, s0, d1)`` with ``d1 in [0, 255]``
  escapes ``[4, 128, 64]`` at ``d1 = 64``);
* `compare_unions` — the relations of two unions of maps (symbols
  existential), optionally the second one inverted, with a pair in one and
  not the other;
* `partition_defect` — whether the images of groups of maps partition a box,
  runtime variables held fixed (a parameter shared by every group): a point
  covered by two groups, by none, or outside the box;
* `extremum` — the exact largest (or smallest) value of an expression on a
  map's domain, with a point where it is reached.

Every answer is three-valued through `None` (isl's operation budget ran
out).  Witness points minimise ``Σ|x|`` like `isl_questions.compare_relations`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import islpy as isl

from verifier.bridges.isl import (
    BudgetExhausted,
    IslExprConverter,
    domain_set,
    graph_of,
    isl_val,
    minimal_point,
    operation_budget,
    question_context,
    to_isl_map,
    variable_names,
)
from verifier.bridges.limits import ISL_OPERATIONS
from verifier.errors import InvalidMapError
from verifier.expr import Expr, IndexingMap, Interval

_DIM = isl.dim_type.set
_IN = isl.dim_type.in_
_OUT = isl.dim_type.out

Witness = tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Found:
    """A three-valued search: `found` is True with a `witness`, False, or
    None (budget exhausted); `vacuous` when the domain searched is empty."""

    found: bool | None
    witness: Witness = ()
    vacuous: bool = False


def _set_box(space: Any, first: int, bounds: Sequence[Interval]) -> Any:
    """The universe of `space` with set dims ``first …`` in `bounds`."""
    result = isl.Set.universe(space)
    local_space = isl.LocalSpace.from_space(space)
    for offset, interval in enumerate(bounds):
        for sign, constant in ((1, -interval.lower), (-1, interval.upper)):
            constraint = isl.Constraint.inequality_alloc(local_space)
            constraint = constraint.set_coefficient_val(_DIM, first + offset, isl_val(sign))
            result = result.add_constraint(constraint.set_constant_val(isl_val(constant)))
    return result


def escape(
    indexing_map: IndexingMap, box: Sequence[int], *, max_operations: int = ISL_OPERATIONS
) -> Found:
    """A point of the domain where some result leaves ``[0, box_i - 1]``.

    The witness names the variables (``d0 …, s0 …, rt0 …``) and the results
    (``r0 …``).
    """
    if indexing_map.num_results != len(box):
        raise InvalidMapError(
            f"a map with {indexing_map.num_results} results cannot index a shape of rank {len(box)}"
        )
    try:
        with operation_budget(max_operations):
            points = graph_of(indexing_map).wrap().flatten()
            if points.is_empty():
                return Found(False, vacuous=True)
            width = points.dim(_DIM)
            first = width - len(box)
            inside = _set_box(points.get_space(), first, [Interval(0, n - 1) for n in box])
            outside = points.subtract(inside)
            if outside.is_empty():
                return Found(False)
            names = [*variable_names(indexing_map)] + [f"r{i}" for i in range(len(box))]
            point = minimal_point(outside, primary=range(first), secondary=range(first, width))
            return Found(True, tuple(zip(names, point, strict=True)))
    except BudgetExhausted:
        return Found(None)


def _union(maps: Sequence[IndexingMap], num_in: int, num_out: int) -> Any:
    space = isl.Space.alloc(question_context(), 0, num_in, num_out)
    relation = isl.Map.empty(space)
    for indexing_map in maps:
        relation = relation.union(to_isl_map(indexing_map))
    return relation


@dataclass(frozen=True)
class UnionComparison:
    """Whether two unions relate the same pairs (`differs` three-valued);
    when they differ, a pair ``source -> target`` (in the first union's
    direction) related by the union `only_in` (0 or 1) and not the other."""

    differs: bool | None
    vacuous: bool = False
    only_in: Literal[0, 1] | None = None
    source: tuple[int, ...] = ()
    target: tuple[int, ...] = ()


def compare_unions(
    first: Sequence[IndexingMap],
    second: Sequence[IndexingMap],
    *,
    num_in: int,
    num_out: int,
    invert_second: bool = False,
    max_operations: int = ISL_OPERATIONS,
) -> UnionComparison:
    """Compare ``⋃ first`` with ``⋃ second`` (inverted with `invert_second`)
    as relations from `num_in` to `num_out` coordinates, symbols existential.

    ``{(d0) -> (d0 + 5)}`` and the inverse of ``{(d0) -> (d0 - 5), d0 in
    [5, 9]}`` over ``d0 in [0, 4]`` are equal.
    """
    try:
        with operation_budget(max_operations):
            a = _union(first, num_in, num_out)
            b = (
                _union(second, num_out, num_in).reverse()
                if invert_second
                else _union(second, num_in, num_out)
            )
            if a.is_equal(b):
                return UnionComparison(False, vacuous=a.is_empty())
            only_in: Literal[0, 1] = 0
            difference = a.subtract(b)
            if difference.is_empty():
                only_in, difference = 1, b.subtract(a)
            width = num_in + num_out
            point = minimal_point(
                difference.wrap().flatten(), primary=range(num_in), secondary=range(num_in, width)
            )
            return UnionComparison(
                True, False, only_in, tuple(point[:num_in]), tuple(point[num_in:])
            )
    except BudgetExhausted:
        return UnionComparison(None)


@dataclass(frozen=True)
class PartitionDefect:
    """What keeps groups of images from partitioning a box: `kind` is
    ``"overlap"`` (groups `groups` both cover `point`), ``"uncovered"`` or
    ``"outside"`` (group `groups[0]` reaches outside the box), or None when
    they partition it; `decided` is False when the budget ran out.  `point`
    is the box coordinates followed by the parameters' values."""

    decided: bool
    kind: Literal["overlap", "uncovered", "outside"] | None = None
    groups: tuple[int, ...] = ()
    point: tuple[int, ...] = ()


def _image_with_parameters(indexing_map: IndexingMap, num_parameters: int) -> Any:
    """``{ [results, rt] : exists d, s : domain }`` — the image, runtime
    variables kept as trailing coordinates (they are fixed, not existential)."""
    graph = graph_of(indexing_map)  # [d, s, rt] -> [r]
    num_in = graph.dim(_IN)
    graph = graph.move_dims(
        _OUT, indexing_map.num_results, _IN, num_in - num_parameters, num_parameters
    )
    return graph.range()


def partition_defect(
    groups: Sequence[Sequence[IndexingMap]],
    box: Sequence[int],
    parameters: Sequence[Interval] = (),
    *,
    max_operations: int = ISL_OPERATIONS,
) -> PartitionDefect:
    """Whether, for every value of the runtime variables in `parameters`,
    the images of the groups (each the union of its maps' images, range
    variables existential) are pairwise disjoint and their union is exactly
    the box ``[0, box_i - 1]``.  Every map must have ``len(parameters)``
    runtime variables, meaning the same runtime values.

    The images of ``(d0) -> (d0)`` on ``[0, 4]`` and ``(d0) -> (d0 + 5)`` on
    ``[0, 10]`` partition ``[16]``.
    """
    rank, count = len(box), len(parameters)
    for group in groups:
        for indexing_map in group:
            if indexing_map.num_results != rank or len(indexing_map.rt_vars) != count:
                raise InvalidMapError(
                    f"map with {indexing_map.num_results} results and "
                    f"{len(indexing_map.rt_vars)} runtime variables cannot be a piece of a "
                    f"rank-{rank} box with {count} runtime parameters"
                )
    try:
        with operation_budget(max_operations):
            space = isl.Space.set_alloc(question_context(), 0, rank + count)
            whole = _set_box(space, 0, [Interval(0, n - 1) for n in box] + list(parameters))
            images = []
            for group in groups:
                image = isl.Set.empty(space)
                for indexing_map in group:
                    image = image.union(_image_with_parameters(indexing_map, count))
                images.append(image)
            everything = range(rank + count)
            for number, image in enumerate(images):
                outside = image.subtract(whole)
                if not outside.is_empty():
                    point = minimal_point(outside, primary=everything, secondary=range(0))
                    return PartitionDefect(True, "outside", (number,), tuple(point))
            for i, first in enumerate(images):
                for j in range(i + 1, len(images)):
                    overlap = first.intersect(images[j])
                    if not overlap.is_empty():
                        point = minimal_point(overlap, primary=everything, secondary=range(0))
                        return PartitionDefect(True, "overlap", (i, j), tuple(point))
            uncovered = whole
            for image in images:
                uncovered = uncovered.subtract(image)
            if not uncovered.is_empty():
                point = minimal_point(uncovered, primary=everything, secondary=range(0))
                return PartitionDefect(True, "uncovered", (), tuple(point))
            return PartitionDefect(True)
    except BudgetExhausted:
        return PartitionDefect(False)


@dataclass(frozen=True)
class Extremum:
    """The exact extreme `value` of an expression on a map's domain and a
    point (`witness`, the map's variables) reaching it; `decided` False when
    the budget ran out, `value` None when the domain is empty."""

    decided: bool
    value: int | None = None
    witness: Witness = ()


def extremum(
    indexing_map: IndexingMap,
    expr: Expr,
    *,
    maximum: bool = True,
    max_operations: int = ISL_OPERATIONS,
) -> Extremum:
    """The largest (`maximum`) or smallest value of `expr` over the domain
    of `indexing_map` (every variable, symbols included).

    ``d0 * 4 + s0`` over ``d0 in [0, 9], s0 in [0, 3]`` reaches 39 at
    ``d0 = 9, s0 = 3``.
    """
    names = variable_names(indexing_map)
    try:
        with operation_budget(max_operations):
            converter = IslExprConverter(names)
            domain = domain_set(indexing_map, converter)
            value = converter.convert(expr)
            piecewise = value if isinstance(value, isl.PwAff) else isl.PwAff.from_aff(value)
            # [vars] -> [value], reversed and flattened: the set [value, vars]
            # (the value first, so lexmax maximises it).
            graph = isl.Map.from_pw_aff(piecewise).intersect_domain(domain)
            points = graph.reverse().wrap().flatten()
            width = points.dim(_DIM)
            if points.is_empty():
                return Extremum(True)
            extreme = points.lexmax() if maximum else points.lexmin()
            point = extreme.sample_point()
            coordinates = [int(point.get_coordinate_val(_DIM, i).to_python()) for i in range(width)]
            return Extremum(True, coordinates[0], tuple(zip(names, coordinates[1:], strict=True)))
    except BudgetExhausted:
        return Extremum(False)
