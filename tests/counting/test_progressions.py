"""The closed-form counter against brute-force enumeration: progressions,
strided boxes, and unions of them."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifier.errors import UnsupportedError
from verifier.expr.progressions import Progression, StridedBox, count_union

progressions = st.builds(Progression.of, st.integers(-12, 12), st.integers(1, 6), st.integers(0, 7))


def values(progression: Progression) -> set[int]:
    return {progression.first + progression.step * k for k in range(progression.count)}


def points(box: StridedBox) -> set[tuple[int, ...]]:
    return set(itertools.product(*(sorted(values(side)) for side in box.sides)))


def boxes(rank: int) -> st.SearchStrategy[StridedBox]:
    return st.lists(progressions, min_size=rank, max_size=rank).map(
        lambda sides: StridedBox(tuple(sides))
    )


@given(progressions, progressions)
def test_intersection_is_the_common_values(a: Progression, b: Progression) -> None:
    assert values(a.intersect(b)) == values(a) & values(b)
    assert a.contains(b) == (values(b) <= values(a))


@given(progressions, st.integers(-15, 15), st.integers(-15, 40))
def test_clip_keeps_the_values_in_range(a: Progression, lower: int, upper: int) -> None:
    assert values(a.clip(lower, upper)) == {x for x in values(a) if lower <= x <= upper}


@given(st.integers(0, 3).flatmap(lambda rank: st.lists(boxes(rank), max_size=6)))
def test_union_count_equals_enumeration(union: list[StridedBox]) -> None:
    enumerated: set[tuple[int, ...]] = set()
    for box in union:
        enumerated |= points(box)
    assert count_union(union) == len(enumerated)


def test_union_of_huge_boxes_counts_without_enumerating() -> None:
    # {0, 2, …} × [0, 10⁶) and [0, 10⁶) × {0, 3, …}: 5·10¹¹ + 333334·10⁶ − 500000·333334
    n = 10**6
    evens = StridedBox((Progression.of(0, 2, n // 2), Progression.interval(0, n - 1)))
    thirds = StridedBox((Progression.interval(0, n - 1), Progression.of(0, 3, 333_334)))
    assert count_union([evens, thirds]) == n // 2 * n + n * 333_334 - n // 2 * 333_334


def test_too_many_terms_is_an_explicit_refusal() -> None:
    # Eight pairwise-overlapping boxes need 2⁸ − 1 terms.
    union = [StridedBox((Progression.interval(k, k + 10),)) for k in range(8)]
    assert count_union(union) == 18
    with pytest.raises(UnsupportedError, match="inclusion"):
        count_union(union, term_limit=100)
