"""A held-out corpus of real XLA dumps, and what `verifier` does on it.

The committed dumps (`examples/real/`, `examples/corpus/`) are the programs
the project was tuned on.  This script compiles 49 programs (55 modules)
that are in neither — whole training steps and compositions of the op families rather
than one op each — and writes their HLO *outside* the repository, standing in
for the held-out set the issue's owner measures on:

* ``<name>.hlo``: the optimized module (`jax.jit(f).lower(*args).compile().as_text()`);
* ``spmd_<name>.hlo``: the same on 8 host devices
  (``--xla_force_host_platform_device_count=8``), with `NamedSharding` and
  `shard_map`, so the dumps carry every collective and `partition-id`;
* ``preopt_<name>.hlo``: a few modules as JAX hands them to XLA
  (`lowered.compiler_ir("hlo").as_hlo_text()`), which XLA writes differently.

Two steps, two environments (jax is not a dependency of the project)::

    /work/jaxenv/bin/python benchmarks/heldout.py generate /tmp/heldout
    python -m benchmarks.heldout table /tmp/heldout

``table`` runs what users run on every file, one process per command:
``verifier check --jobs 1 --no-cache FILE`` (its exit code and CPU seconds,
from ``getrusage(RUSAGE_CHILDREN)``), ``verifier maps --all FILE`` and
``verifier utilization FILE`` (exit codes), and times the in-process
`parse_module_file` of the same file, for the check/parse ratio.  It prints
one row per module: instructions, check CPU-s, check/parse (``ratio``; and
``net``, less the CPU of `verifier check` on a one-instruction module, the
start-up every run pays), the three exit codes and the check's findings that
are not proved; then the unsupported findings by reason.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

Program = tuple[Callable[..., Any], tuple[Any, ...]]


# -- generation (runs under the jax environment) -----------------------------------


def _programs() -> dict[str, Callable[[], Program]]:
    """Name → a builder of (function, example arguments); jax imported here."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    def ones(*shape: int, dtype: Any = jnp.float32) -> Any:
        return jnp.ones(shape, dtype=dtype)

    def ramp(*shape: int, modulo: int = 5, dtype: Any = jnp.int32) -> Any:
        size = 1
        for n in shape:
            size *= n
        return (jnp.arange(size) % modulo).astype(dtype).reshape(shape)

    def conv(x: Any, k: Any, stride: Any = (1, 1), padding: Any = "SAME", **kw: Any) -> Any:
        return lax.conv_general_dilated(
            x, k, stride, padding, dimension_numbers=("NHWC", "HWIO", "NHWC"), **kw
        )

    def attention_causal() -> Program:
        def loss(wq: Any, wk: Any, wv: Any, x: Any) -> Any:
            b, t, d = x.shape
            heads = 4
            q = (x @ wq).reshape(b, t, heads, d // heads)
            k = (x @ wk).reshape(b, t, heads, d // heads)
            v = (x @ wv).reshape(b, t, heads, d // heads)
            scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / jnp.sqrt(d // heads)
            mask = jnp.tril(jnp.ones((t, t), dtype=bool))
            scores = jnp.where(mask, scores, -1e9)
            out = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(scores, axis=-1), v)
            return jnp.sum(out.reshape(b, t, d) ** 2)

        return jax.grad(loss, argnums=(0, 1, 2)), (
            ones(32, 32),
            ones(32, 32),
            ones(32, 32),
            ones(2, 16, 32),
        )

    def attention_padding_mask() -> Program:
        def f(q: Any, k: Any, v: Any, lengths: Any) -> Any:
            scores = jnp.einsum("bqd,bkd->bqk", q, k)
            valid = jnp.arange(k.shape[1])[None, None, :] < lengths[:, None, None]
            scores = jnp.where(valid, scores, -jnp.inf)
            return jnp.einsum("bqk,bkd->bqd", jax.nn.softmax(scores, axis=-1), v)

        return f, (ones(3, 8, 16), ones(3, 12, 16), ones(3, 12, 16), ramp(3, modulo=12))

    def gru_scan() -> Program:
        def cell(params: Any, h: Any, x: Any) -> tuple[Any, Any]:
            wz, wr, wh = params
            hx = jnp.concatenate([h, x], axis=-1)
            z = jax.nn.sigmoid(hx @ wz)
            r = jax.nn.sigmoid(hx @ wr)
            cand = jnp.tanh(jnp.concatenate([r * h, x], axis=-1) @ wh)
            h = (1 - z) * h + z * cand
            return h, h

        def f(params: Any, xs: Any) -> Any:
            h0 = jnp.zeros((xs.shape[1], 16))
            _, hs = lax.scan(lambda h, x: cell(params, h, x), h0, xs)
            return hs

        params = (ones(24, 16), ones(24, 16), ones(24, 16))
        return f, (params, ones(7, 4, 8))

    def lstm_scan_grad() -> Program:
        def f(w: Any, xs: Any) -> Any:
            def cell(carry: Any, x: Any) -> tuple[Any, Any]:
                h, c = carry
                gates = jnp.concatenate([h, x], axis=-1) @ w
                i, fg, g, o = jnp.split(gates, 4, axis=-1)
                c = jax.nn.sigmoid(fg) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
                h = jax.nn.sigmoid(o) * jnp.tanh(c)
                return (h, c), h

            zeros = jnp.zeros((xs.shape[1], 8))
            _, hs = lax.scan(cell, (zeros, zeros), xs)
            return jnp.mean(hs**2)

        return jax.grad(f), (ones(12, 32), ones(5, 3, 4))

    def while_dynamic_window() -> Program:
        def f(x: Any, starts: Any) -> Any:
            def body(state: Any) -> Any:
                i, acc = state
                window = lax.dynamic_slice(x, (starts[i], 0), (4, x.shape[1]))
                acc = lax.dynamic_update_slice(acc, window * 2.0, (i * 2, 0))
                return i + 1, acc

            def cond(state: Any) -> Any:
                return state[0] < starts.shape[0]

            return lax.while_loop(cond, body, (0, jnp.zeros((16, x.shape[1]))))[1]

        return f, (ones(20, 6), ramp(6, modulo=16))

    def conv_strided_dilated_grads() -> Program:
        def loss(k: Any, x: Any) -> Any:
            y = conv(x, k, (2, 2), ((1, 2), (0, 1)), rhs_dilation=(2, 1))
            return jnp.sum(jnp.tanh(y))

        return jax.grad(loss, argnums=(0, 1)), (ones(3, 3, 3, 5), ones(2, 11, 10, 3))

    def depthwise_separable_grad() -> Program:
        def loss(dw: Any, pw: Any, x: Any) -> Any:
            y = conv(x, dw, feature_group_count=x.shape[-1])
            y = conv(jax.nn.relu(y), pw)
            return jnp.mean(y**2)

        return jax.grad(loss, argnums=(0, 1, 2)), (
            ones(3, 3, 1, 6),
            ones(1, 1, 6, 4),
            ones(2, 7, 7, 6),
        )

    def batchnorm_train_step() -> Program:
        def loss(params: Any, x: Any) -> Any:
            gamma, beta, k = params
            y = conv(x, k)
            mean = jnp.mean(y, axis=(0, 1, 2))
            var = jnp.var(y, axis=(0, 1, 2))
            y = gamma * (y - mean) * lax.rsqrt(var + 1e-5) + beta
            return jnp.mean(jax.nn.relu(y)), (mean, var)

        def step(params: Any, stats: Any, x: Any) -> Any:
            grads, (mean, var) = jax.grad(loss, has_aux=True)(params, x)
            new_params = tuple(p - 0.1 * g for p, g in zip(params, grads, strict=True))
            new_stats = (0.9 * stats[0] + 0.1 * mean, 0.9 * stats[1] + 0.1 * var)
            return new_params, new_stats

        params = (ones(8), ones(8), ones(3, 3, 4, 8))
        return step, (params, (ones(8), ones(8)), ones(4, 6, 6, 4))

    def pooling_mix_grad() -> Program:
        def loss(x: Any) -> Any:
            mx = lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")
            av = lax.reduce_window(
                x, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), ((0, 0), (1, 1), (0, 1), (0, 0))
            )
            return jnp.sum(mx**2) + jnp.sum(av[:, : mx.shape[1], : mx.shape[2]] * mx)

        return jax.grad(loss), (ones(2, 9, 8, 3),)

    def sort_family() -> Program:
        def f(x: Any, keys: Any) -> Any:
            values, idx = lax.top_k(x, 3)
            return (
                jnp.sort(x, axis=0),
                jnp.argsort(x, axis=-1, descending=True),
                values,
                idx,
                lax.sort((keys, x), num_keys=1),
                jnp.median(x, axis=1),
            )

        return f, (ones(6, 10), ramp(6, 10, modulo=7))

    def gather_take() -> Program:
        def f(table: Any, idx: Any, cols: Any) -> Any:
            return (
                jnp.take(table, idx, axis=0),
                jnp.take(table, idx, axis=1, mode="clip"),
                jnp.take_along_axis(table, cols, axis=1),
                table[idx[:3], ::2],
                jnp.take(table, idx, axis=0, mode="fill", fill_value=-1.0),
            )

        return f, (ones(10, 12), ramp(5, modulo=10), ramp(10, 4, modulo=12))

    def scatter_updates() -> Program:
        def f(x: Any, idx: Any, upd: Any) -> Any:
            return (
                x.at[idx].add(upd),
                x.at[idx].set(upd),
                x.at[idx].max(upd),
                x.at[idx, 1:3].mul(2.0),
                x.at[2:5].min(upd[:3]),
            )

        return f, (ones(9, 5), ramp(4, modulo=9), ones(4, 5))

    def segment_ops() -> Program:
        def f(data: Any, segments: Any) -> Any:
            return (
                jax.ops.segment_sum(data, segments, num_segments=5),
                jax.ops.segment_max(data, segments, num_segments=5),
                jnp.bincount(segments, length=5),
            )

        return f, (ones(12, 3), ramp(12, modulo=5))

    def cumulative() -> Program:
        def f(x: Any) -> Any:
            return (
                jnp.cumsum(x, axis=0),
                jnp.cumprod(x, axis=1),
                lax.cummax(x, axis=1),
                lax.associative_scan(jnp.add, x, axis=1, reverse=True),
            )

        return f, (ones(8, 33),)

    def fft_family() -> Program:
        def f(x: Any) -> Any:
            spectrum = jnp.fft.rfft2(x)
            return jnp.fft.irfft2(spectrum * jnp.conj(spectrum), s=x.shape), jnp.fft.fft(x, axis=0)

        return f, (ones(8, 12),)

    def linalg_family() -> Program:
        def f(a: Any, b: Any) -> Any:
            spd = a @ a.T + 4.0 * jnp.eye(a.shape[0])
            chol = jnp.linalg.cholesky(spd)
            solved = jax.scipy.linalg.solve_triangular(chol, b, lower=True)
            q, r = jnp.linalg.qr(a)
            return solved, q @ r, jnp.linalg.slogdet(spd)[1]

        return f, (ones(6, 6) + jnp.eye(6), ones(6, 3))

    def einsum_chain() -> Program:
        def f(a: Any, b: Any, c: Any, d: Any) -> Any:
            return jnp.einsum("ij,jkl,lm,bim->bk", a, b, c, d, optimize="greedy")

        return f, (ones(5, 6), ones(6, 7, 4), ones(4, 3), ones(2, 5, 3))

    def one_hot_cross_entropy() -> Program:
        def loss(w: Any, x: Any, labels: Any) -> Any:
            logits = x @ w
            target = jax.nn.one_hot(labels, logits.shape[-1])
            return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * target, axis=-1))

        return jax.grad(loss), (ones(16, 10), ones(8, 16), ramp(8, modulo=10))

    def random_ops() -> Program:
        def f(key: Any, x: Any) -> Any:
            k1, k2, k3 = jax.random.split(key, 3)
            keep = jax.random.bernoulli(k1, 0.8, x.shape)
            noise = jax.random.normal(k2, x.shape)
            perm = jax.random.permutation(k3, x.shape[0])
            return jnp.where(keep, x + noise, 0.0)[perm]

        return f, (jax.random.key_data(jax.random.PRNGKey(0)), ones(10, 6))

    def mixed_precision() -> Program:
        def f(w: Any, x: Any, scale: Any) -> Any:
            y = jnp.dot(x.astype(jnp.bfloat16), w.astype(jnp.bfloat16))
            q = jnp.clip(jnp.round(y.astype(jnp.float32) / scale), -127, 127).astype(jnp.int8)
            acc = jnp.dot(q, q.T, preferred_element_type=jnp.int32)
            bits = lax.bitcast_convert_type(y.astype(jnp.float32), jnp.uint32) >> 16
            halves = lax.bitcast_convert_type(x, jnp.uint16)
            return acc, bits.astype(jnp.uint16), halves, q.astype(jnp.float16)

        return f, (ones(12, 8), ones(4, 12), jnp.float32(0.5))

    def complex_ops() -> Program:
        def f(re: Any, im: Any) -> Any:
            z = lax.complex(re, im)
            w = z * jnp.conj(z[::-1]) + jnp.exp(1j * re)
            return jnp.abs(w), jnp.angle(w), jnp.real(z @ z.T), w.astype(jnp.complex64)

        return f, (ones(5, 5), ones(5, 5))

    def shape_chains() -> Program:
        def f(x: Any, y: Any) -> Any:
            a = jnp.pad(x, ((1, 2), (0, 3)), mode="reflect")
            b = jnp.concatenate(
                [a, jnp.flip(a, 0), jnp.pad(a.T, ((0, 1), (0, 0)))[:, : a.shape[1]]], axis=1
            )
            c = jnp.broadcast_to(b[None, :, None, :], (2, *b.shape[:1], 3, b.shape[1]))
            d = jnp.transpose(c, (3, 1, 0, 2)).reshape(-1, 6)
            e = lax.pad(y, 3.0, ((2, -1, 0), (-1, 2, 1)))
            return d[::3] + 1.0, jnp.roll(e, 2, axis=1), jnp.tile(y, (2, 3))

        return f, (ones(6, 5), ones(4, 4))

    def resnet_block_grad() -> Program:
        def loss(k1: Any, k2: Any, x: Any) -> Any:
            y = jax.nn.relu(conv(x, k1))
            y = conv(y, k2)
            y = jax.nn.relu(y + x)
            pooled = jnp.mean(y, axis=(1, 2))
            return jnp.sum(pooled**2)

        return jax.grad(loss, argnums=(0, 1)), (
            ones(3, 3, 4, 4),
            ones(3, 3, 4, 4),
            ones(2, 8, 8, 4),
        )

    def moe_routing() -> Program:
        def f(x: Any, gate: Any, experts: Any) -> Any:
            logits = x @ gate
            weights, chosen = lax.top_k(jax.nn.softmax(logits), 2)
            picked = experts[chosen]  # tokens, 2, d, d
            out = jnp.einsum("td,tkde->tke", x, picked)
            return jnp.sum(out * weights[..., None], axis=1)

        return f, (ones(10, 8), ones(8, 4), ones(4, 8, 8))

    def image_resize() -> Program:
        def f(img: Any) -> Any:
            return (
                jax.image.resize(img, (1, 12, 10, 3), "bilinear"),
                jax.image.resize(img, (1, 3, 4, 3), "nearest"),
            )

        return f, (ones(1, 6, 8, 3),)

    def argmax_variadic() -> Program:
        def f(x: Any) -> Any:
            return jnp.argmax(x, axis=0), jnp.argmin(x, axis=1), jnp.max(x, axis=(0, 1))

        return f, (ones(7, 9, 2),)

    def integer_bits() -> Program:
        def f(x: Any, y: Any) -> Any:
            return (
                (x << 3) ^ (y >> 1),
                lax.population_count(x),
                lax.clz(y),
                jnp.where(x > y, x % 7, y // 3),
                jnp.clip(x, 2, 9),
                lax.shift_right_logical(x, 2),
            )

        return f, (ramp(6, 7, modulo=31), ramp(6, 7, modulo=13))

    def conv_transposed_1d() -> Program:
        def f(x: Any, k: Any) -> Any:
            return lax.conv_transpose(x, k, (3,), "VALID", dimension_numbers=("NWC", "WIO", "NWC"))

        return jax.grad(lambda x, k: jnp.sum(f(x, k) ** 2), argnums=(0, 1)), (
            ones(2, 9, 3),
            ones(4, 3, 5),
        )

    def switch_in_scan() -> Program:
        def f(xs: Any, modes: Any) -> Any:
            def step(carry: Any, inputs: Any) -> tuple[Any, Any]:
                x, mode = inputs
                branches = [lambda c: c + x, lambda c: c * x, lambda c: jnp.maximum(c, x[::-1])]
                carry = lax.switch(mode, branches, carry)
                return carry, carry.sum()

            return lax.scan(step, jnp.zeros(xs.shape[1]), (xs, modes))

        return f, (ones(6, 5), ramp(6, modulo=3))

    def fori_dynamic_update() -> Program:
        def f(grid: Any) -> Any:
            def body(i: Any, g: Any) -> Any:
                row = lax.dynamic_slice_in_dim(g, i, 1, axis=0)
                col = lax.dynamic_index_in_dim(g, i, axis=1, keepdims=True).T
                return lax.dynamic_update_slice_in_dim(g, row + col, i + 1, axis=0)

            return lax.fori_loop(0, grid.shape[0] - 1, body, grid)

        return f, (ones(7, 7),)

    def vmapped_dynamic_slice() -> Program:
        def window(x: Any, start: Any) -> Any:
            return lax.dynamic_slice(x, (start, 0), (3, x.shape[1]))

        return jax.vmap(window), (ones(4, 10, 5), ramp(4, modulo=8))

    def search_unique_nonzero() -> Program:
        def f(sorted_x: Any, queries: Any, x: Any) -> Any:
            return (
                jnp.searchsorted(sorted_x, queries),
                jnp.unique(x, size=6, fill_value=0),
                jnp.nonzero(x > 2, size=5, fill_value=-1)[0],
                jnp.histogram(queries, bins=4, range=(0.0, 10.0))[0],
            )

        return f, (jnp.arange(12.0), jnp.linspace(0.0, 11.0, 7), ramp(10, modulo=5))

    def matrix_structure() -> Program:
        def f(a: Any, v: Any) -> Any:
            return (
                jnp.diag(v),
                jnp.trace(a),
                jnp.diagonal(a, offset=1),
                jnp.triu(a, k=1) + jnp.tril(a, k=-2),
                a[jnp.triu_indices(a.shape[0], k=1)],
                jnp.kron(a[:2, :2], a[:3, :3]),
            )

        return f, (ones(5, 5), ones(5))

    def signal_convolutions() -> Program:
        def f(x: Any, k: Any, img: Any) -> Any:
            return (
                jnp.convolve(x, k, mode="full"),
                jnp.correlate(x, k, mode="same"),
                jax.scipy.signal.convolve2d(img, img[:3, :3], mode="valid"),
                lax.conv_general_dilated_patches(img[None, None], (2, 3), (1, 2), "VALID"),
            )

        return f, (ones(16), ones(5), ones(7, 8))

    def int4_and_precision() -> Program:
        def f(w: Any, x: Any) -> Any:
            packed = w.astype(jnp.int4)
            widened = packed.astype(jnp.int8).astype(jnp.float32)
            y = lax.reduce_precision(x @ widened, exponent_bits=5, mantissa_bits=7)
            return y, packed

        return f, (ramp(8, 6, modulo=7), ones(3, 8))

    def scan_unrolled_checkpointed() -> Program:
        def loss(w: Any, xs: Any) -> Any:
            @jax.checkpoint
            def step(h: Any, x: Any) -> tuple[Any, Any]:
                h = jnp.tanh(h @ w + x)
                return h, h.sum()

            return lax.scan(step, jnp.zeros(w.shape[0]), xs, unroll=2)[1].sum()

        return jax.grad(loss), (ones(6, 6), ones(5, 6))

    def lax_map_batched() -> Program:
        def f(xs: Any) -> Any:
            return lax.map(lambda x: jnp.sort(x) * jnp.arange(x.shape[0]), xs, batch_size=3)

        return f, (ones(9, 7),)

    def approx_top_k() -> Program:
        def f(x: Any) -> Any:
            return lax.approx_max_k(x, 4), lax.approx_min_k(x, 2, reduction_dimension=0)

        return f, (ones(6, 50),)

    def ragged_dot_groups() -> Program:
        def f(lhs: Any, rhs: Any, sizes: Any) -> Any:
            return lax.ragged_dot(lhs, rhs, sizes)

        return f, (ones(10, 4), ones(3, 4, 5), jnp.array([3, 3, 4], dtype=jnp.int32))

    def transformer_adam_step() -> Program:
        """Four pre-norm decoder layers (GELU MLP, causal attention), a
        cross-entropy loss and an Adam update of every parameter: the large
        module of the set (thousands of instructions)."""
        layers, width, heads, vocab = 4, 32, 4, 50

        def layer_norm(x: Any, g: Any) -> Any:
            mean = x.mean(-1, keepdims=True)
            return g * (x - mean) * lax.rsqrt(((x - mean) ** 2).mean(-1, keepdims=True) + 1e-6)

        def loss(params: Any, tokens: Any) -> Any:
            x = params["embed"][tokens]
            t = tokens.shape[1]
            for layer in params["layers"]:
                h = layer_norm(x, layer["g1"])
                q, k, v = jnp.split(h @ layer["qkv"], 3, axis=-1)
                split = lambda a: a.reshape(a.shape[0], t, heads, width // heads)  # noqa: E731
                s = jnp.einsum("bqhd,bkhd->bhqk", split(q), split(k))
                s = jnp.where(jnp.tril(jnp.ones((t, t), dtype=bool)), s, -1e9)
                a = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(s, -1), split(v))
                x = x + a.reshape(x.shape) @ layer["out"]
                x = x + jax.nn.gelu(layer_norm(x, layer["g2"]) @ layer["up"]) @ layer["down"]
            logits = layer_norm(x, params["final"]) @ params["embed"].T
            target = jax.nn.one_hot(jnp.roll(tokens, -1, axis=1), vocab)
            return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * target, -1))

        def step(params: Any, m: Any, v: Any, tokens: Any) -> Any:
            grads = jax.grad(loss)(params, tokens)
            m = jax.tree.map(lambda a, g: 0.9 * a + 0.1 * g, m, grads)
            v = jax.tree.map(lambda a, g: 0.999 * a + 0.001 * g * g, v, grads)
            params = jax.tree.map(lambda p, a, b: p - 1e-3 * a / (jnp.sqrt(b) + 1e-8), params, m, v)
            return params, m, v

        layer = {
            "g1": ones(width),
            "g2": ones(width),
            "qkv": ones(width, 3 * width),
            "out": ones(width, width),
            "up": ones(width, 4 * width),
            "down": ones(4 * width, width),
        }
        params = {
            "embed": ones(vocab, width),
            "final": ones(width),
            "layers": [dict(layer) for _ in range(layers)],
        }
        return step, (params, params, params, ramp(2, 8, modulo=vocab))

    def scan_over_layers() -> Program:
        """A training step of four transformer layers stacked and run by
        `lax.scan` (as Flax's `nn.scan` and MaxText write models): the
        backward scan reads each layer's slice of the stacked parameters at
        the counter and writes its gradient there."""

        def layer(x: Any, p: Any) -> tuple[Any, None]:
            q, k, v = jnp.split(x @ p["qkv"], 3, axis=-1)
            b, t, d = q.shape
            q, k, v = (a.reshape(b, t, 4, d // 4) for a in (q, k, v))
            scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) - 1e9 * (1 - jnp.tril(jnp.ones((t, t))))
            out = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(scores, -1), v)
            y = x + out.reshape(b, t, d) @ p["o"]
            return y + jax.nn.gelu(y @ p["up"]) @ p["down"], None

        def step(params: Any, x: Any) -> Any:
            def loss(params: Any) -> Any:
                return jnp.mean(lax.scan(jax.checkpoint(layer), x, params)[0] ** 2)

            value, grads = jax.value_and_grad(loss)(params)
            return value, jax.tree.map(lambda p, g: p - 0.01 * g, params, grads)

        params = {
            "qkv": ones(4, 32, 96),
            "o": ones(4, 32, 32),
            "up": ones(4, 32, 64),
            "down": ones(4, 64, 32),
        }
        return step, (params, ones(2, 16, 32))

    def nested_fori_update() -> Program:
        """Nested `fori_loop`s writing one element at both counters."""

        def f(x: Any) -> Any:
            def outer(i: Any, a: Any) -> Any:
                def inner(j: Any, b: Any) -> Any:
                    return lax.dynamic_update_slice(b, jnp.ones((1, 1)) * (i + j), (i, j))

                return lax.fori_loop(0, 12, inner, a)

            return lax.fori_loop(0, 12, outer, x)

        return f, (ones(12, 12),)

    def unrolled_layers(layers: int) -> Callable[[], Program]:
        """A training step of `layers` transformer layers unrolled by a
        Python loop, each with its own parameters: at 2 and 8 layers, how
        the check's cost grows with the model (XLA fuses a recomputation
        through every layer into one fusion of a few hundred parameters)."""

        def build() -> Program:
            def layer(p: Any, x: Any) -> Any:
                b, t, d = x.shape
                q, k, v = ((x @ p[w]).reshape(b, t, 4, d // 4) for w in ("q", "k", "v"))
                scores = jnp.einsum("bthd,bshd->bhts", q, k) / 8.0
                out = jnp.einsum("bhts,bshd->bthd", jax.nn.softmax(scores, -1), v)
                z = x + out.reshape(x.shape) + jax.nn.gelu(x @ p["up"]) @ p["down"]
                mean = z.mean(-1, keepdims=True)
                return (z - mean) / jnp.sqrt(((z - mean) ** 2).mean(-1, keepdims=True) + 1e-5)

            def step(params: Any, x: Any) -> Any:
                def loss(params: Any) -> Any:
                    y = x
                    for p in params:
                        y = layer(p, y)
                    return (y**2).sum()

                grads = jax.grad(loss)(params)
                return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)

            shapes = {
                "q": (64, 64),
                "k": (64, 64),
                "v": (64, 64),
                "up": (64, 256),
                "down": (256, 64),
            }
            params = [
                {name: ones(*shape) * (n + 1) for name, shape in shapes.items()}
                for n in range(layers)
            ]
            return step, (params, ones(2, 16, 64))

        return build

    return {
        "unrolled_layers_2": unrolled_layers(2),
        "unrolled_layers_8": unrolled_layers(8),
        "attention_causal": attention_causal,
        "scan_over_layers": scan_over_layers,
        "nested_fori_update": nested_fori_update,
        "attention_padding_mask": attention_padding_mask,
        "gru_scan": gru_scan,
        "lstm_scan_grad": lstm_scan_grad,
        "while_dynamic_window": while_dynamic_window,
        "conv_strided_dilated_grads": conv_strided_dilated_grads,
        "depthwise_separable_grad": depthwise_separable_grad,
        "batchnorm_train_step": batchnorm_train_step,
        "pooling_mix_grad": pooling_mix_grad,
        "sort_family": sort_family,
        "gather_take": gather_take,
        "scatter_updates": scatter_updates,
        "segment_ops": segment_ops,
        "cumulative": cumulative,
        "fft_family": fft_family,
        "linalg_family": linalg_family,
        "einsum_chain": einsum_chain,
        "one_hot_cross_entropy": one_hot_cross_entropy,
        "random_ops": random_ops,
        "mixed_precision": mixed_precision,
        "complex_ops": complex_ops,
        "shape_chains": shape_chains,
        "resnet_block_grad": resnet_block_grad,
        "moe_routing": moe_routing,
        "image_resize": image_resize,
        "argmax_variadic": argmax_variadic,
        "integer_bits": integer_bits,
        "conv_transposed_1d": conv_transposed_1d,
        "switch_in_scan": switch_in_scan,
        "fori_dynamic_update": fori_dynamic_update,
        "vmapped_dynamic_slice": vmapped_dynamic_slice,
        "search_unique_nonzero": search_unique_nonzero,
        "matrix_structure": matrix_structure,
        "signal_convolutions": signal_convolutions,
        "int4_and_precision": int4_and_precision,
        "scan_unrolled_checkpointed": scan_unrolled_checkpointed,
        "lax_map_batched": lax_map_batched,
        "approx_top_k": approx_top_k,
        "ragged_dot_groups": ragged_dot_groups,
        "transformer_adam_step": transformer_adam_step,
    }


def _spmd_programs() -> dict[str, Callable[[], Program]]:
    """SPMD programs on a 2x4 mesh of the 8 host devices."""
    import jax
    import jax.numpy as jnp
    from jax import lax
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    mesh = jax.make_mesh((2, 4), ("data", "model"), axis_types=(jax.sharding.AxisType.Auto,) * 2)

    def placed(spec: P, shape: tuple[int, ...]) -> Any:
        return jax.device_put(jnp.ones(shape), NamedSharding(mesh, spec))

    def shard_map(f: Callable[..., Any], in_specs: Any, out_specs: Any) -> Callable[..., Any]:
        mapped: Callable[..., Any] = jax.shard_map(
            f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=False
        )
        return mapped

    def data_parallel_train() -> Program:
        def loss(w1: Any, w2: Any, x: Any, y: Any) -> Any:
            return jnp.mean((jnp.tanh(x @ w1) @ w2 - y) ** 2)

        def step(w1: Any, w2: Any, x: Any, y: Any) -> Any:
            g1, g2 = jax.grad(loss, argnums=(0, 1))(w1, w2, x, y)
            return w1 - 0.1 * g1, w2 - 0.1 * g2

        return step, (
            placed(P(None, "model"), (16, 32)),
            placed(P("model", None), (32, 8)),
            placed(P("data", None), (8, 16)),
            placed(P("data", None), (8, 8)),
        )

    def sharded_attention() -> Program:
        def f(q: Any, k: Any, v: Any) -> Any:
            s = jnp.einsum("bhqd,bhkd->bhqk", q, k)
            s = jnp.where(jnp.tril(jnp.ones(s.shape[-2:], dtype=bool)), s, -1e9)
            return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(s, -1), v)

        spec = P("data", "model", None, None)
        return f, tuple(placed(spec, (4, 8, 16, 8)) for _ in range(3))

    def sharded_conv() -> Program:
        def f(x: Any, k: Any) -> Any:
            y = lax.conv_general_dilated(
                x, k, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
            )
            return jax.nn.relu(y)

        return f, (placed(P("data", "model", None, None), (4, 16, 8, 3)), placed(P(), (3, 3, 3, 4)))

    def collectives_mix() -> Program:
        def body(a: Any, b: Any) -> Any:
            s = lax.psum(a, "model")
            g = lax.all_gather(b, "data", axis=0, tiled=True)
            r = lax.psum_scatter(a * 2.0, "model", scatter_dimension=1, tiled=True)
            t = lax.all_to_all(b, "model", split_axis=1, concat_axis=0, tiled=True)
            p = lax.ppermute(a, "data", perm=[(0, 1), (1, 0)])
            idx = lax.axis_index("model")
            return s + p + idx, g, r, t

        f = shard_map(
            body,
            in_specs=(P("data", None), P("data", None)),
            out_specs=(P("data", None), P(None, None), P("data", "model"), P("data", None)),
        )
        return f, (jnp.ones((4, 8)), jnp.ones((4, 8)))

    def ring_matmul() -> Program:
        def body(x: Any, w: Any) -> Any:
            def step(i: Any, state: Any) -> Any:
                acc, block = state
                acc = acc + x @ block
                block = lax.ppermute(block, "model", perm=[(j, (j + 1) % 4) for j in range(4)])
                return acc, block

            acc = jnp.zeros((x.shape[0], w.shape[1]))
            return lax.fori_loop(0, 4, step, (acc, w))[0]

        f = shard_map(
            body, in_specs=(P("data", None), P(None, "model")), out_specs=P("data", "model")
        )
        return f, (jnp.ones((8, 6)), jnp.ones((6, 16)))

    return {
        "data_parallel_train": data_parallel_train,
        "sharded_attention": sharded_attention,
        "sharded_conv": sharded_conv,
        "collectives_mix": collectives_mix,
        "ring_matmul": ring_matmul,
    }


PREOPT = (
    "attention_causal",
    "gru_scan",
    "scatter_updates",
    "pooling_mix_grad",
    "collectives_mix",
    "ring_matmul",
)
"""Programs also written as JAX lowers them, before XLA's passes (a
`shard_map` is then Shardy's ``xla.sdy.*`` custom-calls around a call)."""


def generate(directory: Path) -> None:
    """Compile every program and write its HLO into `directory`."""
    os.environ["XLA_FLAGS"] = (
        os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8"
    ).strip()
    import jax

    directory.mkdir(parents=True, exist_ok=True)
    programs = _programs()
    for prefix, table in (("", programs), ("spmd_", _spmd_programs())):
        for name, build in table.items():
            function, args = build()
            lowered = jax.jit(function).lower(*args)
            (directory / f"{prefix}{name}.hlo").write_text(lowered.compile().as_text())
            if name in PREOPT:
                text = lowered.compiler_ir("hlo").as_hlo_text()
                (directory / f"preopt_{prefix}{name}.hlo").write_text(text)


# -- the table (runs under the project's environment) ------------------------------


_BYTECODE = Path("/tmp/heldout-bytecode")


def _run(*arguments: str) -> tuple[int, float, str]:
    """Exit code, CPU seconds and stdout of `python -m verifier ARGUMENTS`,
    its modules byte-compiled once under `_BYTECODE` (an installed tool has
    them compiled: pip compiles on install; under ``PYTHONDONTWRITEBYTECODE``
    every run would compile ~100 modules, 0.25 CPU-s)."""
    import subprocess

    from benchmarks.cpu import children_cpu

    environment = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    environment["PYTHONPYCACHEPREFIX"] = str(_BYTECODE)
    before = children_cpu()
    done = subprocess.run(
        [sys.executable, "-m", "verifier", *arguments],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        env=environment,
    )
    return done.returncode, children_cpu() - before, done.stdout + done.stderr


def _startup_cpu() -> float:
    """CPU seconds of `verifier check` on a one-instruction module: the
    fixed cost (interpreter, imports) every row pays."""
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        tiny = Path(scratch) / "tiny.hlo"
        tiny.write_text("HloModule tiny\nENTRY e {\n  ROOT p = f32[2] parameter(0)\n}\n")
        _run("check", "--jobs", "1", "--no-cache", str(tiny))  # compiles the modules
        return _run("check", "--jobs", "1", "--no-cache", str(tiny))[1]


def table(directory: Path) -> None:
    """Print one row per module of `directory` (see the module docstring)."""
    import json
    from collections import Counter

    from benchmarks.cpu import own_cpu
    from verifier.hlo import parse_module_file

    startup = _startup_cpu()
    print(f"verifier check on a one-instruction module: {startup:.2f} CPU-s (subtracted in 'net')")
    print(
        f"{'module':32} {'instrs':>6} {'check s':>7} {'parse s':>7} {'ratio':>6} {'net':>6} "
        f"{'check':>5} {'maps':>4} {'util':>4}  findings that are not proved (count)"
    )
    total_check = total_parse = 0.0
    unsupported: Counter[str] = Counter()
    for path in sorted(directory.glob("*.hlo")):
        before = own_cpu()
        module = parse_module_file(path)
        parse = own_cpu() - before
        instructions = sum(len(c.instructions) for c in module.computations)
        code, check, output = _run(
            "check", "--jobs", "1", "--no-cache", "--format", "json", str(path)
        )
        maps_code, _, _ = _run("maps", "--all", str(path))
        util_code, _, _ = _run("utilization", str(path))
        notes: Counter[str] = Counter()
        try:
            report = json.loads(output)
        except json.JSONDecodeError:
            notes[output.strip().splitlines()[-1][:80] if output.strip() else "no output"] += 1
        else:
            for finding in report["findings"]:
                if finding["outcome"] == "unsupported":
                    reason = finding["message"].split(":")[1].strip().split(" '")[0][:40]
                    unsupported[reason] += 1
                if finding["outcome"] != "proved":
                    notes[
                        f"{finding['outcome']} {finding['check']}: {finding['message'][:50]}"
                    ] += 1
            for error in report["errors"]:
                notes[f"error: {str(error)[:80]}"] += 1
        total_check += check
        total_parse += parse
        summary = "; ".join(f"{k} ({n})" for k, n in notes.most_common(3))
        print(
            f"{path.stem[:32]:32} {instructions:6} {check:7.2f} {parse:7.3f} "
            f"{check / parse:6.1f} {(check - startup) / parse:6.1f} "
            f"{code:5} {maps_code:4} {util_code:4}  {summary}"
        )
    print(
        f"{'total':32} {'':6} {total_check:7.2f} {total_parse:7.3f} "
        f"{total_check / total_parse:6.1f}"
    )
    print("unsupported findings by reason:")
    for reason, count in unsupported.most_common():
        print(f"  {count:4}  {reason}")


def main(arguments: list[str]) -> None:
    match arguments:
        case ["generate", directory]:
            generate(Path(directory))
        case ["table", directory]:
            table(Path(directory))
        case _:
            raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
