"""A reference interpreter for the ops of `verifier.indexing`'s convolution,
sort, scatter and collectives rules (test support).

Written from XLA's operation semantics with plain loops over small shapes;
it shares no code with `verifier.indexing` (only the HLO parser is used).
"""

from tests.oracle_more.interpreter import SUPPORTED_OPCODES, inverse_relation, reads, relation

__all__ = ["SUPPORTED_OPCODES", "inverse_relation", "reads", "relation"]
