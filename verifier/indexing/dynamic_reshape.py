"""``dynamic-reshape``: a reshape whose sizes are known at run time.

``r = f32[<=4,6] dynamic-reshape(f32[<=24] x, s32[] n0, s32[] n1)``: the
result has the sizes ``(n0, n1)`` (within its bounds) and holds x's elements
in row-major order, over the *run-time* shapes of both.  Row-major position
``i * N1 + j`` is static only when every dimension but the most major one is
static on both sides: then an element's position does not depend on the
run-time sizes, only whether it exists does.  A dynamic minor dimension
multiplies a run-time size into the position (not quasi-affine): UNDEFINED,
with that reason.

In the static-minor case, the most major run-time size ``D`` of the result
must give as many elements as x holds (``D * P_out = D_in * P_in``, ``P``
the product of the minor dims); rows below the largest feasible ``D`` exist
in some execution, the others in none.  Above (``P_out = 6``, ``P_in = 1``,
``D <= 4``): ``(d0, d1) -> (d0 * 6 + d1)`` on d0 ∈ [0, 3], d1 ∈ [0, 5]; each
size operand is read by every element that exists, ``(d0, d1) -> ()``.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd, prod

from verifier.expr import Expr, IndexingMap, Interval, Undefined, const, dim
from verifier.hlo import Shape
from verifier.indexing.registry import Indexing, OpContext, OpRule, register
from verifier.indexing.shapes import dims_box
from verifier.indexing.whole_slices import slice_map


@dataclass(frozen=True)
class _Rows:
    """The static-minor reshape: `rows` is how many of the result's major
    rows exist in some execution."""

    rows: int
    input_rows: int


def _minor(shape: Shape) -> int:
    return prod(shape.dimensions[1:])


def _largest_rows(source: Shape, result: Shape) -> int:
    """The largest run-time size of result dim 0 consistent with some
    run-time size of source dim 0 (equal element counts, within bounds)."""
    p_in, p_out = _minor(source), _minor(result)
    if p_out == 0 or p_in == 0:
        return 0
    step = p_in // gcd(p_in, p_out)  # D * p_out must be a multiple of p_in
    if not source.dynamic[0]:
        total = source.dimensions[0] * p_in
        rows = total // p_out if total % p_out == 0 else -1
        fits = 0 <= rows <= result.dimensions[0] and (
            result.dynamic[0] or rows == result.dimensions[0]
        )
        return rows if fits else 0
    limit = min(result.dimensions[0], source.dimensions[0] * p_in // p_out)
    if not result.dynamic[0]:
        return limit if limit == result.dimensions[0] and limit % step == 0 else 0
    return limit - limit % step


def _rows(ctx: OpContext) -> _Rows | str:
    source, result = ctx.operand_shape(0), ctx.shape
    if source.rank == 0 or result.rank == 0:
        return "a dynamic-reshape of or to a scalar is not modelled"
    if any(source.dynamic[1:]) or any(result.dynamic[1:]):
        return (
            "a dynamic-reshape with a dynamic minor dimension: an element's row-major "
            "position multiplies run-time sizes, which is not quasi-affine"
        )
    rows = _largest_rows(source, result)
    return _Rows(rows, rows * _minor(result) // max(_minor(source), 1))


def _linear(dims: tuple[int, ...]) -> Expr:
    linear: Expr = const(0)
    for k, n in enumerate(dims):
        linear = linear * n + dim(k)
    return linear


def _delinear(linear: Expr, dims: tuple[int, ...]) -> list[Expr]:
    results: list[Expr] = []
    stride = prod(dims)
    for k, n in enumerate(dims):
        stride //= n
        position = linear // stride
        results.append(position if k == 0 else position % n)
    return results


def _relinearised(source: tuple[int, ...], target: tuple[int, ...], rows: int) -> IndexingMap:
    """Row-major element ``d`` of `source` to the same position of `target`,
    for the `rows` major rows of `source` that exist."""
    return IndexingMap.create(
        dims_box(source),
        _delinear(_linear(source), target),
        constraints=[(dim(0), Interval(0, rows - 1))],
    )


def _dynamic_reshape_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    rows = _rows(ctx)
    if isinstance(rows, str):
        return (Undefined(rows),) * len(ctx.operands)
    if rows.rows == 0:
        return ((),) * len(ctx.operands)
    out = ctx.shape.dimensions
    exists = [(dim(0), Interval(0, rows.rows - 1))]
    size = slice_map(out, (), {}).replaced(constraints=exists)
    data = _relinearised(out, ctx.operand_shape(0).dimensions, rows.rows)
    return ((data,), *(((size,),) * (len(ctx.operands) - 1)))


def _dynamic_reshape_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    rows = _rows(ctx)
    if isinstance(rows, str):
        return (Undefined(rows),)
    if rows.rows == 0:
        return ((),)
    out = ctx.shape.dimensions
    if operand == 0:
        return ((_relinearised(ctx.operand_shape(0).dimensions, out, rows.input_rows),),)
    every = slice_map((), out, {})
    first = every.results[0]  # the range variable of the result's major dim
    return ((every.replaced(constraints=[(first, Interval(0, rows.rows - 1))]),),)


register("dynamic-reshape")(OpRule(_dynamic_reshape_o2i, _dynamic_reshape_i2o))
