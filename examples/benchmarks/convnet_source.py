"""The JAX program behind `convnet_3conv_3pool.hlo` (see README.md): prints
XLA's optimized HLO for the CPU.  jax is not a project dependency.

    python examples/benchmarks/convnet_source.py > convnet.hlo
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax import lax


def net(params: Any, x: Any) -> Any:
    """Three conv 3x3 + bias + ReLU + 2x2 max-pool stages, dense, log-softmax."""
    (k1, b1), (k2, b2), (k3, b3), (w, b) = params
    for kernel, bias in ((k1, b1), (k2, b2), (k3, b3)):
        x = lax.conv_general_dilated(
            x, kernel, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
        )
        x = jax.nn.relu(x + bias)
        x = lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    x = x.reshape(x.shape[0], -1)
    return jax.nn.log_softmax(x @ w + b)


if __name__ == "__main__":
    params = (
        (jnp.ones((3, 3, 3, 8)), jnp.ones(8)),
        (jnp.ones((3, 3, 8, 16)), jnp.ones(16)),
        (jnp.ones((3, 3, 16, 32)), jnp.ones(32)),
        (jnp.ones((512, 10)), jnp.ones(10)),
    )
    print(jax.jit(net).lower(params, jnp.ones((2, 32, 32, 3))).compile().as_text())
