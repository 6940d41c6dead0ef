"""What one check says about one place, before it becomes a `Finding`: the
outcome, a one-line message and the witness — exactly what the proof cache
stores (`to_answer` / `from_answer` are inverses), so a warm cache rebuilds
the finding without a solver.

Several answers about one place (the maps of one operand) combine into the
most telling one: ``refuted`` over ``unknown`` over ``unsupported`` over
``proved`` over ``vacuous`` (all vacuous stays vacuous).

>>> proved = CheckResult(Outcome.PROVED, "inside [4]")
>>> refuted = CheckResult(Outcome.REFUTED, "r0 = 4", (("d0", 4),))
>>> CheckResult.from_answer(refuted.to_answer()) == refuted
True
>>> combine([proved, refuted]).message
'r0 = 4'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from verifier.checks.budget import Budget
from verifier.checks.cache import CachedRecord, ProofCache, cached
from verifier.checks.verdict import Outcome

if TYPE_CHECKING:  # a result read back from a cache needs no map
    from verifier.expr import IndexingMap

Witness = tuple[tuple[str, int], ...]

# The default solver budgets of every check (a shared immutable value).
DEFAULT_BUDGET = Budget()


def map_key(indexing_map: IndexingMap) -> str:
    """The canonical one-line text of a map (cache keys)."""
    from verifier.expr import print_map

    return print_map(indexing_map, one_line=True)


def union_key(maps: Sequence[IndexingMap]) -> str:
    """The canonical one-line text of a union of maps, in its order."""
    return " ; ".join(map_key(m) for m in maps)


_PRECEDENCE = (
    Outcome.REFUTED,
    Outcome.UNKNOWN,
    Outcome.UNSUPPORTED,
    Outcome.PROVED,
    Outcome.VACUOUS,
)


@dataclass(frozen=True)
class CheckResult:
    """The answer of a check: outcome, message, and a witness when refuted."""

    outcome: Outcome
    message: str
    witness: Witness = ()

    def to_answer(self) -> CachedRecord:
        """The JSON-able form the proof cache stores."""
        return {
            "outcome": self.outcome.value,
            "message": self.message,
            "witness": [[name, value] for name, value in self.witness],
        }

    @staticmethod
    def from_answer(answer: CachedRecord) -> CheckResult:
        """The result a cached answer stands for."""
        return CheckResult(
            Outcome(answer["outcome"]),
            str(answer["message"]),
            tuple((str(name), int(value)) for name, value in answer.get("witness", ())),
        )


def combine(results: Iterable[CheckResult], *, empty: CheckResult | None = None) -> CheckResult:
    """The most telling of `results` (the first of its outcome), or `empty`
    (vacuous by default) when there are none."""
    collected = list(results)
    for outcome in _PRECEDENCE:
        for result in collected:
            if result.outcome is outcome:
                return result
    return empty or CheckResult(Outcome.VACUOUS, "nothing to check")


def unless_empty(
    indexing_map: IndexingMap, proved: CheckResult, cache: ProofCache, budget: Budget
) -> CheckResult:
    """`proved` — a claim about every domain point, shown without a solver —
    once the domain has a point: ``vacuous`` when it has none, ``unknown``
    when isl cannot tell.  A box domain (no constraints) that is not known
    empty has points; a constrained one is asked of isl (cached).
    """
    if indexing_map.is_known_empty:
        return CheckResult(Outcome.VACUOUS, "empty domain")
    if not indexing_map.constraints:
        return proved

    def ask() -> CachedRecord:
        from verifier.bridges.isl_questions import is_empty  # islpy: only when asked

        return {"empty": is_empty(indexing_map, max_operations=budget.isl_operations)}

    empty = cached(cache, f"empty|{map_key(indexing_map)}", ask, _emptiness)
    if empty is None:
        return CheckResult(Outcome.UNKNOWN, "isl: operation budget exhausted deciding emptiness")
    return CheckResult(Outcome.VACUOUS, "empty domain") if empty else proved


def _emptiness(answer: CachedRecord) -> bool | None:
    """Whether a domain is empty (None: isl could not tell), as stored."""
    empty = answer["empty"]
    if empty is not None and not isinstance(empty, bool):
        raise TypeError(f"emptiness {empty!r} is not a truth value")
    return empty


def point_text(witness: Witness) -> str:
    """``d0 = 1, s0 = 64`` — a witness as a reader writes it."""
    return ", ".join(f"{name} = {value}" for name, value in witness)


def tuple_text(values: Iterable[int]) -> str:
    """``(2, 3)`` — an index as a reader writes it."""
    return "(" + ", ".join(str(v) for v in values) + ")"
