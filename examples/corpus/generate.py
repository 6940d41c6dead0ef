"""Generate a corpus of small real XLA dumps for `verifier corpus`: many
small JAX programs (slicing, padding, reductions, contractions, convolutions,
gathers, scans, sorts, …) at several shapes, each compiled by XLA for the CPU
(`verifier.api.jax_hlo_text`, the code path of `verifier.from_jax`) and
written to ``DIR/<program>_<shape>.hlo``.  Nothing it writes is committed:
the benchmark and the notebook example generate it.

    pip install 'hlo-verifier[jax]'
    python examples/corpus/generate.py DIR [--count N]
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from verifier.api import jax_hlo_text

Program = Callable[[Any], Any]

PROGRAMS: dict[str, Program] = {
    "stride2": lambda x: x[::2] * 2.0,
    "stride3_offset": lambda x: x[1::3] + 1.0,
    "reverse": lambda x: x[::-1] * x,
    "pad": lambda x: jnp.pad(x, ((1, 2), (0, 3))) * 2.0,
    "concat": lambda x: jnp.concatenate([x, x[:, ::2]], axis=1),
    "transpose": lambda x: x.T + 1.0,
    "reduce_rows": lambda x: jnp.sum(x, axis=1),
    "reduce_max": lambda x: jnp.max(x, axis=0),
    "softmax": lambda x: jax.nn.softmax(x, axis=-1),
    "layer_norm": lambda x: (x - x.mean(-1, keepdims=True)) / (x.std(-1, keepdims=True) + 1e-5),
    "matmul": lambda x: x @ x.T,
    "cumsum": lambda x: jnp.cumsum(x, axis=1),
    "sort": lambda x: jnp.sort(x, axis=-1),
    "top_rows": lambda x: lax.top_k(x, 2)[0],
    "gather": lambda x: x[jnp.array([0, 2, 1, 0])],
    "dynamic_slice": lambda x: lax.dynamic_slice(x, (jnp.argmax(x[:, 0]), 0), (2, x.shape[1])),
    "window_max": lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (2, 2), "VALID"),
    "conv": lambda x: lax.conv_general_dilated(
        x[None, None], jnp.ones((1, 1, 3, 3), x.dtype), (1, 1), "SAME"
    )[0, 0],
    "diag": lambda x: jnp.diagonal(x) * 3.0,
    "broadcast_add": lambda x: x + x[:1],
    "reshape_sum": lambda x: x.reshape(-1, 2).sum(-1),
    "where": lambda x: jnp.where(x > 0, x[::-1], 0.0),
    "grad_square": jax.grad(lambda x: jnp.sum(x[::2] ** 2)),
    "roll": lambda x: jnp.roll(x, 3, axis=1),
}

SHAPES = [(4, 8), (8, 8), (6, 10), (16, 12), (10, 6)]


def corpus() -> Iterator[tuple[str, Program, tuple[int, int]]]:
    """Every (name, program, shape) of the corpus, in a fixed order."""
    for (name, program), shape in itertools.product(PROGRAMS.items(), SHAPES):
        yield f"{name}_{shape[0]}x{shape[1]}", program, shape


def generate(directory: Path, count: int | None = None) -> list[Path]:
    """Write the corpus (its first `count` modules) into `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, program, shape in itertools.islice(corpus(), count):
        path = directory / f"{name}.hlo"
        path.write_text(jax_hlo_text(program, jnp.ones(shape, jnp.float32)))
        written.append(path)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--count", type=int, default=None, help="only the first N modules")
    args = parser.parse_args()
    written = generate(args.directory, args.count)
    print(f"wrote {len(written)} modules to {args.directory}")


if __name__ == "__main__":
    main()
