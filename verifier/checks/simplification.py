"""The simplification check: the simplified maps of a place relate exactly
the pairs of the maps the rules give — as relations, symbols existential,
since the simplifier may drop or rescale symbols.  An op's own maps are
compared with its simplified ones (`check_simplification`); a composition
(a fusion, simplified as it is composed) is proved step by step
(`check_simplification_steps`).

One map on each side goes through `check_equivalence` (isl, cross-checked
by z3); unions of several maps (merging may differ between the two
compositions) are compared by isl as unions.

>>> from verifier.checks.cache import MemoryCache
>>> from verifier.expr import parse_map
>>> raw = parse_map("(d0) -> (d0 floordiv 4 * 4 + d0 mod 4), domain: d0 in [0, 15]")
>>> simplified = parse_map("(d0) -> (d0), domain: d0 in [0, 15]")
>>> check_simplification((raw,), (simplified,), 1, 1, MemoryCache()).outcome.value
'proved'
>>> wrong = parse_map("(d0) -> (d0 mod 4), domain: d0 in [0, 15]")
>>> check_simplification((raw,), (wrong,), 1, 1, MemoryCache()).message
'd0 = 4 -> (4) only by the unsimplified maps'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from verifier.analysis.instruction_maps import Indexing, Step
from verifier.checks.budget import Budget
from verifier.checks.cache import ProofCache, cached
from verifier.checks.result import (
    DEFAULT_BUDGET,
    CheckResult,
    map_key,
    point_text,
    tuple_text,
    union_key,
)
from verifier.checks.verdict import Outcome, Verdict
from verifier.expr import IndexingMap, Undefined

if TYPE_CHECKING:
    from verifier.bridges.isl_sets import UnionComparison

CHECK = "simplification"

_SIDES = ("unsimplified", "simplified")


def check_simplification(
    raw: Indexing,
    simplified: Indexing,
    num_dims: int,
    num_results: int,
    cache: ProofCache,
    *,
    budget: Budget = DEFAULT_BUDGET,
) -> CheckResult:
    """Whether ``⋃ simplified`` equals ``⋃ raw`` as relations."""
    if isinstance(raw, Undefined) or isinstance(simplified, Undefined):
        undefined = raw if isinstance(raw, Undefined) else simplified
        assert isinstance(undefined, Undefined)
        return CheckResult(Outcome.UNSUPPORTED, f"unknown indexing: {undefined.reason}")
    if tuple(raw) == tuple(simplified):
        outcome = Outcome.PROVED if raw else Outcome.VACUOUS
        return CheckResult(outcome, "the simplifier changed nothing")
    key = f"{CHECK}|{num_dims}->{num_results}|{union_key(raw)} | {union_key(simplified)}"

    def ask() -> dict[str, object]:
        if len(raw) == 1 and len(simplified) == 1:
            return _single(raw[0], simplified[0], budget).to_answer()
        from verifier.bridges import isl_sets  # islpy: only for a question it decides

        compared = isl_sets.compare_unions(
            tuple(raw),
            tuple(simplified),
            num_in=num_dims,
            num_out=num_results,
            max_operations=budget.isl_operations,
        )
        return _union_result(compared).to_answer()

    return cached(cache, key, ask, CheckResult.from_answer)


def check_simplification_steps(
    steps: Sequence[Step],
    cache: ProofCache,
    *,
    budget: Budget = DEFAULT_BUDGET,
    check_step: Callable[[Step], CheckResult] | None = None,
) -> CheckResult:
    """Whether a composition simplified as it was composed
    (`verifier.fusion.compose`) equals the composition of the rules' own
    maps: it does when every step — an op's own map simplified, or one
    composition of simplified maps simplified — keeps the relation, since
    composing equal relations gives equal relations.  Each step is its own
    `check_simplification` question, the size of one op's maps, so a chain
    of N ops asks N small questions instead of one about a map whose text
    grows exponentially with N.  The first step that is not proved decides
    (its witness is a point of that step's map).  `check_step`, when given,
    answers each step as `step_question` does (e.g. remembering the answers:
    the compositions of one module share most of their steps).

    >>> from verifier.checks.cache import MemoryCache
    >>> from verifier.expr import parse_map
    >>> step = Step(
    ...     parse_map("(d0, d1) -> ((d1 * 8 + d0) floordiv 8, (d1 * 8 + d0) mod 8),"
    ...               " domain: d0 in [0, 7], d1 in [0, 3]"),
    ...     parse_map("(d0, d1) -> (d1, d0), domain: d0 in [0, 7], d1 in [0, 3]"))
    >>> check_simplification_steps([step], MemoryCache()).message
    'every simplification step keeps its relation (1 step)'
    """
    if not steps:
        return CheckResult(Outcome.PROVED, "the simplifier changed nothing")
    for number, step in enumerate(steps, start=1):
        result = (
            step_question(step, cache, budget=budget) if check_step is None else check_step(step)
        )
        if result.outcome not in (Outcome.PROVED, Outcome.VACUOUS):
            return CheckResult(
                result.outcome,
                f"step {number} of {len(steps)}, {map_key(step.before)}: {result.message}",
                result.witness,
            )
    count = f"{len(steps)} step" if len(steps) == 1 else f"{len(steps)} steps"
    return CheckResult(Outcome.PROVED, f"every simplification step keeps its relation ({count})")


def step_question(step: Step, cache: ProofCache, *, budget: Budget = DEFAULT_BUDGET) -> CheckResult:
    """Whether one simplification step keeps its relation."""
    return check_simplification(
        (step.before,),
        (step.after,),
        step.before.num_dims,
        step.before.num_results,
        cache,
        budget=budget,
    )


def _single(raw: IndexingMap, simplified: IndexingMap, budget: Budget) -> CheckResult:
    # Only for a map the simplifier changed: a check that changes none never loads it.
    from verifier.checks.equivalence import RelationCounterexample, check_equivalence

    answer = check_equivalence(raw, simplified, budget=budget)
    if answer.verdict is Verdict.UNKNOWN:
        return CheckResult(Outcome.UNKNOWN, "; ".join(answer.notes))
    if answer.verdict is Verdict.VACUOUS:
        return CheckResult(Outcome.VACUOUS, "both maps are empty")
    if answer.verdict is Verdict.EQUAL:
        return CheckResult(Outcome.PROVED, "the simplified map equals the unsimplified one")
    counterexample = answer.counterexample
    assert isinstance(counterexample, RelationCounterexample)
    side = _SIDES[0] if counterexample.only_in == "a" else _SIDES[1]
    dims = tuple((f"d{i}", v) for i, v in enumerate(counterexample.dims))
    results = tuple((f"r{i}", v) for i, v in enumerate(counterexample.result))
    return CheckResult(
        Outcome.REFUTED,
        f"{point_text(dims)} -> {tuple_text(counterexample.result)} only by the {side} maps",
        dims + results + counterexample.symbols,
    )


def _union_result(compared: UnionComparison) -> CheckResult:
    if compared.differs is None:
        return CheckResult(Outcome.UNKNOWN, "isl: operation budget exhausted")
    if not compared.differs:
        if compared.vacuous:
            return CheckResult(Outcome.VACUOUS, "both relations are empty")
        return CheckResult(Outcome.PROVED, "the simplified maps equal the unsimplified ones")
    assert compared.only_in is not None
    dims = tuple((f"d{i}", v) for i, v in enumerate(compared.source))
    results = tuple((f"r{i}", v) for i, v in enumerate(compared.target))
    return CheckResult(
        Outcome.REFUTED,
        f"{point_text(dims)} -> {tuple_text(compared.target)} only by the "
        f"{_SIDES[compared.only_in]} maps",
        dims + results,
    )
