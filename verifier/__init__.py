"""Provable indexing analysis for XLA HLO.

The package exports the research API of `verifier.api` (``verifier.load(path)``,
``verifier.loads(text)``, ``verifier.from_jax(fn, *args)``,
``verifier.read_corpus(dir)``), imported on first use so that ``import verifier.x``
stays cheap (the API pulls in isl and z3).
"""

from typing import Any

__all__ = ["Analysis", "OperandMaps", "from_jax", "load", "loads", "read_corpus"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from verifier import api

        return getattr(api, name)
    raise AttributeError(f"module 'verifier' has no attribute {name!r}")
