"""Per-opcode indexing rules (output→input and input→output) in a registry.

Importing this package registers every rule; `verifier.indexing.analysis` is
the entry point.
"""

from verifier.indexing import (
    bitcast,
    collectives,
    convolution,
    data_movement,
    dynamic,
    elementwise,
    reductions,
    scatter,
    sort,
)

__all__ = [
    "bitcast",
    "collectives",
    "convolution",
    "data_movement",
    "dynamic",
    "elementwise",
    "reductions",
    "scatter",
    "sort",
]
