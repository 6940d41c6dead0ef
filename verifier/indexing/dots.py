"""The dots: ``dot``, ``scaled-dot`` (a dot of block-scaled operands) and
``ragged-dot`` (a dot whose rows or contracting range split into groups
whose sizes are known at run time).
Output dims are (batch…, lhs free…, rhs free…); the contracting dims are
range variables.

``dot = f32[4,128,64] dot(f32[4,128,256] p0, f32[4,256,64] p1),
lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2},
rhs_contracting_dims={1}``: lhs ``(d0, d1, d2)[s0] -> (d0, d1, s0)``, rhs
``(d0, d1, d2)[s0] -> (d0, s0, d2)``; rhs→output
``(d0, d1, d2)[s0] -> (d0, s0, d2)`` with s0 ∈ [0, 127].

``scaled-dot(lhs, rhs, lhs_scale, rhs_scale)`` (the operand order of XLA's
``HloScaledDotInstruction`` and of JAX's ``xla.scaled_dot`` composite, with
the dot's dimension attributes) computes ``dot(lhs * broadcast(lhs_scale),
rhs * broadcast(rhs_scale))``: each scale element multiplies a block of its
operand, ``ratio_k = operand dim k / scale dim k`` elements along dim k
(the subchannel along a contracting dim, 1 elsewhere).  So a scale is read
at the operand index ``floordiv ratio``:

``r = f32[2,4,3] scaled-dot(f8e4m3fn[2,4,8] a, f8e4m3fn[2,8,3] b,
f8e8m0fnu[2,4,2] sa, f8e8m0fnu[2,2,3] sb), lhs_batch_dims={0},
lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}``:
sa ``(d0, d1, d2)[s0] -> (d0, d1, s0 floordiv 4)`` with s0 ∈ [0, 7] (the
same relation as ``(d0, d1, s0)`` with s0 ∈ [0, 1]).

``ragged-dot(lhs, rhs, group_sizes)`` (XLA's syntax: the dot's attributes,
``lhs_ragged_dims={r}`` and, for ragged rows, ``rhs_group_dims={g}``)
splits lhs dim r into consecutive groups of ``group_sizes[j]`` positions.
Ragged rows (r not contracting): a row of group j is multiplied by rhs
slice j along g, so the rhs group of an output row is a runtime variable
decided by all of group_sizes: ``d = f32[6,5] ragged-dot(f32[6,4] a,
f32[3,4,5] b, s32[3] g), lhs_contracting_dims={1}, rhs_contracting_dims={1},
lhs_ragged_dims={0}, rhs_group_dims={0}``: b ``(d0, d1)[s0]{rt0} -> (rt0,
s0, d1)``, rt0 ∈ [0, 2].  The rows of one group are ``rt0 + s0`` for s0
below ``rt1`` (its start and size, values of one execution: see
`group_members`).  Ragged contracting (r contracting): the result
``[groups, dot dims…]`` holds one sum per group, over the contracting
positions of that group; group j needs ``group_sizes[0..j]``.  A ragged batch dim is not modelled (UNDEFINED).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from verifier.expr import (
    Expr,
    IndexingMap,
    Interval,
    RuntimeSource,
    Undefined,
    Variable,
    compose,
    dim,
    range_var,
    rt_var,
    substitute,
)
from verifier.hlo import DotDimensionNumbers
from verifier.indexing.registry import Indexing, OpContext, OpRule, register
from verifier.indexing.shapes import dims_box
from verifier.indexing.whole_slices import slice_map


def _free_dims(rank: int, batch: tuple[int, ...], contracting: tuple[int, ...]) -> list[int]:
    return [k for k in range(rank) if k not in batch and k not in contracting]


def dot_output_to_input(
    numbers: DotDimensionNumbers,
    lhs: Sequence[int],
    rhs: Sequence[int],
    out: Sequence[int],
) -> tuple[IndexingMap, IndexingMap]:
    """The lhs and rhs maps of a dot of `lhs` and `rhs` dims into `out` dims."""
    lhs_free = _free_dims(len(lhs), numbers.lhs_batch, numbers.lhs_contracting)
    rhs_free = _free_dims(len(rhs), numbers.rhs_batch, numbers.rhs_contracting)
    contracting = [Interval(0, lhs[k] - 1) for k in numbers.lhs_contracting]
    output_box = dims_box(out)

    def operand_map(
        rank: int, batch: tuple[int, ...], free: list[int], first_free: int, summed: tuple[int, ...]
    ) -> IndexingMap:
        results: list[Expr] = [dim(0)] * rank
        for position, k in enumerate(batch):
            results[k] = dim(position)
        for position, k in enumerate(free):
            results[k] = dim(first_free + position)
        for position, k in enumerate(summed):
            results[k] = range_var(position)
        return IndexingMap.create(output_box, results, range_vars=contracting)

    n_batch = len(numbers.lhs_batch)
    return (
        operand_map(len(lhs), numbers.lhs_batch, lhs_free, n_batch, numbers.lhs_contracting),
        operand_map(
            len(rhs),
            numbers.rhs_batch,
            rhs_free,
            n_batch + len(lhs_free),
            numbers.rhs_contracting,
        ),
    )


def dot_input_to_output(
    numbers: DotDimensionNumbers, lhs: Sequence[int], rhs: Sequence[int], operand: int
) -> IndexingMap:
    """An lhs (`operand` 0) or rhs (1) element reaches every output with its
    batch and free indices, for every free index of the other side (symbols)."""
    lhs_free = _free_dims(len(lhs), numbers.lhs_batch, numbers.lhs_contracting)
    rhs_free = _free_dims(len(rhs), numbers.rhs_batch, numbers.rhs_contracting)
    batch = numbers.lhs_batch if operand == 0 else numbers.rhs_batch
    results: list[Expr] = [dim(k) for k in batch]
    range_vars: list[Interval] = []
    own_free, other_free, other = (
        (lhs_free, rhs_free, rhs) if operand == 0 else (rhs_free, lhs_free, lhs)
    )
    own: list[Expr] = [dim(k) for k in own_free]
    others: list[Expr] = []
    for k in other_free:
        others.append(range_var(len(range_vars)))
        range_vars.append(Interval(0, other[k] - 1))
    results += own + others if operand == 0 else others + own
    shape = lhs if operand == 0 else rhs
    return IndexingMap.create(dims_box(shape), results, range_vars=range_vars)


def _dot_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    lhs, rhs = dot_output_to_input(
        ctx.instruction.dot_dimension_numbers(),
        ctx.operand_shape(0).dimensions,
        ctx.operand_shape(1).dimensions,
        ctx.shape.dimensions,
    )
    return ((lhs,), (rhs,))


def _dot_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    numbers = ctx.instruction.dot_dimension_numbers()
    lhs, rhs = ctx.operand_shape(0).dimensions, ctx.operand_shape(1).dimensions
    return ((dot_input_to_output(numbers, lhs, rhs, operand),),)


register("dot")(OpRule(_dot_o2i, _dot_i2o))


# ---------------------------------------------------------------- scaled-dot


def block_ratios(operand: Sequence[int], scale: Sequence[int]) -> tuple[int, ...]:
    """How many operand elements one scale element covers along each dim."""
    return tuple(n // m for n, m in zip(operand, scale, strict=True))


def _to_scale(operand: Sequence[int], scale: Sequence[int]) -> IndexingMap:
    """Operand index → the scale element that multiplies it: ``d_k floordiv ratio_k``."""
    ratios = block_ratios(operand, scale)
    return IndexingMap.create(
        dims_box(operand), [dim(k) // ratio for k, ratio in enumerate(ratios)]
    )


def _from_scale(operand: Sequence[int], scale: Sequence[int]) -> IndexingMap:
    """Scale index → the block it multiplies: ``d_k * ratio_k + s_k``, s_k ∈ [0, ratio_k - 1]."""
    ratios = block_ratios(operand, scale)
    return IndexingMap.create(
        dims_box(scale),
        [dim(k) * ratio + range_var(k) for k, ratio in enumerate(ratios)],
        range_vars=[Interval(0, ratio - 1) for ratio in ratios],
    )


def _scaled_dot_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    """lhs, rhs: the dot's maps; each scale: its operand's map, then ``floordiv ratio``."""
    lhs, rhs, lhs_scale, rhs_scale = (ctx.operand_shape(k).dimensions for k in range(4))
    lhs_map, rhs_map = dot_output_to_input(
        ctx.instruction.dot_dimension_numbers(), lhs, rhs, ctx.shape.dimensions
    )
    return (
        (lhs_map,),
        (rhs_map,),
        (compose(lhs_map, _to_scale(lhs, lhs_scale)),),
        (compose(rhs_map, _to_scale(rhs, rhs_scale)),),
    )


def _scaled_dot_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    """A scale element reaches what every element of its block reaches."""
    lhs, rhs, lhs_scale, rhs_scale = (ctx.operand_shape(k).dimensions for k in range(4))
    numbers = ctx.instruction.dot_dimension_numbers()
    side = operand % 2
    reached = dot_input_to_output(numbers, lhs, rhs, side)
    if operand < 2:
        return ((reached,),)
    scaled, scale = (lhs, lhs_scale) if side == 0 else (rhs, rhs_scale)
    return ((compose(_from_scale(scaled, scale), reached),),)


register("scaled-dot")(OpRule(_scaled_dot_o2i, _scaled_dot_i2o))


# ---------------------------------------------------------------- ragged-dot


def _without(dims: Sequence[int], removed: int) -> tuple[int, ...]:
    return tuple(n for k, n in enumerate(dims) if k != removed)


def _shifted(dims: tuple[int, ...], removed: int) -> tuple[int, ...]:
    """Dim numbers of an array after dim `removed` is dropped."""
    return tuple(k - (k > removed) for k in dims)


@dataclass(frozen=True)
class _RaggedRows:
    """A ragged-dot whose lhs rows (a non-contracting lhs dim) are split into
    groups by ``group_sizes``, each group multiplied by its own rhs slice
    along ``rhs_group_dims``.  `numbers` and `rhs_rest` describe the dot of
    lhs with the rhs without its group dim (`rhs_rest`)."""

    numbers: DotDimensionNumbers
    ragged: int
    group: int
    rhs_rest: tuple[int, ...]
    groups: int
    group_sizes: str

    @staticmethod
    def of(ctx: OpContext) -> _RaggedRows | str:
        attributes = ctx.instruction.attributes
        numbers = ctx.instruction.dot_dimension_numbers()
        ragged = attributes.ints("lhs_ragged_dims") or ()
        group = attributes.ints("rhs_group_dims") or ()
        sizes = ctx.operand_shape(2).dimensions
        if len(ragged) != 1:
            return "a ragged-dot needs one lhs_ragged_dims"
        if ragged[0] in numbers.lhs_batch:
            return "a ragged-dot whose ragged dim is a batch dim is not modelled"
        if len(group) != 1 or len(sizes) != 1:
            return (
                "a ragged-dot with ragged rows needs one rhs_group_dims and group_sizes of rank 1"
            )
        (g,) = group
        rhs = ctx.operand_shape(1).dimensions
        if rhs[g] != sizes[0]:
            return f"rhs group dim {g} has {rhs[g]} groups but group_sizes {sizes[0]}"
        reduced = DotDimensionNumbers(
            numbers.lhs_batch,
            _shifted(numbers.rhs_batch, g),
            numbers.lhs_contracting,
            _shifted(numbers.rhs_contracting, g),
        )
        return _RaggedRows(reduced, ragged[0], g, _without(rhs, g), sizes[0], ctx.operands[2].name)

    def runtime(self, source: Sequence[int], bounds: Interval) -> Variable:
        """A value decided by every element of group_sizes (read by ``(d…)[s0] -> (s0)``)."""
        every = slice_map(tuple(source), (self.groups,), {})
        return Variable(bounds, RuntimeSource(self.group_sizes, every))


def _ragged_dot_o2i(ctx: OpContext, ragged: _RaggedRows) -> tuple[Indexing, ...]:
    """lhs: the dot's map; rhs: the dot's map with the group dim a runtime
    variable, the group of the output's row; group_sizes: every element."""
    out = ctx.shape.dimensions
    lhs_map, rhs_map = dot_output_to_input(
        ragged.numbers, ctx.operand_shape(0).dimensions, ragged.rhs_rest, out
    )
    results = list(rhs_map.results)
    results.insert(ragged.group, rt_var(0))
    row_group = ragged.runtime(out, Interval(0, ragged.groups - 1))
    rhs = IndexingMap.create(
        rhs_map.dims, results, range_vars=rhs_map.range_vars, rt_vars=[row_group]
    )
    return ((lhs_map,), (rhs,), (slice_map(out, (ragged.groups,), {}),))


def _ragged_dot_i2o(ctx: OpContext, ragged: _RaggedRows, operand: int) -> tuple[Indexing, ...]:
    """An rhs element of group ``j`` reaches the rows of group ``j``
    (`group_members`)."""
    lhs, rhs = ctx.operand_shape(0).dimensions, ctx.operand_shape(1).dimensions
    if operand == 0:
        return ((dot_input_to_output(ragged.numbers, lhs, ragged.rhs_rest, 0),),)
    if operand == 2:
        return ((slice_map((ragged.groups,), ctx.shape.dimensions, {}),),)
    numbers = ragged.numbers
    lhs_free = _free_dims(len(lhs), numbers.lhs_batch, numbers.lhs_contracting)
    rhs_free = [
        k
        for k in range(len(rhs))
        if k != ragged.group
        and k - (k > ragged.group) not in numbers.rhs_batch + numbers.rhs_contracting
    ]
    batch = [
        ctx.instruction.dot_dimension_numbers().rhs_batch[p] for p in range(len(numbers.rhs_batch))
    ]
    results: list[Expr] = [dim(k) for k in batch]
    range_vars: list[Interval] = []
    row: tuple[Expr, list[Variable], list[tuple[Expr, Interval]]] | None = None
    for k in lhs_free:
        offset = range_var(len(range_vars))
        range_vars.append(Interval(0, lhs[k] - 1))
        if k == ragged.ragged:
            row = group_members(
                rhs, ragged.group, ragged.groups, lhs[k], ragged.group_sizes, offset
            )
            results.append(row[0])
        else:
            results.append(offset)
    results += [dim(k) for k in rhs_free]
    assert row is not None
    return (
        (
            IndexingMap.create(
                dims_box(rhs),
                results,
                range_vars=range_vars,
                rt_vars=row[1],
                constraints=row[2],
            ),
        ),
    )


def group_members(
    source: Sequence[int], group: int, groups: int, length: int, group_sizes: str, offset: Expr
) -> tuple[Expr, list[Variable], list[tuple[Expr, Interval]]]:
    """The positions of group ``d_group`` along a ragged dim of `length`:
    ``rt0 + offset`` for ``offset`` (a range variable over ``[0, length - 1]``)
    below ``rt1``, where ``rt0`` is the group's start (the sum of the sizes
    before it, read from all of group_sizes) and ``rt1`` its size
    (``group_sizes[d_group]``); both are values of one execution."""
    start = Variable(
        Interval(0, length), RuntimeSource(group_sizes, slice_map(tuple(source), (groups,), {}))
    )
    size = Variable(
        Interval(0, length),
        RuntimeSource(group_sizes, IndexingMap.create(dims_box(source), [dim(group)])),
    )
    position = rt_var(0) + offset
    constraints = [
        (position, Interval(0, length - 1)),
        (rt_var(1) - offset, Interval(1, length)),
    ]
    return position, [start, size], constraints


# ---- ragged contracting dim: one sum per group


@dataclass(frozen=True)
class _RaggedSums:
    """A ragged-dot whose ragged dim is contracting: the contracting range
    along it is split into groups by ``group_sizes``, and output ``(j, …)``
    is the dot over group ``j`` only (the result is ``[groups] + the dot's
    dims``).  `numbers` list the ragged contracting dim last."""

    numbers: DotDimensionNumbers
    groups: int
    group_sizes: str

    @staticmethod
    def of(ctx: OpContext) -> _RaggedSums | str:
        numbers = ctx.instruction.dot_dimension_numbers()
        (ragged,) = ctx.instruction.int_list("lhs_ragged_dims")
        sizes = ctx.operand_shape(2).dimensions
        if ctx.instruction.attributes.ints("rhs_group_dims") or len(sizes) != 1:
            return "a ragged-dot with a ragged contracting dim needs group_sizes of rank 1 and no rhs_group_dims"
        if not ctx.shape.dimensions or ctx.shape.dimensions[0] != sizes[0]:
            return f"a ragged-dot with a ragged contracting dim has one result per group: [{sizes[0]}, …]"
        at = numbers.lhs_contracting.index(ragged)
        order = [*(q for q in range(len(numbers.lhs_contracting)) if q != at), at]
        return _RaggedSums(
            DotDimensionNumbers(
                numbers.lhs_batch,
                numbers.rhs_batch,
                tuple(numbers.lhs_contracting[q] for q in order),
                tuple(numbers.rhs_contracting[q] for q in order),
            ),
            sizes[0],
            ctx.operands[2].name,
        )

    def group_of(self, source: Sequence[int]) -> Variable:
        """The group a contracting position belongs to (decided by all of group_sizes)."""
        every = slice_map(tuple(source), (self.groups,), {})
        return Variable(Interval(0, self.groups - 1), RuntimeSource(self.group_sizes, every))


def _ragged_sums_o2i(ctx: OpContext, sums: _RaggedSums) -> tuple[Indexing, ...]:
    """Output ``(j, …)`` reads the dot's operands at the contracting
    positions of group ``j`` (`group_members`) and group_sizes up to ``j``."""
    out = ctx.shape.dimensions
    lhs, rhs = ctx.operand_shape(0).dimensions, ctx.operand_shape(1).dimensions
    past_group = IndexingMap.create(dims_box(out), [dim(k) for k in range(1, len(out))])
    ragged = range_var(len(sums.numbers.lhs_contracting) - 1)
    found: list[Indexing] = []
    length = lhs[sums.numbers.lhs_contracting[-1]]
    position, group, constraints = group_members(
        out, 0, sums.groups, length, sums.group_sizes, ragged
    )
    for operand_map in dot_output_to_input(sums.numbers, lhs, rhs, out[1:]):
        composed = compose(past_group, operand_map)
        results = [
            substitute(r, lambda v: position if v == ragged else v) for r in composed.results
        ]
        found.append(
            (
                IndexingMap.create(
                    composed.dims,
                    results,
                    range_vars=composed.range_vars,
                    rt_vars=group,
                    constraints=constraints,
                ),
            )
        )
    sizes = slice_map(out, (sums.groups,), {})
    up_to_group = sizes.replaced(
        constraints=[(dim(0) - range_var(0), Interval(0, sums.groups - 1))]
    )
    return (*found, (up_to_group,))


def _ragged_sums_i2o(ctx: OpContext, sums: _RaggedSums, operand: int) -> tuple[Indexing, ...]:
    """An lhs or rhs element reaches the outputs of its contracting
    position's group (a runtime variable); a group size, the groups from its own on."""
    out = ctx.shape.dimensions
    lhs, rhs = ctx.operand_shape(0).dimensions, ctx.operand_shape(1).dimensions
    if operand == 2:
        every = slice_map((sums.groups,), out, {})
        later = (range_var(0) - dim(0), Interval(0, sums.groups - 1))
        return ((every.replaced(constraints=[later]),),)
    reached = dot_input_to_output(sums.numbers, lhs, rhs, operand)
    source = lhs if operand == 0 else rhs
    return (
        (
            IndexingMap.create(
                reached.dims,
                [rt_var(0), *reached.results],
                range_vars=reached.range_vars,
                rt_vars=[sums.group_of(source)],
            ),
        ),
    )


def _ragged_mode(ctx: OpContext) -> _RaggedRows | _RaggedSums | str:
    ragged = ctx.instruction.attributes.ints("lhs_ragged_dims") or ()
    if len(ragged) == 1 and ragged[0] in ctx.instruction.dot_dimension_numbers().lhs_contracting:
        return _RaggedSums.of(ctx)
    return _RaggedRows.of(ctx)


def _ragged_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    mode = _ragged_mode(ctx)
    if isinstance(mode, str):
        return (Undefined(mode),) * 3
    if isinstance(mode, _RaggedSums):
        return _ragged_sums_o2i(ctx, mode)
    return _ragged_dot_o2i(ctx, mode)


def _ragged_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    mode = _ragged_mode(ctx)
    if isinstance(mode, str):
        return (Undefined(mode),)
    if isinstance(mode, _RaggedSums):
        return _ragged_sums_i2o(ctx, mode, operand)
    return _ragged_dot_i2o(ctx, mode, operand)


register("ragged-dot")(OpRule(_ragged_o2i, _ragged_i2o))
