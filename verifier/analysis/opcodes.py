"""The opcode facts consumers above `verifier.analysis` read, from the
rules that own them (`verifier.indexing`), so that analysis stays their one
door to the floors below.

* `ELEMENTWISE_OPCODES`: the ops whose output element ``d`` reads element
  ``d`` of every operand (`verifier.indexing.elementwise`); XLA's
  utilization heuristic passes its count through them.

>>> "add" in ELEMENTWISE_OPCODES, "transpose" in ELEMENTWISE_OPCODES
(True, False)
"""

from verifier.indexing.elementwise import ELEMENTWISE_OPCODES

__all__ = ["ELEMENTWISE_OPCODES"]
