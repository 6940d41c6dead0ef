"""Per-opcode indexing rules (output→input and input→output) in a registry.

Importing this package registers every rule; `verifier.indexing.analysis` is
the entry point.
"""

from verifier.indexing import (
    bitcast,
    channels,
    collectives,
    control_flow,
    convolution,
    custom_calls,
    data_movement,
    dots,
    dynamic,
    dynamic_reshape,
    elementwise,
    forwarding,
    linear_algebra,
    reductions,
    scan,
    scatter,
    sort,
    tuple_select,
    whole_slices,
)

__all__ = [
    "bitcast",
    "channels",
    "collectives",
    "control_flow",
    "convolution",
    "custom_calls",
    "data_movement",
    "dots",
    "dynamic",
    "dynamic_reshape",
    "elementwise",
    "forwarding",
    "linear_algebra",
    "reductions",
    "scan",
    "scatter",
    "sort",
    "tuple_select",
    "whole_slices",
]
