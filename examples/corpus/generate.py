"""Regenerate the corpus of real XLA CPU dumps in this directory.

Every program below is small (small shapes keep each file a few KB) and is
compiled by XLA for the CPU; its optimized HLO
(`jax.jit(f).lower(*args).compile().as_text()`) goes to
`<family>/<name>.hlo`.  The SPMD family runs on 8 host devices
(`XLA_FLAGS=--xla_force_host_platform_device_count=8`, set below before jax
is imported) with `jax.sharding` meshes and `shard_map`, so its dumps carry
`replica_groups=mesh[...]`, iota groups and every collective.  The `dumps`
family is what `--xla_dump_to` writes (`module_NNNN.jit_f.*.txt`), kept as
XLA names the files, with the `.dot` and memory-report files beside them that
`verifier check DIR` must skip.

jax is not a dependency of the project; install it only to regenerate::

    python examples/corpus/generate.py            # every family
    python examples/corpus/generate.py conv spmd  # only these families

`benchmarks/corpus_health.py` reads the whole corpus and prints, per family,
how many modules are analysed, rejected and crashed.
"""

from __future__ import annotations

import os

os.environ["XLA_FLAGS"] = (
    os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8"
).strip()

import shutil
import sys
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

HERE = Path(__file__).resolve().parent

Program = tuple[Callable[..., Any], tuple[Any, ...]]


def ones(*shape: int, dtype: Any = jnp.float32) -> Any:
    return jnp.ones(shape, dtype=dtype)


def ints(*shape: int, modulo: int = 4) -> Any:
    size = 1
    for n in shape:
        size *= n
    return (jnp.arange(size, dtype=jnp.int32) % modulo).reshape(shape)


def conv(x: Any, k: Any, stride: tuple[int, int] = (1, 1), padding: Any = "SAME", **kw: Any) -> Any:
    return lax.conv_general_dilated(
        x, k, stride, padding, dimension_numbers=("NHWC", "HWIO", "NHWC"), **kw
    )


# -- families ------------------------------------------------------------------------

CONV: dict[str, Callable[[], Program]] = {
    "conv_same": lambda: (conv, (ones(1, 6, 6, 2), ones(3, 3, 2, 4))),
    "conv_strided_valid": lambda: (
        partial(conv, stride=(2, 2), padding="VALID"),
        (ones(2, 9, 9, 3), ones(3, 3, 3, 2)),
    ),
    "conv_dilated": lambda: (
        partial(conv, rhs_dilation=(2, 2)),
        (ones(1, 8, 8, 2), ones(3, 3, 2, 2)),
    ),
    "conv_transposed": lambda: (
        lambda x, k: lax.conv_transpose(
            x, k, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
        ),
        (ones(1, 4, 4, 2), ones(3, 3, 2, 3)),
    ),
    "conv_grouped": lambda: (
        partial(conv, feature_group_count=2),
        (ones(1, 6, 6, 4), ones(3, 3, 2, 4)),
    ),
    "conv_depthwise": lambda: (
        partial(conv, feature_group_count=3),
        (ones(1, 5, 5, 3), ones(3, 3, 1, 3)),
    ),
    "conv1d": lambda: (
        lambda x, k: lax.conv_general_dilated(
            x, k, (1,), "SAME", dimension_numbers=("NWC", "WIO", "NWC")
        ),
        (ones(2, 10, 3), ones(3, 3, 4)),
    ),
    "conv_grad": lambda: (
        jax.grad(lambda k, x: jnp.sum(conv(x, k) ** 2)),
        (ones(3, 3, 2, 2), ones(1, 5, 5, 2)),
    ),
    # The kernel gradient of a depthwise convolution is a convolution with
    # batch_group_count = channels; of a grouped one, with feature groups.
    "conv_depthwise_kernel_grad": lambda: (
        jax.grad(lambda k, x: jnp.sum(conv(x, k, feature_group_count=4) ** 2)),
        (ones(3, 3, 1, 4), ones(2, 6, 6, 4)),
    ),
    "conv_grouped_input_grad": lambda: (
        jax.grad(lambda x, k: jnp.sum(conv(x, k, (2, 2), feature_group_count=2) ** 2)),
        (ones(1, 7, 7, 4), ones(3, 3, 2, 6)),
    ),
    "conv_batch_groups": lambda: (
        jax.grad(lambda k, x: jnp.sum(conv(x, k, feature_group_count=4) ** 2)),
        (ones(3, 3, 1, 4), ones(2, 6, 6, 4)),
    ),
    "conv3d": lambda: (
        lambda x, k: lax.conv_general_dilated(
            x, k, (1, 2, 1), "SAME", dimension_numbers=("NDHWC", "DHWIO", "NDHWC")
        ),
        (ones(1, 4, 6, 5, 2), ones(2, 3, 3, 2, 3)),
    ),
    "conv_lhs_rhs_dilated": lambda: (
        partial(conv, padding=((1, 1), (2, 0)), lhs_dilation=(2, 1), rhs_dilation=(1, 2)),
        (ones(1, 5, 6, 2), ones(3, 2, 2, 3)),
    ),
}

POOLING: dict[str, Callable[[], Program]] = {
    "max_pool": lambda: (
        lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID"),
        (ones(1, 6, 6, 2),),
    ),
    "avg_pool_same": lambda: (
        lambda x: lax.reduce_window(x, 0.0, lax.add, (1, 3, 3, 1), (1, 1, 1, 1), "SAME") / 9.0,
        (ones(1, 5, 5, 2),),
    ),
    "max_pool_grad": lambda: (
        jax.grad(
            lambda x: jnp.sum(
                lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
            )
        ),
        (ones(1, 4, 4, 1),),
    ),
    "global_mean": lambda: (lambda x: jnp.mean(x, axis=(1, 2)), (ones(2, 4, 4, 3),)),
    "dilated_window": lambda: (
        lambda x: lax.reduce_window(
            x, 0.0, lax.add, (2, 3), (1, 2), ((1, 0), (0, 2)), window_dilation=(2, 1)
        ),
        (ones(7, 9),),
    ),
}

LOOPS: dict[str, Callable[[], Program]] = {
    "scan_cumulative": lambda: (
        lambda xs: lax.scan(lambda c, x: (c + x, c * x), 0.0, xs),
        (ones(8),),
    ),
    "fori_loop": lambda: (
        lambda x: lax.fori_loop(0, 5, lambda i, acc: acc * 2.0 + i, x),
        (ones(4),),
    ),
    "while_loop": lambda: (
        lambda x: lax.while_loop(lambda s: s[0] < 10, lambda s: (s[0] + 1, s[1] * 1.5), (0, x)),
        (ones(3),),
    ),
    "scan_rnn": lambda: (
        lambda w, xs: lax.scan(lambda h, x: (jnp.tanh(h @ w + x), h), jnp.zeros(4), xs),
        (ones(4, 4), ones(5, 4)),
    ),
    "scan_grad": lambda: (
        jax.grad(
            lambda w, xs: jnp.sum(lax.scan(lambda h, x: (jnp.tanh(h * w + x), h), 0.0, xs)[1])
        ),
        (jnp.float32(0.5), ones(6)),
    ),
    "associative_scan": lambda: (
        lambda x: lax.associative_scan(jnp.add, x, axis=1),
        (ones(2, 7),),
    ),
    "scan_of_cond": lambda: (
        lambda xs: lax.scan(
            lambda c, x: (lax.cond(x > 0.5, lambda v: v + x, lambda v: v * x, c), c), 0.0, xs
        ),
        (ones(5),),
    ),
}

COND: dict[str, Callable[[], Program]] = {
    "cond": lambda: (
        lambda p, x: lax.cond(p > 0, lambda v: v * 2.0, lambda v: v - 1.0, x),
        (jnp.int32(1), ones(4)),
    ),
    "switch": lambda: (
        lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, jnp.tanh], x),
        (jnp.int32(1), ones(3)),
    ),
    "select_where": lambda: (lambda x: jnp.where(x > 0.5, x, -x), (ones(5, 3),)),
}

SORT: dict[str, Callable[[], Program]] = {
    "sort": lambda: (lambda x: jnp.sort(x, axis=-1), (ones(4, 6),)),
    "argsort": lambda: (jnp.argsort, (ones(7),)),
    "top_k": lambda: (lambda x: lax.top_k(x, 2), (ones(3, 8),)),
    "sort_key_value": lambda: (lambda k, v: lax.sort((k, v), num_keys=1), (ones(6), ints(6))),
    "median": lambda: (lambda x: jnp.median(x, axis=0), (ones(5, 3),)),
}

FFT: dict[str, Callable[[], Program]] = {
    "fft": lambda: (jnp.fft.fft, (ones(8, dtype=jnp.complex64),)),
    "rfft": lambda: (jnp.fft.rfft, (ones(8),)),
    "irfft": lambda: (jnp.fft.irfft, (ones(5, dtype=jnp.complex64),)),
    "fft2": lambda: (jnp.fft.fft2, (ones(4, 4, dtype=jnp.complex64),)),
}

GATHER_SCATTER: dict[str, Callable[[], Program]] = {
    "take": lambda: (lambda x, i: x[i], (ones(10, 3), ints(4))),
    "take_along_axis": lambda: (
        lambda x, i: jnp.take_along_axis(x, i, axis=1),
        (ones(3, 5), ints(3, 2)),
    ),
    "scatter_add": lambda: (lambda x, i, u: x.at[i].add(u), (ones(6, 2), ints(3), ones(3, 2))),
    "scatter_set": lambda: (lambda x, i, u: x.at[i].set(u), (ones(6), ints(2), ones(2))),
    "segment_sum": lambda: (
        lambda d, s: jax.ops.segment_sum(d, s, num_segments=3),
        (ones(6, 2), ints(6, modulo=3)),
    ),
    "gather_grad": lambda: (jax.grad(lambda x, i: jnp.sum(x[i] ** 2)), (ones(5, 2), ints(3))),
    # vmap of an indexing op: gathers and scatters with batching dims.
    "vmap_dynamic_slice": lambda: (
        jax.vmap(lambda x, i: lax.dynamic_slice(x, (i, 0), (2, 3))),
        (ones(4, 6, 3), ints(4)),
    ),
    "vmap_scatter_add": lambda: (
        jax.vmap(lambda x, i, u: x.at[i].add(u)),
        (ones(3, 6, 2), ints(3, 4), ones(3, 4, 2)),
    ),
    "embedding_grad": lambda: (
        jax.grad(lambda table, ids: jnp.sum(jnp.tanh(table[ids]) ** 2)),
        (ones(10, 4), ints(2, 3, modulo=10)),
    ),
    "one_hot": lambda: (lambda i: jax.nn.one_hot(i, 5), (ints(6, modulo=5),)),
}

REDUCTIONS: dict[str, Callable[[], Program]] = {
    "cumsum": lambda: (lambda x: jnp.cumsum(x, axis=0), (ones(8, 2),)),
    "cumprod": lambda: (jnp.cumprod, (ones(6),)),
    "cummax": lambda: (lambda x: lax.cummax(x, axis=0), (ones(5),)),
    "argmax": lambda: (lambda x: jnp.argmax(x, axis=1), (ones(3, 7),)),
    "logsumexp": lambda: (lambda x: jax.nn.logsumexp(x, axis=-1), (ones(4, 5),)),
}

LINALG: dict[str, Callable[[], Program]] = {
    "einsum_batched": lambda: (
        lambda a, b: jnp.einsum("bij,bjk->bik", a, b),
        (ones(2, 3, 4), ones(2, 4, 5)),
    ),
    "einsum_outer": lambda: (lambda a, b: jnp.einsum("i,j->ij", a, b), (ones(3), ones(4))),
    "einsum_trace": lambda: (lambda a: jnp.einsum("ii->", a), (ones(4, 4),)),
    "matvec": lambda: (lambda m, v: m @ v, (ones(5, 3), ones(3))),
    "attention": lambda: (
        lambda q, k, v: jax.nn.dot_product_attention(q, k, v),
        (ones(1, 4, 2, 8), ones(1, 4, 2, 8), ones(1, 4, 2, 8)),
    ),
    "causal_attention": lambda: (
        lambda q, k, v: jax.nn.dot_product_attention(q, k, v, is_causal=True),
        (ones(1, 5, 1, 4), ones(1, 5, 1, 4), ones(1, 5, 1, 4)),
    ),
    "cholesky": lambda: (jnp.linalg.cholesky, (jnp.eye(3) * 2.0,)),
    "triangular_solve": lambda: (
        lambda a, b: jax.scipy.linalg.solve_triangular(a, b, lower=True),
        (jnp.eye(3) + 1.0, ones(3, 2)),
    ),
}

NORMALISATION: dict[str, Callable[[], Program]] = {
    "layer_norm": lambda: (
        lambda x: (x - x.mean(-1, keepdims=True)) * lax.rsqrt(x.var(-1, keepdims=True) + 1e-5),
        (ones(4, 8),),
    ),
    "layer_norm_grad": lambda: (
        jax.grad(
            lambda x: jnp.sum((x - x.mean(-1, keepdims=True)) / (x.std(-1, keepdims=True) + 1.0))
        ),
        (ones(3, 6),),
    ),
    "batch_norm": lambda: (
        lambda x: (x - x.mean(0)) / jnp.sqrt(x.var(0) + 1e-5),
        (ones(6, 4),),
    ),
    "softmax_bf16": lambda: (lambda x: jax.nn.softmax(x), (ones(3, 9, dtype=jnp.bfloat16),)),
}

RANDOM: dict[str, Callable[[], Program]] = {
    "uniform": lambda: (
        lambda k: jax.random.uniform(k, (4, 3)),
        (jax.random.key_data(jax.random.key(0)),),
    ),
    "normal": lambda: (
        lambda k: jax.random.normal(jax.random.wrap_key_data(k), (5,)),
        (jax.random.key_data(jax.random.key(1)),),
    ),
    "dropout": lambda: (
        lambda k, x: jnp.where(
            jax.random.bernoulli(jax.random.wrap_key_data(k), 0.9, x.shape), x / 0.9, 0.0
        ),
        (jax.random.key_data(jax.random.key(2)), ones(4, 4)),
    ),
    "rng_bit_generator": lambda: (
        lambda s: lax.rng_bit_generator(s, (3, 4)),
        (
            jnp.zeros((2,), dtype=jnp.uint64)
            if jax.config.jax_enable_x64
            else jnp.zeros((4,), dtype=jnp.uint32),
        ),
    ),
}

DYNAMIC: dict[str, Callable[[], Program]] = {
    "dynamic_slice": lambda: (
        lambda x, i: lax.dynamic_slice(x, (i, 0), (2, 3)),
        (ones(6, 3), jnp.int32(2)),
    ),
    "dynamic_update_slice": lambda: (
        lambda x, u, i: lax.dynamic_update_slice(x, u, (i, i)),
        (ones(5, 5), ones(2, 2), jnp.int32(1)),
    ),
    "dynamic_index": lambda: (lambda x, i: x[i], (ones(7, 2), jnp.int32(3))),
    "roll": lambda: (lambda x, s: jnp.roll(x, s), (ones(6), jnp.int32(2))),
}

CUSTOM: dict[str, Callable[[], Program]] = {
    "custom_vjp": lambda: (jax.grad(lambda x: jnp.sum(_clip_gradient(x) ** 2)), (ones(4),)),
    "checkpoint": lambda: (
        jax.grad(lambda x: jnp.sum(jax.checkpoint(lambda v: jnp.sin(v) * jnp.cos(v))(x))),
        (ones(5),),
    ),
    "vmap_matmul": lambda: (jax.vmap(lambda a, b: a @ b), (ones(3, 2, 4), ones(3, 4, 2))),
    "convert_types": lambda: (
        lambda x: (x.astype(jnp.int8), x.astype(jnp.bfloat16), x.astype(jnp.int32) >> 1),
        (ones(4),),
    ),
    "reverse_transpose": lambda: (lambda x: jnp.flip(x, 0).T, (ones(3, 4),)),
    "concat_pad_slice": lambda: (
        lambda a, b: jnp.pad(jnp.concatenate([a, b]), (1, 2))[1:-1:2],
        (ones(3), ones(4)),
    ),
    "iota_clamp": lambda: (lambda x: jnp.clip(x + jnp.arange(6.0), 1.0, 4.0), (ones(6),)),
}


@jax.custom_vjp
def _clip_gradient(x: Any) -> Any:
    return x


def _clip_forward(x: Any) -> tuple[Any, None]:
    return x, None


def _clip_backward(_: None, g: Any) -> tuple[Any]:
    return (jnp.clip(g, -1.0, 1.0),)


_clip_gradient.defvjp(_clip_forward, _clip_backward)


# -- SPMD on 8 host devices -----------------------------------------------------------


def _mesh(*axes: tuple[str, int]) -> Mesh:
    shape = tuple(size for _, size in axes)
    devices = jax.devices()[: int(jnp.prod(jnp.array(shape)))]
    names = tuple(name for name, _ in axes)
    auto = (jax.sharding.AxisType.Auto,) * len(axes)
    return jax.make_mesh(shape, names, devices=devices, axis_types=auto)


def _sharded(mesh: Mesh, spec: P, array: Any) -> Any:
    return jax.device_put(array, NamedSharding(mesh, spec))


def spmd_matmul() -> Program:
    mesh = _mesh(("data", 4), ("model", 2))
    x = _sharded(mesh, P("data", None), ones(8, 4))
    w = _sharded(mesh, P(None, "model"), ones(4, 6))
    return (lambda a, b: jnp.tanh(a @ b).sum(axis=0)), (x, w)


def spmd_reduce_all() -> Program:
    mesh = _mesh(("x", 2), ("y", 2), ("z", 2))
    return (lambda a: jnp.sum(a)), (_sharded(mesh, P(("x", "y"), "z"), ones(8, 4)),)


def _shard_map(
    mesh: Mesh, f: Callable[..., Any], in_specs: Any, out_specs: Any, *arrays: Any
) -> Program:
    """`shard_map(f)` with `arrays` placed as `in_specs` says (jax wants them so)."""
    specs = in_specs if isinstance(in_specs, tuple) else (in_specs,)
    placed = tuple(_sharded(mesh, spec, array) for spec, array in zip(specs, arrays, strict=True))
    shard = jax.shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=False)
    return shard, placed


def spmd_psum() -> Program:
    mesh = _mesh(("i", 2), ("j", 4))
    return _shard_map(mesh, lambda a: lax.psum(a, "j"), P("i", "j"), P("i", None), ones(4, 8))


def spmd_all_gather() -> Program:
    mesh = _mesh(("i", 8))
    return _shard_map(mesh, lambda a: lax.all_gather(a, "i", tiled=True), P("i"), P(None), ones(16))


def spmd_ppermute() -> Program:
    mesh = _mesh(("i", 8))
    pairs = [(k, (k + 1) % 8) for k in range(8)]
    return _shard_map(mesh, lambda a: lax.ppermute(a, "i", pairs), P("i"), P("i"), ones(16))


def spmd_reduce_scatter() -> Program:
    mesh = _mesh(("i", 4), ("j", 2))
    return _shard_map(
        mesh, lambda a: lax.psum_scatter(a, "i", tiled=True), P(None, "j"), P("i", "j"), ones(8, 4)
    )


def spmd_all_to_all() -> Program:
    mesh = _mesh(("i", 4), ("j", 2))
    return _shard_map(
        mesh,
        lambda a: lax.all_to_all(a, "i", split_axis=0, concat_axis=1, tiled=True),
        P(None, "i"),
        P("i", None),
        ones(8, 8),
    )


def spmd_pmean_grad() -> Program:
    mesh = _mesh(("data", 8))

    def step(w: Any, x: Any) -> Any:
        g = jax.grad(lambda v: jnp.sum((x @ v) ** 2))(w)
        return w - 0.1 * lax.pmean(g, "data")

    return _shard_map(
        mesh, step, (P(None, None), P("data", None)), P(None, None), ones(4, 2), ones(16, 4)
    )


def spmd_mlp() -> Program:
    mesh = _mesh(("data", 2), ("model", 4))

    def step(w1: Any, w2: Any, x: Any) -> Any:
        def loss(a: Any, b: Any) -> Any:
            return jnp.mean(jax.nn.relu(x @ a) @ b)

        g1, g2 = jax.grad(loss, argnums=(0, 1))(w1, w2)
        return w1 - 0.1 * g1, w2 - 0.1 * g2

    w1 = _sharded(mesh, P(None, "model"), ones(8, 16))
    w2 = _sharded(mesh, P("model", None), ones(16, 4))
    x = _sharded(mesh, P("data", None), ones(4, 8))
    return step, (w1, w2, x)


def spmd_axis_index() -> Program:
    mesh = _mesh(("i", 2), ("j", 4))
    return _shard_map(
        mesh,
        lambda a: a * lax.axis_index("j") + lax.pmax(a, ("i", "j")),
        P("i", "j"),
        P("i", "j"),
        ones(4, 8),
    )


def spmd_transformer_block() -> Program:
    """A pre-norm attention block, heads over "model" and the batch over "data"."""
    mesh = _mesh(("data", 2), ("model", 4))

    def block(x: Any, wqkv: Any, wo: Any) -> Any:
        h = (x - x.mean(-1, keepdims=True)) * lax.rsqrt(x.var(-1, keepdims=True) + 1e-5)
        q, k, v = jnp.split(jnp.einsum("bsd,dhe->bshe", h, wqkv), 3, axis=-1)
        scores = jax.nn.softmax(jnp.einsum("bqhe,bkhe->bhqk", q, k) / 2.0, axis=-1)
        return x + jnp.einsum("bhqk,bkhe,hed->bqd", scores, v, wo)

    x = _sharded(mesh, P("data", None, None), ones(4, 6, 8))
    wqkv = _sharded(mesh, P(None, "model", None), ones(8, 4, 6))
    wo = _sharded(mesh, P("model", None, None), ones(4, 2, 8))
    return jax.grad(lambda *a: jnp.sum(block(*a) ** 2), argnums=(1, 2)), (x, wqkv, wo)


def spmd_2d_sharded_conv() -> Program:
    mesh = _mesh(("data", 4), ("model", 2))
    x = _sharded(mesh, P("data", None, None, None), ones(8, 6, 6, 2))
    k = _sharded(mesh, P(None, None, None, "model"), ones(3, 3, 2, 4))
    return (lambda a, b: jnp.sum(jax.nn.relu(conv(a, b)), axis=(1, 2))), (x, k)


def spmd_psum_scatter_2d() -> Program:
    mesh = _mesh(("i", 2), ("j", 4))
    return _shard_map(
        mesh,
        lambda a: lax.psum_scatter(a, "j", scatter_dimension=1, tiled=True) * 2.0,
        P("i", None),
        P("i", "j"),
        ones(4, 8),
    )


SPMD: dict[str, Callable[[], Program]] = {
    "spmd_matmul": spmd_matmul,
    "spmd_reduce_all": spmd_reduce_all,
    "spmd_psum": spmd_psum,
    "spmd_all_gather": spmd_all_gather,
    "spmd_ppermute": spmd_ppermute,
    "spmd_reduce_scatter": spmd_reduce_scatter,
    "spmd_all_to_all": spmd_all_to_all,
    "spmd_pmean_grad": spmd_pmean_grad,
    "spmd_mlp": spmd_mlp,
    "spmd_axis_index": spmd_axis_index,
    "spmd_transformer_block": spmd_transformer_block,
    "spmd_2d_sharded_conv": spmd_2d_sharded_conv,
    "spmd_psum_scatter_2d": spmd_psum_scatter_2d,
}

FAMILIES: dict[str, dict[str, Callable[[], Program]]] = {
    "conv": CONV,
    "pooling": POOLING,
    "loops": LOOPS,
    "cond": COND,
    "sort": SORT,
    "fft": FFT,
    "gather_scatter": GATHER_SCATTER,
    "reductions": REDUCTIONS,
    "linalg": LINALG,
    "normalisation": NORMALISATION,
    "random": RANDOM,
    "dynamic": DYNAMIC,
    "custom": CUSTOM,
    "spmd": SPMD,
}

UNOPTIMIZED = frozenset({"conv_batch_groups"})
"""Programs kept as JAX lowers them (`as_text(dialect="hlo")`), before XLA's
passes: the CPU compiler rewrites a batch-grouped convolution away."""

DUMPED = {"mlp": (lambda w, x: jnp.tanh(x @ w).sum(), (ones(4, 3), ones(2, 4)))}
"""Programs whose `--xla_dump_to` directory is kept whole (minus large files)."""


def write_family(family: str) -> None:
    """Compile every program of `family` and write `family/<name>.hlo`."""
    directory = HERE / family
    directory.mkdir(exist_ok=True)
    for name, build in FAMILIES[family].items():
        function, args = build()
        lowered = jax.jit(function).lower(*args)
        text = (
            lowered.as_text(dialect="hlo") if name in UNOPTIMIZED else lowered.compile().as_text()
        )
        assert text is not None, f"XLA printed no HLO for {name}"
        (directory / f"{name}.hlo").write_text(text, encoding="utf-8")


def write_dumps() -> None:
    """What `--xla_dump_to` writes for one jit program, as XLA names the files.

    The dump flags only take effect when the backend starts, so the program
    runs in a child process with `XLA_FLAGS=--xla_dump_to=...`.
    """
    import subprocess

    directory = HERE / "dumps"
    shutil.rmtree(directory, ignore_errors=True)
    with tempfile.TemporaryDirectory() as scratch:
        flags = f"--xla_dump_to={scratch} --xla_dump_hlo_as_text --xla_dump_hlo_as_dot"
        script = (
            "import jax, jax.numpy as jnp\n"
            "f = jax.jit(lambda w, x: jnp.tanh(x @ w).sum())\n"
            "f(jnp.ones((4, 3)), jnp.ones((2, 4))).block_until_ready()\n"
        )
        subprocess.run(
            [sys.executable, "-c", script],
            check=True,
            env={**os.environ, "XLA_FLAGS": flags},
        )
        directory.mkdir()
        # Only the program's module (jax also dumps its tiny helper jits), and
        # no object code or LLVM IR: they are large and say nothing new.
        for path in sorted(Path(scratch).glob("module_*.jit__lambda.*")):
            if path.suffix not in (".o", ".ll") and path.stat().st_size < 64_000:
                shutil.copy(path, directory / path.name)


def main(names: list[str]) -> None:
    for family in names or [*FAMILIES, "dumps"]:
        if family == "dumps":
            write_dumps()
        else:
            write_family(family)


if __name__ == "__main__":
    main(sys.argv[1:])
