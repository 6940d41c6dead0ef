"""The GPU library calls whose attributes carry their element relation:
cuBLAS matrix multiplications and cuDNN convolutions, as XLA's GPU
compiler writes them.  Each returns a tuple: the result (output 0), then a
scratch workspace (``s8[…]`` / ``u8[…]``) that holds no value of the op and
reads nothing.  A call whose configuration is outside what is modelled here
is UNDEFINED, with the target and the reason named.

**cuBLAS** (``__cublas$gemm``, ``__cublas$lt$matmul``): ``D = alpha * dot(A,
B) + beta * C``, the dot's dimension numbers in
``backend_config={"gemm_backend_config":{"dot_dimension_numbers":{…}}}``
(older dumps put the gemm config at the top level; protobuf JSON writes the
dims as strings).  A and B are read as `dots` reads a dot's operands; C, an
operand only when ``beta`` ≠ 0, element for element; the epilogues
``DEFAULT``, ``RELU``, ``GELU`` apply per element and read nothing more:

    r = (f32[2,5], s8[1024]) custom-call(f32[2,3] a, f32[3,5] b),
        custom_call_target="__cublas$gemm", backend_config={"gemm_backend_config":
        {"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],
        "rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],
        "rhs_batch_dimensions":[]},"epilogue":"DEFAULT"}}

output 0 → a: ``(d0, d1)[s0] -> (d0, s0)``, s0 ∈ [0, 2].

**cuDNN** (``__cudnn$convForward``, ``__cudnn$convBiasActivationForward``,
``__cudnn$convBackwardInput``, ``__cudnn$convBackwardFilter``): ``window=``
and ``dim_labels=`` (with ``feature_group_count`` / ``batch_group_count``)
describe the *forward* convolution ``Y = conv(X, W)`` in every kind, as in
XLA's ``GetCudnnConvKind`` / ``GpuConvConfig``: forward computes Y from
(X, W) (plus, for bias-activation, a rank-1 bias over Y's features and an
optional side input shaped as Y, added per element); backward-input computes
X from (Y, W); backward-filter computes W from (X, Y).  Every kind reads the
pairs of the forward convolution's relation (`convolution`): an element of
the result reads every element of an operand that meets it in one term of
the forward sum.  The shapes must be those of a convolution (the forward
convolution of X and W gives Y), or the call is UNDEFINED.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import assert_never

from verifier.errors import ParseError
from verifier.expr import IndexingMap, Undefined
from verifier.hlo import BackendConfig, DotDimensionNumbers, check_shape
from verifier.indexing import convolution
from verifier.indexing.convolution import Convolution
from verifier.indexing.dots import dot_input_to_output, dot_output_to_input
from verifier.indexing.registry import Indexing, OpContext, OpRule
from verifier.indexing.whole_slices import slice_map

GEMM_TARGETS = frozenset({"__cublas$gemm", "__cublas$lt$matmul"})
_ELEMENTWISE_EPILOGUES = frozenset({"DEFAULT", "RELU", "GELU"})


def _target(ctx: OpContext) -> str:
    return ctx.instruction.attributes.word("custom_call_target") or ""


def _backend_config(ctx: OpContext) -> Mapping[str, object] | None:
    value = ctx.instruction.attributes.get("backend_config")
    if not isinstance(value, BackendConfig):
        return None
    try:
        parsed = json.loads(value.text)
    except json.JSONDecodeError:
        return None
    return parsed if isinstance(parsed, dict) else None


def _result_only(
    ctx: OpContext, output: int, result: Callable[[], tuple[Indexing, ...]]
) -> tuple[Indexing, ...]:
    """Output 0 reads what `result` says; the workspace outputs read nothing."""
    return result() if output == 0 else ((),) * len(ctx.operand_leaves)


def _reaches_result(ctx: OpContext, reached: Indexing) -> tuple[Indexing, ...]:
    """An operand reaches output 0 through `reached`, the workspace not at all."""
    return (reached,) + ((),) * (len(ctx.output_shapes) - 1)


def _undefined(ctx: OpContext, reason: str, count: int) -> tuple[Indexing, ...]:
    return (Undefined(f"custom-call target {_target(ctx)}: {reason}"),) * count


def _has_array_operands(ctx: OpContext) -> bool:
    return not any(operand.shape.is_tuple for operand in ctx.operands)


# ---------------------------------------------------------------- cuBLAS


@dataclass(frozen=True)
class _Gemm:
    numbers: DotDimensionNumbers
    reads_c: bool


def _dims(config: Mapping[str, object], key: str) -> tuple[int, ...]:
    values = config.get(key, [])
    if not isinstance(values, list):
        raise ValueError(f"{key} is not a list")
    return tuple(int(v) for v in values)


def _gemm(ctx: OpContext) -> _Gemm | str:
    """The gemm's dimension numbers and whether it reads C, or why not."""
    config = _backend_config(ctx)
    if config is None:
        return "no backend_config JSON with the gemm's dimension numbers"
    gemm = config.get("gemm_backend_config", config)
    numbers = gemm.get("dot_dimension_numbers") if isinstance(gemm, dict) else None
    if not isinstance(gemm, dict) or not isinstance(numbers, dict):
        return "its backend_config has no dot_dimension_numbers"
    try:
        dot_numbers = DotDimensionNumbers(
            _dims(numbers, "lhs_batch_dimensions"),
            _dims(numbers, "rhs_batch_dimensions"),
            _dims(numbers, "lhs_contracting_dimensions"),
            _dims(numbers, "rhs_contracting_dimensions"),
        )
    except ValueError as error:
        return f"unreadable dot_dimension_numbers ({error})"
    epilogue = gemm.get("epilogue", "DEFAULT")
    if epilogue not in _ELEMENTWISE_EPILOGUES:
        return f"the epilogue {epilogue} (bias or auxiliary outputs) is not modelled"
    reads_c = gemm.get("beta", 0) not in (0, 0.0, "0")
    if not _has_array_operands(ctx) or len(ctx.operands) != 2 + reads_c:
        return f"{len(ctx.operands)} operands where A, B{', C' if reads_c else ''} are expected"
    lhs, rhs = ctx.operand_shape(0).dimensions, ctx.operand_shape(1).dimensions
    out = ctx.output_shapes[0].dimensions
    expected = _dot_dims(dot_numbers, lhs, rhs)
    if expected is None or expected != out:
        return f"its result {list(out)} is not the dot of {list(lhs)} and {list(rhs)}"
    if reads_c and ctx.operand_shape(2).dimensions != out:
        return f"C {list(ctx.operand_shape(2).dimensions)} is not shaped as the result"
    return _Gemm(dot_numbers, reads_c)


def _dot_dims(
    numbers: DotDimensionNumbers, lhs: tuple[int, ...], rhs: tuple[int, ...]
) -> tuple[int, ...] | None:
    """The dims of the dot of `lhs` and `rhs`, or None when the numbers do not fit."""
    lhs_used, rhs_used = (
        numbers.lhs_batch + numbers.lhs_contracting,
        (numbers.rhs_batch + numbers.rhs_contracting),
    )
    if (
        len(numbers.lhs_batch) != len(numbers.rhs_batch)
        or len(numbers.lhs_contracting) != len(numbers.rhs_contracting)
        or len(set(lhs_used)) != len(lhs_used)
        or len(set(rhs_used)) != len(rhs_used)
        or not all(0 <= k < len(lhs) for k in lhs_used)
        or not all(0 <= k < len(rhs) for k in rhs_used)
        or any(lhs[a] != rhs[b] for a, b in zip(lhs_used, rhs_used, strict=True))
    ):
        return None
    return (
        *(lhs[k] for k in numbers.lhs_batch),
        *(n for k, n in enumerate(lhs) if k not in lhs_used),
        *(n for k, n in enumerate(rhs) if k not in rhs_used),
    )


def _gemm_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    gemm = _gemm(ctx)
    if isinstance(gemm, str):
        return _undefined(ctx, gemm, len(ctx.operand_leaves))

    def result() -> tuple[Indexing, ...]:
        out = ctx.output_shapes[0].dimensions
        lhs, rhs = dot_output_to_input(
            gemm.numbers, ctx.operand_shape(0).dimensions, ctx.operand_shape(1).dimensions, out
        )
        c: tuple[Indexing, ...] = ((IndexingMap.identity(out),),) if gemm.reads_c else ()
        return ((lhs,), (rhs,), *c)

    return _result_only(ctx, output, result)


def _gemm_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    gemm = _gemm(ctx)
    if isinstance(gemm, str):
        return _undefined(ctx, gemm, len(ctx.output_shapes))
    if operand == 2:
        return _reaches_result(ctx, (IndexingMap.identity(ctx.operand_shape(2).dimensions),))
    lhs, rhs = ctx.operand_shape(0).dimensions, ctx.operand_shape(1).dimensions
    return _reaches_result(ctx, (dot_input_to_output(gemm.numbers, lhs, rhs, operand),))


GEMM = OpRule(_gemm_o2i, _gemm_i2o, whole_tuples=True)


# ---------------------------------------------------------------- cuDNN


class ConvolutionKind(Enum):
    """Which array of the forward convolution ``Y = conv(X, W)`` a cuDNN call computes."""

    FORWARD = "Y from (X, W)"
    BACKWARD_INPUT = "X from (Y, W)"
    BACKWARD_FILTER = "W from (X, Y)"


CONVOLUTION_TARGETS: dict[str, ConvolutionKind] = {
    "__cudnn$convForward": ConvolutionKind.FORWARD,
    "__cudnn$convBiasActivationForward": ConvolutionKind.FORWARD,
    "__cudnn$convBackwardInput": ConvolutionKind.BACKWARD_INPUT,
    "__cudnn$convBackwardFilter": ConvolutionKind.BACKWARD_FILTER,
}


def _forward(ctx: OpContext) -> Convolution | str:
    """The forward convolution the call's attributes and shapes describe, or why not."""
    kind = CONVOLUTION_TARGETS[_target(ctx)]
    bias_activation = _target(ctx) == "__cudnn$convBiasActivationForward"
    expected = (3, 4) if bias_activation else (2,)
    if not _has_array_operands(ctx) or len(ctx.operands) not in expected:
        return f"{len(ctx.operands)} operands where {' or '.join(map(str, expected))} are expected"
    first, second, result = ctx.operand_shape(0), ctx.operand_shape(1), ctx.output_shapes[0]
    match kind:
        case ConvolutionKind.FORWARD:
            x, w, y = first, second, result
        case ConvolutionKind.BACKWARD_INPUT:
            y, w, x = first, second, result
        case ConvolutionKind.BACKWARD_FILTER:
            x, y, w = first, second, result
        case _:
            assert_never(kind)
    try:
        check_shape(y, "convolution", (x, w), ctx.instruction.attributes, {})
        conv = Convolution.of(ctx.instruction, x.dimensions, w.dimensions, y.dimensions)
    except (ParseError, ValueError) as error:
        return (
            f"X {x}, W {w}, Y {y} are not the input, kernel and output of the forward "
            f"convolution its window and dim_labels describe ({error})"
        )
    if bias_activation:
        if ctx.operand_shape(2).dimensions != (conv.output_features,):
            return f"the bias {list(ctx.operand_shape(2).dimensions)} is not one per feature"
        if len(ctx.operands) == 4 and ctx.operand_shape(3).dimensions != y.dimensions:
            return "the side input is not shaped as the result"
    return conv


def _convolution_o2i(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    conv = _forward(ctx)
    if isinstance(conv, str):
        return _undefined(ctx, conv, len(ctx.operand_leaves))

    def result() -> tuple[Indexing, ...]:
        kind = CONVOLUTION_TARGETS[_target(ctx)]
        match kind:
            case ConvolutionKind.FORWARD:
                return (*convolution.output_to_input(conv), *_bias_and_side(ctx, conv))
            case ConvolutionKind.BACKWARD_INPUT:
                y_read = convolution.input_to_output(conv, 0)
                return (y_read, convolution.lhs_to_kernel(conv))
            case ConvolutionKind.BACKWARD_FILTER:
                return (convolution.kernel_to_lhs(conv), convolution.input_to_output(conv, 1))
            case _:
                assert_never(kind)

    return _result_only(ctx, output, result)


def _bias_and_side(ctx: OpContext, conv: Convolution) -> tuple[Indexing, ...]:
    """Output ``(…, o, …)`` reads bias element ``o`` and the side input's same element."""
    extra = len(ctx.operands) - 2
    bias = slice_map(conv.out, (conv.output_features,), {0: conv.numbers.output_feature})
    side = IndexingMap.identity(conv.out)
    return ((bias,), (side,))[:extra]


def _convolution_i2o(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    conv = _forward(ctx)
    if isinstance(conv, str):
        return _undefined(ctx, conv, len(ctx.output_shapes))
    kind = CONVOLUTION_TARGETS[_target(ctx)]
    reached: Indexing
    match kind:
        case ConvolutionKind.FORWARD:
            if operand == 2:
                feature = {conv.numbers.output_feature: 0}
                reached = (slice_map((conv.output_features,), conv.out, feature),)
            elif operand == 3:
                reached = (IndexingMap.identity(conv.out),)
            else:
                reached = convolution.input_to_output(conv, operand)
        case ConvolutionKind.BACKWARD_INPUT:
            lhs = convolution.output_to_input(conv)[0]
            reached = lhs if operand == 0 else convolution.kernel_to_lhs(conv)
        case ConvolutionKind.BACKWARD_FILTER:
            kernel = convolution.output_to_input(conv)[1]
            reached = convolution.lhs_to_kernel(conv) if operand == 0 else kernel
        case _:
            assert_never(kind)
    return _reaches_result(ctx, reached)


CONVOLUTION = OpRule(_convolution_o2i, _convolution_i2o, whole_tuples=True)
