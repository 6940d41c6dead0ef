"""Ops whose output element reads whole slices of an operand: the FFTs
(every element along the transformed dims), top-k (the whole row), the
batch norms (every element of the feature's slice), random numbers (the
whole state, the scalar parameters), and the dynamic-size plumbing.

All of them are one map shape: some dims of the source index pick the same
position in the target (`kept`), every other target dim is a range
variable over its whole extent.  ``f = c64[2,8,16] fft(c64[2,8,16] x),
fft_type=FFT, fft_length={8,16}``: ``(d0, d1, d2)[s0, s1] -> (d0, s0, s1)``,
s0 ∈ [0, 7], s1 ∈ [0, 15]; input→output the same map over x's shape.
"""

from __future__ import annotations

from collections.abc import Mapping

from verifier.expr import Expr, IndexingMap, Interval, dim, range_var
from verifier.indexing.registry import Indexing, OpContext, OpRule, register
from verifier.indexing.shapes import dims_box


def slice_map(
    source: tuple[int, ...], target: tuple[int, ...], kept: Mapping[int, int]
) -> IndexingMap:
    """From an index of `source` to the `target` elements whose dim ``t`` is
    the source's dim ``kept[t]``, every other target dim anything in range."""
    results: list[Expr] = []
    ranges: list[Interval] = []
    for position, size in enumerate(target):
        if position in kept:
            results.append(dim(kept[position]))
        else:
            results.append(range_var(len(ranges)))
            ranges.append(Interval(0, size - 1))
    return IndexingMap.create(dims_box(source), results, range_vars=ranges)


def _inverse(kept: Mapping[int, int]) -> dict[int, int]:
    return {source: target for target, source in kept.items()}


def _leading(rank: int, count: int) -> dict[int, int]:
    """The first `count` dims kept in place (the batch dims of an FFT or a row)."""
    return {k: k for k in range(min(rank, count))}


# ---------------------------------------------------------------- fft, topk


def _transformed(ctx: OpContext) -> int:
    """How many trailing dims an FFT transforms."""
    return len(ctx.instruction.int_list("fft_length"))


def trailing_output_to_input(ctx: OpContext, output: int, swept: int) -> tuple[Indexing, ...]:
    """Output element ``(b…, t…)`` reads operand ``(b…, s…)`` for every s."""
    out = ctx.output_shapes[output].dimensions
    operand = ctx.operand_shape(0).dimensions
    kept = _leading(len(operand), len(operand) - swept)
    return ((slice_map(out, operand, kept),),)


def trailing_input_to_output(ctx: OpContext, swept: int) -> tuple[Indexing, ...]:
    operand = ctx.operand_shape(0).dimensions
    return tuple(
        (slice_map(operand, shape.dimensions, _leading(shape.rank, shape.rank - swept)),)
        for shape in ctx.output_shapes
    )


register("fft")(
    OpRule(
        lambda ctx, output: trailing_output_to_input(ctx, output, _transformed(ctx)),
        lambda ctx, operand: trailing_input_to_output(ctx, _transformed(ctx)),
    )
)
# ``(values, indices) topk(x), k=…``: each of the k outputs of a row reads the
# whole row of x (the last dim).
register("topk")(
    OpRule(
        lambda ctx, output: trailing_output_to_input(ctx, output, 1),
        lambda ctx, operand: trailing_input_to_output(ctx, 1),
    )
)


# ---------------------------------------------------------------- batch norm


def _feature(ctx: OpContext) -> int:
    return ctx.instruction.integer("feature_index")


def _per_feature_reads(ctx: OpContext, output: int, reads: str) -> tuple[Indexing, ...]:
    """Per operand, by its role letter in `reads`: ``s`` the whole slice of
    the output element's feature, ``e`` the same element, ``f`` the
    feature's entry of a rank-1 operand, ``-`` nothing."""
    out = ctx.output_shapes[output].dimensions
    feature = _feature(ctx)
    # A rank-1 output (a batch statistic) is indexed by the feature itself.
    out_feature = feature if len(out) == ctx.operand_shape(0).rank else 0
    found: list[Indexing] = []
    for operand, role in enumerate(reads):
        target = ctx.operand_shape(operand).dimensions
        match role:
            case "s":
                found.append((slice_map(out, target, {feature: out_feature}),))
            case "e":
                found.append((IndexingMap.identity(out),))
            case "f":
                found.append((slice_map(out, target, {0: out_feature}),))
            case _:
                found.append(())
    return tuple(found)


def _per_feature_reached(
    ctx: OpContext, operand: int, table: tuple[str, ...]
) -> tuple[Indexing, ...]:
    """The inverse of `_per_feature_reads`, from operand `operand` to every output."""
    source = ctx.operand_shape(operand).dimensions
    feature = _feature(ctx)
    found: list[Indexing] = []
    for output, reads in enumerate(table):
        out = ctx.output_shapes[output].dimensions
        out_feature = feature if len(out) == ctx.operand_shape(0).rank else 0
        match reads[operand]:
            case "s":
                found.append((slice_map(source, out, {out_feature: feature}),))
            case "e":
                found.append((IndexingMap.identity(source),))
            case "f":
                found.append((slice_map(source, out, {out_feature: 0}),))
            case _:
                found.append(())
    return tuple(found)


# Per output, per operand: what one output element reads (see
# `_per_feature_reads`).  training(operand, scale, offset) -> (output,
# mean, variance); inference(operand, scale, offset, mean, variance) ->
# output; grad(operand, scale, mean, variance, grad_output) ->
# (grad_operand, grad_scale, grad_offset).
_BATCH_NORM: dict[str, tuple[str, ...]] = {
    "batch-norm-training": ("sff", "s--", "s--"),
    "batch-norm-inference": ("effff",),
    "batch-norm-grad": ("sfffs", "s-ffs", "----s"),
}


def _batch_norm_rule(table: tuple[str, ...]) -> OpRule:
    return OpRule(
        lambda ctx, output: _per_feature_reads(ctx, output, table[output]),
        lambda ctx, operand: _per_feature_reached(ctx, operand, table),
    )


for _opcode, _table in _BATCH_NORM.items():
    register(_opcode)(_batch_norm_rule(_table))


# ---------------------------------------------------------------- random numbers


def _whole_operands_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    """Every output element reads every element of every operand (the
    generator state; the scalar parameters of a distribution)."""
    out = ctx.output_shapes[output].dimensions
    return tuple(
        (slice_map(out, ctx.operand_shape(k).dimensions, {}),) for k in range(len(ctx.operands))
    )


def _whole_operands_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    source = ctx.operand_shape(operand).dimensions
    return tuple((slice_map(source, shape.dimensions, {}),) for shape in ctx.output_shapes)


register("rng", "rng-bit-generator")(OpRule(_whole_operands_o2i, _whole_operands_i2o))


# ---------------------------------------------------------------- dynamic sizes


def _set_dimension_size_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    """Element d is operand element d; the new size is read by every element."""
    out = ctx.shape.dimensions
    return ((IndexingMap.identity(out),), (slice_map(out, (), {}),))


def _set_dimension_size_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    source = ctx.operand_shape(operand).dimensions
    if operand == 0:
        return ((IndexingMap.identity(source),),)
    return ((slice_map(source, ctx.shape.dimensions, {}),),)


register("set-dimension-size")(OpRule(_set_dimension_size_o2i, _set_dimension_size_i2o))


def _nothing_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    """get-dimension-size reads the operand's size, none of its elements."""
    return ((),) * len(ctx.operands)


def _nothing_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    return ((),) * len(ctx.output_shapes)


register("get-dimension-size")(OpRule(_nothing_o2i, _nothing_i2o))
