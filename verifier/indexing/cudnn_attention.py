"""cuDNN's fused attention custom-calls, as XLA's GPU compiler writes them
(``__cudnn$fmhaSoftmax``, ``__cudnn$fmhaScaleBiasSoftmax`` and their
``…Backward``), their configuration in
``backend_config={"cudnn_fmha_backend_config": {…}}``.

The layout of each operand is in the dot dimension numbers of the matmuls
that read it, as XLA's cuDNN graph builder reads them: batch dims are the
batch and the head (in that order), the contracting dim and the remaining
free dim are the position or the feature, as the matmul says.

- Forward, operands ``(Q, K, V[, seq_q, seq_kv])``, results ``(O[, stats],
  workspace)``: Q is the lhs of ``bmm1_dot_dimension_numbers`` (S = Q·Kᵀ,
  contracting the qk features) and K its rhs; V is the rhs of
  ``bmm2_dot_dimension_numbers`` (O = P·V, contracting the key positions).
  O is ``[b, h, s, d]`` and the statistics ``[b, h, s]``.
- Backward, operands ``(Q, K, V, stats, dO, O[, seq_q, seq_kv])``, results
  ``(dQ, dK, dV, workspace)``, each gradient ``[b, h, s, d]``: Q is the rhs
  of ``bmm1_grad_gemm1`` (dK = dSᵀ·Q, contracting query positions), K the
  rhs of ``bmm1_grad_gemm2`` (dQ = dS·K, contracting key positions), V the
  rhs of ``bmm2_grad_gemm2`` (dP = dO·Vᵀ, contracting v features), dO the
  rhs of ``bmm2_grad_gemm1`` (dV = Pᵀ·dO, contracting query positions); O
  is laid out as dO.
- The ``ScaleBias`` targets add a bias ``[b, h, q, k]`` to the scores (a
  dim of size 1 broadcast: ``bf16[1,6,1024,1024]`` is one bias per head),
  the operand after V (forward) or after dO (backward); the backward call
  may return its gradient (before the workspace), the score gradient
  summed over the broadcast dims.  Every result reads the bias at its
  batch, head and query (every key; causal: up to the query).

``mask_type``: ``NO_MASK``, ``CAUSAL`` (cuDNN's causal mask, aligned
top-left), ``PADDING`` and ``PADDING_CAUSAL`` (the actual lengths of each
batch in ``seq_q``, ``seq_kv``: batch ``b`` reads element ``b`` of each).
What each result reads follows `attention`.  Dropout, a sliding
window, a score modifier computation, packed segments or paged attention
are not modelled: UNDEFINED with the reason (so are the dropout and fp8
targets, which this module does not claim).

    r = (bf16[2,4,8,16], f32[2,4,8], u8[0]) custom-call(q, k, v),
        custom_call_target="__cudnn$fmhaSoftmax",
        backend_config={"cudnn_fmha_backend_config": {"mask_type": "CAUSAL",
        "bmm1_dot_dimension_numbers": {"lhs_contracting_dimensions": ["3"],
        "rhs_contracting_dimensions": ["3"], "lhs_batch_dimensions": ["0", "2"],
        "rhs_batch_dimensions": ["0", "2"]}, "bmm2_dot_dimension_numbers":
        {"lhs_contracting_dimensions": ["3"], "rhs_contracting_dimensions": ["1"],
        "lhs_batch_dimensions": ["0", "1"], "rhs_batch_dimensions": ["0", "2"]}, …}}

with q, k, v ``bf16[2,8,4,16]`` (b, s, h, d): output 0 reads v at ``(d0, d1,
d2, d3)[s0] -> (d0, s0, d1, d3)``, ``d2 - s0 in [0, 7]``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from verifier.hlo import BackendConfig
from verifier.indexing import attention
from verifier.indexing.attention import Attention, Axis, Causal, Logical, Placement, SeqLens
from verifier.indexing.registry import OpContext, remember_last

FORWARD = "__cudnn$fmhaSoftmax"
BACKWARD = "__cudnn$fmhaSoftmaxBackward"
BIAS_FORWARD = "__cudnn$fmhaScaleBiasSoftmax"
BIAS_BACKWARD = "__cudnn$fmhaScaleBiasSoftmaxBackward"
TARGETS = frozenset({FORWARD, BACKWARD, BIAS_FORWARD, BIAS_BACKWARD})

_MASKS: dict[str, tuple[Causal, bool]] = {
    "NO_MASK": (Causal.NONE, False),
    "CAUSAL": (Causal.TOP_LEFT, False),
    "PADDING": (Causal.NONE, True),
    "PADDING_CAUSAL": (Causal.TOP_LEFT, True),
}
"""mask_type → (causal restriction, padding?)."""

_OUTPUT: tuple[Axis, ...] = ("b", "h", "s", "f")
_STATS: tuple[Axis, ...] = ("b", "h", "s")


def _config(ctx: OpContext) -> Mapping[str, object] | str:
    value = ctx.instruction.attributes.get("backend_config")
    if not isinstance(value, BackendConfig):
        return "no backend_config"
    try:
        parsed = json.loads(value.text)
    except json.JSONDecodeError:
        return "its backend_config is not JSON"
    config = parsed.get("cudnn_fmha_backend_config") if isinstance(parsed, dict) else None
    return config if isinstance(config, dict) else "no cudnn_fmha_backend_config"


def _axes(
    config: Mapping[str, object], key: str, side: str, contracting: Axis, free: Axis, rank: int
) -> tuple[Axis, ...] | str:
    """The axes of the `side` operand of matmul `key`: batch dims ``b, h``,
    its contracting dim `contracting`, the one remaining dim `free`."""
    numbers = config.get(key)
    if not isinstance(numbers, dict):
        return f"its backend_config has no {key}"
    try:
        batch = [int(k) for k in numbers.get(f"{side}_batch_dimensions", [])]
        summed = [int(k) for k in numbers.get(f"{side}_contracting_dimensions", [])]
    except (TypeError, ValueError):
        return f"unreadable {key}"
    rest = [k for k in range(rank) if k not in batch and k not in summed]
    if rank != 4 or len(batch) != 2 or len(summed) != 1 or len(rest) != 1:
        return f"{key} does not give a rank-4 {side} operand batch, head, one contracting and one free dim"
    axes: list[Axis] = ["b"] * rank
    axes[batch[1]], axes[summed[0]], axes[rest[0]] = "h", contracting, free
    return tuple(axes)


def _unmodelled(ctx: OpContext, config: Mapping[str, object]) -> str | None:
    mask = config.get("mask_type", "NO_MASK")
    if mask not in _MASKS:
        return f"mask_type {mask} is not modelled"
    if float(str(config.get("dropout_rate", 0))) != 0.0:
        return "dropout is not modelled"
    if int(str(config.get("sliding_window_length", 0))) > 0:
        return "a sliding window is not modelled"
    if int(str(config.get("max_seg_per_batch", 1))) > 1 or config.get("is_paged_attention"):
        return "packed segments or paged attention are not modelled"
    if ctx.instruction.attributes.get("called_computations"):
        return "a score modifier computation is not modelled"
    return None


@remember_last
def describe(ctx: OpContext) -> Attention | str:
    """The attention this call computes, or why it is not modelled."""
    config = _config(ctx)
    if isinstance(config, str):
        return config
    why = _unmodelled(ctx, config)
    if why is not None:
        return why
    causal, padding = _MASKS[str(config.get("mask_type", "NO_MASK"))]
    target = ctx.instruction.attributes.word("custom_call_target")
    forward = target in (FORWARD, BIAS_FORWARD)
    bias = target in (BIAS_FORWARD, BIAS_BACKWARD)
    operands = [leaf.shape.dimensions for leaf in ctx.operand_leaves]
    outputs = [shape.dimensions for shape in ctx.output_shapes]
    arrays = (3 if forward else 6) + bias
    if any(op.shape.is_tuple for op in ctx.operands) or len(operands) != arrays + 2 * padding:
        return f"{len(ctx.operands)} operands where {arrays + 2 * padding} arrays are expected"
    if len(outputs) not in ((2, 3) if forward else (4, 5)):
        return f"{len(outputs)} results where {'2 or 3' if forward else '4 or 5'} are expected"
    if bias and len(operands[3 if forward else 5]) != 4:
        return f"a bias of rank {len(operands[3 if forward else 5])} where 4 is expected"
    if len(outputs) == 5 and len(outputs[3]) != 4:
        return f"a bias gradient of rank {len(outputs[3])} where 4 is expected"
    layouts: list[tuple[str, str, Axis, Axis]]
    if forward:
        layouts = [
            ("bmm1_dot_dimension_numbers", "lhs", "f", "s"),
            ("bmm1_dot_dimension_numbers", "rhs", "f", "s"),
            ("bmm2_dot_dimension_numbers", "rhs", "s", "f"),
        ]
    else:
        layouts = [
            ("bmm1_grad_gemm1_dot_dimension_numbers", "rhs", "s", "f"),
            ("bmm1_grad_gemm2_dot_dimension_numbers", "rhs", "s", "f"),
            ("bmm2_grad_gemm2_dot_dimension_numbers", "rhs", "f", "s"),
            ("bmm2_grad_gemm1_dot_dimension_numbers", "rhs", "s", "f"),
        ]
    axes: list[tuple[Axis, ...]] = []
    for leaf, (key, side, contracting, free) in enumerate(layouts):
        found = _axes(config, key, side, contracting, free, len(operands[(0, 1, 2, 4)[leaf]]))
        if isinstance(found, str):
            return found
        axes.append(found)
    q, k, v = axes[0], axes[1], axes[2]
    inputs = [Placement(Logical.Q, 0, q), Placement(Logical.K, 1, k), Placement(Logical.V, 2, v)]
    if forward:
        result = [Placement(Logical.O, 0, _OUTPUT)]
        result += [Placement(Logical.LSE, 1, _STATS)] if len(outputs) == 3 else []
        reads = attention.FORWARD_READS
        if bias:
            inputs.append(Placement(Logical.BIAS, 3, attention.bias_axes(operands[3])))
    else:
        d_out = axes[3]
        inputs += [
            Placement(Logical.LSE, 3, _STATS),
            Placement(Logical.DO, 4, d_out),
            Placement(Logical.O, 5 + bias, d_out),
        ]
        result = [
            Placement(Logical.DQ, 0, _OUTPUT),
            Placement(Logical.DK, 1, _OUTPUT),
            Placement(Logical.DV, 2, _OUTPUT),
        ]
        if bias:
            inputs.append(Placement(Logical.BIAS, 5, attention.bias_axes(operands[5])))
        if len(outputs) == 5:
            result.append(Placement(Logical.DBIAS, 3, attention.bias_axes(outputs[3])))
        reads = attention.BACKWARD_READS
    if bias:
        reads = attention.biased(reads)

    def size(placement: Placement, axis: Axis) -> int:
        return operands[placement.leaf][placement.axes.index(axis)]

    described = Attention(
        batch=size(inputs[0], "b"),
        heads=size(inputs[0], "h"),
        kv_heads=size(inputs[1], "h"),
        q_len=size(inputs[0], "s"),
        kv_len=size(inputs[1], "s"),
        qk_features=size(inputs[0], "f"),
        v_features=size(inputs[2], "f"),
        causal=causal,
        seq_lens=(SeqLens(arrays, False), SeqLens(arrays + 1, False)) if padding else (),
        inputs=tuple(inputs),
        outputs=tuple(result),
        reads=reads,
        unknown={},
    )
    if described.kv_heads <= 0 or described.heads % described.kv_heads != 0:
        return f"{described.heads} heads are not groups of {described.kv_heads} kv heads"
    return attention.checked(described, operands, outputs)


RULE = attention.rule(describe)
