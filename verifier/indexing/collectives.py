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

# ------------------------------------- all-reduce, collective-permute, collective-broadcast


def _per_operand_identity_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    """Output ``k`` reads operand ``k`` at the same index (on every replica of
    the group for all-reduce, on the source replica for collective-permute,
    on the group's first replica for collective-broadcast).

    ``cb = f32[8,4] collective-broadcast(f32[8,4] p), replica_groups={{0,1}}``:
    ``(d0, d1) -> (d0, d1)``, d0 ∈ [0, 7], d1 ∈ [0, 3].
    """
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


register("all-reduce", "all-reduce-start", "collective-permute", "collective-broadcast")(
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
# all-reduce's own shape (and rule), and so have an all-gather-start and a
# collective-permute-start of one operand written as their result alone;
# each ``*-done`` picks its result out
# (verifier.indexing.forwarding).


def _all_gather_start_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    if ctx.shape.tuple_shapes is None:
        return _all_gather_o2i(ctx, output)
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
    if ctx.shape.tuple_shapes is None:
        return _all_gather_i2o(ctx, operand)
    count = len(ctx.operands)
    dims = ctx.operand_shape(operand).dimensions
    (axis,) = ctx.instruction.int_list("dimensions")
    total = ctx.output_shapes[count + operand].dimensions[axis]
    reached = _slice_of_group(dims, axis, dims[axis], total // dims[axis], 1)
    found: list[Indexing] = [()] * len(ctx.output_shapes)
    found[operand] = (IndexingMap.identity(dims),)
    found[count + operand] = (reached,)
    return tuple(found)


def _permuted_operand(ctx: OpContext, output: int) -> int | None:
    """The operand output leaf `output` of a collective-permute-start holds:
    elements ``{0}`` (the operands kept) and ``{1}`` (the results, from the
    source replica at the same index) hold the operand — operand ``k`` at
    ``{0,k}`` and ``{1,k}`` when there are several; the contexts none.  A
    start written as its result alone holds its one operand."""
    if ctx.shape.tuple_shapes is None:
        return 0
    index, _ = ctx.shape.leaves[output]
    if index[0] not in (0, 1):
        return None
    return index[1] if len(ctx.operands) > 1 else 0


_IN_PLACE = Undefined("in-place collective-permute-start (slice_sizes=): no rule")


def _collective_permute_start_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    if "slice_sizes" in ctx.instruction.attributes:
        return tuple(_IN_PLACE for _ in ctx.operands)
    shape = ctx.output_shapes[output].dimensions
    source = _permuted_operand(ctx, output)
    return tuple(
        (IndexingMap.identity(shape),) if k == source else () for k in range(len(ctx.operands))
    )


def _collective_permute_start_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    if "slice_sizes" in ctx.instruction.attributes:
        return tuple(_IN_PLACE for _ in ctx.output_shapes)
    identity = IndexingMap.identity(ctx.operand_shape(operand).dimensions)
    return tuple(
        (identity,) if _permuted_operand(ctx, k) == operand else ()
        for k in range(len(ctx.output_shapes))
    )


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
#
# The array form (one operand, ``dimensions={axis}``) splits the operand into
# as many chunks along `axis` as the group has replicas and exchanges chunks;
# the tuple form (no ``dimensions``) has one operand per replica of the
# group and exchanges whole operands (XLA's verifier requires as many
# operands as the group has replicas, all of one shape, the result a tuple
# of that shape).


def _group_size(ctx: OpContext) -> int | Undefined:
    """The replica group's size from ``replica_groups``, if the HLO holds it."""
    groups = ctx.instruction.attributes.get("replica_groups")
    if not isinstance(groups, ReplicaGroups) or not groups.groups:
        return Undefined("all-to-all without replica_groups: the group size is not in the HLO")
    return len(groups.groups[0])


def _array_all_to_all_map(ctx: OpContext, count: int) -> tuple[Indexing, ...]:
    """The array form: chunk ``j`` of the output on the replica at group
    position s0 is chunk s0 of replica ``j``'s operand:
    ``(d…)[s0] -> (s0 * chunk + d_axis mod chunk)``; the inverse is the same
    map (chunk ``i`` of an operand goes to replica ``i``, where it lands at
    chunk s0).  UNDEFINED results come `count` times (one per operand o2i,
    per output i2o)."""
    if len(ctx.operands) != 1:
        reason = (
            f"all-to-all with dimensions and {len(ctx.operands)} operands "
            "(XLA splits one operand only) has no rule"
        )
        return (Undefined(reason),) * count
    groups = _group_size(ctx)
    if isinstance(groups, Undefined):
        return (groups,) * count
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


def _tuple_all_to_all_map(ctx: OpContext, count: int) -> tuple[Indexing, ...]:
    """The tuple form: on the replica at group position s, output ``j`` is
    operand s of replica ``j`` — the operand read is the replica's position,
    the index the same.  Unioned over the group, output ``j`` reads every
    operand, and operand ``i`` reaches every output, at the identity.

    ``t = (f32[2,3], f32[2,3]) all-to-all(f32[2,3] a, f32[2,3] b),
    replica_groups={{0,1}}``: output 1 reads ``a`` at ``(d0, d1) -> (d0, d1)``
    (on replica 0: replica 1's ``a``) and ``b`` at the same map (on replica 1:
    replica 1's own ``b``).  One map per operand (o2i) or output (i2o): as
    many of each (`count`).
    """
    shapes = {shape.dimensions for shape in ctx.output_shapes}
    shapes |= {ctx.operand_shape(k).dimensions for k in range(len(ctx.operands))}
    groups = _group_size(ctx)  # UNDEFINED without replica_groups: the operands count them
    if isinstance(groups, int) and groups != len(ctx.operands):
        reason = (
            f"tuple-form all-to-all with {len(ctx.operands)} operands for groups of "
            f"{groups} replicas (XLA requires one operand per replica)"
        )
        return (Undefined(reason),) * count
    if len(shapes) != 1 or len(ctx.output_shapes) != len(ctx.operands):
        reason = "tuple-form all-to-all whose operands and outputs differ in shape or count"
        return (Undefined(reason),) * count
    (shape,) = shapes
    return ((IndexingMap.identity(shape),),) * count


def _all_to_all_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    if ctx.instruction.attributes.ints("dimensions") is None:
        return _tuple_all_to_all_map(ctx, len(ctx.operands))
    return _array_all_to_all_map(ctx, len(ctx.operands))


def _all_to_all_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    if ctx.instruction.attributes.ints("dimensions") is None:
        return _tuple_all_to_all_map(ctx, len(ctx.output_shapes))
    return _array_all_to_all_map(ctx, len(ctx.output_shapes))


register("all-to-all")(OpRule(_all_to_all_o2i, _all_to_all_i2o))


# ---------------------------------------------------------------- ragged-all-to-all

_RAGGED = Undefined(
    "ragged-all-to-all: which rows land in the output, and where, are the runtime "
    "offsets and sizes of every replica of the group"
)


def _ragged_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    """``ragged-all-to-all(input, output, input_offsets, send_sizes,
    output_offsets, recv_sizes)``: a row of the result is a row another
    replica sent, or the output operand's own row where nothing landed."""
    return (_RAGGED,) * len(ctx.operands)


register("ragged-all-to-all")(
    OpRule(_ragged_o2i, lambda ctx, operand: (_RAGGED,) * len(ctx.output_shapes))
)
