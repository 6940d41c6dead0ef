"""A difference between two maps found by evaluating them at the corners of
their domains: no solver, and a witness that is its own proof.

Two maps that differ often differ at a corner of a variable box — where a
bound one too wide, a window reversed by one too many, or a ``+ 1`` shows.
A corner is every variable at its lower bound, or every variable at its
upper bound; one in the map's domain (its constraints hold there) is a
candidate:

* **pointwise** (`pointwise_refutation`): the maps have the same variables;
  a corner of either box where one map is defined and the other is not, or
  both are with other results, is a point where they differ;
* **as relations** (`relation_refutation`): a corner of one map's domain
  gives ``dims -> result``; the other map relates it iff some point of its
  symbol box (dims fixed) is in its domain with that result — decided by
  enumerating the box, when it has at most `SYMBOL_POINTS` points (else the
  candidate is passed over).  A pair the other relates for no symbols is
  one the maps disagree on.

Either answer is exact (plain evaluation and enumeration, no bound taken on
trust), so a pair refuted here is ``different``; no refutation says nothing.
The corner found is not the smallest counterexample (``equiv --minimal``
asks isl for that).

>>> from verifier.expr import parse_map
>>> a = parse_map("(d0)[s0] -> (d0 * 4 + s0), domain: d0 in [0, 3], s0 in [0, 3]")
>>> b = parse_map("(d0)[s0] -> (d0 * 4 + 4 - s0), domain: d0 in [0, 3], s0 in [0, 3]")
>>> relation_refutation(a, b)
RelationRefutation(only_in='a', dims=(0,), result=(0,), symbols=(('s0', 0),))
>>> c = parse_map("(d0)[s0] -> (d0 * 4 + 3 - s0), domain: d0 in [0, 3], s0 in [0, 3]")
>>> relation_refutation(a, c) is None  # equal as relations: no corner tells them apart
True
>>> pointwise_refutation(a, c)
PointwiseRefutation(point=(('d0', 0), ('s0', 0)), a=(0,), b=(3,))
"""

from __future__ import annotations

import itertools
import math
from typing import Literal, NamedTuple

from verifier.expr import IndexingMap, Interval, Var

SYMBOL_POINTS = 16
"""The largest symbol box enumerated to decide whether a map relates a pair
(about 10 µs a point, evaluated): a window's symbol of up to 16 values."""

Point = tuple[int, ...]


class RelationRefutation(NamedTuple):
    """``dims -> result`` is related by map `only_in` (with `symbols`) and
    not by the other."""

    only_in: Literal["a", "b"]
    dims: Point
    result: Point
    symbols: tuple[tuple[str, int], ...]


class PointwiseRefutation(NamedTuple):
    """A point where the maps differ: their results there, `None` for a
    map whose domain does not contain it."""

    point: tuple[tuple[str, int], ...]
    a: Point | None
    b: Point | None


def pointwise_refutation(a: IndexingMap, b: IndexingMap) -> PointwiseRefutation | None:
    """A corner of either map's box where the maps (of the same variables)
    differ, or `None`."""
    assert a.all_variables == b.all_variables, "pointwise: the same variables"
    for corner in dict.fromkeys((*_corners(a), *_corners(b))):
        values = dict(zip(a.all_variables, corner, strict=True))
        result_a, result_b = _value_at(a, values), _value_at(b, values)
        if result_a != result_b:
            names = tuple(v.name for v in a.all_variables)
            return PointwiseRefutation(tuple(zip(names, corner, strict=True)), result_a, result_b)
    return None


def relation_refutation(a: IndexingMap, b: IndexingMap) -> RelationRefutation | None:
    """A pair ``dims -> result`` at a corner of one map's domain that the
    other (of the same numbers of dims and results) does not relate, a's
    corners first; or `None`."""
    assert (a.num_dims, a.num_results) == (b.num_dims, b.num_results), "the same shape"
    same_variables = a.all_variables == b.all_variables
    # Each map's value at each corner (None outside its domain), asked once:
    # maps of one box share their corners.
    values_at: dict[tuple[int, Point], Point | None] = {}

    def value_at(side: int, corner: Point) -> Point | None:
        key = side, corner
        if key not in values_at:
            indexing_map = (a, b)[side]
            values = dict(zip(indexing_map.all_variables, corner, strict=True))
            values_at[key] = _value_at(indexing_map, values)
        return values_at[key]

    sides: tuple[tuple[Literal["a", "b"], int], ...] = (("a", 0), ("b", 1))
    for only_in, side in sides:
        shown, other = (a, b)[side], (a, b)[1 - side]
        for corner in dict.fromkeys(_corners(shown)):
            result = value_at(side, corner)
            if result is None:
                continue
            if same_variables and value_at(1 - side, corner) == result:
                continue  # the other relates it, through the same symbols
            dims = corner[: shown.num_dims]
            if _relates(other, dims, result) is False:
                symbols = tuple(
                    (v.name, x)
                    for v, x in zip(shown.symbols, corner[shown.num_dims :], strict=True)
                )
                return RelationRefutation(only_in, dims, result, symbols)
    return None


def _corners(indexing_map: IndexingMap) -> tuple[Point, Point]:
    """The box's lower corner and its upper one."""
    box = _box(indexing_map)
    return tuple(i.lower for i in box), tuple(i.upper for i in box)


def _box(indexing_map: IndexingMap) -> tuple[Interval, ...]:
    """The bounds of the map's variables, in header order."""
    return tuple(
        v.bounds for v in (*indexing_map.dims, *indexing_map.range_vars, *indexing_map.rt_vars)
    )


def _value_at(indexing_map: IndexingMap, values: dict[Var, int]) -> Point | None:
    """The map's results at the point `values`, or `None` outside its domain."""
    return indexing_map.evaluate(values) if indexing_map.contains(values) else None


def _relates(indexing_map: IndexingMap, dims: Point, result: Point) -> bool | None:
    """Whether the map relates ``dims -> result`` for some symbols, by
    enumerating its symbol box; `None` beyond `SYMBOL_POINTS` points
    (dims outside the map's bounds: `False` at once)."""
    box = _box(indexing_map)
    if not all(x in bounds for x, bounds in zip(dims, box, strict=False)):
        return False
    ranges = [range(i.lower, i.upper + 1) for i in box[len(dims) :]]
    if math.prod(map(len, ranges)) > SYMBOL_POINTS:
        return None
    variables = indexing_map.all_variables
    for symbols in itertools.product(*ranges):
        values = dict(zip(variables, (*dims, *symbols), strict=True))
        if _value_at(indexing_map, values) == result:
            return True
    return False
