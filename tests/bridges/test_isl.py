"""The isl translation is exact: its points are the brute-force relation."""

import itertools
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import indexing_maps, map_pairs
from verifier.bridges import isl as isl_bridge
from verifier.bridges import isl_questions, isl_to_map
from verifier.errors import InvalidMapError, UnsupportedError
from verifier.expr.indexing_map import IndexingMap, Variable
from verifier.expr.interval import Interval
from verifier.expr.nodes import dim
from verifier.expr.parser import parse_map

maps = indexing_maps(max_dims=2, max_results=2)


@pytest.mark.slow
@given(maps)
def test_relation_points_are_the_brute_force_relation(m):
    points = isl_bridge.isl_points(isl_bridge.to_isl_map(m))
    assert set(points) == {dims + results for dims, results in m.relation()}


@pytest.mark.slow
@given(maps)
def test_graph_points_are_every_domain_point_with_its_results(m):
    graph = isl_bridge.to_isl_map(m, existential_symbols=False)
    expected = {tuple(p[v] for v in m.all_variables) + m.evaluate(p) for p in m.domain_points()}
    assert set(isl_bridge.isl_points(graph)) == expected


@pytest.mark.parametrize(
    "text",
    [
        # A variable beside a term over it: its coefficient is added to the
        # term's, not set over it (the sum's variables go in as coefficients).
        "(d0)[s0] -> (s0 + s0 mod 2 + d0 * 3 - 1), domain: d0 in [0, 2], s0 in [0, 3]",
        "(d0, d1) -> (d1 * 2 + d0 floordiv 2 - d0), domain: d0 in [0, 5], d1 in [0, 1], "
        "d0 + d0 mod 3 in [0, 5]",
    ],
)
def test_graphs_of_sums_mixing_variables_and_terms_over_them(text):
    m = parse_map(text)
    graph = isl_bridge.to_isl_map(m, existential_symbols=False)
    expected = {tuple(p[v] for v in m.all_variables) + m.evaluate(p) for p in m.domain_points()}
    assert set(isl_bridge.isl_points(graph)) == expected


@pytest.mark.slow
@given(indexing_maps(allow_empty=True))
def test_domain_points_are_the_brute_force_domain(m):
    expected = {tuple(p[v] for v in m.all_variables) for p in m.domain_points()}
    assert set(isl_bridge.isl_points(isl_bridge.to_isl_set(m))) == expected
    assert isl_questions.is_empty(m) == (not expected)


@pytest.mark.slow
@given(maps)
def test_back_from_isl_keeps_the_relation_where_expressible(m):
    graph = isl_bridge.to_isl_map(m, existential_symbols=False)
    try:
        back = isl_to_map.from_isl_map(graph)
    except UnsupportedError:
        return  # several pieces (min/max) or a non-convex domain
    assert back.relation() == m.relation()
    assert len(back.range_vars) == len(m.range_vars)


def test_back_from_isl_reads_divisions():
    m = parse_map("(d0)[s0] -> (d0 floordiv 4 + s0, d0 mod 4), domain: d0 in [-5, 7], s0 in [0, 1]")
    back = isl_to_map.from_isl_map(isl_bridge.to_isl_map(m, existential_symbols=False))
    assert back.relation() == m.relation()
    assert "floordiv 4" in str(back)


def test_min_gives_several_pieces_which_do_not_come_back():
    m = parse_map("(d0) -> (min(d0, 2)), domain: d0 in [0, 5]")
    with pytest.raises(UnsupportedError, match="pieces"):
        isl_to_map.from_isl_map(isl_bridge.to_isl_map(m))


def test_huge_constants_are_exact():
    # Built, not parsed: map text holds int64 literals only (XLA's indices),
    # while the bridge stays exact past them (composition can get there).
    m = IndexingMap.create([Variable(Interval(0, 1))], [dim(0) + 2**70])
    assert sorted(isl_bridge.isl_points(isl_bridge.to_isl_map(m))) == [(0, 2**70), (1, 2**70 + 1)]


def test_an_exhausted_budget_is_unknown_not_an_error():
    a = parse_map("(d0, d1) -> ((d0 * 7 + d1) mod 13), domain: d0 in [0, 99], d1 in [0, 99]")
    b = parse_map("(d0, d1) -> ((d0 * 7 + d1 + 13) mod 13), domain: d0 in [0, 99], d1 in [0, 99]")
    assert isl_questions.compare_pointwise(a, b, max_operations=1).differs is None
    assert isl_questions.compare_relations(a, b, max_operations=1).differs is None
    assert isl_questions.is_empty(a, max_operations=1) is None
    # The budget is per question: the next one runs normally.
    assert isl_questions.compare_pointwise(a, b).differs is False


def test_pointwise_needs_the_same_variables():
    a = parse_map("(d0)[s0] -> (d0), domain: d0 in [0, 3], s0 in [0, 1]")
    b = parse_map("(d0){rt0} -> (d0), domain: d0 in [0, 3], rt0 in [0, 1]")
    with pytest.raises(InvalidMapError, match="same variables"):
        isl_questions.compare_pointwise(a, b)


def test_the_witness_is_the_smallest_point():
    # Differ exactly where d0 + d1 >= 5, over a box around zero.
    a = parse_map("(d0, d1) -> (min(d0 + d1, 5)), domain: d0 in [-9, 9], d1 in [-9, 9]")
    b = parse_map("(d0, d1) -> (d0 + d1), domain: d0 in [-9, 9], d1 in [-9, 9]")
    answer = isl_questions.compare_pointwise(a, b)
    witness = dict(answer.witness)
    assert abs(witness["d0"]) + abs(witness["d1"]) == 6
    smallest = min(
        abs(x) + abs(y) for x, y in itertools.product(range(-9, 10), repeat=2) if x + y > 5
    )
    assert smallest == 6


def test_the_witness_is_the_smallest_point_with_signed_and_unsigned_coordinates():
    # d0 never negative (its own size), d1 of either sign: differ where 2 * d0 - d1 >= 7.
    domain = "domain: d0 in [0, 9], d1 in [-9, 9]"
    a = parse_map(f"(d0, d1) -> (min(d0 * 2 - d1, 6)), {domain}")
    b = parse_map(f"(d0, d1) -> (d0 * 2 - d1), {domain}")
    witness = dict(isl_questions.compare_pointwise(a, b).witness)
    smallest = min(
        (x + abs(y), x, y) for x, y in itertools.product(range(10), range(-9, 10)) if 2 * x - y >= 7
    )
    assert (witness["d0"] + abs(witness["d1"]), witness["d0"], witness["d1"]) == smallest


def _size_order(m: IndexingMap, point: tuple[int, ...]) -> tuple[object, ...]:
    dims, symbols = point[: m.num_dims], point[m.num_dims :]
    return (sum(map(abs, dims)), sum(map(abs, symbols)), point)


@pytest.mark.slow
@given(map_pairs())
def test_a_pointwise_witness_is_the_smallest_difference_by_brute_force(pair):
    # Smallest in minimal_point's order: Σ|dims|, then Σ|symbols|, then
    # lexicographic.  The minimisation has a budget of its own: signed
    # coordinates can exhaust it even on small boxes, and then the witness
    # is isl's sample point, so the exact order is tested with a large one.
    a, b = pair
    with mock.patch.object(isl_bridge, "ISL_MINIMISE_OPERATIONS", 10**7):
        answer = isl_questions.compare_pointwise(a, b)
    values_a, values_b = (
        {tuple(p.values()): m.evaluate(p) for p in m.domain_points()} for m in (a, b)
    )
    differ = [
        point
        for point in values_a.keys() | values_b.keys()
        if values_a.get(point) != values_b.get(point)
    ]
    assert answer.differs is bool(differ)
    if differ:
        witness = tuple(value for _, value in answer.witness)
        assert witness == min(differ, key=lambda point: _size_order(a, point))


def test_boxes_with_an_empty_interval_are_empty():
    # isl spans a box between two corners whichever is larger: an empty
    # interval [3, 2] must not become [2, 3].
    m = parse_map("(d0)[s0] -> (d0), domain: d0 in [3, 2], s0 in [-5, 7]")
    assert isl_questions.is_empty(m) is True
    assert isl_bridge.isl_points(isl_bridge.to_isl_set(m)) == []


def test_the_converter_names_unknown_variables():
    with pytest.raises(InvalidMapError, match="'d1' is not one of the variables d0"):
        isl_bridge.IslExprConverter(["d0"]).convert(dim(1))


@pytest.mark.slow
@given(map_pairs())
def test_relations_equal_is_brute_force_relation_equality(pair):
    a, b = pair
    assert isl_questions.relations_equal(a, b) == (a.relation() == b.relation())


def test_relations_equal_is_unknown_when_the_budget_runs_out():
    a = parse_map("(d0, d1) -> ((d0 * 7 + d1) mod 13), domain: d0 in [0, 99], d1 in [0, 99]")
    assert isl_questions.relations_equal(a, a, max_operations=1) is None


@pytest.mark.parametrize(
    ("b_text", "equal"),
    [
        ("(d0) -> ((d0 floordiv 7) * 7 + d0 mod 7)", True),
        # the same domain, results that differ at one point only (d0 = 7)
        ("(d0) -> (d0 + (d0 + 1) floordiv 8 - d0 floordiv 8)", False),
    ],
)
def test_graphs_over_one_domain_are_compared_at_every_point(b_text, equal):
    a = parse_map("(d0) -> (d0), domain: d0 in [0, 9]")
    b = parse_map(b_text + ", domain: d0 in [0, 9]")
    assert isl_questions.compare_pointwise(a, b).differs is not equal
    assert isl_questions.relations_equal(a, b) is equal


def test_graphs_with_the_same_results_differ_by_their_domains():
    a = parse_map("(d0) -> (d0 mod 4), domain: d0 in [0, 9], d0 mod 3 in [0, 1]")
    b = parse_map("(d0) -> (d0 mod 4), domain: d0 in [0, 9], d0 mod 3 in [0, 1], d0 in [0, 8]")
    assert isl_questions.compare_pointwise(a, b).witness == (("d0", 9),)
    assert isl_questions.compare_pointwise(a, a).differs is False


def _shifted(m: IndexingMap, shifts: list[int]) -> IndexingMap:
    """`m` with each constraint ``e in [l, u]`` written ``e + k in [l + k, u + k]``."""
    constraints = [
        (expr + k, Interval(interval.lower + k, interval.upper + k))
        for (expr, interval), k in zip(m.constraints, shifts, strict=False)
    ]
    return IndexingMap.create(
        m.dims, m.results, range_vars=m.range_vars, rt_vars=m.rt_vars, constraints=constraints
    )


def _domain(m: IndexingMap) -> set[tuple[int, ...]]:
    return {tuple(p.values()) for p in m.domain_points()}


@given(indexing_maps(max_constraints=3), st.lists(st.integers(-3, 3), min_size=3, max_size=3))
def test_constraints_shifted_by_a_constant_are_one_domain(m, shifts):
    shifted = _shifted(m, shifts)
    assert _domain(m) == _domain(shifted)
    # A shift that leaves a bare variable (``rt0 - 2 + 2 in [2, 2]``) is
    # folded into its bounds by `IndexingMap.create`: no longer the same
    # look, and the shortcut rightly declines to say (the full question
    # decides); every other shift keeps the look.
    folded = (shifted.dims, shifted.range_vars, shifted.rt_vars, len(shifted.constraints)) != (
        m.dims,
        m.range_vars,
        m.rt_vars,
        len(m.constraints),
    )
    assert isl_questions._same_domain(m, shifted) is not folded


@pytest.mark.slow
@given(map_pairs())
def test_domains_that_look_the_same_are_the_same(pair):
    a, b = pair
    if isl_questions._same_domain(a, b):
        assert _domain(a) == _domain(b)


def test_a_constraint_shifted_without_its_interval_is_another_domain():
    a = parse_map("(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 9], d0 + d1 - 1 in [0, 4]")
    b = parse_map("(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 9], d0 + d1 in [0, 4]")
    c = parse_map("(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 9], d0 + d1 in [1, 5]")
    assert not isl_questions._same_domain(a, b)
    assert isl_questions._same_domain(a, c)
    assert isl_questions.compare_pointwise(a, b).differs
    assert isl_questions.compare_pointwise(a, c).differs is False
