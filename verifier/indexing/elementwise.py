"""Elementwise ops: output element ``d`` reads element ``d`` of every operand.

``add = f32[10,20] add(p0, p1)``: each operand ``(d0, d1) -> (d0, d1)`` with
d0 ∈ [0, 9], d1 ∈ [0, 19], in both directions.  A rank-0 operand of
`select` or `clamp` (a scalar broadcast implicitly) is read by every output
element: ``(d0, d1) -> ()``; in the other direction it reaches every output
element: ``()[s0, s1] -> (s0, s1)``.  The ops are those the opcode table
marks elementwise (`verifier.hlo.ELEMENTWISE_OPCODES`).
"""

from __future__ import annotations

from verifier.expr import IndexingMap, range_var
from verifier.hlo import ELEMENTWISE_OPCODES
from verifier.indexing.registry import Indexing, OpContext, OpRule, register
from verifier.indexing.shapes import dims_box


def _output_to_input(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    shape = ctx.shape
    maps: list[Indexing] = []
    for index in range(len(ctx.operands)):
        operand_rank = ctx.operand_shape(index).rank
        if operand_rank == shape.rank:
            maps.append((IndexingMap.identity(shape.dimensions),))
        else:
            maps.append((IndexingMap.create(dims_box(shape), []),))
    return tuple(maps)


def _input_to_output(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    shape = ctx.shape
    if ctx.operand_shape(operand).rank == shape.rank:
        return ((IndexingMap.identity(shape.dimensions),),)
    everywhere = IndexingMap.create(
        [],
        [range_var(i) for i in range(shape.rank)],
        range_vars=dims_box(shape),
    )
    return ((everywhere,),)


register(*sorted(ELEMENTWISE_OPCODES))(OpRule(_output_to_input, _input_to_output))
