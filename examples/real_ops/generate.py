"""Regenerate the real XLA dumps of ops with a static element relation that
are not array arithmetic: fft, top_k, scan (a while loop), cond, random
bits, barriers; and loops that add a runtime offset per iteration.

Each program is compiled by XLA for the CPU; both the optimized module
(`<name>.hlo`, as `examples/real/`) and the module before optimization
(`<name>.before.hlo`, where `fft`, `topk`, `conditional`, `rng-bit-generator`
and `optimization-barrier` are still themselves) are written.

    /work/jaxenv/bin/python examples/real_ops/generate.py
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


def fft() -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """A 2-D FFT of a batch, its magnitude, and the inverse of a real FFT."""

    def f(x: Any) -> Any:
        spectrum = jnp.fft.fft2(x.astype(jnp.complex64))
        real = jnp.fft.irfft(jnp.fft.rfft(x, axis=-1), n=x.shape[-1], axis=-1)
        return jnp.abs(spectrum) + real

    return f, (jnp.ones((2, 8, 16)),)


def top_k() -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """The 3 largest logits per row and their indices."""
    return (lambda x: lax.top_k(x, 3)), (jnp.ones((4, 32)),)


def scan_cumulative() -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """A running sum and product over the leading axis with lax.scan."""

    def f(xs: Any) -> Any:
        def body(carry: Any, x: Any) -> Any:
            total, product = carry
            return (total + x, product * x), total

        return lax.scan(body, (jnp.zeros(8), jnp.ones(8)), xs)

    return f, (jnp.ones((5, 8)),)


def cond_branches() -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """lax.cond choosing a transpose or a reversal, and lax.switch of three."""

    def f(k: Any, x: Any) -> Any:
        a = lax.cond(k > 0, lambda y: y.T, lambda y: y[::-1, ::-1].T, x)
        b = lax.switch(k, [lambda y: y * 2, lambda y: y[::-1], lambda y: -y], x)
        return a, b

    return f, (jnp.int32(1), jnp.ones((4, 4)))


def batch_norm() -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """Batch normalisation over NHWC (JAX writes it as reductions)."""

    def f(x: Any, scale: Any, offset: Any) -> Any:
        mean = jnp.mean(x, axis=(0, 1, 2))
        var = jnp.var(x, axis=(0, 1, 2))
        return (x - mean) * lax.rsqrt(var + 1e-5) * scale + offset

    return f, (jnp.ones((2, 4, 4, 3)), jnp.ones((3,)), jnp.ones((3,)))


def random_bits() -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """Uniform and normal samples from a threefry key and from rng_bit_generator."""

    def f(key: Any, state: Any) -> Any:
        u = jax.random.uniform(key, (4, 8))
        _, bits = lax.rng_bit_generator(state, (4, 8), dtype=jnp.uint32)
        return u, bits

    return f, (jax.random.PRNGKey(0), jnp.zeros((4,), jnp.uint32))


def barrier() -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """An optimization barrier between two halves of a computation."""

    def f(x: Any, y: Any) -> Any:
        a, b = lax.optimization_barrier((x * 2, y + 1))
        return a @ b

    return f, (jnp.ones((4, 8)), jnp.ones((8, 4)))


def fori_dynamic_window() -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """A fori_loop of 60 trips moving a window of rows by dynamic_slice and
    dynamic_update_slice: each iteration's offsets are runtime values."""

    def f(x: Any) -> Any:
        def body(i: Any, acc: Any) -> Any:
            window = lax.dynamic_slice(x, (i, 0), (4, 8))
            return lax.dynamic_update_slice(acc, window * 2, (i * 2 % 28, 0))

        return lax.fori_loop(0, 60, body, jnp.zeros((32, 8)))

    return f, (jnp.ones((64, 8)),)


def while_carry_roll() -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """A while_loop of 50 trips over a 3-array carry: a counter, an array
    written at the counter, and an array rolled each iteration."""

    def f(x: Any, y: Any) -> Any:
        def body(carry: Any) -> Any:
            i, a, b = carry
            return i + 1, a.at[i].set(b[i % 3].sum()), jnp.roll(b, 1, axis=0)

        return lax.while_loop(lambda carry: carry[0] < 50, body, (0, x, y))

    return f, (jnp.ones(50), jnp.ones((3, 4)))


def kv_cache_scan() -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """Autoregressive attention over a 16-step lax.scan, each step writing
    its key and value into caches at the step's row."""

    def f(q: Any, k: Any, v: Any) -> Any:
        def step(cache: Any, t: Any) -> Any:
            keys = lax.dynamic_update_slice(cache[0], k[t][None], (t, 0))
            values = lax.dynamic_update_slice(cache[1], v[t][None], (t, 0))
            scores = (keys @ q[t]) * (jnp.arange(16) <= t)
            return (keys, values), jax.nn.softmax(scores) @ values

        return lax.scan(step, (jnp.zeros((16, 8)), jnp.zeros((16, 8))), jnp.arange(16))

    return f, (jnp.ones((16, 8)), jnp.ones((16, 8)), jnp.ones((16, 8)))


def fori_writes_at_indices() -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """A fori_loop of 3 trips zeroing 2 elements at idx[i]: each iteration's
    offset is its own runtime value (utilization per execution depends on
    all three, not on one)."""

    def f(acc: Any, idx: Any) -> Any:
        def body(i: Any, a: Any) -> Any:
            return lax.dynamic_update_slice(a, jnp.zeros(2), (idx[i],))

        return lax.fori_loop(0, 3, body, acc)

    return f, (jnp.ones(10), jnp.zeros(3, jnp.int32))


def fori_tile_updates() -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """A fori_loop of 17 trips rewriting a 4x2 tile of a 64x32 grid at
    offsets computed from the counter: what survives each write splits into
    pieces per iteration, until a union passes its limit (the loop's maps
    are unknown); the maps of its unions, the identity on boxes and moved
    tiles, are told apart without isl (held out at first: 6 CPU-s)."""

    def f(grid: Any) -> Any:
        def body(i: Any, g: Any) -> Any:
            row, column = (i * 3) % 60, (i * 7) % 30
            tile = lax.dynamic_slice(g, (row, column), (4, 2)) * 2.0 + i
            return lax.dynamic_update_slice(g, tile, (row, column))

        return lax.fori_loop(0, 17, body, grid)

    return f, (jnp.ones((64, 32)),)


PROGRAMS: dict[str, Callable[[], tuple[Callable[..., Any], tuple[Any, ...]]]] = {
    "fft": fft,
    "top_k": top_k,
    "scan_cumulative": scan_cumulative,
    "cond_branches": cond_branches,
    "batch_norm": batch_norm,
    "random_bits": random_bits,
    "barrier": barrier,
    "fori_dynamic_window": fori_dynamic_window,
    "while_carry_roll": while_carry_roll,
    "kv_cache_scan": kv_cache_scan,
    "fori_writes_at_indices": fori_writes_at_indices,
    "fori_tile_updates": fori_tile_updates,
}


def main(names: list[str]) -> None:
    for name in names or sorted(PROGRAMS):
        function, args = PROGRAMS[name]()
        lowered = jax.jit(function).lower(*args)
        (HERE / f"{name}.before.hlo").write_text(lowered.as_text(dialect="hlo"))
        (HERE / f"{name}.hlo").write_text(lowered.compile().as_text())
        print(f"wrote {name}.hlo and {name}.before.hlo")


if __name__ == "__main__":
    main(sys.argv[1:])
