"""Scatter and select-and-scatter: outputs shaped like the operand, into
which update elements are combined at positions known only at run time
(scatter) or chosen by comparing operand values (select-and-scatter).

``s = f32[5,4] scatter(f32[5,4] op, s32[3,1] idx, f32[3,4] upd),
update_window_dims={1}, inserted_window_dims={0},
scatter_dims_to_operand_dims={0}, index_vector_dim=1``: output ``(d0, d1)``
reads ``op`` through ``(d0, d1) -> (d0, d1)``, ``upd`` through
``(d0, d1)[s0]{rt0} -> (s0, d1)`` with ``d0 - rt0 in [0, 0]``, s0 ∈ [0, 2],
rt0 ∈ [0, 4] read from ``idx`` at ``(d0, d1)[s0] -> (s0, 0)``, and every
index: ``(d0, d1)[s0, s1] -> (s0, s1)``.

Batching dims: operand dim ``input_batching_dims[i]`` of an update's
target is the update's scatter coordinate of indices dim
``scatter_indices_batching_dims[i]`` (no window, no runtime start), so an
output reads only the updates and the indices of its own batch.
"""

from __future__ import annotations

from dataclasses import dataclass

from verifier.expr import (
    Expr,
    IndexingMap,
    Interval,
    RuntimeSource,
    Undefined,
    Variable,
    const,
    dim,
    range_var,
    rt_var,
)
from verifier.indexing.registry import Indexing, OpContext, OpRule, register
from verifier.indexing.shapes import dims_box

# ---------------------------------------------------------------- scatter


@dataclass(frozen=True)
class _Scatter:
    """One scatter's operand count, dimension numbers and sizes."""

    count: int
    update_window_dims: tuple[int, ...]
    inserted_window_dims: tuple[int, ...]
    scatter_dims_to_operand_dims: tuple[int, ...]
    index_vector_dim: int
    input_batching_dims: tuple[int, ...]
    scatter_indices_batching_dims: tuple[int, ...]
    operand: tuple[int, ...]
    indices: tuple[int, ...]
    updates: tuple[int, ...]

    @staticmethod
    def of(ctx: OpContext) -> _Scatter:
        # `verifier.hlo.check_shape` has validated the dimension numbers.
        numbers = ctx.instruction.scatter_dimension_numbers()
        count = (len(ctx.operands) - 1) // 2
        return _Scatter(
            count,
            numbers.update_window_dims,
            numbers.inserted_window_dims,
            numbers.scatter_dims_to_operand_dims,
            numbers.index_vector_dim,
            numbers.input_batching_dims,
            numbers.scatter_indices_batching_dims,
            ctx.operand_shape(0).dimensions,
            ctx.operand_shape(count).dimensions,
            ctx.operand_shape(count + 1).dimensions,
        )

    @property
    def window_operand_dims(self) -> list[int]:
        """Operand dims covered by an update window dim, in window order."""
        hidden = self.inserted_window_dims + self.input_batching_dims
        return [j for j in range(len(self.operand)) if j not in hidden]

    def batching_coordinate(self, indices_dim: int) -> int:
        """The update scatter coordinate of batching dim `indices_dim` of the indices."""
        return indices_dim if indices_dim < self.index_vector_dim else indices_dim - 1

    @property
    def batching_pairs(self) -> list[tuple[int, int]]:
        """``(operand dim, indices dim)`` of every batching dim."""
        return list(zip(self.input_batching_dims, self.scatter_indices_batching_dims, strict=True))

    @property
    def update_scatter_dims(self) -> list[int]:
        return [k for k in range(len(self.updates)) if k not in self.update_window_dims]

    def window_size(self, operand_dim: int) -> int:
        """The update window's extent along `operand_dim` (1 for an inserted dim)."""
        window_dims = self.window_operand_dims
        if operand_dim not in window_dims:
            return 1
        return self.updates[self.update_window_dims[window_dims.index(operand_dim)]]

    def index_position(self, scatter_index: list[Expr], component: int) -> list[Expr]:
        """Where component `component` of scatter index `scatter_index` is in the indices."""
        position = list(scatter_index)
        if self.index_vector_dim < len(self.indices):
            position.insert(self.index_vector_dim, const(component))
        return position

    def starts(
        self,
        box: list[Interval],
        scatter_index: list[Expr],
        scatter_ranges: list[Interval],
        producer: str,
        *,
        with_sources: bool,
    ) -> tuple[list[Expr], list[Variable]]:
        """The window start along every operand dim: a runtime variable for a
        dim in `scatter_dims_to_operand_dims` (its feasible range: an update
        whose window leaves the operand is skipped), the scatter coordinate
        for a batching dim, else 0."""
        starts: list[Expr] = [const(0)] * len(self.operand)
        for j, indices_dim in self.batching_pairs:
            starts[j] = scatter_index[self.batching_coordinate(indices_dim)]
        variables: list[Variable] = []
        for component, j in enumerate(self.scatter_dims_to_operand_dims):
            feasible = Interval(0, self.operand[j] - self.window_size(j))
            source = None
            if with_sources:
                read_at = IndexingMap.create(
                    box, self.index_position(scatter_index, component), range_vars=scatter_ranges
                )
                source = RuntimeSource(producer, read_at)
            starts[j] = rt_var(len(variables))
            variables.append(Variable(feasible, source))
        return starts, variables


def _scatter_updates_o2i(ctx: OpContext, scatter: _Scatter) -> IndexingMap:
    box = dims_box(ctx.output_shapes[0])
    scatter_dims = scatter.update_scatter_dims
    ranges = [Interval(0, scatter.updates[k] - 1) for k in scatter_dims]
    scatter_index: list[Expr] = [range_var(i) for i in range(len(scatter_dims))]
    starts, variables = scatter.starts(
        box, scatter_index, ranges, ctx.operands[scatter.count].name, with_sources=True
    )
    results: list[Expr] = [const(0)] * len(scatter.updates)
    for position, k in enumerate(scatter_dims):
        results[k] = scatter_index[position]
    constraints: list[tuple[Expr, Interval]] = []
    window_dims = scatter.window_operand_dims
    for j in range(len(scatter.operand)):
        within = dim(j) - starts[j]
        constraints.append((within, Interval(0, scatter.window_size(j) - 1)))
        if j in window_dims:
            results[scatter.update_window_dims[window_dims.index(j)]] = within
    return IndexingMap.create(
        box, results, range_vars=ranges, rt_vars=variables, constraints=constraints
    )


def _scatter_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    """Output ``d`` reads every operand at ``d`` (the combiner receives all of
    them), every update whose window may cover ``d``, and every index (each
    one decides whether its update lands on ``d``)."""
    scatter = _Scatter.of(ctx)
    box = dims_box(ctx.output_shapes[output])
    operand_read = IndexingMap.identity(scatter.operand)
    index_results: list[Expr] = [range_var(k) for k in range(len(scatter.indices))]
    for j, indices_dim in scatter.batching_pairs:
        index_results[indices_dim] = dim(j)
    every_index = IndexingMap.create(
        box, index_results, range_vars=dims_box(scatter.indices)
    ).remove_unused_symbols()
    updates = _scatter_updates_o2i(ctx, scatter)
    update_read: Indexing = () if updates.is_known_empty else (updates,)
    return (
        *[(operand_read,)] * scatter.count,
        (every_index,),
        *[update_read] * scatter.count,
    )


def _scatter_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    scatter = _Scatter.of(ctx)
    if operand < scatter.count:
        reached: Indexing = (IndexingMap.identity(scatter.operand),)
    elif operand == scatter.count:
        results: list[Expr] = [range_var(j) for j in range(len(scatter.operand))]
        for j, indices_dim in scatter.batching_pairs:
            results[j] = dim(indices_dim)
        every_output = IndexingMap.create(
            dims_box(scatter.indices), results, range_vars=dims_box(scatter.operand)
        )
        reached = (every_output.remove_unused_symbols(),)
    else:
        reached = _scatter_updates_i2o(scatter)
    return tuple(reached for _ in ctx.output_shapes)


def _scatter_updates_i2o(scatter: _Scatter) -> Indexing:
    """Update ``u`` lands on ``start + window index`` for a feasible runtime start
    (the source is unknown from the update's side: it is read per update row)."""
    box = dims_box(scatter.updates)
    scatter_index: list[Expr] = [dim(k) for k in scatter.update_scatter_dims]
    starts, variables = scatter.starts(box, scatter_index, [], "", with_sources=False)
    window_dims = scatter.window_operand_dims
    results: list[Expr] = []
    for j in range(len(scatter.operand)):
        if j in window_dims:
            results.append(starts[j] + dim(scatter.update_window_dims[window_dims.index(j)]))
        else:
            results.append(starts[j])
    reached = IndexingMap.create(box, results, rt_vars=variables)
    return () if reached.is_known_empty else (reached,)


def _everywhere(shape: tuple[int, ...]) -> IndexingMap:
    """``()[s…] -> (s…)``: an element that reaches every element of `shape`."""
    return IndexingMap.create(
        [], [range_var(k) for k in range(len(shape))], range_vars=dims_box(shape)
    )


register("scatter")(OpRule(_scatter_o2i, _scatter_i2o))


# ---------------------------------------------------------------- select-and-scatter


def _select_and_scatter_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    """Output ``d`` sums the source elements of the windows ``w`` containing
    it (at window position ``s``: ``d = w * stride + s - padding_low``) where
    it is selected, which depends on every operand element of those windows
    (position ``t``): operand ``(d)[s, t] -> (d - s + t)``, source
    ``(d)[s] -> ((d + padding_low - s) floordiv stride)``, init ``(d) -> ()``."""
    window = ctx.instruction.window()
    if any(w.base_dilation != 1 or w.window_dilation != 1 for w in window):
        reason = "select-and-scatter with a dilated window is not valid HLO"
        return (Undefined(reason),) * 3
    operand, source = ctx.operand_shape(0).dimensions, ctx.operand_shape(1).dimensions
    box = dims_box(operand)
    rank = len(operand)
    positions = [Interval(0, w.size - 1) for w in window]
    constraints: list[tuple[Expr, Interval]] = []
    source_results: list[Expr] = []
    operand_results: list[Expr] = []
    for k, w in enumerate(window):
        s, t = range_var(k), range_var(rank + k)
        start = dim(k) + w.padding_low - s  # = window * stride
        constraints.append((start, Interval(0, (source[k] - 1) * w.stride)))
        if w.stride != 1:
            constraints.append((start % w.stride, Interval(0, 0)))
        source_results.append(start // w.stride)
        operand_results.append(dim(k) - s + t)
    source_map = IndexingMap.create(
        box, source_results, range_vars=positions, constraints=constraints
    )
    in_operand = [(e, Interval(0, n - 1)) for e, n in zip(operand_results, operand, strict=True)]
    operand_map = IndexingMap.create(
        box, operand_results, range_vars=positions * 2, constraints=constraints + in_operand
    )
    init = IndexingMap.create(box, [])
    return tuple(() if m.is_known_empty else (m,) for m in (operand_map, source_map, init))


def _select_and_scatter_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    """The inverse: source ``w`` reaches ``(w)[s] -> (w * stride + s - padding_low)``
    (inside the operand); operand ``x`` reaches ``(x)[t, s] -> (x - t + s)``
    when ``x`` is at position ``t`` of a window; init reaches everything."""
    window = ctx.instruction.window()
    if any(w.base_dilation != 1 or w.window_dilation != 1 for w in window):
        return (Undefined("select-and-scatter with a dilated window is not valid HLO"),)
    shape, source = ctx.shape.dimensions, ctx.operand_shape(1).dimensions
    rank = len(shape)
    positions = [Interval(0, w.size - 1) for w in window]
    if operand == 2:
        return ((_everywhere(shape),),)
    results: list[Expr] = []
    constraints: list[tuple[Expr, Interval]] = []
    for k, w in enumerate(window):
        if operand == 1:
            results.append(dim(k) * w.stride + range_var(k) - w.padding_low)
            continue
        t, s = range_var(k), range_var(rank + k)
        start = dim(k) + w.padding_low - t
        constraints.append((start, Interval(0, (source[k] - 1) * w.stride)))
        if w.stride != 1:
            constraints.append((start % w.stride, Interval(0, 0)))
        results.append(dim(k) - t + s)
    constraints += [(e, Interval(0, n - 1)) for e, n in zip(results, shape, strict=True)]
    reached = IndexingMap.create(
        dims_box(ctx.operand_shape(operand)),
        results,
        range_vars=positions if operand == 1 else positions * 2,
        constraints=constraints,
    )
    return (() if reached.is_known_empty else (reached,),)


register("select-and-scatter")(OpRule(_select_and_scatter_o2i, _select_and_scatter_i2o))
