"""Exact counts of images and domains against enumeration of the maps'
domain points (plain loops, no counting code shared)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.strategies import indexing_maps
from verifier.counting.exact import Count, count_domain, count_image
from verifier.expr.indexing_map import IndexingMap, Variable
from verifier.expr.interval import Interval
from verifier.expr.nodes import Expr, Var, VarKind, dim, range_var, rt_var
from verifier.expr.parser import parse_map


def enumerated_image(maps: list[IndexingMap], dimensions: tuple[int, ...]) -> int:
    seen = set()
    for m in maps:
        for point in m.domain_points():
            element = m.evaluate(point)
            if all(0 <= x < n for x, n in zip(element, dimensions, strict=True)):
                seen.add(element)
    return len(seen)


def enumerated_domain(m: IndexingMap) -> int:
    return len(
        {
            tuple(v for k, v in point.items() if k.kind is not VarKind.RT)
            for point in m.domain_points()
        }
    )


@st.composite
def box_like_maps(draw: st.DrawFn, rank: int) -> IndexingMap:
    """Maps in the closed form's fragment: each result a sum of its own
    variables, single-variable constraints, and a constraint clipping one
    result's sum."""
    pools: list[Var] = [dim(i) for i in range(3)] + [range_var(0), range_var(1), rt_var(0)]
    chosen = draw(st.permutations(pools))
    bounds = {v: draw(st.tuples(st.integers(-3, 3), st.integers(0, 4))) for v in pools}
    results: list[Expr] = []
    position = 0
    for _ in range(rank):
        size = draw(st.integers(0, 2))
        expr: Expr = dim(0) * 0 + draw(st.integers(-3, 6))
        for v in chosen[position : position + size]:
            expr = expr + v * draw(st.sampled_from([-3, -2, -1, 1, 2, 4]))
        position += size
        results.append(expr)
    constraints: list[tuple[Expr, Interval]] = []
    if draw(st.booleans()):
        v = draw(st.sampled_from(pools))
        constraints.append((v * draw(st.sampled_from([-2, 1, 3])) + 1, Interval(-2, 5)))
    if len(results) > 0 and draw(st.booleans()):
        constraints.append((results[0] + 2, Interval(draw(st.integers(-4, 4)), 6)))

    def variable(v: Var) -> Variable:
        lower, width = bounds[v]
        return Variable(Interval(lower, lower + width))

    return IndexingMap.create(
        [variable(dim(i)) for i in range(3)],
        results,
        range_vars=[variable(range_var(0)), variable(range_var(1))],
        rt_vars=[variable(rt_var(0))],
        constraints=constraints,
    )


_DIMS = st.lists(st.integers(1, 8), min_size=0, max_size=2).map(tuple)


@pytest.mark.slow
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_box_like_union_counts_match_enumeration(data: st.DataObject) -> None:
    dimensions = data.draw(_DIMS)
    maps = data.draw(st.lists(box_like_maps(len(dimensions)), min_size=1, max_size=3))
    assert count_image(maps, dimensions).value == enumerated_image(maps, dimensions)
    for m in maps:
        assert count_domain(m).value == enumerated_domain(m)


@pytest.mark.slow
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_map_counts_match_enumeration(data: st.DataObject) -> None:
    dimensions = data.draw(_DIMS)
    maps = data.draw(st.lists(indexing_maps(num_results=len(dimensions)), min_size=1, max_size=2))
    assert count_image(maps, dimensions).value == enumerated_image(maps, dimensions)
    for m in maps:
        assert count_domain(m).value == enumerated_domain(m)


def test_strided_windows_count_in_closed_form() -> None:
    pooled = parse_map(
        "(d0, d1)[s0] -> (d0, d1 * 2 + s0), domain: d0 in [0, 999999], "
        "d1 in [0, 499999], s0 in [0, 1]"
    )
    assert count_image([pooled], (10**6, 10**6)).method == "closed form"
    assert count_domain(pooled).value == 10**12
    conv = parse_map(
        "(d0)[s0] -> (d0 + s0 - 1), domain: d0 in [0, 7], s0 in [0, 2], d0 + s0 in [1, 8]"
    )
    assert count_image([conv], (8,)).method == "closed form"
    # The coupled constraint cuts the domain: counted by cases on s0.
    assert count_domain(conv) == Count(enumerated_domain(conv), "cases")


def test_gaps_split_into_progressions_until_too_many() -> None:
    # d0 * 3 + s0 with s0 in [0, 1] reads {0, 1, 3, 4, …}: {0, 3, …} ∪ {1, 4, …}.
    gappy = parse_map("(d0)[s0] -> (d0 * 3 + s0), domain: d0 in [0, 3], s0 in [0, 1]")
    count = count_image([gappy], (12,))
    assert (count.value, count.method) == (8, "closed form")
    # 100 values of each variable and gaps: more pieces than the closed form takes.
    wide = parse_map("(d0)[s0] -> (d0 * 200 + s0), domain: d0 in [0, 99], s0 in [0, 99]")
    count = count_image([wide], (20000,))
    assert (count.value, count.method) == (10000, "isl")
    # A division is split into its digits (counting/digits.py): closed form.
    halves = parse_map("(d0) -> (d0 floordiv 2), domain: d0 in [0, 9]")
    assert count_image([halves], (5,)) == Count(5, "closed form")


def test_a_domain_counts_as_the_product_of_its_independent_pieces() -> None:
    # The reads of a convolution chain: a coupled piece (floordiv and mod of
    # one symbol), one-value symbols, and symbols no constraint mentions,
    # whose product isl's scan could not finish within its budget.
    coupled = (
        "(d0)[s0, s1] -> (), domain: d0 in [0, 1], s0 in [0, 2], s1 in [0, 63], "
        "((s1 floordiv 8) mod 4) * 2 + s0 - 1 in [0, 7], (s1 mod 8) floordiv 4 + d0 in [0, 1]"
    )
    whole = parse_map(
        "(d0, d1)[s0, s1, s2, s3] -> (), domain: d0 in [0, 1], d1 in [0, 9999], "
        "s0 in [0, 2], s1 in [0, 63], s2 in [0, 0], s3 in [0, 9999], "
        "((s1 floordiv 8) mod 4) * 2 + s0 + s2 - 1 in [0, 7], "
        "(s1 mod 8 + s2) floordiv 4 + d0 in [0, 1]"
    )
    assert count_domain(whole).value == enumerated_domain(parse_map(coupled)) * 10**8
