"""`join_pieces` against brute force: the joined map's domain is exactly the
union of the two pieces' domains, point for point (plain Python predicates
over every point of the box)."""

from __future__ import annotations

import itertools

import pytest

from verifier.expr import IndexingMap, dim, rt_var
from verifier.fusion.pieces import join_pieces


def _piece(n: int, top: int, scale: int, side: tuple[int, int]) -> IndexingMap:
    return IndexingMap.create(
        [(0, n - 1)],
        [dim(0)],
        rt_vars=[(0, top)],
        constraints=[(dim(0) - scale * rt_var(0), side)],
    )


@pytest.mark.parametrize("n", [1, 4])
@pytest.mark.parametrize("top", [0, 3])
@pytest.mark.parametrize("scale", [1, 2])
def test_joined_domain_is_the_union_of_the_pieces(n: int, top: int, scale: int) -> None:
    box = list(itertools.product(range(n), range(top + 1)))
    span = range(-scale * top - 2, n + 2)
    joined_any = False
    for a_low, a_high, b_low, b_high in itertools.product(span, repeat=4):
        if not (a_low <= a_high < b_low <= b_high):
            continue
        first = _piece(n, top, scale, (a_low, a_high))
        second = _piece(n, top, scale, (b_low, b_high))
        joined = join_pieces(first, second)
        if joined is None:
            continue
        joined_any = True
        expected = {
            (d, r)
            for d, r in box
            if a_low <= d - scale * r <= a_high or b_low <= d - scale * r <= b_high
        }
        found = {(d, r) for d, r in box if joined.contains({dim(0): d, rt_var(0): r})}
        assert found == expected, (a_low, a_high, b_low, b_high, str(joined))
        assert joined.results == first.results and joined.rt_vars == first.rt_vars
    assert joined_any


def test_overlapping_or_twice_split_pieces_are_not_joined() -> None:
    # A point of both overlapping pieces is read twice; pieces differing in
    # two constraints are not one map's pieces.
    assert join_pieces(_piece(4, 2, 1, (-2, 1)), _piece(4, 2, 1, (1, 3))) is None
    twice = IndexingMap.create(
        [(0, 3)], [dim(0)], rt_vars=[(0, 2)], constraints=[(dim(0), (0, 1)), (rt_var(0), (0, 0))]
    )
    other = IndexingMap.create(
        [(0, 3)], [dim(0)], rt_vars=[(0, 2)], constraints=[(dim(0), (2, 3)), (rt_var(0), (1, 2))]
    )
    assert join_pieces(twice, other) is None
