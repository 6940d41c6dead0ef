"""A GPT training step compiled by XLA through jax (the ``jax`` extra): the
optimized HLO of one SGD step of a decoder-only transformer of `layers`
blocks (attention with a causal mask, a GELU MLP, layer norms), its layers
unrolled as a traced Python loop — what `verifier check` meets on a real
model, for `check_scale.py`'s large-module figures.

    python benchmarks/jax_gpt.py --layers 24 --output /tmp/gpt.hlo

On XLA's CPU backend a layer adds about 1,500 instructions (2 layers:
2,193; 4 layers: 5,224): 64 layers are the 96,000 of a large model's step.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from verifier.api import jax_hlo_text

_WIDTH, _HEADS, _SEQUENCE, _VOCABULARY, _BATCH = 64, 4, 32, 128, 2


def _parameters(layers: int) -> dict[str, Any]:
    import jax
    import jax.numpy as jnp

    keys = iter(jax.random.split(jax.random.PRNGKey(0), 4 + 6 * layers))

    def dense(rows: int, columns: int) -> Any:
        return jax.random.normal(next(keys), (rows, columns), jnp.float32) * 0.02

    blocks = [
        {
            "qkv": dense(_WIDTH, 3 * _WIDTH),
            "out": dense(_WIDTH, _WIDTH),
            "up": dense(_WIDTH, 4 * _WIDTH),
            "down": dense(4 * _WIDTH, _WIDTH),
            "norm1": jnp.ones((_WIDTH,), jnp.float32),
            "norm2": jnp.ones((_WIDTH,), jnp.float32),
        }
        for _ in range(layers)
    ]
    return {
        "embed": dense(_VOCABULARY, _WIDTH),
        "position": dense(_SEQUENCE, _WIDTH),
        "blocks": blocks,
    }


def _loss(parameters: dict[str, Any], tokens: Any) -> Any:
    import jax
    import jax.numpy as jnp

    def norm(x: Any, scale: Any) -> Any:
        mean = x.mean(-1, keepdims=True)
        variance = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) * jax.lax.rsqrt(variance + 1e-5) * scale

    x = parameters["embed"][tokens] + parameters["position"]
    mask = jnp.tril(jnp.ones((_SEQUENCE, _SEQUENCE), bool))
    head = _WIDTH // _HEADS
    for block in parameters["blocks"]:
        q, k, v = jnp.split(norm(x, block["norm1"]) @ block["qkv"], 3, axis=-1)
        q, k, v = (t.reshape(_BATCH, _SEQUENCE, _HEADS, head) for t in (q, k, v))
        scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / head**0.5
        weights = jax.nn.softmax(jnp.where(mask, scores, -1e9), axis=-1)
        attended = jnp.einsum("bhqk,bkhd->bqhd", weights, v).reshape(_BATCH, _SEQUENCE, _WIDTH)
        x = x + attended @ block["out"]
        x = x + jax.nn.gelu(norm(x, block["norm2"]) @ block["up"]) @ block["down"]
    logits = x @ parameters["embed"].T
    targets = jnp.roll(tokens, -1, axis=1)
    chosen = jnp.take_along_axis(jax.nn.log_softmax(logits), targets[..., None], axis=-1)
    return -chosen.mean()


def _step(parameters: dict[str, Any], tokens: Any) -> Any:
    import jax

    gradients = jax.grad(_loss)(parameters, tokens)
    return jax.tree_util.tree_map(lambda p, g: p - 1e-3 * g, parameters, gradients)


def module_text(layers: int) -> str:
    """The optimized HLO of one training step of a `layers`-block GPT."""
    import jax.numpy as jnp

    tokens = jnp.zeros((_BATCH, _SEQUENCE), jnp.int32)
    return jax_hlo_text(_step, _parameters(layers), tokens)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=24, help="transformer blocks (default 24)")
    parser.add_argument("--output", required=True, help="where to write the module")
    options = parser.parse_args()
    Path(options.output).write_text(module_text(options.layers))


if __name__ == "__main__":
    main()
