"""The in-bounds check: the image of every indexing map lies in the shape it
indexes (an output→input map in its operand, an input→output map in the
output).  A witness is a domain point whose result is outside.

Interval arithmetic proves most maps without a solver (it over-approximates
the image, so "inside" is a proof); otherwise isl searches the domain for an
escaping point, and that question goes through the proof cache.

An older indexing document's dot rhs→output map sends the contracting index into an output
dimension of size 64:

>>> from verifier.checks.cache import MemoryCache
>>> from verifier.expr import parse_map
>>> wrong = parse_map("(d0, d1, d2)[s0] -> (d0, s0, d1), domain: d0 in [0, 3], "
...                   "d1 in [0, 255], d2 in [0, 63], s0 in [0, 127]")
>>> result = check_in_bounds((wrong,), (4, 128, 64), MemoryCache())
>>> result.outcome.value, result.message
('refuted', 'result 2 = 64 at d0 = 0, d1 = 64, d2 = 0, s0 = 0: outside [0, 63]')
"""

from __future__ import annotations

from collections.abc import Sequence

from verifier.analysis.instruction_maps import Indexing
from verifier.checks.budget import Budget
from verifier.checks.cache import CachedRecord, ProofCache, cached
from verifier.checks.result import (
    DEFAULT_BUDGET,
    CheckResult,
    combine,
    map_key,
    point_text,
    unless_empty,
)
from verifier.checks.verdict import Outcome
from verifier.errors import SolverError
from verifier.expr import IndexingMap, Undefined, interval_of

CHECK = "in-bounds"


def check_in_bounds(
    indexing: Indexing, shape: Sequence[int], cache: ProofCache, *, budget: Budget = DEFAULT_BUDGET
) -> CheckResult:
    """Whether every map of `indexing` stays inside `shape`."""
    if isinstance(indexing, Undefined):
        return CheckResult(Outcome.UNSUPPORTED, f"unknown indexing: {indexing.reason}")
    box = tuple(shape)
    results = [_map_in_bounds(m, box, cache, budget) for m in indexing]
    inside = CheckResult(Outcome.PROVED, f"every map lies inside {list(box)}")
    combined = combine(results, empty=CheckResult(Outcome.VACUOUS, "not read: no map"))
    return inside if combined.outcome is Outcome.PROVED else combined


def _map_in_bounds(
    indexing_map: IndexingMap, box: tuple[int, ...], cache: ProofCache, budget: Budget
) -> CheckResult:
    if indexing_map.num_results != len(box):
        return CheckResult(
            Outcome.REFUTED,
            f"the map has {indexing_map.num_results} results for a shape of rank {len(box)}",
        )
    if indexing_map.is_known_empty:
        return CheckResult(Outcome.VACUOUS, "empty domain")
    if all(
        interval_of(result, indexing_map.bounds).lower >= 0
        and interval_of(result, indexing_map.bounds).upper < size
        for result, size in zip(indexing_map.results, box, strict=True)
    ):
        proved = CheckResult(Outcome.PROVED, "inside by interval arithmetic")
        return unless_empty(indexing_map, proved, cache, budget)
    key = f"{CHECK}|{list(box)}|{map_key(indexing_map)}"

    def ask() -> CachedRecord:
        return _ask_isl(indexing_map, box, budget).to_answer()

    return cached(cache, key, ask, CheckResult.from_answer)


def _ask_isl(indexing_map: IndexingMap, box: tuple[int, ...], budget: Budget) -> CheckResult:
    from verifier.bridges import isl_sets  # islpy: only for a question it decides

    found = isl_sets.escape(indexing_map, box, max_operations=budget.isl_operations)
    if found.found is None:
        return CheckResult(Outcome.UNKNOWN, "isl: operation budget exhausted")
    if found.vacuous:
        return CheckResult(Outcome.VACUOUS, "empty domain")
    if not found.found:
        return CheckResult(Outcome.PROVED, "inside (isl)")
    named = dict(found.witness)
    point = tuple((name, value) for name, value in found.witness if not _is_result(name))
    for index, size in enumerate(box):
        value = named[f"r{index}"]
        if not 0 <= value < size:
            message = f"result {index} = {value} at {point_text(point)}: outside [0, {size - 1}]"
            return CheckResult(Outcome.REFUTED, message, found.witness)
    raise SolverError(
        f"isl's escaping point {named} lies inside {list(box)}; this is a bug in the isl "
        "bridge — please report it with the map"
    )


def _is_result(name: str) -> bool:
    """Whether a witness coordinate is a result (``r0``), not a variable (``rt0``)."""
    return name.startswith("r") and name[1:].isdigit()
