"""The committed witness of `verifier.from_jax`'s code path for machines
without jax (CI): ``strided_double.hlo`` is `verifier.api.jax_hlo_text` of
the issue's example, ``lambda x: x[::2] * 2.0`` on ``f32[16]``.  Regenerate
with the jax extra installed::

    python -m tests.api.jax_witness
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

WITNESS = Path(__file__).parent / "strided_double.hlo"


def strided_double() -> tuple[Any, tuple[Any, ...]]:
    import jax.numpy as jnp

    return (lambda x: x[::2] * 2.0), (jnp.ones((16,), jnp.float32),)


if __name__ == "__main__":
    from verifier.api import jax_hlo_text

    fn, args = strided_double()
    WITNESS.write_text(jax_hlo_text(fn, *args))
