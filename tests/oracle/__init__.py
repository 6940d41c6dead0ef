"""An index-level reference interpreter for HLO instructions (test support).

Written directly from XLA's operation semantics with plain loops over small
shapes; it shares no code with `verifier.indexing` (only the HLO parser is
used, to read instructions).  It is the judge of the symbolic rules.
"""

from tests.oracle.compound import UnsupportedByOracle
from tests.oracle.interpreter import (
    SUPPORTED_OPCODES,
    Element,
    Index,
    Reads,
    arrays,
    inverse,
    inverse_relation,
    operand_arrays,
    output_shapes,
    reads,
    relation,
    relations,
)

__all__ = [
    "SUPPORTED_OPCODES",
    "Element",
    "Index",
    "Reads",
    "UnsupportedByOracle",
    "arrays",
    "inverse",
    "inverse_relation",
    "operand_arrays",
    "output_shapes",
    "reads",
    "relation",
    "relations",
]
