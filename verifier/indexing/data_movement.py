"""Ops that move elements without combining them: broadcast, transpose,
reverse, slice, reshape, bitcast-convert, concatenate, pad, and the ops without
operands (constant, iota, parameter).

Golden cases (the indexing document), output→input:

* ``bc0 = f32[10,20,30] broadcast(f32[20] p0), dimensions={1}``:
  ``(d0, d1, d2) -> (d1)``; input→output ``(d0)[s0, s1] -> (s0, d0, s1)``
* ``transpose = f32[3,6,128,12288] transpose(f32[3,12288,6,128] p0),
  dimensions={0,2,3,1}``: ``(d0, d1, d2, d3) -> (d0, d3, d1, d2)``
* ``slice = f32[5,3,25] slice(f32[10,20,50] p0), slice={[5:10:1], [3:20:7],
  [0:50:2]}``: ``(d0, d1, d2) -> (d0 + 5, d1 * 7 + 3, d2 * 2)``
* ``pad = f32[12,16] pad(f32[4,4] p0, f32[] p1), padding=1_4_1x4_8_0``:
  ``(d0, d1) -> ((d0 - 1) floordiv 2, d1 - 4)``, d0 ∈ [1, 7], d1 ∈ [4, 7],
  ``(d0 - 1) mod 2 in [0, 0]``; the padding value on the other 176 points.
"""

from __future__ import annotations

from verifier.expr import Expr, IndexingMap, Interval, const, dim, range_var, substitute
from verifier.hlo import PaddingDim, Shape
from verifier.indexing.registry import Indexing, OpContext, OpRule, register
from verifier.indexing.reshape import reshape_indices
from verifier.indexing.shapes import dims_box


def _dims(n: int) -> list[Expr]:
    return [dim(i) for i in range(n)]


def _no_operands(ctx: OpContext, index: int) -> tuple[Indexing, ...]:
    raise ValueError(f"{ctx.instruction.opcode} has no operands")


def _nothing_read(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    return ()


register("constant", "iota", "parameter", "rng-get-and-update-state", "partition-id",
         "replica-id")(OpRule(_nothing_read, _no_operands))  # fmt: skip


# ---------------------------------------------------------------- broadcast


def _broadcast_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    dimensions = ctx.instruction.int_list("dimensions")
    return ((IndexingMap.create(dims_box(ctx.shape), [dim(k) for k in dimensions]),),)


def _broadcast_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    """Operand dim i is output dim ``dimensions[i]``; the others are free symbols."""
    dimensions = ctx.instruction.int_list("dimensions")
    results: list[Expr] = []
    range_vars: list[Interval] = []
    for k, size in enumerate(ctx.shape.dimensions):
        if k in dimensions:
            results.append(dim(dimensions.index(k)))
        else:
            results.append(range_var(len(range_vars)))
            range_vars.append(Interval(0, size - 1))
    return (
        (IndexingMap.create(dims_box(ctx.operand_shape(operand)), results, range_vars=range_vars),),
    )


register("broadcast")(OpRule(_broadcast_o2i, _broadcast_i2o))


# ---------------------------------------------------------------- transpose


def _transpose_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    """Output dim k is operand dim ``dimensions[k]``."""
    permutation = ctx.instruction.int_list("dimensions")
    results: list[Expr] = [const(0)] * len(permutation)
    for k, source in enumerate(permutation):
        results[source] = dim(k)
    return ((IndexingMap.create(dims_box(ctx.shape), results),),)


def _transpose_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    permutation = ctx.instruction.int_list("dimensions")
    results = [dim(source) for source in permutation]
    return ((IndexingMap.create(dims_box(ctx.operand_shape(0)), results),),)


register("transpose")(OpRule(_transpose_o2i, _transpose_i2o))


# ---------------------------------------------------------------- reverse


def _reverse_map(ctx: OpContext, index: int) -> tuple[Indexing, ...]:
    """``d_k -> n_k - 1 - d_k`` on reversed dims; its own inverse."""
    reversed_dims = ctx.instruction.int_list("dimensions")
    sizes = ctx.shape.dimensions
    results = [(sizes[k] - 1 - dim(k)) if k in reversed_dims else dim(k) for k in range(len(sizes))]
    return ((IndexingMap.create(dims_box(ctx.shape), results),),)


register("reverse")(OpRule(_reverse_map, _reverse_map))


# ---------------------------------------------------------------- slice


def _slice_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    results = [d.start + d.stride * dim(k) for k, d in enumerate(ctx.instruction.slice_dims())]
    return ((IndexingMap.create(dims_box(ctx.shape), results),),)


def _slice_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    """Operand element ``d`` lands at ``(d - start) floordiv stride`` when it is
    on the stride lattice and before the limit."""
    dims: list[Interval] = []
    results: list[Expr] = []
    constraints: list[tuple[Expr, Interval]] = []
    for k, (d, size) in enumerate(
        zip(ctx.instruction.slice_dims(), ctx.shape.dimensions, strict=True)
    ):
        dims.append(Interval(d.start, d.start + (size - 1) * d.stride))
        offset = dim(k) - d.start
        results.append(offset // d.stride)
        if d.stride != 1:
            constraints.append((offset % d.stride, Interval(0, 0)))
    operand_box = dims_box(ctx.operand_shape(0))
    dims = [a.intersect(b) for a, b in zip(dims, operand_box, strict=True)]
    return ((IndexingMap.create(dims, results, constraints=constraints),),)


register("slice")(OpRule(_slice_o2i, _slice_i2o))


# ---------------------------------------------------------------- reshape


def _reshape_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    source, target = ctx.shape.dimensions, ctx.operand_shape(0).dimensions
    results = reshape_indices(_dims(len(source)), source, target)
    return ((IndexingMap.create(dims_box(source), results),),)


def _reshape_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    source, target = ctx.operand_shape(0).dimensions, ctx.shape.dimensions
    results = reshape_indices(_dims(len(source)), source, target)
    return ((IndexingMap.create(dims_box(source), results),),)


register("reshape")(OpRule(_reshape_o2i, _reshape_i2o))


# ---------------------------------------------------------------- concatenate


def _concatenate_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    """Operand i covers ``[offset_i, offset_i + size_i)`` of the concat dim."""
    (axis,) = ctx.instruction.int_list("dimensions")
    maps: list[Indexing] = []
    offset = 0
    for index in range(len(ctx.operands)):
        size = ctx.operand_shape(index).dimensions[axis]
        box = dims_box(ctx.shape)
        box[axis] = Interval(offset, offset + size - 1)
        results = _dims(ctx.shape.rank)
        results[axis] = dim(axis) - offset
        maps.append((IndexingMap.create(box, results),))
        offset += size
    return tuple(maps)


def _concatenate_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    (axis,) = ctx.instruction.int_list("dimensions")
    offset = sum(ctx.operand_shape(i).dimensions[axis] for i in range(operand))
    results = _dims(ctx.shape.rank)
    results[axis] = dim(axis) + offset
    return ((IndexingMap.create(dims_box(ctx.operand_shape(operand)), results),),)


register("concatenate")(OpRule(_concatenate_o2i, _concatenate_i2o))


# ---------------------------------------------------------------- pad


def _operand_positions(config: PaddingDim, operand_size: int, output_size: int) -> Interval:
    """The output positions (before the lattice condition) of operand elements."""
    step = config.interior + 1
    return Interval(
        max(0, config.low), min(output_size - 1, config.low + (operand_size - 1) * step)
    )


def _pad_operand_map(ctx: OpContext) -> IndexingMap:
    dims: list[Interval] = []
    results: list[Expr] = []
    constraints: list[tuple[Expr, Interval]] = []
    sizes = ctx.operand_shape(0).dimensions
    for k, config in enumerate(ctx.instruction.padding()):
        step = config.interior + 1
        dims.append(_operand_positions(config, sizes[k], ctx.shape.dimensions[k]))
        results.append((dim(k) - config.low) // step)
        if step != 1:
            constraints.append(((dim(k) - config.low) % step, Interval(0, 0)))
    return IndexingMap.create(dims, results, constraints=constraints)


def _pad_value_maps(ctx: OpContext) -> tuple[IndexingMap, ...]:
    """The padded points, as disjoint boxes: for each dim k, the points whose
    dims before k are operand positions and whose dim k is not."""
    padding = ctx.instruction.padding()
    sizes = ctx.operand_shape(0).dimensions
    output = ctx.shape.dimensions
    maps: list[IndexingMap] = []
    prefix_box: list[Interval] = []
    prefix_constraints: list[tuple[Expr, Interval]] = []
    for k, config in enumerate(padding):
        step = config.interior + 1
        inside = _operand_positions(config, sizes[k], output[k])
        suffix = dims_box(output[k + 1 :])
        pieces: list[tuple[Interval, list[tuple[Expr, Interval]]]] = [
            (Interval(0, inside.lower - 1), []),
            (Interval(inside.upper + 1, output[k] - 1), []),
        ]
        if step != 1:
            off_lattice = ((dim(k) - config.low) % step, Interval(1, step - 1))
            pieces.append((inside, [off_lattice]))
        if inside.is_empty:
            pieces = [(Interval(0, output[k] - 1), [])]
        for interval, constraints in pieces:
            candidate = IndexingMap.create(
                [*prefix_box, interval, *suffix],
                [],
                constraints=prefix_constraints + constraints,
            )
            if not candidate.is_known_empty:
                maps.append(candidate)
        if inside.is_empty:
            break
        prefix_box.append(inside)
        if step != 1:
            prefix_constraints.append(((dim(k) - config.low) % step, Interval(0, 0)))
    return tuple(maps)


def _pad_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    operand = _pad_operand_map(ctx)
    return ((operand,) if not operand.is_known_empty else (), _pad_value_maps(ctx))


def _pad_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    """Operand element ``i`` lands at ``low + i * (interior + 1)`` when that is
    inside the output; the padding value reaches every padded point."""
    if operand == 1:
        return (tuple(_points_as_symbols(m) for m in _pad_value_maps(ctx)),)
    dims: list[Interval] = []
    results: list[Expr] = []
    output = ctx.shape.dimensions
    sizes = ctx.operand_shape(0).dimensions
    for k, config in enumerate(ctx.instruction.padding()):
        step = config.interior + 1
        lowest = max(0, -(config.low // step))  # ceil(-low / step)
        highest = min(sizes[k] - 1, (output[k] - 1 - config.low) // step)
        dims.append(Interval(lowest, highest))
        results.append(dim(k) * step + config.low)
    reached = IndexingMap.create(dims, results)
    return ((reached,) if not reached.is_known_empty else (),)


register("pad")(OpRule(_pad_o2i, _pad_i2o))


def _points_as_symbols(points: IndexingMap) -> IndexingMap:
    """A result-less map over output points as ``()[s…] -> (s…)`` from a scalar."""
    as_symbol = {dim(k): range_var(k) for k in range(points.num_dims)}
    return IndexingMap.create(
        [],
        [range_var(k) for k in range(points.num_dims)],
        range_vars=points.dims,
        constraints=[
            (substitute(expr, lambda v: as_symbol.get(v, v)), bounds)
            for expr, bounds in points.constraints
        ],
    )


# ---------------------------------------------------------------- bitcast-convert


def _bitcast_convert_map(source: Shape, target: Shape) -> Indexing:
    """Same width: elementwise.  Narrowing adds a minor dim of ``ratio``
    sub-elements (``f32[10] -> u8[10,4]``); widening removes one."""
    if source.rank == target.rank:
        return (IndexingMap.identity(source.dimensions),)
    if source.rank == target.rank + 1:  # several source elements form one target
        return (IndexingMap.create(dims_box(source), _dims(target.rank)),)
    ratio = target.dimensions[-1]
    return (
        IndexingMap.create(
            dims_box(source),
            [*_dims(source.rank), range_var(0)],
            range_vars=[Interval(0, ratio - 1)],
        ),
    )


def _bitcast_convert_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    return (_bitcast_convert_map(ctx.shape, ctx.operand_shape(0)),)


def _bitcast_convert_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    return (_bitcast_convert_map(ctx.operand_shape(0), ctx.shape),)


register("bitcast-convert")(OpRule(_bitcast_convert_o2i, _bitcast_convert_i2o))
