"""Checks: questions about indexing maps, answered as result objects.

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
from verifier.checks.suite import CHECKS, INFORMATIONAL_CHECKS, run_checks
from verifier.checks.verdict import Outcome, Verdict

__all__ = [
    "CHECKS",
    "INFORMATIONAL_CHECKS",
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
    "run_checks",
]
