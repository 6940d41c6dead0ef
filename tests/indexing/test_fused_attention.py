"""Transformer Engine's fused attention maps, judged against a small numpy
model of the call: perturb one operand element and see which result
elements change (value dependence, over every feasible sequence length
when the mask pads), and compare with the relation the maps give in both
directions.  The model is written from the attention formulas alone:
``O = softmax(scale·Q·Kᵀ + mask)·V`` with the row statistics ``LSE``, and
its gradients ``dV = Pᵀ·dO``, ``dP = dO·Vᵀ``, ``dS = P∘(dP − rowsum(dO∘O))``,
``dQ = dS·K``, ``dK = dSᵀ·Q``."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import TypeAlias

import numpy as np
import pytest

from verifier.expr import IndexingMap, Undefined
from verifier.hlo import parse_module
from verifier.indexing.analysis import own_input_to_output, own_output_to_input

B, S, H, G, D = 2, 3, 2, 1, 2
"""batch, sequence length, query heads, kv heads, features (tiny: brute force)."""

_MASKS = {0: "none", 1: "padding", 2: "causal", 3: "padding causal", 4: "causal bottom-right"}


def _config(layout: int, mask: int) -> str:
    return (
        f"backend_config={{attn_heads = {H} : i64, bias_type = 0 : i64, "
        f"dropout_probability = 0.000000e+00 : f64, input_batch = {B} : i64, "
        f"is_training = true, kv_max_seqlen = {S} : i64, mask_type = {mask} : i64, "
        f"max_segments_per_seq = 1 : i64, num_gqa_groups = {G} : i64, q_max_seqlen = {S} : i64, "
        f"qk_head_dim = {D} : i64, qkv_layout = {layout} : i64, scaling_factor = 5.000000e-01 : f64, "
        f"v_head_dim = {D} : i64, window_size_left = -1 : i64, window_size_right = -1 : i64}}"
    )


def _qkv_shapes(layout: int) -> list[str]:
    if layout == 9:
        return [f"f32[{B},{S},{H},{D}]", f"f32[{B},{S},{G},{D}]", f"f32[{B},{S},{G},{D}]"]
    assert layout == 7
    return [f"f32[{B},{S},{H},{D}]", f"f32[{B},{S},2,{G},{D}]", "f32[0]"]


def _module(layout: int, mask: int, backward: bool) -> str:
    empty = "f32[0]"
    lens = f"s32[{B + 1}]"
    if backward:
        operands = [*_qkv_shapes(layout), empty, f"f32[{B},{H},{S},1]", "u32[2,4]"]
        operands += [f"f32[{B},{S},{H},{D}]"] * 2 + [lens] * 2 + [empty] * 6
        results = [*_qkv_shapes(layout), empty, "u8[16]"]
        target = "te_fused_attn_backward_ffi"
    else:
        operands = [*_qkv_shapes(layout), empty, "u32[2]", lens, lens] + [empty] * 6
        results = [f"f32[{B},{S},{H},{D}]", f"f32[{B},{H},{S},1]", "u32[2,4]", "u8[16]"]
        target = "te_fused_attn_forward_ffi"
    parameters = [f"  p{k} = {shape} parameter({k})" for k, shape in enumerate(operands)]
    names = ", ".join(f"p{k}" for k in range(len(operands)))
    root = (
        f"  ROOT r = ({', '.join(results)}) custom-call({names}), "
        f'custom_call_target="{target}", {_config(layout, mask)}'
    )
    return "HloModule m\nENTRY e {\n" + "\n".join([*parameters, root]) + "\n}\n"


# ---------------------------------------------------------------- the model


def _attention(
    q: np.ndarray,
    k: np.ndarray,
    mask: int,
    q_lens: list[int],
    kv_lens: list[int],
    bias: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The masked scores S[b, h, i, j] (plus `bias`, broadcast) and the kept pairs."""
    kv = np.repeat(k, H // G, axis=2)
    scores = 0.5 * np.einsum("bihe,bjhe->bhij", q, kv)
    if bias is not None:
        scores = scores + bias
    keep = np.ones((B, H, S, S), dtype=bool)
    for b, i, j in itertools.product(range(B), range(S), range(S)):
        if mask in (1, 3) and (i >= q_lens[b] or j >= kv_lens[b]):
            keep[b, :, i, j] = False
        if mask in (2, 3) and j > i:
            keep[b, :, i, j] = False
    scores = np.where(keep, scores, -np.inf)
    return scores, keep


def _softmax(scores: np.ndarray, lse: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    top = np.max(np.where(np.isinf(scores), -1e30, scores), axis=-1, keepdims=True)
    weights = np.exp(scores - top)
    total = np.sum(weights, axis=-1, keepdims=True)
    stats = top + np.log(np.where(total > 0, total, 1.0))
    if lse is not None:
        stats = lse
    probabilities = np.where(np.isinf(scores), 0.0, np.exp(scores - stats))
    return probabilities, stats


def _unpack(layout: int, arrays: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if layout == 9:
        return arrays[0], arrays[1], arrays[2]
    return arrays[0], arrays[1][:, :, 0], arrays[1][:, :, 1]


def _lengths(cu: np.ndarray) -> list[int]:
    return [int(cu[b + 1] - cu[b]) for b in range(B)]


def forward_core(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    mask: int,
    lens: tuple[list[int], list[int]],
    bias: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """O ``[b, s, h, d]`` as what the kernel computes it from: the
    unnormalised sum ``N = Σ exp(s)·V`` and the row sum ``Z`` (``O = N / Z``;
    a row of one key has ``O = V`` whatever Q, yet the kernel reads Q),
    stacked on a last axis; and the statistics ``[b, h, s, 1]``."""
    scores, _ = _attention(q, k, mask, *lens, bias)
    weights = np.where(np.isinf(scores), 0.0, np.exp(np.where(np.isinf(scores), 0.0, scores)))
    _, stats = _softmax(scores, None)
    numerator = np.einsum("bhij,bjhd->bihd", weights, np.repeat(v, H // G, axis=2))
    total = np.broadcast_to(np.einsum("bhij->bih", weights)[..., None], numerator.shape)
    return np.stack([numerator, total], axis=-1), stats


def backward_core(
    qkv: tuple[np.ndarray, np.ndarray, np.ndarray],
    lse: np.ndarray,
    out: np.ndarray,
    d_out: np.ndarray,
    mask: int,
    lens: tuple[list[int], list[int]],
    bias: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """dQ, dK, dV ``[b, s, h, d]`` from the statistics ``[b, h, s, 1]``, O
    and dO; and dS ``[b, h, i, j]``, summed over the dims `bias` is broadcast along."""
    q, k, v = qkv
    scores, _ = _attention(q, k, mask, *lens, bias)
    probabilities, _ = _softmax(scores, lse)
    kv_v = np.repeat(v, H // G, axis=2)
    d_v = np.einsum("bhij,bihd->bjhd", probabilities, d_out)
    d_p = np.einsum("bihd,bjhd->bhij", d_out, kv_v)
    delta = np.einsum("bihd,bihd->bhi", d_out, out)[..., None]
    d_s = probabilities * (d_p - delta) * 0.5
    d_q = np.einsum("bhij,bjhe->bihe", d_s, np.repeat(k, H // G, axis=2))
    d_k = np.einsum("bhij,bihe->bjhe", d_s, q)

    def per_kv_head(x: np.ndarray) -> np.ndarray:
        summed: np.ndarray = x.reshape(B, S, G, H // G, D).sum(axis=3)
        return summed

    d_bias = d_s
    if bias is not None:
        broadcast = tuple(k for k in range(2) if bias.shape[k] == 1)
        d_bias = d_s.sum(axis=broadcast, keepdims=True)
    return d_q, per_kv_head(d_k), per_kv_head(d_v), d_bias


def te_forward(layout: int, mask: int, arrays: list[np.ndarray]) -> list[np.ndarray]:
    q, k, v = _unpack(layout, arrays)
    out, stats = forward_core(q, k, v, mask, (_lengths(arrays[5]), _lengths(arrays[6])))
    return [out, stats]


def te_backward(layout: int, mask: int, arrays: list[np.ndarray]) -> list[np.ndarray]:
    lens = (_lengths(arrays[8]), _lengths(arrays[9]))
    qkv = _unpack(layout, arrays)
    d_q, d_k, d_v, _ = backward_core(qkv, arrays[4], arrays[6], arrays[7], mask, lens)
    if layout == 9:
        return [d_q, d_k, d_v]
    return [d_q, np.stack([d_k, d_v], axis=2)]


def _bhsd(x: np.ndarray) -> np.ndarray:
    return np.swapaxes(x, 1, 2)


def cudnn_forward(mask: int, bias: bool, arrays: list[np.ndarray]) -> list[np.ndarray]:
    """cuDNN: (Q, K, V ``[b, s, h, d]``[, bias][, lengths per batch]); O ``[b, h, s, d]``, stats ``[b, h, s]``."""
    at = 3 + bias
    lens = (
        ([int(n) for n in arrays[at]], [int(n) for n in arrays[at + 1]])
        if mask in (1, 3)
        else _FULL
    )
    added = arrays[3] if bias else None
    out, stats = forward_core(arrays[0], arrays[1], arrays[2], mask, lens, added)
    return [_bhsd(out), stats[..., 0]]


def cudnn_backward(mask: int, bias: bool, arrays: list[np.ndarray]) -> list[np.ndarray]:
    """cuDNN: (Q, K, V, stats, dO[, bias], O[, lengths]); dQ, dK, dV ``[b, h, s, d]``[, dbias]."""
    at = 6 + bias
    lens = (
        ([int(n) for n in arrays[at]], [int(n) for n in arrays[at + 1]])
        if mask in (1, 3)
        else _FULL
    )
    qkv = (arrays[0], arrays[1], arrays[2])
    added = arrays[5] if bias else None
    *grads, d_bias = backward_core(
        qkv, arrays[3][..., None], arrays[5 + bias], arrays[4], mask, lens, added
    )
    return [_bhsd(g) for g in grads] + ([d_bias] if bias else [])


_FULL = ([S] * B, [S] * B)


# ---------------------------------------------------------------- judging

Model: TypeAlias = Callable[[list[np.ndarray]], list[np.ndarray]]


def _length_choices(padding: bool, cumulative: bool) -> list[np.ndarray]:
    """Every length array of B batches of at most S (the full lengths when not padding)."""
    choices = list(itertools.product(range(S + 1), repeat=B)) if padding else [(S,) * B]
    if cumulative:
        return [np.concatenate([[0], np.cumsum(lengths)]) for lengths in choices]
    return [np.array(lengths) for lengths in choices]


def _feasible(lens: np.ndarray, cumulative: bool) -> bool:
    lengths = np.diff(lens) if cumulative else lens
    return bool(np.all((lengths >= 0) & (lengths <= S)))


def _changes(
    model: Model,
    arrays: list[np.ndarray],
    base: list[np.ndarray],
    leaf: int,
    index: tuple[int, ...],
    value: float,
) -> Iterator[tuple[int, tuple[int, ...]]]:
    """The result elements that change when operand `leaf` at `index` becomes `value`."""
    changed = [a.copy() for a in arrays]
    changed[leaf][index] = value
    for out, (before, after) in enumerate(zip(base, model(changed), strict=True)):
        for position in zip(*np.nonzero(np.abs(before - after) > 1e-9), strict=True):
            yield out, tuple(int(p) for p in position)


def _dependence(
    model: Model, shapes: list[tuple[int, ...]], lens: tuple[int, ...], cumulative: bool
) -> set[tuple[int, tuple[int, ...], int, tuple[int, ...]]]:
    """(operand leaf, index, result leaf, index) whose value the operand
    element changes, for some feasible lengths (a length element: changed
    to another feasible value); a result of one more dim than the call's
    (O's stacked components) is compared on its leading dims."""
    rng = np.random.default_rng(7)
    found: set[tuple[int, tuple[int, ...], int, tuple[int, ...]]] = set()
    choices = _length_choices(bool(lens), cumulative)
    for q_lens, kv_lens in itertools.product(choices, repeat=2):
        arrays = [rng.standard_normal(shape) for shape in shapes]
        if lens:
            arrays[lens[0]], arrays[lens[1]] = q_lens, kv_lens
        base = model(arrays)
        for leaf, shape in enumerate(shapes):
            for index in itertools.product(*(range(n) for n in shape)):
                if leaf not in lens:
                    values = [float(arrays[leaf][index]) + 1.0]
                else:
                    values = []
                    for length in range(B * S + 1):
                        trial = arrays[leaf].copy()
                        trial[index] = length
                        if length != arrays[leaf][index] and _feasible(trial, cumulative):
                            values.append(float(length))
                for value in values:
                    for out, position in _changes(model, arrays, base, leaf, index, value):
                        found.add((leaf, index, out, position))
    return found


def _relation(indexing: object) -> frozenset[tuple[tuple[int, ...], tuple[int, ...]]]:
    assert not isinstance(indexing, Undefined), indexing
    assert isinstance(indexing, tuple)
    pairs: set[tuple[tuple[int, ...], tuple[int, ...]]] = set()
    for one in indexing:
        assert isinstance(one, IndexingMap)
        pairs |= one.relation()
    return frozenset(pairs)


def _judge(text: str, model: Model, lens: tuple[int, ...], padding: bool, cumulative: bool) -> None:
    """Every modelled result's maps, both directions, against the model's dependence."""
    module = parse_module(text)
    computation, root = module.entry, module.entry.root
    shapes = [op.shape.dimensions for op in computation.operand_instructions(root)]
    results = [s.dimensions for s in root.shape.tuple_shapes or ()]
    modelled = len(model([np.zeros(s) for s in shapes]))
    expected = _dependence(model, shapes, lens if padding else (), cumulative)
    for out in range(modelled):
        rank = len(results[out])
        o2i = own_output_to_input(computation, root, out)
        for leaf in range(len(shapes)):
            wanted = {(o[:rank], i) for (k, i, r, o) in expected if k == leaf and r == out}
            assert _relation(o2i[leaf]) == wanted, (out, leaf)
            i2o = own_input_to_output(computation, root, leaf)[out]
            assert {(o, i) for i, o in _relation(i2o)} == wanted, (leaf, out)


def _slow_when_padding(padding: bool) -> list[pytest.MarkDecorator]:
    # Padding: every pair of length arrays (256 runs of the model), ~5 s.
    return [pytest.mark.slow] if padding else []


TE_CASES = [
    pytest.param(
        layout,
        mask,
        bwd,
        id=f"{'bwd' if bwd else 'fwd'}-layout{layout}-{_MASKS[mask]}",
        marks=_slow_when_padding(mask in (1, 3)),
    )
    for layout, mask, bwd in [
        (9, 0, False),
        (9, 2, False),
        (7, 3, False),
        (9, 1, False),
        (9, 2, True),
        (7, 0, True),
        (9, 3, True),
    ]
]


@pytest.mark.parametrize(("layout", "mask", "backward_call"), TE_CASES)
def test_transformer_engine_maps_are_the_models_dependence(
    layout: int, mask: int, backward_call: bool
) -> None:
    def model(arrays: list[np.ndarray]) -> list[np.ndarray]:
        return (te_backward if backward_call else te_forward)(layout, mask, arrays)

    lens = (8, 9) if backward_call else (5, 6)
    _judge(_module(layout, mask, backward_call), model, lens, mask in (1, 3), cumulative=True)


def _dims(key: str, lhs: tuple[list[int], list[int]], rhs: tuple[list[int], list[int]]) -> str:
    def text(values: list[int]) -> str:
        return "[" + ", ".join(f'"{v}"' for v in values) + "]"

    return (
        f'"{key}": {{"lhs_contracting_dimensions": {text(lhs[1])}, '
        f'"rhs_contracting_dimensions": {text(rhs[1])}, '
        f'"lhs_batch_dimensions": {text(lhs[0])}, "rhs_batch_dimensions": {text(rhs[0])}}}'
    )


def _cudnn_module(mask: str, backward: bool, bias: bool = False) -> str:
    """A cuDNN fMHA call as XLA writes it: Q, K, V, dO, O ``[b, s, h, d]``,
    results and statistics ``[b, h, s(, d)]``, a bias ``[1, h, s, s]``
    (broadcast along the batch) and its gradient."""
    added = [f"f32[1,{H},{S},{S}]"] if bias else []
    bshd = f"f32[{B},{S},{H},{D}]"
    kv = f"f32[{B},{S},{G},{D}]"
    bhsd = f"f32[{B},{H},{S},{D}]"
    lens = [f"s32[{B}]"] * 2 if "PADDING" in mask else []
    if backward:
        operands = [bshd, kv, kv, f"f32[{B},{H},{S}]", bshd, *added, bshd, *lens]
        gradients = [bhsd, f"f32[{B},{G},{S},{D}]", f"f32[{B},{G},{S},{D}]"]
        results = [*gradients, *added, "u8[0]"]
        target = "__cudnn$fmhaScaleBiasSoftmaxBackward" if bias else "__cudnn$fmhaSoftmaxBackward"
        numbers = [
            _dims("bmm1_grad_gemm1_dot_dimension_numbers", ([0, 1], [2]), ([0, 2], [1])),
            _dims("bmm1_grad_gemm2_dot_dimension_numbers", ([0, 1], [3]), ([0, 2], [1])),
            _dims("bmm2_grad_gemm1_dot_dimension_numbers", ([0, 1], [2]), ([0, 2], [1])),
            _dims("bmm2_grad_gemm2_dot_dimension_numbers", ([0, 2], [3]), ([0, 2], [3])),
        ]
    else:
        operands = [bshd, kv, kv, *added, *lens]
        results = [bhsd, f"f32[{B},{H},{S}]", "u8[0]"]
        target = "__cudnn$fmhaScaleBiasSoftmax" if bias else "__cudnn$fmhaSoftmax"
        numbers = [
            _dims("bmm1_dot_dimension_numbers", ([0, 2], [3]), ([0, 2], [3])),
            _dims("bmm2_dot_dimension_numbers", ([0, 1], [3]), ([0, 2], [1])),
        ]
    config = (
        f'{{"cudnn_fmha_backend_config": {{"fmha_scale": 0.5, "dropout_rate": 0, '
        f'"mask_type": "{mask}", {", ".join(numbers)}, "sliding_window_length": 0}}}}'
    )
    parameters = [f"  p{k} = {shape} parameter({k})" for k, shape in enumerate(operands)]
    names = ", ".join(f"p{k}" for k in range(len(operands)))
    root = (
        f"  ROOT r = ({', '.join(results)}) custom-call({names}), "
        f'custom_call_target="{target}", backend_config={config}'
    )
    return "HloModule m\nENTRY e {\n" + "\n".join([*parameters, root]) + "\n}\n"


_CUDNN_MASKS = {"NO_MASK": 0, "PADDING": 1, "CAUSAL": 2, "PADDING_CAUSAL": 3}


@pytest.mark.parametrize(
    ("mask", "backward_call", "bias"),
    [
        pytest.param(mask, bwd, bias, marks=_slow_when_padding("PADDING" in mask))
        for mask, bwd, bias in [
            ("CAUSAL", False, False),
            ("NO_MASK", True, False),
            ("CAUSAL", False, True),
            ("CAUSAL", True, True),
            ("PADDING_CAUSAL", False, False),
        ]
    ],
)
def test_cudnn_maps_are_the_models_dependence(mask: str, backward_call: bool, bias: bool) -> None:
    def model(arrays: list[np.ndarray]) -> list[np.ndarray]:
        call = cudnn_backward if backward_call else cudnn_forward
        return call(_CUDNN_MASKS[mask], bias, arrays)

    padding = "PADDING" in mask
    lens = tuple(k + bias for k in ((6, 7) if backward_call else (3, 4))) if padding else ()
    _judge(_cudnn_module(mask, backward_call, bias), model, lens, padding, cumulative=False)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (_module(9, 2, False).replace("qkv_layout = 9", "qkv_layout = 4"), "qkv_layout 4"),
        (_module(9, 2, False).replace("mask_type = 2", "mask_type = 6"), "mask_type 6"),
        (_module(9, 2, True).replace("bias_type = 0", "bias_type = 2"), "bias"),
        (
            _module(9, 0, False).replace("0.000000e+00 : f64", "1.000000e-01 : f64"),
            "dropout",
        ),
        (
            _module(9, 2, False).replace("window_size_left = -1", "window_size_left = 2"),
            "sliding window [2, -1]",
        ),
        (_module(9, 0, False).replace("num_gqa_groups = 1", "num_gqa_groups = 2"), "K is"),
        (_module(9, 0, False).replace("qk_head_dim = 2 : i64, ", ""), "no integer qk_head_dim"),
        (
            _cudnn_module("CAUSAL", False).replace(
                '"sliding_window_length": 0', '"sliding_window_length": 2'
            ),
            "sliding window",
        ),
        (_cudnn_module("ALIBI", True), "mask_type ALIBI"),
        (
            _cudnn_module("NO_MASK", False).replace('"dropout_rate": 0', '"dropout_rate": 0.1'),
            "dropout",
        ),
    ],
)
def test_unmodelled_attention_is_undefined_naming_the_reason(text: str, reason: str) -> None:
    module = parse_module(text)
    computation, root = module.entry, module.entry.root
    target = root.attributes.word("custom_call_target")
    for indexing in own_output_to_input(computation, root, 0):
        assert isinstance(indexing, Undefined)
        assert f"custom-call target {target}: " in indexing.reason
        assert reason in indexing.reason, indexing.reason
