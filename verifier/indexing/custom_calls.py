"""Custom-calls whose targets have documented semantics; every other target
stays UNDEFINED, with the target named.

- ``TopK``: XLA's top-k (``(values, indices)`` of the k largest of each row,
  the last dim), as the ``topk`` opcode: each output element reads its whole
  row, ``(d0, d1)[s0] -> (d0, s0)``.
- Annotations that return their operand unchanged (same shape): the
  sharding annotations ``Sharding`` and Shardy's ``xla.sdy.*``, and the
  host-offload annotations ``MoveToHost`` / ``MoveToDevice`` and JAX's
  ``annotate_device_placement`` (they only say where the value lives, e.g.
  ``f32[8,4] custom-call(f32[8,4] x), custom_call_target="annotate_device_placement",
  frontend_attributes={_xla_buffer_placement="pinned_host"}``: output
  ``(d0, d1) -> (d0, d1)`` of x): identity, leaf by leaf.

- cuBLAS gemms and cuDNN convolutions, whose attributes carry the
  relation: see `library_calls`.
- Transformer Engine's fused attention (``te_fused_attn_forward_ffi``,
  ``te_fused_attn_backward_ffi``), whose configuration carries the layout
  and mask, and cuDNN's (``__cudnn$fmhaSoftmax``,
  ``__cudnn$fmhaSoftmaxBackward``), whose configuration carries the
  matmuls' dimension numbers: see `transformer_engine`, `cudnn_attention`
  and `attention`.

``SPMDFullToShardShape`` / ``SPMDShardToFullShape`` and their Shardy forms
``xla.sdy.GlobalToLocalShape`` / ``xla.sdy.LocalToGlobalShape`` (what
`shard_map` lowers to before partitioning: ``f32[8,16] custom-call(f32[4,4]
p), custom_call_target="xla.sdy.LocalToGlobalShape"``) change the shape:
which shard a partition holds depends on its partition id and the sharding,
so they stay UNDEFINED with that reason.  So does any other annotation
target written with a result shape that is not its operand's.
"""

from __future__ import annotations

from verifier.expr import Undefined
from verifier.hlo import ShapeIndex
from verifier.indexing import whole_slices
from verifier.indexing.forwarding import forwarding_rule
from verifier.indexing.registry import Indexing, OpContext, OpRule, register

ANNOTATIONS = frozenset({"Sharding", "MoveToHost", "MoveToDevice", "annotate_device_placement"})
"""Targets (besides ``xla.sdy.*``) that return their operand unchanged."""

_SHARD_SHAPES = frozenset(
    {
        "SPMDFullToShardShape",
        "SPMDShardToFullShape",
        "xla.sdy.GlobalToLocalShape",
        "xla.sdy.LocalToGlobalShape",
    }
)


def _target(ctx: OpContext) -> str:
    return ctx.instruction.attributes.word("custom_call_target") or ""


def _is_annotation(ctx: OpContext) -> bool:
    """The call returns its one operand unchanged: a target of `ANNOTATIONS`
    or Shardy's, other than `_SHARD_SHAPES`, with the operand's shape."""
    target = _target(ctx)
    return (
        (target in ANNOTATIONS or target.startswith("xla.sdy."))
        and target not in _SHARD_SHAPES
        and len(ctx.operands) == 1
        and [leaf.dimensions for _, leaf in ctx.shape.leaves]
        == [leaf.shape.dimensions for leaf in ctx.operand_leaves]
    )


def _unchanged(ctx: OpContext, index: ShapeIndex) -> tuple[int, ShapeIndex]:
    return (0, index)


_ANNOTATION = forwarding_rule(_unchanged)


def _undefined(ctx: OpContext) -> Undefined:
    target = _target(ctx)
    if target in _SHARD_SHAPES:
        return Undefined(
            f"custom-call target {target}: which shard a partition holds depends on its "
            "partition id and the sharding"
        )
    return Undefined(f"custom-call target {target}: opaque to HLO, its reads are unknown")


_TOPK = OpRule(
    lambda ctx, output: whole_slices.trailing_output_to_input(ctx, output, 1),
    lambda ctx, operand: whole_slices.trailing_input_to_output(ctx, 1),
)


def _rule(ctx: OpContext) -> OpRule | None:
    """The rule of this call's target, or None when the target is opaque."""
    target = _target(ctx)
    if _is_annotation(ctx):
        return _ANNOTATION
    if target == "TopK" and len(ctx.operands) == 1:
        return _TOPK
    # The library calls' rules (gemms, convolutions, fused attention): loaded
    # only for a module that has such a call.
    from verifier.indexing import cudnn_attention, library_calls, transformer_engine

    if target in library_calls.GEMM_TARGETS:
        return library_calls.GEMM
    if target in library_calls.CONVOLUTION_TARGETS:
        return library_calls.CONVOLUTION
    if target in transformer_engine.TARGETS:
        return transformer_engine.RULE
    if target in cudnn_attention.TARGETS:
        return cudnn_attention.RULE
    return None


def _output_to_input(ctx: OpContext, output: int) -> tuple[Indexing, ...]:
    rule = _rule(ctx)
    if rule is None:
        return (_undefined(ctx),) * len(ctx.operand_leaves)
    return rule.output_to_input(ctx, output)


def _input_to_output(ctx: OpContext, operand: int) -> tuple[Indexing, ...]:
    rule = _rule(ctx)
    if rule is None:
        return (_undefined(ctx),) * len(ctx.output_shapes)
    return rule.input_to_output(ctx, operand)


register("custom-call")(OpRule(_output_to_input, _input_to_output, whole_tuples=True))
