"""Per-opcode indexing rules (output→input and input→output) in a registry.

Importing this package registers every rule; `verifier.indexing.analysis` is
the entry point.
"""

from verifier.indexing import data_movement, dynamic, elementwise, reductions

__all__ = ["data_movement", "dynamic", "elementwise", "reductions"]
