"""Ops whose indexing depends on values known at run time: dynamic-slice,
dynamic-update-slice, gather.  Each runtime offset is a runtime variable
whose interval is the *clamped* feasible range (XLA clamps starts so the
slice stays in bounds) and whose source names the instruction producing it
and the element read.  A constant offset folds in (clamped); an iota index
folds into the map when its values already lie in the feasible range.  A
gather whose indices are a constant array (at most `CONSTANT_ROWS_LIMIT`
rows) folds too: one map per row of indices, its batch coordinates pinned
and its starts the row's clamped values.

``ds = s32[1,2,32] dynamic-slice(s32[2,2,258] src, of1, of2, of3),
dynamic_slice_sizes={1,2,32}`` reads ``src`` through
``(d0, d1, d2){rt0, rt1, rt2} -> (d0 + rt0, d1 + rt1, d2 + rt2)`` with
rt0 ∈ [0, 1], rt1 ∈ [0, 0], rt2 ∈ [0, 226].
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from verifier.expr import (
    Const,
    Expr,
    IndexingMap,
    Interval,
    RuntimeSource,
    Variable,
    const,
    dim,
    interval_of,
    max_,
    min_,
    range_var,
    rt_var,
)
from verifier.hlo import Instruction, integer_values
from verifier.indexing.registry import Indexing, OpContext, OpRule, register
from verifier.indexing.shapes import dims_box, scalar_constant


@dataclass(frozen=True)
class _Offset:
    """One runtime start: either folded to an expression over the map's dims,
    or a runtime variable with its feasible interval and source."""

    folded: Expr | None
    variable: Variable | None


def _runtime_start(
    producer: Instruction,
    feasible: Interval,
    read_at: IndexingMap,
) -> _Offset:
    """The start read from `producer` at `read_at`, clamped into `feasible`
    (and, for a runtime start, into the clamped values of its element type).

    A scalar constant folds to its clamped value; an iota folds to the index
    it is read at, clamped (``min(max(index, lo), hi)``) unless every such
    index is already feasible.  `read_at` has the dims and range variables
    of the map the start goes into (its runtime variables are assembled
    after, by `_assemble`).
    """
    value = scalar_constant(producer)
    if value is not None:
        return _Offset(const(min(max(value, feasible.lower), feasible.upper)), None)
    if producer.opcode == "iota":
        iota_dim = producer.attributes.integer("iota_dimension")
        if iota_dim is not None and iota_dim < read_at.num_results and not read_at.rt_vars:
            index = read_at.results[iota_dim]
            if feasible.contains_interval(interval_of(index, read_at.bounds)):
                return _Offset(index, None)
            return _Offset(min_(max_(index, feasible.lower), feasible.upper), None)
    values = integer_values(producer.shape.element_type)
    if values is not None:
        # Clamping is monotone: a narrow index type (u8: 0..255) reaches
        # only the clamped values of its own least and greatest.
        low, high = (min(max(v, feasible.lower), feasible.upper) for v in values)
        feasible = Interval(low, high)
    return _Offset(None, Variable(feasible, RuntimeSource(producer.name, read_at)))


def _assemble(offsets: Sequence[_Offset]) -> tuple[list[Expr], list[Variable]]:
    """The expression standing for each offset, and the runtime variables used."""
    exprs: list[Expr] = []
    variables: list[Variable] = []
    for offset in offsets:
        if offset.folded is not None:
            exprs.append(offset.folded)
        else:
            assert offset.variable is not None
            exprs.append(rt_var(len(variables)))
            variables.append(offset.variable)
    return exprs, variables


def _scalar_reads(ctx: OpContext, first_offset: int) -> list[Indexing]:
    """Every output element reads each scalar offset operand: ``(d…) -> ()``."""
    read = IndexingMap.create(dims_box(ctx.shape), [])
    return [(read,) for _ in range(first_offset, len(ctx.operands))]


def _scalar_offsets(ctx: OpContext, first_offset: int, sizes: Sequence[int]) -> list[_Offset]:
    """The clamped start of each dim, from the scalar offset operands."""
    operand = ctx.operand_shape(0).dimensions
    read_at = IndexingMap.create(dims_box(ctx.shape), [])
    return [
        _runtime_start(ctx.operands[first_offset + k], Interval(0, operand[k] - sizes[k]), read_at)
        for k in range(len(sizes))
    ]


def _reaches_everything(ctx: OpContext) -> IndexingMap:
    """``()[s…] -> (s…)``: a scalar that every output element depends on."""
    return IndexingMap.create(
        [], [range_var(k) for k in range(ctx.shape.rank)], range_vars=dims_box(ctx.shape)
    )


# ---------------------------------------------------------------- dynamic-slice


def _dynamic_slice_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    sizes = ctx.shape.dimensions
    starts, rt_vars = _assemble(_scalar_offsets(ctx, 1, sizes))
    source = IndexingMap.create(
        dims_box(ctx.shape),
        [dim(k) + starts[k] for k in range(len(sizes))],
        rt_vars=rt_vars,
    )
    return ((source,), *_scalar_reads(ctx, 1))


def _dynamic_slice_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    if operand > 0:
        return ((_reaches_everything(ctx),),)
    sizes = ctx.shape.dimensions
    starts, rt_vars = _assemble(_scalar_offsets(ctx, 1, sizes))
    # The offsets are read per output element; from the operand's side that
    # element is unknown, so a runtime source cannot say where it is read.
    rt_vars = [Variable(v.bounds, None) for v in rt_vars]
    reached = IndexingMap.create(
        dims_box(ctx.operand_shape(0)),
        [dim(k) - starts[k] for k in range(len(sizes))],
        rt_vars=rt_vars,
        constraints=[(dim(k) - starts[k], Interval(0, n - 1)) for k, n in enumerate(sizes)],
    )
    return ((reached,) if not reached.is_known_empty else (),)


register("dynamic-slice")(OpRule(_dynamic_slice_o2i, _dynamic_slice_i2o))


# ---------------------------------------------------------------- dynamic-update-slice


def _update_window(ctx: OpContext) -> tuple[list[Expr], list[Variable], tuple[int, ...]]:
    update = ctx.operand_shape(1).dimensions
    starts, rt_vars = _assemble(_scalar_offsets(ctx, 2, update))
    return starts, rt_vars, update


def _outside_window(ctx: OpContext, *, with_sources: bool) -> tuple[IndexingMap, ...]:
    """Output points outside the update window, one piece per (dim, side):
    exactly the points where the original operand survives."""
    starts, rt_vars, update = _update_window(ctx)
    if not with_sources:
        rt_vars = [Variable(v.bounds, None) for v in rt_vars]
    pieces: list[IndexingMap] = []
    output = ctx.shape.dimensions
    for k, n in enumerate(output):
        relative = dim(k) - starts[k]
        for side in (Interval(-n, -1), Interval(update[k], n - 1)):
            piece = IndexingMap.create(
                dims_box(ctx.shape),
                [dim(j) for j in range(len(output))],
                rt_vars=rt_vars,
                constraints=[(relative, side)],
            )
            if not piece.is_known_empty:
                pieces.append(piece)
    return tuple(pieces)


def _dus_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    starts, rt_vars, update = _update_window(ctx)
    rank = ctx.shape.rank
    update_map = IndexingMap.create(
        dims_box(ctx.shape),
        [dim(k) - starts[k] for k in range(rank)],
        rt_vars=rt_vars,
        constraints=[(dim(k) - starts[k], Interval(0, update[k] - 1)) for k in range(rank)],
    )
    return (
        _outside_window(ctx, with_sources=True),
        (update_map,) if not update_map.is_known_empty else (),
        *_scalar_reads(ctx, 2),
    )


def _dus_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    if operand == 0:
        return (_outside_window(ctx, with_sources=False),)
    if operand >= 2:
        return ((_reaches_everything(ctx),),)
    starts, rt_vars, update = _update_window(ctx)
    rt_vars = [Variable(v.bounds, None) for v in rt_vars]
    reached = IndexingMap.create(
        dims_box(update),
        [dim(k) + starts[k] for k in range(len(update))],
        rt_vars=rt_vars,
    )
    return ((reached,),)


register("dynamic-update-slice")(OpRule(_dus_o2i, _dus_i2o))


# ---------------------------------------------------------------- gather


@dataclass(frozen=True)
class _Gather:
    """A gather's dimension numbers, with the implicit trailing index vector dim.

    Operand batching dim ``operand_batching_dims[i]`` is read at the output's
    batch coordinate of indices dim ``start_indices_batching_dims[i]`` (the
    batch coordinates are the indices dims without `index_vector_dim`, in
    order); like a collapsed dim it has slice size 1 and no offset dim.  A
    batching dim also in `start_index_map` is read at the batch coordinate
    all the same: XLA's evaluator writes it over the start.
    """

    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    index_vector_dim: int
    slice_sizes: tuple[int, ...]
    operand_batching_dims: tuple[int, ...]
    start_indices_batching_dims: tuple[int, ...]

    @staticmethod
    def of(ctx: OpContext) -> _Gather:
        # `verifier.hlo.check_shape` has validated the dimension numbers.
        numbers = ctx.instruction.gather_dimension_numbers()
        return _Gather(
            numbers.offset_dims,
            numbers.collapsed_slice_dims,
            numbers.start_index_map,
            numbers.index_vector_dim,
            ctx.instruction.int_list("slice_sizes"),
            numbers.operand_batching_dims,
            numbers.start_indices_batching_dims,
        )

    def batch_dims(self, output_rank: int) -> list[int]:
        return [k for k in range(output_rank) if k not in self.offset_dims]

    def window_dims(self, operand_rank: int) -> list[int]:
        """The operand dims with an offset dim, in order."""
        hidden = self.collapsed_slice_dims + self.operand_batching_dims
        return [j for j in range(operand_rank) if j not in hidden]

    def batching_coordinate(self, operand_dim: int) -> int:
        """The batch coordinate holding the index of batching dim `operand_dim`."""
        indices_dim = self.start_indices_batching_dims[
            self.operand_batching_dims.index(operand_dim)
        ]
        return indices_dim if indices_dim < self.index_vector_dim else indices_dim - 1

    def index_position(
        self, batch: Sequence[Expr], component: Expr, indices_rank: int
    ) -> list[Expr]:
        """The index of the indices operand holding `component` of batch entry `batch`."""
        position = list(batch)
        if self.index_vector_dim < indices_rank:
            position.insert(self.index_vector_dim, component)
        return position


CONSTANT_ROWS_LIMIT = 64
"""The most rows of constant indices a gather folds, one map per row."""


def _constant_rows(
    ctx: OpContext, gather: _Gather
) -> list[tuple[tuple[int, ...], list[int]]] | None:
    """Per row of a constant indices operand (its batch coordinates, in
    order): the clamped start of each start_index_map component; None when
    the indices are not an integer constant of at most
    `CONSTANT_ROWS_LIMIT` rows."""
    indices = ctx.operands[1]
    shape = indices.shape
    if indices.opcode != "constant" or integer_values(shape.element_type) is None:
        return None
    values = [int(v) for v in re.findall(r"-?\d+", indices.literal or "")]
    if len(values) != math.prod(shape.dimensions):
        return None
    batch_sizes = [n for k, n in enumerate(shape.dimensions) if k != gather.index_vector_dim]
    if math.prod(batch_sizes) > CONSTANT_ROWS_LIMIT:
        return None
    operand = ctx.operand_shape(0).dimensions
    rows = []
    for coordinates in itertools.product(*(range(n) for n in batch_sizes)):
        starts = []
        for component, operand_dim in enumerate(gather.start_index_map):
            position = gather.index_position(
                [const(c) for c in coordinates], const(component), shape.rank
            )
            flat = 0
            for index, size in zip(position, shape.dimensions, strict=True):
                assert isinstance(index, Const)
                flat = flat * size + index.value
            high = operand[operand_dim] - gather.slice_sizes[operand_dim]
            starts.append(min(max(values[flat], 0), high))
        rows.append((coordinates, starts))
    return rows


def _gather_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    gather = _Gather.of(ctx)
    operand_shape = ctx.operand_shape(0)
    indices_rank = ctx.operand_shape(1).rank
    output_box = dims_box(ctx.shape)
    batch_dims = gather.batch_dims(ctx.shape.rank)
    batch: list[Expr] = [dim(k) for k in batch_dims]
    rows = _constant_rows(ctx, gather)
    # Per map: the output points it is pinned to, the starts, the runtime variables.
    pieces: list[tuple[list[tuple[Expr, Interval]], list[Expr], list[Variable]]]
    if rows is None:
        offsets: list[_Offset] = []
        for component, operand_dim in enumerate(gather.start_index_map):
            read_at = IndexingMap.create(
                output_box, gather.index_position(batch, const(component), indices_rank)
            )
            feasible = Interval(
                0, operand_shape.dimensions[operand_dim] - gather.slice_sizes[operand_dim]
            )
            offsets.append(_runtime_start(ctx.operands[1], feasible, read_at))
        starts, rt_vars = _assemble(offsets)
        pieces = [([], starts, rt_vars)]
    else:
        pieces = [
            (
                [(dim(k), Interval(c, c)) for k, c in zip(batch_dims, coordinates, strict=True)],
                [const(start) for start in row_starts],
                [],
            )
            for coordinates, row_starts in rows
        ]
    operand_maps = tuple(
        m
        for pinned, piece_starts, piece_rt_vars in pieces
        for m in [_gather_operand_map(ctx, gather, batch, piece_starts, piece_rt_vars, pinned)]
        if not m.is_known_empty
    )
    vector_size = len(gather.start_index_map)
    if gather.index_vector_dim < indices_rank:
        indices_map = IndexingMap.create(
            output_box,
            gather.index_position(batch, range_var(0), indices_rank),
            range_vars=[Interval(0, vector_size - 1)],
        )
    else:
        indices_map = IndexingMap.create(output_box, batch)
    return (operand_maps, (indices_map,))


def _gather_operand_map(
    ctx: OpContext,
    gather: _Gather,
    batch: list[Expr],
    starts: list[Expr],
    rt_vars: list[Variable],
    pinned: list[tuple[Expr, Interval]],
) -> IndexingMap:
    """The operand elements read from the output, each slice at `starts`
    (on the output points `pinned` leaves)."""
    operand_shape = ctx.operand_shape(0)
    window_dims = gather.window_dims(operand_shape.rank)
    results: list[Expr] = []
    for j in range(operand_shape.rank):
        within: Expr = (
            dim(gather.offset_dims[window_dims.index(j)]) if j in window_dims else const(0)
        )
        if j in gather.operand_batching_dims:
            within = batch[gather.batching_coordinate(j)]
        elif j in gather.start_index_map:
            within = within + starts[gather.start_index_map.index(j)]
        results.append(within)
    # A slice size 0 (XLA accepts one on a collapsed dim) makes every slice
    # empty: no operand element is read.
    empty = [(const(0), Interval(1, 1))] if 0 in gather.slice_sizes else []
    return IndexingMap.create(
        dims_box(ctx.shape), results, rt_vars=rt_vars, constraints=[*pinned, *empty]
    )


def _gather_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    if operand == 0:
        return (_gather_operand_i2o(ctx),)
    gather = _Gather.of(ctx)
    # Index element (batch…, component) reaches every output with that batch.
    indices_shape = ctx.operand_shape(1)
    batch_positions = [k for k in range(indices_shape.rank) if k != gather.index_vector_dim]
    results: list[Expr] = []
    range_vars: list[Interval] = []
    batch_iter = iter(batch_positions)
    for k, size in enumerate(ctx.shape.dimensions):
        if k in gather.offset_dims:
            results.append(range_var(len(range_vars)))
            range_vars.append(Interval(0, size - 1))
        else:
            results.append(dim(next(batch_iter)))
    return ((IndexingMap.create(dims_box(indices_shape), results, range_vars=range_vars),),)


def _gather_operand_i2o(ctx: OpContext) -> Indexing:
    """Operand element ``d`` reaches every output element whose row starts
    at ``rt`` with ``d - rt`` inside the slice: the output's batch
    coordinates are range variables (any row may hold such a start), except
    a batching coordinate, which is the operand's batching dim; each
    runtime start is a runtime variable over its clamped range (without a
    source: which row reads it is the range variable, not a dim).

    ``g = f32[5,3] gather(f32[10,3] p, s32[5,1] i), offset_dims={1},
    collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1,
    slice_sizes={1,3}``: ``(d0, d1)[s0]{rt0} -> (s0, d1)`` with
    ``d0 - rt0 in [0, 0]``, s0 ∈ [0, 4], rt0 ∈ [0, 9].
    """
    gather = _Gather.of(ctx)
    rows = _constant_rows(ctx, gather)
    if rows is not None:
        return tuple(
            m
            for coordinates, starts in rows
            for m in [_gather_row_i2o(ctx, gather, coordinates, starts)]
            if not m.is_known_empty
        )
    operand_dims = ctx.operand_shape(0).dimensions
    indices_rank = ctx.operand_shape(1).rank
    operand_box = dims_box(ctx.operand_shape(0))
    batch_sizes = [ctx.shape.dimensions[k] for k in gather.batch_dims(ctx.shape.rank)]
    batching = {gather.batching_coordinate(j): j for j in gather.operand_batching_dims}
    batch: list[Expr] = []
    range_vars: list[Interval] = []
    for coordinate, size in enumerate(batch_sizes):
        if coordinate in batching:
            batch.append(dim(batching[coordinate]))
        else:
            batch.append(range_var(len(range_vars)))
            range_vars.append(Interval(0, size - 1))
    offsets: list[_Offset] = []
    for component, operand_dim in enumerate(gather.start_index_map):
        read_at = IndexingMap.create(
            operand_box,
            gather.index_position(batch, const(component), indices_rank),
            range_vars=range_vars,
        )
        feasible = Interval(0, operand_dims[operand_dim] - gather.slice_sizes[operand_dim])
        offsets.append(_runtime_start(ctx.operands[1], feasible, read_at))
    starts, rt_vars = _assemble(offsets)
    # Which row reads a start is a range variable here, not a dim: no source.
    rt_vars = [Variable(v.bounds, None) for v in rt_vars]
    relative: list[Expr] = []
    for j in range(len(operand_dims)):
        start = starts[gather.start_index_map.index(j)] if j in gather.start_index_map else None
        relative.append(dim(j) if start is None else dim(j) - start)
    window_dims = gather.window_dims(len(operand_dims))
    batch_iter = iter(batch)
    results: list[Expr] = []
    for k in range(ctx.shape.rank):
        if k in gather.offset_dims:
            results.append(relative[window_dims[gather.offset_dims.index(k)]])
        else:
            results.append(next(batch_iter))
    constraints = [
        (relative[j], Interval(0, gather.slice_sizes[j] - 1))
        for j in range(len(operand_dims))
        if j not in gather.operand_batching_dims
    ]
    reached = IndexingMap.create(
        operand_box, results, range_vars=range_vars, rt_vars=rt_vars, constraints=constraints
    )
    return (reached,) if not reached.is_known_empty else ()


def _gather_row_i2o(
    ctx: OpContext, gather: _Gather, coordinates: tuple[int, ...], starts: list[int]
) -> IndexingMap:
    """The output elements of constant row `coordinates` (slice at `starts`)
    that operand element ``d`` reaches."""
    operand_dims = ctx.operand_shape(0).dimensions
    relative: list[Expr] = []
    for j in range(len(operand_dims)):
        start = starts[gather.start_index_map.index(j)] if j in gather.start_index_map else 0
        relative.append(dim(j) - start)
    constraints = [
        (
            dim(j),
            Interval(
                coordinates[gather.batching_coordinate(j)],
                coordinates[gather.batching_coordinate(j)],
            ),
        )
        if j in gather.operand_batching_dims
        else (relative[j], Interval(0, gather.slice_sizes[j] - 1))
        for j in range(len(operand_dims))
    ]
    window_dims = gather.window_dims(len(operand_dims))
    batch_iter = iter(coordinates)
    results: list[Expr] = [
        relative[window_dims[gather.offset_dims.index(k)]]
        if k in gather.offset_dims
        else const(next(batch_iter))
        for k in range(ctx.shape.rank)
    ]
    return IndexingMap.create(dims_box(ctx.operand_shape(0)), results, constraints=constraints)


register("gather")(OpRule(_gather_o2i, _gather_i2o))
