"""Every simplification proven: the simplified map checked equal to its input.

Pointwise (same variables, equal domains, equal results at every point) when
the simplification kept the variables; as relations (symbols existential)
when a symbol was removed or rescaled.  The verdict comes from
`verifier.checks.equivalence` (isl, with the second witness its `Budget` asks for).

>>> from verifier.expr.parser import parse_map
>>> proven = simplify_and_prove(parse_map(
...     "(d0) -> (d0 floordiv 4 * 4 + d0 mod 4), domain: d0 in [0, 15]"))
>>> str(proven.map).splitlines()[0], proven.verdict.value
('(d0) -> (d0),', 'equal')
"""

from __future__ import annotations

from dataclasses import dataclass

from verifier.checks.equivalence import Budget, EquivalenceResult, check_equivalence
from verifier.checks.result import DEFAULT_BUDGET
from verifier.checks.verdict import Verdict
from verifier.expr.indexing_map import IndexingMap
from verifier.simplify.driver import SimplificationResult, simplify


@dataclass(frozen=True)
class ProvenSimplification:
    """A simplification and the verdict on "simplified = input"."""

    simplification: SimplificationResult
    equivalence: EquivalenceResult
    pointwise: bool

    @property
    def map(self) -> IndexingMap:
        return self.simplification.map

    @property
    def rules_applied(self) -> tuple[str, ...]:
        return self.simplification.rules_applied

    @property
    def verdict(self) -> Verdict:
        return self.equivalence.verdict


def prove_simplification(
    original: IndexingMap, result: SimplificationResult, budget: Budget = DEFAULT_BUDGET
) -> ProvenSimplification:
    """The verdict on ``result.map == original`` (pointwise when the variables
    are unchanged, as relations otherwise)."""
    pointwise = not result.changes_variables and _same_variables(original, result.map)
    equivalence = check_equivalence(original, result.map, pointwise=pointwise, budget=budget)
    return ProvenSimplification(result, equivalence, pointwise)


def simplify_and_prove(indexing_map: IndexingMap) -> ProvenSimplification:
    """`indexing_map` simplified, with the proof that nothing changed."""
    return prove_simplification(indexing_map, simplify(indexing_map))


def _same_variables(a: IndexingMap, b: IndexingMap) -> bool:
    return (len(a.dims), len(a.range_vars), len(a.rt_vars)) == (
        len(b.dims),
        len(b.range_vars),
        len(b.rt_vars),
    )
