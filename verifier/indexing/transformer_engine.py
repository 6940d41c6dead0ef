"""Transformer Engine's fused attention FFI calls, as JAX writes them:
``te_fused_attn_forward_ffi`` and ``te_fused_attn_backward_ffi``, their
configuration an MLIR dictionary in ``backend_config={attn_heads = 32 : i64,
qkv_layout = 9 : i64, mask_type = 3 : i64, …}``.

Operands of the forward call: q, k, v, bias, seed, q_cu_seqlens,
kv_cu_seqlens, then six sequence-offset and segment arrays; results: the
output O, the softmax statistics ``[b, heads, q_len, 1]``, the generator
state and a workspace.  The backward call reads q, k, v, bias, the
statistics, the generator state, O, dO, the two cu_seqlens and the six
others, and returns dq, dk, dv, dbias and a workspace (dk and dv shaped as
k and v, so a packed kv operand gets a packed gradient and an empty dv).

``qkv_layout`` names where q, k, v live (TE's ``NVTE_QKV_Layout``): the
BSHD family is modelled — 5 ``BS3HD``, 6 ``BSH3D`` (q, k, v packed in one
array), 7 ``BSHD_BS2HD``, 8 ``BSHD_BSH2D`` (k, v packed), 9
``BSHD_BSHD_BSHD``; the output is ``[b, s, heads, d]``.  ``mask_type``
(``NVTE_Mask_Type``): 0 none, 1 padding, 2 causal, 3 padding + causal
(both top-left), 4 causal bottom-right, 5 padding + causal bottom-right.  A
padding mask reads the cumulative sequence lengths (batch ``b`` reads
elements ``b`` and ``b + 1``).  What each result reads follows `attention`.

Only what is determined by operands, shapes and this configuration is
modelled; a call with a bias, dropout, several segments per sequence,
non-empty offset or segment arrays, a sliding window, or a layout outside
the BSHD family is UNDEFINED with the reason named.  The generator state
derives from the seed and TE's own counter: its relation to the seed is
UNDEFINED; it reads nothing else.

    r = (bf16[1,8,4,16], f32[1,4,8,1], u32[2,4], u8[64]) custom-call(q, k, v,
        bias, seed, qs, ks, o1, o2, o3, o4, o5, o6),
        custom_call_target="te_fused_attn_forward_ffi", backend_config={attn_heads
        = 4 : i64, num_gqa_groups = 2 : i64, qkv_layout = 9 : i64, mask_type = 2 :
        i64, …}

with q ``bf16[1,8,4,16]``, k and v ``bf16[1,8,2,16]``: output 0 reads k at
``(d0, d1, d2, d3)[s0, s1] -> (d0, s0, d2 floordiv 2, s1)``, ``d1 - s0 in
[0, 7]``: every feature of the keys up to the query, of its kv head.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from verifier.hlo import BackendConfig
from verifier.indexing import attention
from verifier.indexing.attention import Attention, Axis, Causal, Logical, Placement, SeqLens, Slot
from verifier.indexing.registry import OpContext, remember_last

FORWARD = "te_fused_attn_forward_ffi"
BACKWARD = "te_fused_attn_backward_ffi"
TARGETS = frozenset({FORWARD, BACKWARD})

_BSHD: tuple[Axis, ...] = ("b", "s", "h", "f")
_STATS: tuple[Axis, ...] = ("b", "h", "s", "f")


def _packed(at: int, index: int, count: int) -> tuple[Axis, ...]:
    """BSHD with a packed dim of `count` inserted before dim `at`, element `index`."""
    axes = list(_BSHD)
    axes.insert(at, Slot(index, count))
    return tuple(axes)


LAYOUTS: dict[int, tuple[tuple[int, tuple[Axis, ...]], ...]] = {
    5: tuple((0, _packed(2, k, 3)) for k in range(3)),
    6: tuple((0, _packed(3, k, 3)) for k in range(3)),
    7: ((0, _BSHD), (1, _packed(2, 0, 2)), (1, _packed(2, 1, 2))),
    8: ((0, _BSHD), (1, _packed(3, 0, 2)), (1, _packed(3, 1, 2))),
    9: ((0, _BSHD), (1, _BSHD), (2, _BSHD)),
}
"""qkv_layout → (operand, axes) of q, k and v."""

_MASKS: dict[int, tuple[Causal, bool]] = {
    0: (Causal.NONE, False),
    1: (Causal.NONE, True),
    2: (Causal.TOP_LEFT, False),
    3: (Causal.TOP_LEFT, True),
    4: (Causal.BOTTOM_RIGHT, False),
    # Bottom-right from runtime lengths: over every length, every pair.
    5: (Causal.NONE, True),
}
"""mask_type → (the causal restriction that holds for every length, padding?)."""

_GENERATOR = "the generator state derives from the seed and TE's own counter"

_ENTRY = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([^:,]+?)\s*(?::\s*[a-z0-9]+\s*)?(?:,|$)")


def parse_dictionary(text: str) -> dict[str, str] | None:
    """An MLIR dictionary attribute of scalars, ``{a = 1 : i64, b = false}``
    → ``{"a": "1", "b": "false"}``; None when `text` is not one.

    >>> parse_dictionary("{attn_heads = 32 : i64, is_training = true}")
    {'attn_heads': '32', 'is_training': 'true'}
    """
    body = text.strip()
    if not (body.startswith("{") and body.endswith("}")):
        return None
    body = body[1:-1].strip()
    found: dict[str, str] = {}
    position = 0
    while position < len(body):
        match = _ENTRY.match(body, position)
        if match is None:
            return None
        found[match.group(1)] = match.group(2)
        position = match.end()
    return found


def _config(ctx: OpContext) -> Mapping[str, str] | str:
    value = ctx.instruction.attributes.get("backend_config")
    if not isinstance(value, BackendConfig):
        return "no backend_config"
    parsed = parse_dictionary(value.text)
    return "its backend_config is not a dictionary of scalars" if parsed is None else parsed


def _integers(config: Mapping[str, str], *keys: str) -> dict[str, int] | str:
    found: dict[str, int] = {}
    for key in keys:
        try:
            found[key] = int(config[key])
        except (KeyError, ValueError):
            return f"its backend_config has no integer {key}"
    return found


def _elements(dimensions: tuple[int, ...]) -> int:
    count = 1
    for n in dimensions:
        count *= n
    return count


@remember_last
def describe(ctx: OpContext) -> Attention | str:
    """The attention this call computes, or why it is not modelled."""
    config = _config(ctx)
    if isinstance(config, str):
        return config
    sizes = _integers(
        config,
        "input_batch",
        "attn_heads",
        "num_gqa_groups",
        "q_max_seqlen",
        "kv_max_seqlen",
        "qk_head_dim",
        "v_head_dim",
        "qkv_layout",
        "mask_type",
        "bias_type",
        "max_segments_per_seq",
        "window_size_left",
        "window_size_right",
    )
    if isinstance(sizes, str):
        return sizes
    forward = ctx.instruction.attributes.word("custom_call_target") == FORWARD
    operands = [leaf.shape.dimensions for leaf in ctx.operand_leaves]
    expected_operands = 13 if forward else 16
    if (
        any(operand.shape.is_tuple for operand in ctx.operands)
        or len(operands) != expected_operands
    ):
        return f"{len(ctx.operands)} operands where {expected_operands} arrays are expected"
    if len(ctx.output_shapes) != (4 if forward else 5):
        return f"{len(ctx.output_shapes)} results where {4 if forward else 5} are expected"
    why = _unmodelled(config, sizes, operands, forward)
    if why is not None:
        return why
    causal, padding = _MASKS[sizes["mask_type"]]
    qkv = [
        Placement(array, leaf, axes)
        for array, (leaf, axes) in zip(
            (Logical.Q, Logical.K, Logical.V), LAYOUTS[sizes["qkv_layout"]], strict=True
        )
    ]
    first_lens = 5 if forward else 8
    seq_lens = (SeqLens(first_lens, True), SeqLens(first_lens + 1, True)) if padding else ()
    outputs: tuple[Placement, ...]
    if forward:
        inputs = tuple(qkv)
        outputs = (Placement(Logical.O, 0, _BSHD), Placement(Logical.LSE, 1, _STATS))
        reads = attention.FORWARD_READS
        unknown = {(2, 4): f"custom-call target {FORWARD}: {_GENERATOR}"}
    else:
        inputs = (
            *qkv,
            Placement(Logical.LSE, 4, _STATS),
            Placement(Logical.O, 6, _BSHD),
            Placement(Logical.DO, 7, _BSHD),
        )
        gradient = {Logical.Q: Logical.DQ, Logical.K: Logical.DK, Logical.V: Logical.DV}
        outputs = tuple(Placement(gradient[p.array], p.leaf, p.axes) for p in qkv)
        reads = attention.BACKWARD_READS
        unknown = {}
    described = Attention(
        batch=sizes["input_batch"],
        heads=sizes["attn_heads"],
        kv_heads=sizes["num_gqa_groups"],
        q_len=sizes["q_max_seqlen"],
        kv_len=sizes["kv_max_seqlen"],
        qk_features=sizes["qk_head_dim"],
        v_features=sizes["v_head_dim"],
        causal=causal,
        seq_lens=seq_lens,
        inputs=inputs,
        outputs=outputs,
        reads=reads,
        unknown=unknown,
    )
    outputs_dims = [shape.dimensions for shape in ctx.output_shapes]
    return attention.checked(described, operands, outputs_dims)


def _unmodelled(
    config: Mapping[str, str],
    sizes: Mapping[str, int],
    operands: list[tuple[int, ...]],
    forward: bool,
) -> str | None:
    """Why the configuration is outside what is modelled, or None."""
    if sizes["qkv_layout"] not in LAYOUTS:
        return f"qkv_layout {sizes['qkv_layout']} (outside the BSHD family) is not modelled"
    if sizes["mask_type"] not in _MASKS:
        return f"mask_type {sizes['mask_type']} is not modelled"
    if sizes["bias_type"] != 0 or _elements(operands[3]) != 0:
        return "an attention bias is not modelled"
    if float(config.get("dropout_probability", "0").split()[0]) != 0.0:
        return "dropout (reads of the generator state) is not modelled"
    if sizes["max_segments_per_seq"] != 1:
        return "several segments per sequence are not modelled"
    window = (sizes["window_size_left"], sizes["window_size_right"])
    causal = sizes["mask_type"] in (2, 3, 4, 5)
    if window != (-1, -1) and not (causal and window == (-1, 0)):
        return f"the sliding window {list(window)} is not modelled"
    rest = range(7, 13) if forward else range(10, 16)
    if any(_elements(operands[k]) != 0 for k in rest):
        return "sequence offsets or segment arrays (packed sequences) are not modelled"
    heads, groups = sizes["attn_heads"], sizes["num_gqa_groups"]
    if groups <= 0 or heads % groups != 0:
        return f"{heads} heads are not groups of {groups} kv heads"
    return None


RULE = attention.rule(describe)
