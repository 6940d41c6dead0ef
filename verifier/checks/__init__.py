"""Checks: questions about indexing maps, answered as result objects (the
CI gate that runs them over modules is `verifier.gate`).

The budgets and verdicts import no solver; the equivalence names are
imported on first use, so that ``import verifier.checks.budget`` (what the
findings cache and the command line need to answer a remembered module)
loads neither islpy nor z3.

>>> from verifier.checks import Verdict, check_equivalence
"""

from typing import TYPE_CHECKING, Any

from verifier.checks.budget import Budget, CrossCheck
from verifier.checks.verdict import Outcome, Verdict

if TYPE_CHECKING:
    from verifier.checks.equivalence import (
        BatchFailure,
        Counterexample,
        EquivalenceResult,
        PointwiseCounterexample,
        RelationCounterexample,
        check_equivalence,
        check_equivalence_batch,
    )

_EQUIVALENCE = frozenset(
    {
        "BatchFailure",
        "Counterexample",
        "EquivalenceResult",
        "PointwiseCounterexample",
        "RelationCounterexample",
        "check_equivalence",
        "check_equivalence_batch",
    }
)

__all__ = [
    "BatchFailure",
    "Budget",
    "Counterexample",
    "CrossCheck",
    "EquivalenceResult",
    "Outcome",
    "PointwiseCounterexample",
    "RelationCounterexample",
    "Verdict",
    "check_equivalence",
    "check_equivalence_batch",
]


def __getattr__(name: str) -> Any:
    if name in _EQUIVALENCE:
        from verifier.checks import equivalence

        return getattr(equivalence, name)
    raise AttributeError(f"module 'verifier.checks' has no attribute {name!r}")
