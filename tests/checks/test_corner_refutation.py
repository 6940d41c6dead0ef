"""The answers `equiv` gives without a solver, judged by brute force: a
corner refutation names a pair (or a point) that one map has and the other
has not, counted in plain Python over small maps built beside their text;
no refutation is claimed for maps that are equal; and `check_equivalence`
(any counterexample, as ``verifier equiv`` asks) agrees with the count."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass

from verifier.checks.corner_refutation import pointwise_refutation, relation_refutation
from verifier.checks.equivalence import (
    PointwiseCounterexample,
    RelationCounterexample,
    check_equivalence,
)
from verifier.checks.verdict import Verdict
from verifier.expr import parse_map

Point = tuple[int, ...]


@dataclass(frozen=True)
class _Map:
    """A map over ``d0, d1`` and ``s0``: its text, and the same map as a
    Python function of a point (`None` outside its domain)."""

    text: str
    boxes: tuple[int, int, int]  # the upper bounds of d0, d1, s0 (all from 0)
    at: Callable[[int, int, int], Point | None]

    def points(self) -> dict[Point, Point]:
        found = {}
        for point in itertools.product(*(range(n + 1) for n in self.boxes)):
            value = self.at(*point)
            if value is not None:
                found[point] = value
        return found

    def relation(self) -> set[tuple[Point, Point]]:
        return {(point[:2], value) for point, value in self.points().items()}


def _map(
    d1_upper: int,
    s0_upper: int,
    reversal: int | None,
    shift: int,
    divisor: int,
    limit: int | None,
    nested: bool,
) -> _Map:
    """``(d0, d1)[s0] -> (d0 * 3 + w + shift, (d1 + s0) floordiv divisor)``
    with ``w`` the symbol, or ``reversal - s0``; ``d0 + s0 <= limit`` when
    a limit is given; without `nested`, ``d1 floordiv divisor`` (the map is
    then affine in its symbol: a reversal by its span is one relation)."""
    window = "s0" if reversal is None else f"{reversal} - s0"
    inner = "d1 + s0" if nested else "d1"
    text = (
        f"(d0, d1)[s0] -> (d0 * 3 + {window} + {shift}, ({inner}) floordiv {divisor}), "
        f"domain: d0 in [0, 2], d1 in [0, {d1_upper}], s0 in [0, {s0_upper}]"
    )
    if limit is not None:
        text += f", d0 + s0 in [0, {limit}]"

    def at(d0: int, d1: int, s0: int) -> Point | None:
        inside = 0 <= d0 <= 2 and 0 <= d1 <= d1_upper and 0 <= s0 <= s0_upper
        if not inside or (limit is not None and d0 + s0 > limit):
            return None
        w = s0 if reversal is None else reversal - s0
        return (d0 * 3 + w + shift, (d1 + s0 if nested else d1) // divisor)

    return _Map(text, (2, d1_upper, s0_upper), at)


def _pairs(count: int) -> list[tuple[_Map, _Map]]:
    """Pairs of a map and a variant: the symbol reversed (by its span: equal
    as relations, or one more: not), a shift, a bound or a limit moved."""
    rng = random.Random(34)
    pairs = []
    for _ in range(count):
        d1_upper, s0_upper, shift = rng.randint(0, 3), rng.randint(0, 3), rng.randint(-1, 1)
        divisor, limit = rng.choice([2, 3]), rng.choice([None, 2, 3])
        nested = rng.random() < 0.5
        base = _map(d1_upper, s0_upper, None, shift, divisor, limit, nested)
        change = rng.choice(["reversal", "reversal", "shift", "d1_upper", "limit", "none"])
        reversal = s0_upper + rng.choice([0, 0, 1]) if change == "reversal" else None
        if change == "shift":
            shift += rng.choice([-1, 1])
        elif change == "d1_upper":
            d1_upper += 1
        elif change == "limit":
            limit = rng.choice([None, 1, 4])
        pairs.append((base, _map(d1_upper, s0_upper, reversal, shift, divisor, limit, nested)))
    return pairs


PAIRS = _pairs(100)


def test_a_relation_refutation_is_a_pair_one_map_has_and_the_other_has_not() -> None:
    refuted = 0
    for a, b in PAIRS:
        found = relation_refutation(parse_map(a.text), parse_map(b.text))
        if a.relation() == b.relation():
            assert found is None, (a.text, b.text)
            continue
        if found is None:
            continue
        refuted += 1
        shown, other = (a, b) if found.only_in == "a" else (b, a)
        assert shown.at(*found.dims, *(x for _, x in found.symbols)) == found.result
        assert (found.dims, found.result) not in other.relation(), (a.text, b.text, found)
    assert refuted > 35  # the corners find most differences here, not isl


def test_a_pointwise_refutation_is_a_point_where_the_maps_differ() -> None:
    refuted = 0
    for a, b in PAIRS:
        found = pointwise_refutation(parse_map(a.text), parse_map(b.text))
        if a.points() == b.points():
            assert found is None, (a.text, b.text)
            continue
        if found is None:
            continue
        refuted += 1
        point = tuple(x for _, x in found.point)
        assert (found.a, found.b) == (a.at(*point), b.at(*point)) and found.a != found.b
    assert refuted > 45


def test_equiv_without_minimal_agrees_with_brute_force() -> None:
    """The verdicts (any counterexample, answered without a solver where
    they can be) and their counterexamples, as relations and pointwise."""
    for a, b in PAIRS[:60]:
        map_a, map_b = parse_map(a.text), parse_map(b.text)
        relation = check_equivalence(map_a, map_b, minimal=False)
        if a.relation() == b.relation():
            assert relation.verdict is (Verdict.EQUAL if a.relation() else Verdict.VACUOUS)
        else:
            assert relation.verdict is Verdict.DIFFERENT
            witness = relation.counterexample
            assert isinstance(witness, RelationCounterexample)
            shown, other = (a, b) if witness.only_in == "a" else (b, a)
            assert (witness.dims, witness.result) in shown.relation() - other.relation()
        pointwise = check_equivalence(map_a, map_b, pointwise=True, minimal=False)
        if a.points() == b.points():
            assert pointwise.verdict is (Verdict.EQUAL if a.points() else Verdict.VACUOUS)
        else:
            assert pointwise.verdict is Verdict.DIFFERENT
            point = pointwise.counterexample
            assert isinstance(point, PointwiseCounterexample)
            at = tuple(x for _, x in point.point)
            assert (point.a, point.b) == (a.at(*at), b.at(*at)) and point.a != point.b


def test_one_relation_is_vacuous_exactly_when_its_domain_is_empty() -> None:
    """Maps that are one relation by construction (a window reversed) are
    ``equal``, or ``vacuous`` when no point is in the domain — an empty
    box, or a constraint no integer point meets (``2 * (d0 + s0) = 3``),
    counted here."""
    window = "(d0)[s0] -> (d0 + s0), domain: d0 in [0, 3], s0 in [{low}, {high}]{extra}"
    mirrored = "(d0)[s0] -> (d0 + {span} - s0), domain: d0 in [0, 3], s0 in [{low}, {high}]{extra}"
    for low, high, total in [(0, 3, None), (1, 0, None), (0, 3, 3), (0, 3, 4), (0, 1, 12)]:
        span = low + high
        a, b = (
            parse_map(
                text.format(
                    low=low,
                    high=high,
                    span=span,
                    extra="" if total is None else f", {twice} in [{total}, {total}]",
                )
            )
            for text, twice in (
                (window, "d0 * 2 + s0 * 2"),
                (mirrored, f"d0 * 2 + ({span} - s0) * 2"),
            )
        )
        points = [
            (d0, s0)
            for d0 in range(4)
            for s0 in range(low, high + 1)
            if total is None or 2 * (d0 + s0) == total
        ]
        expected = Verdict.EQUAL if points else Verdict.VACUOUS
        assert check_equivalence(a, b, minimal=False).verdict is expected, (str(a), str(b))
