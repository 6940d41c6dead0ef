"""Per-opcode indexing rules (output→input and input→output) in a registry.

Importing this package registers every rule; `verifier.indexing.analysis` is
the entry point.
"""

from verifier.indexing import (
    bitcast,
    collectives,
    control_flow,
    convolution,
    custom_calls,
    data_movement,
    dynamic,
    elementwise,
    forwarding,
    reductions,
    scatter,
    sort,
    whole_slices,
)

__all__ = [
    "bitcast",
    "collectives",
    "control_flow",
    "convolution",
    "custom_calls",
    "data_movement",
    "dynamic",
    "elementwise",
    "forwarding",
    "reductions",
    "scatter",
    "sort",
    "whole_slices",
]
