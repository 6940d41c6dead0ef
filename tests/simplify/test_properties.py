"""Properties of `simplify` on generated maps: same relation, same values
point by point when the variables are kept, never larger; isl agrees."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.strategies import indexing_maps
from verifier.expr.evaluate import evaluate
from verifier.expr.indexing_map import IndexingMap
from verifier.expr.nodes import VarKind, dim, range_var, rt_var
from verifier.expr.parser import parse_map
from verifier.expr.ranges import Ranges
from verifier.simplify import simplify
from verifier.simplify.size import map_size

# The default tier; `-m slow` runs the pointwise property with 2,000 examples.
_SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _domain_values(m: IndexingMap) -> dict[tuple[int, ...], tuple[int, ...]]:
    variables = m.all_variables
    return {tuple(p[v] for v in variables): m.evaluate(p) for p in m.domain_points()}


@pytest.mark.slow
@_SETTINGS
@given(indexing_maps(max_leaves=8, max_constraints=3))
def test_relation_simplification_keeps_the_relation(m: IndexingMap) -> None:
    result = simplify(m, rescale_symbols=True, remove_unused_symbols=True)
    assert result.map.relation() == m.relation() or (result.map.is_known_empty and not m.relation())


def _assert_pointwise_equal(m: IndexingMap) -> None:
    """Same variables, same domain, same values at every point (brute force);
    a variable's bounds may tighten to the domain's own."""
    result = simplify(m)
    assert not result.symbol_changes
    assert result.map.all_variables == m.all_variables
    assert _domain_values(result.map) == _domain_values(m)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(indexing_maps(max_range_vars=2, max_rt_vars=1, max_leaves=8, max_constraints=3))
def test_simplification_is_pointwise_equal(m: IndexingMap) -> None:
    _assert_pointwise_equal(m)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(indexing_maps(max_range_vars=2, max_rt_vars=1, max_leaves=10, max_constraints=3))
def test_simplification_is_pointwise_equal_many(m: IndexingMap) -> None:
    _assert_pointwise_equal(m)


@pytest.mark.slow
@_SETTINGS
@given(indexing_maps(max_leaves=8, max_constraints=3))
def test_simplified_map_is_never_larger(m: IndexingMap) -> None:
    assert map_size(simplify(m).map) <= map_size(m)


@pytest.mark.slow
@_SETTINGS
@given(indexing_maps(max_leaves=8, max_constraints=3))
def test_simplification_is_a_fixpoint(m: IndexingMap) -> None:
    once = simplify(m).map
    assert simplify(once).map == once


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(indexing_maps(max_leaves=8, max_constraints=3))
def test_range_evaluation_contains_every_value(m: IndexingMap) -> None:
    ranges = Ranges.of_map(m)
    points = list(m.domain_points())
    for expr in (*m.results, *(e for e, _ in m.constraints)):
        interval = ranges.interval(expr)
        assert all(evaluate(expr, point) in interval for point in points)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(indexing_maps(max_leaves=8, max_constraints=3))
def test_isl_proves_every_simplification(m: IndexingMap) -> None:
    from verifier.checks.proven_simplification import prove_simplification
    from verifier.checks.verdict import Verdict

    result = simplify(m)
    proven = prove_simplification(m, result)
    assert proven.verdict in (Verdict.EQUAL, Verdict.VACUOUS)


@settings(max_examples=40, deadline=None)
@given(indexing_maps(max_leaves=6, max_constraints=2))
def test_isl_proves_simplifications_quick_tier(m: IndexingMap) -> None:
    from verifier.checks.proven_simplification import prove_simplification
    from verifier.checks.verdict import Verdict

    proven = prove_simplification(m, simplify(m))
    assert proven.verdict in (Verdict.EQUAL, Verdict.VACUOUS)
    if proven.verdict is Verdict.VACUOUS:
        assert not m.relation()


def test_dims_never_disappear() -> None:
    from verifier.expr.parser import parse_map

    m = parse_map("(d0, d1)[s0] -> (s0), domain: d0 in [0, 3], d1 in [0, 3], s0 in [0, 1]")
    simplified = simplify(m).map
    assert simplified.num_dims == 2
    assert all(v.kind is not VarKind.DIM or v.index < 2 for v in simplified.all_variables)


@st.composite
def _lone_symbol_maps(draw: st.DrawFn) -> IndexingMap:
    """``(d0, d1)[s0, s1] -> (d0, d1 + s1)`` where s0 occurs in one constraint,
    ``±s0 + r in [lo, hi]``, with ``r`` over the dims and s1 (the rule's
    case), beside other constraints on the dims and s1."""
    sign = draw(st.sampled_from(["", "-"]))
    rest = draw(st.sampled_from(["d0", "-d1", "d0 + d1", "d0 * 2 - s1", "d0 floordiv 2 + s1"]))
    low = draw(st.integers(-8, 6))
    s0 = draw(st.tuples(st.integers(-3, 3), st.integers(1, 5)))
    others = draw(st.sampled_from(["", ", d0 + s1 in [1, 4]", ", d1 mod 2 in [0, 0]"]))
    return parse_map(
        f"(d0, d1)[s0, s1] -> (d0, d1 + s1), domain: d0 in [0, 4], d1 in [0, 3],"
        f" s0 in [{s0[0]}, {s0[0] + s0[1]}], s1 in [0, 2],"
        f" {sign}s0 + {rest} in [{low}, {low + draw(st.integers(0, 6))}]{others}"
    )


@st.composite
def _lone_runtime_variable_maps(draw: st.DrawFn) -> IndexingMap:
    """``(d0, d1)[s0]{rt0, rt1} -> (d0 + s0)`` with each symbol in one
    constraint ``d0 + b * d1 + c * symbol + k in [lo, hi]`` (c = ±1 mostly,
    so `project_lone_symbol` projects the runtime variables out, and the
    constraint often cuts; now and then [lo, hi] is empty, and so is the
    map)."""
    box = st.tuples(st.integers(0, 2), st.integers(1, 4)).map(lambda t: (t[0], t[0] + t[1]))
    constraints = []
    for symbol in (rt_var(0), rt_var(1), range_var(0)):
        expr = dim(0) + dim(1) * draw(st.integers(-1, 1)) + draw(st.integers(-2, 2))
        expr = expr + symbol * draw(st.sampled_from([1, -1, 1, -1, 2]))
        lower = draw(st.integers(-4, 4))
        constraints.append((expr, (lower, lower + draw(st.integers(-1, 3)))))
    return IndexingMap.create(
        [draw(box), draw(box)],
        [dim(0) + range_var(0)],
        range_vars=[draw(box)],
        rt_vars=[draw(box), draw(box)],
        constraints=constraints,
    )


@_SETTINGS
@given(st.one_of(_lone_symbol_maps(), _lone_runtime_variable_maps()))
def test_projecting_a_lone_symbol_keeps_the_relation(m: IndexingMap) -> None:
    """Brute force judges `project_lone_symbol`, which fires on most of them."""
    result = simplify(m, rescale_symbols=True, remove_unused_symbols=True)
    assert result.map.relation() == m.relation() or (result.map.is_known_empty and not m.relation())


@st.composite
def _one_variable_constraints(draw: st.DrawFn) -> IndexingMap:
    """``(d0, d1) -> (d0 + d1)`` with d1 over a few values constrained alone
    by nested divisions and moduli (a reverse scan's pieces), often met by
    fewer values than its bounds, or by none."""
    low = draw(st.integers(-6, 20))
    terms = ["d1", "-d1", "d1 - 1", "(d1 floordiv 2)", "-(d1 floordiv 2)", "(d1 + 3) floordiv 4"]
    constraints = []
    for _ in range(draw(st.integers(1, 3))):
        term = draw(st.sampled_from(terms))
        term = draw(st.sampled_from([f"({term}) mod 2", f"(({term}) floordiv 2) mod 3"]))
        residue = draw(st.integers(0, 2))
        constraints.append(f"{term} in [{residue}, {residue + draw(st.integers(0, 1))}]")
    return parse_map(
        f"(d0, d1) -> (d0 + d1), domain: d0 in [0, 3], d1 in [{low}, {low + draw(st.integers(0, 9))}], "
        + ", ".join(constraints)
    )


@_SETTINGS
@given(_one_variable_constraints())
def test_enumerated_bounds_keep_every_point(m: IndexingMap) -> None:
    """Brute force judges `constraint_enumerate_bounds` pointwise."""
    _assert_pointwise_equal(m)
