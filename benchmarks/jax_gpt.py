"""A GPT training step compiled by XLA through jax (the ``jax`` extra:
``pip install -e '.[jax]'``): the optimized HLO of one SGD step of a
decoder-only transformer of `layers` blocks (attention with a causal mask,
a GELU MLP, layer norms), its layers unrolled as a traced Python loop —
what `verifier check` meets on a real model, for `check_scale.py`'s
large-module figures (``--jax``).

    python benchmarks/jax_gpt.py --layers 24 --output /tmp/gpt_24.hlo

The text is the same from run to run (fixed shapes, seeds and names; the
compile takes about 45 CPU-s at 24 layers).  With jax 0.10.2 on XLA's CPU
backend: 1 layer 1,062 instructions, 2: 2,193, 4: 5,224, 8: 14,358,
12: 27,586, 24: 91,846 (12 MB).  The size grows faster than the layers:
XLA's fusions of the backward pass, which recompute forward values, grow
with the depth (the largest fused computation: 780 instructions at 12
layers, 1,550 at 24).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import Any

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


def require_jax() -> None:
    """Exit 2, saying how to install it, when jax is not importable."""
    if importlib.util.find_spec("jax") is None:
        print(
            "jax_gpt: the GPT is compiled by jax, which is not installed: "
            "pip install -e '.[jax]' (or pip install 'hlo-verifier[jax]')",
            file=sys.stderr,
        )
        raise SystemExit(2)


def module_text(layers: int) -> str:
    """The optimized HLO of one training step of a `layers`-block GPT."""
    import jax.numpy as jnp

    from verifier.api import jax_hlo_text

    tokens = jnp.zeros((_BATCH, _SEQUENCE), jnp.int32)
    return jax_hlo_text(_step, _parameters(layers), tokens)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=24, help="transformer blocks (default 24)")
    parser.add_argument("--output", required=True, help="where to write the module")
    options = parser.parse_args()
    require_jax()
    text = module_text(options.layers)
    Path(options.output).write_text(text)
    print(f"{options.output}: {options.layers} layers, {len(text) / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
