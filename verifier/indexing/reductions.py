"""Ops that combine a range of input elements per output element: reduce,
reduce-window (the dots are in `dots`).  The combined range is a range
variable.

``reduce = (f32[10], s32[10]) reduce(f32[256,10] p0, s32[256,10] p1, p0_init,
p1_init), dimensions={0}``: input j ``(d0)[s0] -> (s0, d0)`` with s0 ∈ [0, 255],
init j ``(d0) -> ()``; input→output ``(d0, d1) -> (d1)``.
"""

from __future__ import annotations

from verifier.expr import Expr, IndexingMap, Interval, dim, range_var
from verifier.hlo import WindowDim
from verifier.indexing.registry import Indexing, OpContext, OpRule, register
from verifier.indexing.shapes import dims_box

# ---------------------------------------------------------------- reduce


def _reduce_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    """Every input is read along the reduced dims (symbols); inits once."""
    reduced = ctx.instruction.int_list("dimensions")
    n_inputs = len(ctx.operands) // 2
    input_shape = ctx.operand_shape(0)
    output_shape = ctx.output_shapes[output]
    results: list[Expr] = []
    range_vars: list[Interval] = []
    kept = 0
    for k, size in enumerate(input_shape.dimensions):
        if k in reduced:
            results.append(range_var(len(range_vars)))
            range_vars.append(Interval(0, size - 1))
        else:
            results.append(dim(kept))
            kept += 1
    read = IndexingMap.create(dims_box(output_shape), results, range_vars=range_vars)
    init = IndexingMap.create(dims_box(output_shape), [])
    return tuple([(read,)] * n_inputs + [(init,)] * n_inputs)


def _reduce_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    reduced = ctx.instruction.int_list("dimensions")
    n_inputs = len(ctx.operands) // 2
    maps: list[Indexing] = []
    for output_shape in ctx.output_shapes:
        if operand < n_inputs:
            input_shape = ctx.operand_shape(operand)
            kept = [dim(k) for k in range(input_shape.rank) if k not in reduced]
            maps.append((IndexingMap.create(dims_box(input_shape), kept),))
        else:
            maps.append((_everywhere(output_shape.dimensions),))
    return tuple(maps)


register("reduce")(OpRule(_reduce_o2i, _reduce_i2o))


# ---------------------------------------------------------------- reduce-window


def _window_position(window: WindowDim, k: int) -> Expr:
    """The position inside the window of dim `k` at range variable ``s<k>``
    (counted from the far end when the window is reversed)."""
    if window.window_reversal:
        return (window.size - 1) - range_var(k)
    return range_var(k)


def _reduce_window_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    """Output ``d``, window position ``s``: the base-dilated, padded position
    ``p = d * stride + s * window_dilation - padding_low`` reads input element
    ``p floordiv base_dilation`` when ``p`` is on the dilation lattice and
    inside the input; otherwise the window sees padding (the init value)."""
    window = ctx.instruction.window()
    n_inputs = len(ctx.operands) // 2
    input_shape = ctx.operand_shape(0)
    output_shape = ctx.output_shapes[output]
    results: list[Expr] = []
    range_vars: list[Interval] = []
    constraints: list[tuple[Expr, Interval]] = []
    for k, (w, size) in enumerate(zip(window, input_shape.dimensions, strict=True)):
        position_in_window = _window_position(w, k)
        range_vars.append(Interval(0, w.size - 1))
        padded = dim(k) * w.stride + position_in_window * w.window_dilation - w.padding_low
        results.append(padded // w.base_dilation)
        constraints.append((padded, Interval(0, (size - 1) * w.base_dilation)))
        if w.base_dilation != 1:
            constraints.append((padded % w.base_dilation, Interval(0, 0)))
    read = IndexingMap.create(
        dims_box(output_shape), results, range_vars=range_vars, constraints=constraints
    )
    init = IndexingMap.create(dims_box(output_shape), [])
    reads: tuple[IndexingMap, ...] = () if read.is_known_empty else (read,)
    return tuple([reads] * n_inputs + [(init,)] * n_inputs)


def _reduce_window_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    """Input ``x`` at window position ``s`` is seen by output
    ``(x * base_dilation + padding_low - s * window_dilation) floordiv stride``
    when that divides exactly and lands inside the output; an init value
    reaches every output element."""
    window = ctx.instruction.window()
    n_inputs = len(ctx.operands) // 2
    maps: list[Indexing] = []
    for output_shape in ctx.output_shapes:
        if operand >= n_inputs:
            maps.append((_everywhere(output_shape.dimensions),))
            continue
        results: list[Expr] = []
        range_vars: list[Interval] = []
        constraints: list[tuple[Expr, Interval]] = []
        for k, (w, size) in enumerate(zip(window, output_shape.dimensions, strict=True)):
            position_in_window = _window_position(w, k)
            range_vars.append(Interval(0, w.size - 1))
            numerator = (
                dim(k) * w.base_dilation + w.padding_low - position_in_window * w.window_dilation
            )
            results.append(numerator // w.stride)
            constraints.append((numerator, Interval(0, (size - 1) * w.stride)))
            if w.stride != 1:
                constraints.append((numerator % w.stride, Interval(0, 0)))
        reached = IndexingMap.create(
            dims_box(ctx.operand_shape(operand)),
            results,
            range_vars=range_vars,
            constraints=constraints,
        )
        maps.append(() if reached.is_known_empty else (reached,))
    return tuple(maps)


register("reduce-window")(OpRule(_reduce_window_o2i, _reduce_window_i2o))


def _everywhere(shape: tuple[int, ...]) -> IndexingMap:
    """``()[s…] -> (s…)``: a scalar that reaches every element of `shape`."""
    return IndexingMap.create(
        [], [range_var(k) for k in range(len(shape))], range_vars=dims_box(shape)
    )
