"""Joining two pieces of one map into one map, exactly, point for point.

Two maps that differ only in the interval one constraint puts on the same
expression ``e`` — ``A ∧ e ∈ I1`` and ``A ∧ e ∈ I2``, the intervals
disjoint — have disjoint domains whose union is ``A ∧ e ∈ I1 ∪ I2``.  That
union is one map: when the intervals touch, ``e`` in their hull; when a gap
of ``g`` values separates them (``I1`` below ``I2``), with ``e`` known to lie
in ``[lo, hi]`` on the domain, ``e ∈ [L, H]`` with ``L = max(lo, I1.lower)``,
``H = min(hi, I2.upper)`` and ``(e - I2.lower) mod (H - L + 1) ∈ [0, H - L -
g]``: modulo the width, the values of ``I2`` come first, then those of
``I1``, then the gap, last.  Each point of the union is one point of exactly
one piece, so the joined map reads what the two read, as often (the same
variables, results and multiplicity).  A runtime variable whose source is
read in each piece (the element read, on that piece's points) is read on
the union of the two, joined the same way.

A dynamic-update-slice keeps what lies outside its window as two such
pieces (``d0 - rt ∈ [-n, -1]`` and ``∈ [u, n - 1]``); a loop writing a row
per iteration keeps 2^t pieces after t iterations unless they are joined.

>>> from verifier.expr import IndexingMap, dim, rt_var
>>> def piece(side):
...     return IndexingMap.create(
...         [(0, 2)], [dim(0)], rt_vars=[(0, 2)], constraints=[(dim(0) - rt_var(0), side)]
...     )
>>> print(join_pieces(piece((-2, -1)), piece((1, 2))))
(d0){rt0} -> (d0),
domain:
d0 in [0, 2],
rt0 in [0, 2],
(d0 - rt0 - 1) mod 5 in [0, 3]
"""

from __future__ import annotations

import functools

from verifier.expr import (
    Constraint,
    Expr,
    IndexingMap,
    Interval,
    RuntimeSource,
    Variable,
    interval_of,
    mod,
)


@functools.lru_cache(maxsize=1 << 12)
def join_pieces(a: IndexingMap, b: IndexingMap) -> IndexingMap | None:
    """The one map whose domain is the disjoint union of the domains of `a`
    and `b` (module docstring), or None when they are not two pieces of one
    map split on a single constraint."""
    if (a.dims, a.range_vars, a.results) != (b.dims, b.range_vars, b.results):
        return None
    if len(a.rt_vars) != len(b.rt_vars):
        return None
    # The constraints first: they are cheap to compare, while joining the
    # runtime variables joins their sources' maps, whose own runtime
    # variables have sources in turn.
    only_a = [c for c in a.constraints if c not in b.constraints]
    only_b = [c for c in b.constraints if c not in a.constraints]
    if len(only_a) != 1 or len(only_b) != 1 or len(a.constraints) != len(b.constraints):
        return None
    (expr, first), (other, second) = only_a[0], only_b[0]
    if expr != other:
        return None
    low, high = sorted((first, second), key=lambda interval: interval.lower)
    if low.upper >= high.lower:
        return None  # overlapping: a point of both would be read once, not twice
    union = _union(expr, low, high, a)
    if union is None:
        return None
    rt_vars = [_join_variables(x, y) for x, y in zip(a.rt_vars, b.rt_vars, strict=True)]
    if None in rt_vars:
        return None
    kept = [c for c in a.constraints if c != only_a[0]]
    return a.replaced(constraints=[*kept, *union], rt_vars=[v for v in rt_vars if v is not None])


def _join_variables(a: Variable, b: Variable) -> Variable | None:
    """One runtime variable standing for `a` in one piece and `b` in the
    other: the same bounds and value, read where either piece reads it."""
    if a == b:
        return a
    if a.bounds != b.bounds or a.source is None or b.source is None:
        return None
    if a.source.instruction != b.source.instruction:
        return None
    where = join_pieces(a.source.index_map, b.source.index_map)
    if where is None:
        return None
    return Variable(a.bounds, RuntimeSource(a.source.instruction, where))


def _union(
    expr: Expr, low: Interval, high: Interval, within: IndexingMap
) -> list[Constraint] | None:
    """Constraints stating ``expr ∈ low ∪ high`` (``low`` entirely below
    ``high``), or None when `expr` cannot reach one of them."""
    gap = high.lower - low.upper - 1
    if gap == 0:
        return [(expr, Interval(low.lower, high.upper))]
    values = interval_of(expr, within.bounds)
    first, last = max(values.lower, low.lower), min(values.upper, high.upper)
    if first > low.upper or last < high.lower:
        return None
    width = last - first + 1
    wrapped = (mod(expr - high.lower, width), Interval(0, width - 1 - gap))
    if values.lower >= first and values.upper <= last:
        return [wrapped]
    return [(expr, Interval(first, last)), wrapped]
