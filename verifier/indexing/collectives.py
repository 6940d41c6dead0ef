"""Collectives, per replica.

A collective's output on one replica reads operands of *other* replicas; the
maps below relate an output index to the operand index it reads on the
replica that holds it, with that replica's position in its group as a range
variable where it matters (the union over every replica of the group).

``ag = f32[8,3] all-gather(f32[2,3] p), dimensions={0}`` (4 replicas per
group): ``(d0, d1)[s0] -> (d0 - s0 * 2, d1)`` with ``d0 - s0 * 2 in [0, 1]``,
s0 ∈ [0, 3] — output rows ``[2 s0, 2 s0 + 2)`` come from the replica at
group position s0.
"""

from __future__ import annotations

from verifier.expr import Expr, IndexingMap, Interval, Undefined, dim, range_var
from verifier.hlo import ReplicaGroups
from verifier.indexing.registry import Indexing, OpContext, OpRule, register
from verifier.indexing.shapes import dims_box

# ---------------------------------------------------------------- all-reduce, collective-permute


def _per_operand_identity_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    """Output ``k`` reads operand ``k`` at the same index (on every replica of
    the group for all-reduce, on the source replica for collective-permute)."""
    if len(ctx.operands) != len(ctx.output_shapes):
        return _mismatched(ctx, len(ctx.operands))
    identity = IndexingMap.identity(ctx.output_shapes[output].dimensions)
    return tuple((identity,) if k == output else () for k in range(len(ctx.operands)))


def _per_operand_identity_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    if len(ctx.operands) != len(ctx.output_shapes):
        return _mismatched(ctx, len(ctx.output_shapes))
    identity = IndexingMap.identity(ctx.operand_shape(operand).dimensions)
    return tuple((identity,) if k == operand else () for k in range(len(ctx.output_shapes)))


def _mismatched(ctx: OpContext, count: int) -> tuple[Indexing, ...]:
    reason = (
        f"{ctx.instruction.opcode} with {len(ctx.operands)} operands and "
        f"{len(ctx.output_shapes)} outputs (an in-place or async form) has no rule"
    )
    return (Undefined(reason),) * count


register("all-reduce", "all-reduce-start", "collective-permute")(
    OpRule(_per_operand_identity_o2i, _per_operand_identity_i2o)
)


# ---------------------------------------------------------------- all-gather, reduce-scatter


def _along(rank: int, axis: int, value: Expr) -> list[Expr]:
    results: list[Expr] = [dim(k) for k in range(rank)]
    results[axis] = value
    return results


def _slice_of_group(
    shape: tuple[int, ...], axis: int, chunk: int, groups: int, sign: int
) -> IndexingMap:
    """``(d…)[s0] -> (d… with d_axis + sign * s0 * chunk)``, kept inside ``[0, chunk)``
    when `sign` is -1 (the gathered output's slice of group position s0)."""
    position = dim(axis) + range_var(0) * (sign * chunk)
    constraints = [(position, Interval(0, chunk - 1))] if sign < 0 else []
    return IndexingMap.create(
        dims_box(shape),
        _along(len(shape), axis, position),
        range_vars=[Interval(0, groups - 1)],
        constraints=constraints,
    )


def _gather_sizes(ctx: OpContext, operand: int) -> tuple[int, int, int]:
    """(axis, operand chunk along it, group size), the group size from the shapes."""
    (axis,) = ctx.instruction.int_list("dimensions")
    chunk = ctx.operand_shape(operand).dimensions[axis]
    total = ctx.output_shapes[operand].dimensions[axis]
    return axis, chunk, total // chunk


def _all_gather_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    axis, chunk, groups = _gather_sizes(ctx, output)
    read = _slice_of_group(ctx.output_shapes[output].dimensions, axis, chunk, groups, -1)
    return tuple((read,) if k == output else () for k in range(len(ctx.operands)))


def _all_gather_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    axis, chunk, groups = _gather_sizes(ctx, operand)
    reached = _slice_of_group(ctx.operand_shape(operand).dimensions, axis, chunk, groups, 1)
    return tuple((reached,) if k == operand else () for k in range(len(ctx.output_shapes)))


register("all-gather")(OpRule(_all_gather_o2i, _all_gather_i2o))


# ---------------------------------------------------------------- asynchronous starts
#
# ``(operands…, results…) all-gather-start(operands…)``: the first leaves
# hold the operands unchanged, the next the gathered results;
# ``(operand, result, u32[], u32[]) collective-permute-start(operand)``: the
# operand, the permuted result, two contexts.  An all-reduce-start has the
# all-reduce's own shape (and rule); each ``*-done`` picks its result out
# (verifier.indexing.forwarding).


def _all_gather_start_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    count = len(ctx.operands)
    shape = ctx.output_shapes[output].dimensions
    if output < count:
        return tuple((IndexingMap.identity(shape),) if k == output else () for k in range(count))
    operand = output - count
    (axis,) = ctx.instruction.int_list("dimensions")
    chunk = ctx.operand_shape(operand).dimensions[axis]
    read = _slice_of_group(shape, axis, chunk, shape[axis] // chunk, -1)
    return tuple((read,) if k == operand else () for k in range(count))


def _all_gather_start_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    count = len(ctx.operands)
    dims = ctx.operand_shape(operand).dimensions
    (axis,) = ctx.instruction.int_list("dimensions")
    total = ctx.output_shapes[count + operand].dimensions[axis]
    reached = _slice_of_group(dims, axis, dims[axis], total // dims[axis], 1)
    found: list[Indexing] = [()] * len(ctx.output_shapes)
    found[operand] = (IndexingMap.identity(dims),)
    found[count + operand] = (reached,)
    return tuple(found)


def _collective_permute_start_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    """Leaves 0 (the operand kept) and 1 (the result, from the source
    replica at the same index) read the operand; the contexts nothing."""
    shape = ctx.output_shapes[output].dimensions
    return ((IndexingMap.identity(shape),) if output in (0, 1) else (),)


def _collective_permute_start_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    identity = IndexingMap.identity(ctx.operand_shape(0).dimensions)
    return tuple((identity,) if k in (0, 1) else () for k in range(len(ctx.output_shapes)))


register("all-gather-start")(OpRule(_all_gather_start_o2i, _all_gather_start_i2o))
register("collective-permute-start")(
    OpRule(_collective_permute_start_o2i, _collective_permute_start_i2o)
)


def _scatter_sizes(ctx: OpContext, output: int) -> tuple[int, int, int]:
    (axis,) = ctx.instruction.int_list("dimensions")
    chunk = ctx.output_shapes[output].dimensions[axis]
    total = ctx.operand_shape(output).dimensions[axis]
    return axis, chunk, total // chunk


def _reduce_scatter_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    """Output ``d`` on the replica at group position s0 reduces operand
    ``d_axis + s0 * chunk`` of every replica."""
    axis, chunk, groups = _scatter_sizes(ctx, output)
    read = _slice_of_group(ctx.output_shapes[output].dimensions, axis, chunk, groups, 1)
    return tuple((read,) if k == output else () for k in range(len(ctx.operands)))


def _reduce_scatter_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    axis, chunk, groups = _scatter_sizes(ctx, operand)
    reached = _slice_of_group(ctx.operand_shape(operand).dimensions, axis, chunk, groups, -1)
    return tuple((reached,) if k == operand else () for k in range(len(ctx.output_shapes)))


register("reduce-scatter")(OpRule(_reduce_scatter_o2i, _reduce_scatter_i2o))


# ---------------------------------------------------------------- all-to-all


def _all_to_all_groups(ctx: OpContext) -> int | Undefined:
    if len(ctx.operands) != 1 or ctx.instruction.attributes.ints("dimensions") is None:
        return Undefined("tuple-form all-to-all sends operand i to replica i: no per-operand map")
    groups = ctx.instruction.attributes.get("replica_groups")
    if not isinstance(groups, ReplicaGroups) or not groups.groups:
        return Undefined("all-to-all without replica_groups: the group size is not in the HLO")
    return len(groups.groups[0])


def _all_to_all_map(ctx: OpContext, index: int) -> tuple[Indexing, ...]:
    """Chunk ``j`` of the output on the replica at group position s0 is chunk
    s0 of replica ``j``'s operand: ``(d…)[s0] -> (s0 * chunk + d_axis mod chunk)``;
    the inverse is the same map (chunk ``i`` of an operand goes to replica
    ``i``, where it lands at chunk s0)."""
    groups = _all_to_all_groups(ctx)
    if isinstance(groups, Undefined):
        # One per operand (o2i) or per output (i2o): as many of each.
        return (groups,) * len(ctx.operands)
    (axis,) = ctx.instruction.int_list("dimensions")
    shape = ctx.shape.dimensions
    chunk = shape[axis] // groups
    value = range_var(0) * chunk + dim(axis) % chunk
    return (
        (
            IndexingMap.create(
                dims_box(shape),
                _along(len(shape), axis, value),
                range_vars=[Interval(0, groups - 1)],
            ),
        ),
    )


register("all-to-all")(OpRule(_all_to_all_map, _all_to_all_map))
