"""Sort: every output element may come from any position of its row along
the sort dimension, of every operand (the comparator may read every
operand, so each output depends on all of them).

``s = (f32[4,8], s32[4,8]) sort(f32[4,8] keys, s32[4,8] values),
dimensions={1}``: every output ``j``, every operand
``(d0, d1)[s0] -> (d0, s0)`` with s0 ∈ [0, 7]; input→output the same map
over the operand's shape.
"""

from __future__ import annotations

from verifier.expr import Expr, IndexingMap, Interval, dim, range_var
from verifier.hlo import Shape
from verifier.indexing.registry import Indexing, OpContext, OpRule, register
from verifier.indexing.shapes import dims_box


def _along_row(shape: Shape, axis: int) -> IndexingMap:
    """``(d…)[s0] -> (d… with s0 at axis)`` over `shape`."""
    results: list[Expr] = [dim(k) for k in range(shape.rank)]
    results[axis] = range_var(0)
    row = Interval(0, shape.dimensions[axis] - 1)
    return IndexingMap.create(dims_box(shape), results, range_vars=[row])


def _sort_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    (axis,) = ctx.instruction.int_list("dimensions")
    row = _along_row(ctx.output_shapes[output], axis)
    return tuple((row,) for _ in ctx.operands)


def _sort_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    (axis,) = ctx.instruction.int_list("dimensions")
    row = _along_row(ctx.operand_shape(operand), axis)
    return tuple((row,) for _ in ctx.output_shapes)


register("sort")(OpRule(_sort_o2i, _sort_i2o))
