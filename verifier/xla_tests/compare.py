"""XLA's expected maps against the maps `verifier` computes, with a witness
re-evaluated in Python when they differ.

Two semantics, as `verifier.checks.equivalence` has them: **pointwise**
(same variables with the same meaning: what ``Simplify`` promises) and
**relations** (symbols existential: what removing or rescaling symbols and
composition promise, and what an HLO operand's maps are).  An operand's
expected maps are a union: equal when each expected map is one computed map
as a relation, or, for small domains, when the unions of pairs are equal.

>>> from verifier.expr import parse_map
>>> computed = parse_map("(d0) -> (d0 floordiv 2), domain: d0 in [0, 7]")
>>> compare_maps(computed, parse_map("(d0) -> (d0 floordiv 2), domain: d0 in [0, 7]"),
...              pointwise=True).verdict
<Agreement.EQUAL: 'equal'>
>>> found = compare_maps(computed, parse_map("(d0) -> (d0 floordiv 4), domain: d0 in [0, 7]"),
...                      pointwise=True)
>>> found.verdict.value, found.witness
('different', 'd0 = 2: verifier computes (1), XLA expects (0)')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import assert_never

from verifier.checks import check_equivalence
from verifier.checks.equivalence import (
    EquivalenceResult,
    PointwiseCounterexample,
    RelationCounterexample,
)
from verifier.checks.verdict import Verdict
from verifier.errors import VerifierError
from verifier.expr import IndexingMap, Undefined
from verifier.xla_tests.result import Agreement

# Both unions of an operand's maps enumerated in Python up to this many
# points of their variables' boxes (when no map-to-map match settles it).
_UNION_ENUMERATION_LIMIT = 1 << 16


@dataclass(frozen=True)
class Comparison:
    """A verdict with its witness (text and data) or the reason it is not comparable."""

    verdict: Agreement
    witness: str | None = None
    reason: str | None = None
    witness_point: dict[str, object] | None = None
    computed: str | None = None
    expected: str | None = None
    # What an equal verdict rests on, where it is not plain equality.
    note: str | None = None


def _flat(maps: Sequence[IndexingMap | Undefined]) -> str:
    """The maps, one text each on one line, separated by ``; ``."""
    return "; ".join(" ".join(str(m).split()) for m in maps)


def not_comparable(reason: str) -> Comparison:
    return Comparison(Agreement.NOT_COMPARABLE, reason=reason)


def compare_maps(
    computed: IndexingMap, expected: IndexingMap | Undefined, *, pointwise: bool
) -> Comparison:
    """`expected` (XLA's text) against `computed` (verifier's map for the
    same input), pointwise or as relations."""
    if isinstance(expected, Undefined):
        return not_comparable("XLA expects UNDEFINED (unknown indexing): nothing to compare")
    try:
        result = check_equivalence(computed, expected, pointwise=pointwise)
    except VerifierError as error:
        return not_comparable(f"the maps could not be compared: {error}")
    return replace(_comparison(result), computed=_flat([computed]), expected=_flat([expected]))


def _comparison(result: EquivalenceResult) -> Comparison:
    match result.verdict:
        case Verdict.EQUAL | Verdict.VACUOUS:
            return Comparison(Agreement.EQUAL)
        case Verdict.UNKNOWN:
            return not_comparable("; ".join(result.notes) or "unknown")
        case Verdict.DIFFERENT:
            assert result.counterexample is not None
            return _different(result.counterexample)
        case _ as unreachable:
            assert_never(unreachable)


def _values(values: tuple[int, ...] | None) -> str:
    return "no value (the point is outside its domain)" if values is None else _tuple(values)


def _tuple(values: Sequence[int]) -> str:
    return "(" + ", ".join(str(v) for v in values) + ")"


def _different(counterexample: PointwiseCounterexample | RelationCounterexample) -> Comparison:
    match counterexample:
        case PointwiseCounterexample(point, computed, expected):
            where = ", ".join(f"{name} = {value}" for name, value in point) or "the empty point"
            text = (
                f"{where}: verifier computes {_values(computed)}, XLA expects {_values(expected)}"
            )
            data: dict[str, object] = {
                "semantics": "pointwise",
                "point": dict(point),
                "computed": None if computed is None else list(computed),
                "expected": None if expected is None else list(expected),
            }
            return Comparison(Agreement.DIFFERENT, witness=text, witness_point=data)
        case RelationCounterexample(dims, result, only_in, symbols):
            side = "XLA's expected map" if only_in == "b" else "verifier's map"
            other = "verifier's" if only_in == "b" else "XLA's expected map"
            dims_text = ", ".join(f"d{i} = {x}" for i, x in enumerate(dims))
            text = f"({dims_text}) -> {_tuple(result)} is read by {side} and not by {other}"
            if symbols:
                text += " (with " + ", ".join(f"{k} = {v}" for k, v in symbols) + ")"
            data = {
                "semantics": "relation",
                "dims": list(dims),
                "result": list(result),
                "only_in": "expected" if only_in == "b" else "computed",
                "symbols": dict(symbols),
            }
            return Comparison(Agreement.DIFFERENT, witness=text, witness_point=data)
        case _ as unreachable:
            assert_never(unreachable)


def compare_unions(
    computed: Sequence[IndexingMap], expected: Sequence[IndexingMap | Undefined]
) -> Comparison:
    """An operand's expected maps against the computed ones, as a union of relations."""
    if any(isinstance(m, Undefined) for m in expected):
        return not_comparable("XLA expects UNDEFINED (unknown indexing): nothing to compare")
    wanted = [m for m in expected if isinstance(m, IndexingMap)]
    if len(computed) == 1 and len(wanted) == 1:
        return compare_maps(computed[0], wanted[0], pointwise=False)
    flat_computed, flat_expected = _flat(computed), _flat(wanted)
    if _one_to_one(computed, wanted):
        return Comparison(Agreement.EQUAL, computed=flat_computed, expected=flat_expected)
    size = sum(m.domain_size_bound() for m in (*computed, *wanted))
    if size > _UNION_ENUMERATION_LIMIT:
        reason = (
            f"{len(computed)} computed and {len(wanted)} expected maps: no map-to-map match "
            f"and too many points ({size}) to compare their unions by enumeration"
        )
        return Comparison(
            Agreement.NOT_COMPARABLE, reason=reason, computed=flat_computed, expected=flat_expected
        )
    mine = {pair for m in computed for pair in m.relation()}
    theirs = {pair for m in wanted for pair in m.relation()}
    if mine == theirs:
        return Comparison(Agreement.EQUAL, computed=flat_computed, expected=flat_expected)
    only = sorted((mine - theirs) | (theirs - mine), key=lambda p: (sum(map(abs, p[0])), p))
    dims, result = only[0]
    in_expected = (dims, result) in theirs
    side = "XLA's expected maps" if in_expected else "verifier's maps"
    dims_text = ", ".join(f"d{i} = {x}" for i, x in enumerate(dims))
    return Comparison(
        Agreement.DIFFERENT,
        witness=f"({dims_text}) -> {_tuple(result)} is read by {side} only (unions compared)",
        witness_point={
            "semantics": "relation",
            "dims": list(dims),
            "result": list(result),
            "only_in": "expected" if in_expected else "computed",
            "symbols": {},
        },
        computed=flat_computed,
        expected=flat_expected,
    )


def _one_to_one(computed: Sequence[IndexingMap], expected: Sequence[IndexingMap]) -> bool:
    """Whether each expected map is a distinct computed map, equal as relations."""
    if len(computed) != len(expected):
        return False
    left = list(computed)
    for wanted in expected:
        for index, candidate in enumerate(left):
            if compare_maps(candidate, wanted, pointwise=False).verdict is Agreement.EQUAL:
                del left[index]
                break
        else:
            return False
    return True
