"""The overflow check: every sub-term of every map (results and constraint
expressions) fits the index type on the map's domain.

Interval arithmetic over the variables' bounds is a sound proof when every
sub-term's interval fits (it over-approximates the values).  When an
interval does not fit, isl computes the exact largest and smallest value on
the domain before anything is refuted, and the witness is a point reaching
the value that does not fit.

>>> from verifier.checks.cache import MemoryCache
>>> from verifier.expr import parse_map
>>> m = parse_map("(d0, d1) -> (d0 * 65536 + d1), domain: d0 in [0, 40000], d1 in [0, 65535]")
>>> check_overflow((m,), 64, MemoryCache()).outcome.value
'proved'
>>> result = check_overflow((m,), 32, MemoryCache())
>>> result.outcome.value, result.message
('refuted', "sub-term 'd0 * 65536 + d1' reaches 2621505535 at d0 = 40000, d1 = 65535: beyond int32")
"""

from __future__ import annotations

from collections.abc import Sequence

from verifier.checks.budget import Budget
from verifier.checks.cache import ProofCache, cached
from verifier.checks.result import (
    DEFAULT_BUDGET,
    CheckResult,
    combine,
    map_key,
    point_text,
    unless_empty,
)
from verifier.checks.verdict import Outcome
from verifier.expr import (
    Expr,
    IndexingMap,
    Interval,
    interval_of,
    subterms,
)

CHECK = "overflow"
CHECK_INT32 = "overflow-int32"


def index_type(bits: int) -> Interval:
    """The values of a signed `bits`-bit integer."""
    return Interval(-(1 << (bits - 1)), (1 << (bits - 1)) - 1)


def check_overflow(
    maps: Sequence[IndexingMap], bits: int, cache: ProofCache, *, budget: Budget = DEFAULT_BUDGET
) -> CheckResult:
    """Whether every sub-term of every map in `maps` fits ``int{bits}``."""
    results = [_map_fits(m, bits, cache, budget) for m in maps]
    combined = combine(results, empty=CheckResult(Outcome.VACUOUS, "no map"))
    if combined.outcome is Outcome.PROVED:
        return CheckResult(Outcome.PROVED, f"every sub-term fits int{bits}")
    return combined


def _map_fits(
    indexing_map: IndexingMap, bits: int, cache: ProofCache, budget: Budget
) -> CheckResult:
    if indexing_map.is_known_empty:
        return CheckResult(Outcome.VACUOUS, "empty domain")
    limits = index_type(bits)
    expressions = list(indexing_map.results) + [e for e, _ in indexing_map.constraints]
    doubtful = list(
        dict.fromkeys(
            term
            for expr in expressions
            for term in subterms(expr)
            if not limits.contains_interval(interval_of(term, indexing_map.bounds))
        )
    )
    if not doubtful:
        proved = CheckResult(Outcome.PROVED, f"fits int{bits} by interval arithmetic")
        return unless_empty(indexing_map, proved, cache, budget)
    key = f"{CHECK}|int{bits}|{map_key(indexing_map)}"

    def ask() -> dict[str, object]:
        return _exact(indexing_map, doubtful, limits, bits, budget).to_answer()

    return cached(cache, key, ask, CheckResult.from_answer)


def _exact(
    indexing_map: IndexingMap, terms: list[Expr], limits: Interval, bits: int, budget: Budget
) -> CheckResult:
    from verifier.bridges import isl_sets  # islpy: only for a term intervals cannot bound

    for term in terms:
        for maximum in (True, False):
            extreme = isl_sets.extremum(
                indexing_map, term, maximum=maximum, max_operations=budget.isl_operations
            )
            if not extreme.decided:
                return CheckResult(Outcome.UNKNOWN, f"isl: budget exhausted on '{term}'")
            if extreme.value is None:
                return CheckResult(Outcome.VACUOUS, "empty domain")
            if extreme.value not in limits:
                return CheckResult(
                    Outcome.REFUTED,
                    f"sub-term '{term}' reaches {extreme.value} at "
                    f"{point_text(extreme.witness)}: beyond int{bits}",
                    (*extreme.witness, ("value", extreme.value)),
                )
    return CheckResult(Outcome.PROVED, f"fits int{bits} (exact extremes by isl)")
