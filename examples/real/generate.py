"""Regenerate the real XLA dumps in this directory.

Each program below is compiled by XLA for the CPU and its optimized HLO
(`jax.jit(f).lower(*args).compile().as_text()`) is written to `<name>.hlo`.
These are the modules as XLA prints them — fusions, layouts, metadata,
backend configs, the FileNames/StackFrames sections — and the parser tests
read every one of them.

jax is not a dependency of the project; install it only to regenerate::

    pip install jax jaxlib
    python examples/real/generate.py            # writes examples/real/*.hlo
    python examples/real/generate.py softmax    # writes only softmax.hlo

The output depends on the jax/XLA version (recorded in README.md); small
shapes keep each file small.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

HERE = Path(__file__).resolve().parent


def mlp_train_step() -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """Two-layer MLP: forward, mean-squared loss, backward, SGD update."""

    def loss(params: Any, x: Any, y: Any) -> Any:
        w1, b1, w2, b2 = params
        hidden = jax.nn.relu(x @ w1 + b1)
        return jnp.mean((hidden @ w2 + b2 - y) ** 2)

    def step(params: Any, x: Any, y: Any) -> Any:
        grads = jax.grad(loss)(params, x, y)
        return tuple(p - 0.01 * g for p, g in zip(params, grads, strict=True))

    params = (jnp.ones((16, 32)), jnp.ones((32,)), jnp.ones((32, 8)), jnp.ones((8,)))
    return step, (params, jnp.ones((4, 16)), jnp.ones((4, 8)))


def softmax() -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """Numerically stable softmax over the last axis of a rank-3 array."""
    return (lambda x: jax.nn.softmax(x, axis=-1)), (jnp.ones((2, 65, 125)),)


def cnn_step() -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """Conv 3x3 (stride 1, SAME) + ReLU + 2x2 max pool + dense, with its gradient."""

    def loss(kernel: Any, dense: Any, images: Any, labels: Any) -> Any:
        conv = lax.conv_general_dilated(
            images, kernel, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
        )
        pooled = lax.reduce_window(
            jax.nn.relu(conv), -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID"
        )
        logits = pooled.reshape(pooled.shape[0], -1) @ dense
        return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * labels, axis=-1))

    def step(kernel: Any, dense: Any, images: Any, labels: Any) -> Any:
        gk, gd = jax.grad(loss, argnums=(0, 1))(kernel, dense, images, labels)
        return kernel - 0.1 * gk, dense - 0.1 * gd

    args = (
        jnp.ones((3, 3, 1, 4)),
        jnp.ones((4 * 4 * 4, 10)),
        jnp.ones((2, 8, 8, 1)),
        jnp.ones((2, 10)),
    )
    return step, args


def embedding_step() -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """Embedding lookup (gather) and its gradient (scatter-add into the table)."""

    def loss(table: Any, ids: Any) -> Any:
        return jnp.sum(jnp.tanh(table[ids]))

    def step(table: Any, ids: Any) -> Any:
        return table - 0.1 * jax.grad(loss)(table, ids)

    return step, (jnp.ones((50, 8)), jnp.arange(12, dtype=jnp.int32).reshape(3, 4) % 50)


def sort_topk() -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """A stable sort along an axis, an argsort, and top-k."""

    def f(x: Any) -> Any:
        values, indices = lax.top_k(x, 3)
        return jnp.sort(x, axis=0), jnp.argsort(x[:, 0]), values, indices

    return f, (jnp.ones((6, 10)),)


def layer_norm() -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """Layer normalisation with scale and bias over the last axis."""

    def f(x: Any, scale: Any, bias: Any) -> Any:
        mean = jnp.mean(x, axis=-1, keepdims=True)
        variance = jnp.mean((x - mean) ** 2, axis=-1, keepdims=True)
        return (x - mean) * lax.rsqrt(variance + 1e-5) * scale + bias

    return f, (jnp.ones((8, 32)), jnp.ones((32,)), jnp.ones((32,)))


def dynamic_loop() -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """A fori_loop reading a window with dynamic-slice and writing with dynamic-update-slice."""

    def f(buffer: Any, source: Any) -> Any:
        def body(i: Any, acc: Any) -> Any:
            window = lax.dynamic_slice(source, (i * 2, 0), (2, 16))
            return lax.dynamic_update_slice(acc, window * 2.0, (i * 2, 0))

        return lax.fori_loop(0, 4, body, buffer)

    return f, (jnp.zeros((8, 16)), jnp.ones((8, 16)))


def concat_pad() -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """Concatenate three arrays, then pad (edge, interior and negative padding)."""

    def f(a: Any, b: Any, c: Any) -> Any:
        joined = jnp.concatenate([a, b, c], axis=1)
        return lax.pad(joined, 0.0, ((1, 2, 0), (-1, 3, 1)))

    return f, (jnp.ones((4, 5)), jnp.ones((4, 11)), jnp.ones((4, 17)))


def einsum_heads() -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """Multi-head attention scores: reshape into heads, transpose, batched einsum."""

    def f(q: Any, k: Any) -> Any:
        batch, length, width = q.shape
        heads = 4
        qh = q.reshape(batch, length, heads, width // heads)
        kh = k.reshape(batch, length, heads, width // heads)
        scores = jnp.einsum("bqhd,bkhd->bhqk", qh, kh)
        return scores.transpose(0, 2, 1, 3).reshape(batch, length, heads * length)

    return f, (jnp.ones((2, 6, 16)), jnp.ones((2, 6, 16)))


def transformer_train_step() -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """A decoder-only transformer training step (the target-size module of the performance targets).

    Token embeddings (gather) plus learned positions, LAYERS pre-norm decoder
    layers (layer norm, causal multi-head attention with softmax, GELU MLP),
    a final layer norm, tied output projection, cross-entropy loss over the
    vocabulary, the backward pass, and an Adam update of every parameter.
    """
    vocab, width, heads, length, batch, layers = 64, 32, 4, 16, 2, 2
    head_width = width // heads

    def layer_norm(x: Any, scale: Any, bias: Any) -> Any:
        mean = jnp.mean(x, axis=-1, keepdims=True)
        variance = jnp.mean((x - mean) ** 2, axis=-1, keepdims=True)
        return (x - mean) * lax.rsqrt(variance + 1e-5) * scale + bias

    def attention(x: Any, layer: Any) -> Any:
        q, k, v = ((x @ layer[name]).reshape(batch, length, heads, head_width) for name in "qkv")
        scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / jnp.sqrt(float(head_width))
        causal = jnp.tril(jnp.ones((length, length), dtype=bool))
        weights = jax.nn.softmax(jnp.where(causal, scores, -1e9), axis=-1)
        mixed = jnp.einsum("bhqk,bkhd->bqhd", weights, v).reshape(batch, length, width)
        return mixed @ layer["o"]

    def forward(params: Any, tokens: Any) -> Any:
        x = params["embedding"][tokens] + params["position"][None]
        for layer in params["layers"]:
            x = x + attention(layer_norm(x, layer["ln1_scale"], layer["ln1_bias"]), layer)
            hidden = layer_norm(x, layer["ln2_scale"], layer["ln2_bias"])
            x = x + jax.nn.gelu(hidden @ layer["up"] + layer["up_bias"]) @ layer["down"]
        return layer_norm(x, params["ln_scale"], params["ln_bias"]) @ params["embedding"].T

    def loss(params: Any, tokens: Any, targets: Any) -> Any:
        log_probs = jax.nn.log_softmax(forward(params, tokens), axis=-1)
        picked = jnp.take_along_axis(log_probs, targets[..., None], axis=-1)
        return -jnp.mean(picked)

    def step(params: Any, moments: Any, tokens: Any, targets: Any) -> Any:
        grads = jax.grad(loss)(params, tokens, targets)
        first, second, count = moments
        count = count + 1
        first = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, first, grads)
        second = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, second, grads)
        correction = jnp.sqrt(1 - 0.999**count) / (1 - 0.9**count)
        params = jax.tree.map(
            lambda p, m, v: p - 1e-3 * correction * m / (jnp.sqrt(v) + 1e-8), params, first, second
        )
        return params, (first, second, count)

    def layer_params() -> dict[str, Any]:
        square = {name: jnp.ones((width, width)) for name in "qkvo"}
        norms = {
            name: jnp.ones((width,)) for name in ("ln1_scale", "ln1_bias", "ln2_scale", "ln2_bias")
        }
        mlp = {
            "up": jnp.ones((width, 4 * width)),
            "up_bias": jnp.ones((4 * width,)),
            "down": jnp.ones((4 * width, width)),
        }
        return square | norms | mlp

    params = {
        "embedding": jnp.ones((vocab, width)),
        "position": jnp.ones((length, width)),
        "layers": [layer_params() for _ in range(layers)],
        "ln_scale": jnp.ones((width,)),
        "ln_bias": jnp.ones((width,)),
    }
    zeros = jax.tree.map(jnp.zeros_like, params)
    moments = (zeros, zeros, jnp.zeros((), dtype=jnp.int32))
    tokens = jnp.arange(batch * length, dtype=jnp.int32).reshape(batch, length) % vocab
    return step, (params, moments, tokens, (tokens + 1) % vocab)


PROGRAMS: dict[str, Callable[[], tuple[Callable[..., Any], tuple[Any, ...]]]] = {
    "mlp_train_step": mlp_train_step,
    "softmax": softmax,
    "cnn_step": cnn_step,
    "embedding_step": embedding_step,
    "sort_topk": sort_topk,
    "layer_norm": layer_norm,
    "dynamic_loop": dynamic_loop,
    "concat_pad": concat_pad,
    "einsum_heads": einsum_heads,
    "transformer_train_step": transformer_train_step,
}


def main(names: list[str]) -> None:
    """Compile the named programs (all when none is named) and write their
    optimized HLO next to this script."""
    for name in names or list(PROGRAMS):
        build = PROGRAMS[name]
        function, args = build()
        text = jax.jit(function).lower(*args).compile().as_text()
        assert text is not None, f"XLA printed no HLO for {name}"
        (HERE / f"{name}.hlo").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
