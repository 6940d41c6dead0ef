"""``tuple-select``: a whole tuple chosen by one ``pred[]`` scalar (an opcode
of XLA until 2022, read from the dumps and tests of that time).

Output leaf ``k`` is leaf ``k`` of the true branch or of the false branch,
element for element, as the predicate decides; every output element reads
the predicate.  ``t = (f32[4], s32[]) tuple-select(pred[] p, a, b)``: output
0 reads ``a {0}`` and ``b {0}`` through ``(d0) -> (d0)``, d0 ∈ [0, 3], and
``p`` through ``(d0) -> ()``; leaves ``a {1}`` and ``b {1}`` it does not
read.  The other way, ``p`` reaches every element of every output:
``()[s0] -> (s0)``, s0 ∈ [0, 3], for output 0.
"""

from __future__ import annotations

from verifier.expr import IndexingMap, range_var
from verifier.hlo import Shape
from verifier.indexing.registry import Indexing, OpContext, OpRule, register
from verifier.indexing.shapes import dims_box


def _everywhere(shape: Shape) -> IndexingMap:
    """The predicate (rank 0) to every element of `shape`."""
    return IndexingMap.create(
        [], [range_var(i) for i in range(shape.rank)], range_vars=dims_box(shape)
    )


def _output_to_input(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    index, shape = ctx.shape.leaves[output]
    maps: list[Indexing] = []
    for leaf in ctx.operand_leaves:
        if leaf.operand == 0:
            maps.append((IndexingMap.create(dims_box(shape), []),))
        elif leaf.index == index:
            maps.append((IndexingMap.identity(shape.dimensions),))
        else:
            maps.append(())
    return tuple(maps)


def _input_to_output(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    leaf = ctx.operand_leaves[operand]
    if leaf.operand == 0:
        return tuple((_everywhere(shape),) for _, shape in ctx.shape.leaves)
    return tuple(
        (IndexingMap.identity(shape.dimensions),) if index == leaf.index else ()
        for index, shape in ctx.shape.leaves
    )


register("tuple-select")(OpRule(_output_to_input, _input_to_output, whole_tuples=True))
