"""Regenerate the real XLA dumps in this directory.

Each program below is compiled by XLA for the CPU and its optimized HLO
(`jax.jit(f).lower(*args).compile().as_text()`) is written to `<name>.hlo`.
These are the modules as XLA prints them — fusions, layouts, metadata,
backend configs, the FileNames/StackFrames sections — and the parser tests
read every one of them.

jax is not a dependency of the project; install it only to regenerate::

    pip install jax jaxlib
    python examples/real/generate.py            # writes examples/real/*.hlo

The output depends on the jax/XLA version (recorded in README.md); small
shapes keep each file small.
"""

from __future__ import annotations

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
}


def main() -> None:
    """Compile every program and write its optimized HLO next to this script."""
    for name, build in PROGRAMS.items():
        function, args = build()
        text = jax.jit(function).lower(*args).compile().as_text()
        (HERE / f"{name}.hlo").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
