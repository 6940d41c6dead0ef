"""Convolution: each output element reads a window of the lhs (one feature
group's input features) and the matching kernel elements.

Output ``(b, o, x…)`` (in the output's ``dim_labels`` order) at window
position ``s_k`` of spatial dim ``k`` and input feature ``c`` of its group:

* the padded, lhs-dilated position ``p_k = x_k * stride + s_k * rhs_dilation
  - padding_low`` reads lhs spatial ``p_k floordiv lhs_dilation`` when ``p_k``
  is on the dilation lattice and inside the lhs; otherwise the window sees
  padding or a dilation hole, and neither operand is read (constraints, as in
  ``reduce-window``);
* the lhs feature is ``(o floordiv (O / feature_group_count)) * C_g + c``
  (``C_g`` = kernel input features) and the lhs batch is
  ``(o floordiv (O / batch_group_count)) * B_out + b`` — the groups of
  XLA's ``convolution_group_converter`` (group-major splits of the feature
  and batch dims);
* the kernel element is ``(c, o, s_k)``, or ``size_k - 1 - s_k`` along a
  reversed window dim (window reversal flips the kernel, not the lhs).

Padding and dilation holes: a kernel tap whose window position meets only
padding or a hole for some output is left out of that output's kernel map,
as XLA's evaluator skips the tap (nothing is read there).  Read as "fill
the padding with zeros, then multiply" (what a NaN or an infinity in the
kernel shows: ``0 * NaN`` is NaN), every output multiplies every tap of its
window; ``output_to_input(conv, padding_multiplied=True)`` and
``kernel_to_output(conv, padding_multiplied=True)`` give the kernel's maps
so (the lhs's are the same: padding is no lhs element).

``conv = f32[1,3,2] convolution(f32[1,4,2] lhs, f32[2,2,2] rhs),
window={size=2}, dim_labels=b0f_0io->b0f``: lhs
``(d0, d1, d2)[s0, s1] -> (d0, d1 + s0, s1)``, rhs
``(d0, d1, d2)[s0, s1] -> (s0, s1, d2)`` with s0, s1 ∈ [0, 1].
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from verifier.expr import Expr, IndexingMap, Interval, Undefined, const, dim, range_var
from verifier.hlo import ConvolutionDimensionNumbers, Instruction, WindowDim
from verifier.indexing.registry import Indexing, OpContext, OpRule, register
from verifier.indexing.shapes import dims_box


@dataclass(frozen=True)
class Convolution:
    """The attributes and sizes one convolution's maps are built from."""

    numbers: ConvolutionDimensionNumbers
    window: tuple[WindowDim, ...]
    lhs: tuple[int, ...]
    rhs: tuple[int, ...]
    out: tuple[int, ...]
    feature_groups: int
    batch_groups: int

    @staticmethod
    def of(
        instruction: Instruction, lhs: Sequence[int], rhs: Sequence[int], out: Sequence[int]
    ) -> Convolution:
        """The convolution `instruction`'s attributes describe, of `lhs` and
        `rhs` into `out` (its own operands and result, or a cuDNN call's)."""
        numbers = instruction.convolution_dimension_numbers()
        window = instruction.window()
        if len(window) != len(numbers.input_spatial):
            raise ValueError(
                f"window has {len(window)} dims but dim_labels have "
                f"{len(numbers.input_spatial)} spatial dims"
            )
        return Convolution(
            numbers,
            window,
            tuple(lhs),
            tuple(rhs),
            tuple(out),
            instruction.optional_integer("feature_group_count", 1),
            instruction.optional_integer("batch_group_count", 1),
        )

    @property
    def output_features(self) -> int:
        return self.rhs[self.numbers.kernel_output_feature]

    @property
    def group_input_features(self) -> int:
        """``C_g``: the input features one output feature reads."""
        return self.rhs[self.numbers.kernel_input_feature]

    @property
    def output_batch(self) -> int:
        return self.out[self.numbers.output_batch]

    def kernel_position(self, k: int, position: Expr) -> Expr:
        """The kernel index along spatial dim `k` paired with window `position`."""
        w = self.window[k]
        return (w.size - 1) - position if w.window_reversal else position


def _lhs_position(w: WindowDim, x: Expr, position: Expr) -> Expr:
    """``x * stride + position * rhs_dilation - padding_low`` (lhs-dilated space)."""
    return x * w.stride + position * w.window_dilation - w.padding_low


def _on_lhs(w: WindowDim, padded: Expr, size: int) -> list[tuple[Expr, Interval]]:
    """Constraints: `padded` is a real lhs element (not padding, not a hole)."""
    constraints = [(padded, Interval(0, (size - 1) * w.base_dilation))]
    if w.base_dilation != 1:
        constraints.append((padded % w.base_dilation, Interval(0, 0)))
    return constraints


def output_to_input(
    conv: Convolution, *, padding_multiplied: bool = False
) -> tuple[Indexing, Indexing]:
    """The lhs and kernel elements each output element reads (the kernel's
    every tap of the window with `padding_multiplied`, module docstring)."""
    if 0 in conv.lhs or 0 in conv.rhs:
        return ((), ())  # no input feature (or window element) to read: the output is 0
    n = conv.numbers
    o = dim(n.output_feature)
    range_vars = [Interval(0, w.size - 1) for w in conv.window]
    feature = range_var(len(range_vars))
    range_vars.append(Interval(0, conv.group_input_features - 1))
    constraints: list[tuple[Expr, Interval]] = []
    lhs: list[Expr] = [const(0)] * len(conv.lhs)
    rhs: list[Expr] = [const(0)] * len(conv.rhs)
    for k, w in enumerate(conv.window):
        padded = _lhs_position(w, dim(n.output_spatial[k]), range_var(k))
        lhs[n.input_spatial[k]] = padded // w.base_dilation
        constraints += _on_lhs(w, padded, conv.lhs[n.input_spatial[k]])
        rhs[n.kernel_spatial[k]] = conv.kernel_position(k, range_var(k))
    feature_group_size = conv.output_features // conv.feature_groups
    batch_group_size = conv.output_features // conv.batch_groups
    lhs[n.input_feature] = (o // feature_group_size) * conv.group_input_features + feature
    lhs[n.input_batch] = (o // batch_group_size) * conv.output_batch + dim(n.output_batch)
    rhs[n.kernel_input_feature] = feature
    rhs[n.kernel_output_feature] = o
    box = dims_box(conv.out)
    lhs_map = IndexingMap.create(box, lhs, range_vars=range_vars, constraints=constraints)
    rhs_map = IndexingMap.create(
        box, rhs, range_vars=range_vars, constraints=() if padding_multiplied else constraints
    )
    return _nonempty(lhs_map), _nonempty(rhs_map)


def _nonempty(indexing_map: IndexingMap) -> Indexing:
    return () if indexing_map.is_known_empty else (indexing_map,)


def _convolution_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    return output_to_input(_of(ctx))


def _of(ctx: OpContext) -> Convolution:
    return Convolution.of(
        ctx.instruction,
        ctx.operand_shape(0).dimensions,
        ctx.operand_shape(1).dimensions,
        ctx.shape.dimensions,
    )


def input_to_output(conv: Convolution, operand: int) -> Indexing:
    """The output elements an lhs (`operand` 0) or kernel (1) element reaches."""
    if conv.feature_groups > 1 and conv.batch_groups > 1:
        return Undefined("convolution with both feature and batch groups is not valid HLO")
    return _nonempty(lhs_to_output(conv) if operand == 0 else kernel_to_output(conv))


def _convolution_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    return (input_to_output(_of(ctx), operand),)


def lhs_to_output(conv: Convolution) -> IndexingMap:
    """lhs ``y`` at window position ``s`` reaches output
    ``(y * lhs_dilation + padding_low - s * rhs_dilation) floordiv stride``
    when that divides exactly and is inside the output; the output features
    are those of the lhs element's feature (or batch) group."""
    n = conv.numbers
    results: list[Expr] = [const(0)] * len(conv.out)
    range_vars: list[Interval] = []
    constraints: list[tuple[Expr, Interval]] = []
    for k, w in enumerate(conv.window):
        position = range_var(len(range_vars))
        range_vars.append(Interval(0, w.size - 1))
        numerator = dim(n.input_spatial[k]) * w.base_dilation + w.padding_low
        numerator = numerator - position * w.window_dilation
        results[n.output_spatial[k]] = numerator // w.stride
        constraints.append((numerator, Interval(0, (conv.out[n.output_spatial[k]] - 1) * w.stride)))
        if w.stride != 1:
            constraints.append((numerator % w.stride, Interval(0, 0)))
    in_group = range_var(len(range_vars))
    if conv.batch_groups > 1:
        group_size = conv.output_features // conv.batch_groups
        batch = dim(n.input_batch)
        results[n.output_batch] = batch % conv.output_batch
        results[n.output_feature] = (batch // conv.output_batch) * group_size + in_group
    else:
        group_size = conv.output_features // conv.feature_groups
        feature_group = dim(n.input_feature) // conv.group_input_features
        results[n.output_batch] = dim(n.input_batch)
        results[n.output_feature] = feature_group * group_size + in_group
    range_vars.append(Interval(0, group_size - 1))
    return IndexingMap.create(
        dims_box(conv.lhs), results, range_vars=range_vars, constraints=constraints
    )


def kernel_to_output(conv: Convolution, *, padding_multiplied: bool = False) -> IndexingMap:
    """Kernel ``(c, o, k…)`` reaches output ``(b, o, x…)`` for every batch
    ``b`` and every ``x`` whose window position paired with ``k`` lands on a
    real lhs element (every ``x`` with `padding_multiplied`)."""
    n = conv.numbers
    results: list[Expr] = [const(0)] * len(conv.out)
    range_vars: list[Interval] = []
    constraints: list[tuple[Expr, Interval]] = []
    for k, w in enumerate(conv.window):
        x = range_var(len(range_vars))
        range_vars.append(Interval(0, conv.out[n.output_spatial[k]] - 1))
        results[n.output_spatial[k]] = x
        # The kernel position is its own inverse under reversal.
        position = conv.kernel_position(k, dim(n.kernel_spatial[k]))
        if not padding_multiplied:
            constraints += _on_lhs(w, _lhs_position(w, x, position), conv.lhs[n.input_spatial[k]])
    results[n.output_batch] = range_var(len(range_vars))
    range_vars.append(Interval(0, conv.output_batch - 1))
    results[n.output_feature] = dim(n.kernel_output_feature)
    return IndexingMap.create(
        dims_box(conv.rhs), results, range_vars=range_vars, constraints=constraints
    )


def _group_of_lhs_element(conv: Convolution, range_vars: list[Interval]) -> tuple[Expr, Expr]:
    """The kernel (input feature, output feature) pairs an lhs element meets:
    its feature within its group, and any output feature of its feature (or
    batch) group, a new range variable appended to `range_vars`."""
    n = conv.numbers
    in_group = range_var(len(range_vars))
    feature: Expr
    if conv.batch_groups > 1:
        group_size = conv.output_features // conv.batch_groups
        group = dim(n.input_batch) // conv.output_batch
        feature = dim(n.input_feature)
    else:
        group_size = conv.output_features // conv.feature_groups
        group = dim(n.input_feature) // conv.group_input_features
        feature = dim(n.input_feature) % conv.group_input_features
    range_vars.append(Interval(0, group_size - 1))
    return feature, group * group_size + in_group


def lhs_to_kernel(conv: Convolution) -> Indexing:
    """The kernel elements an lhs element is multiplied with: window position
    ``s`` of spatial dim ``k`` when some output ``x`` puts it on the lhs
    element, ``x * stride + s * rhs_dilation - padding_low = y * lhs_dilation``
    (``x`` a range variable used by that constraint only); the features of
    its group.  A cuDNN backward-input convolution reads its filter so."""
    if conv.feature_groups > 1 and conv.batch_groups > 1:
        return Undefined("convolution with both feature and batch groups is not valid HLO")
    n = conv.numbers
    results: list[Expr] = [const(0)] * len(conv.rhs)
    range_vars: list[Interval] = []
    constraints: list[tuple[Expr, Interval]] = []
    for k, w in enumerate(conv.window):
        position = range_var(len(range_vars))
        x = range_var(len(range_vars) + 1)
        range_vars += [Interval(0, w.size - 1), Interval(0, conv.out[n.output_spatial[k]] - 1)]
        lattice = dim(n.input_spatial[k]) * w.base_dilation
        constraints.append((_lhs_position(w, x, position) - lattice, Interval(0, 0)))
        results[n.kernel_spatial[k]] = conv.kernel_position(k, position)
    feature, output_feature = _group_of_lhs_element(conv, range_vars)
    results[n.kernel_input_feature] = feature
    results[n.kernel_output_feature] = output_feature
    return _nonempty(
        IndexingMap.create(
            dims_box(conv.lhs), results, range_vars=range_vars, constraints=constraints
        )
    )


def kernel_to_lhs(conv: Convolution) -> Indexing:
    """The lhs elements a kernel element ``(c, o, k…)`` is multiplied with:
    for every output batch ``b`` and spatial ``x`` (range variables), the
    lhs element the output reads at that window position.  A cuDNN
    backward-filter convolution reads its input so."""
    if conv.feature_groups > 1 and conv.batch_groups > 1:
        return Undefined("convolution with both feature and batch groups is not valid HLO")
    n = conv.numbers
    results: list[Expr] = [const(0)] * len(conv.lhs)
    range_vars: list[Interval] = []
    constraints: list[tuple[Expr, Interval]] = []
    for k, w in enumerate(conv.window):
        x = range_var(len(range_vars))
        range_vars.append(Interval(0, conv.out[n.output_spatial[k]] - 1))
        padded = _lhs_position(w, x, conv.kernel_position(k, dim(n.kernel_spatial[k])))
        results[n.input_spatial[k]] = padded // w.base_dilation
        constraints += _on_lhs(w, padded, conv.lhs[n.input_spatial[k]])
    batch = range_var(len(range_vars))
    range_vars.append(Interval(0, conv.output_batch - 1))
    o = dim(n.kernel_output_feature)
    feature_group_size = conv.output_features // conv.feature_groups
    batch_group_size = conv.output_features // conv.batch_groups
    feature = (o // feature_group_size) * conv.group_input_features
    results[n.input_feature] = feature + dim(n.kernel_input_feature)
    results[n.input_batch] = (o // batch_group_size) * conv.output_batch + batch
    return _nonempty(
        IndexingMap.create(
            dims_box(conv.rhs), results, range_vars=range_vars, constraints=constraints
        )
    )


register("convolution")(OpRule(_convolution_o2i, _convolution_i2o))
