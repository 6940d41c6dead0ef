"""Checks: questions about indexing maps, answered as result objects (the
CI gate that runs them over modules is `verifier.gate`).

>>> from verifier.checks import Verdict, check_equivalence
"""

from verifier.checks.equivalence import (
    BatchFailure,
    Budget,
    Counterexample,
    EquivalenceResult,
    PointwiseCounterexample,
    RelationCounterexample,
    check_equivalence,
    check_equivalence_batch,
)
from verifier.checks.verdict import Outcome, Verdict

__all__ = [
    "BatchFailure",
    "Budget",
    "Counterexample",
    "EquivalenceResult",
    "Outcome",
    "PointwiseCounterexample",
    "RelationCounterexample",
    "Verdict",
    "check_equivalence",
    "check_equivalence_batch",
]
