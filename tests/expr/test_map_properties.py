"""Properties of indexing maps on generated maps: printing and parsing are
inverses, known-empty is sound, `compose` is relation composition,
`remove_unused_symbols` keeps the relation."""

import itertools

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.strategies import indexing_maps
from verifier.expr.evaluate import evaluate, point_predicate, variables_of
from verifier.expr.indexing_map import compose
from verifier.expr.interval import Interval
from verifier.expr.nodes import Expr, dim
from verifier.expr.parser import parse_map

maps = indexing_maps(max_dims=3, max_results=3)


@pytest.mark.slow
@given(maps)
def test_parse_inverts_print(m):
    parsed = parse_map(str(m))
    if m.is_known_empty:
        assert parsed.is_known_empty
    else:
        assert parsed == m


@pytest.mark.slow
@given(indexing_maps(allow_empty=True))
def test_known_empty_maps_have_no_points(m):
    if m.is_known_empty:
        assert not list(m.domain_points())


@pytest.mark.slow
@given(indexing_maps(allow_empty=True))
def test_known_empty_maps_print_as_known_empty(m):
    assert (str(m) == "KNOWN EMPTY") == m.is_known_empty


def _composed(consumer_relation, producer_relation):
    by_dims: dict[tuple[int, ...], set[tuple[int, ...]]] = {}
    for dims, results in producer_relation:
        by_dims.setdefault(dims, set()).add(results)
    return {(x, z) for x, y in consumer_relation for z in by_dims.get(y, ())}


@st.composite
def composable(draw):
    middle = draw(st.integers(0, 2))
    consumer = draw(indexing_maps(max_dims=2, max_rt_vars=0, num_results=middle, max_constraints=1))
    producer = draw(
        indexing_maps(
            num_dims=middle, max_range_vars=1, max_rt_vars=0, max_results=2, max_constraints=1
        )
    )
    return consumer, producer


@pytest.mark.slow
@settings(max_examples=80)
@given(composable())
def test_compose_is_relation_composition(pair):
    consumer, producer = pair
    assert compose(consumer, producer).relation() == _composed(
        consumer.relation(), producer.relation()
    )


@pytest.mark.slow
@given(indexing_maps(max_range_vars=2, max_rt_vars=1, max_constraints=3))
def test_remove_unused_symbols_keeps_the_relation(m):
    assert m.remove_unused_symbols().relation() == m.relation()


@pytest.mark.slow
@given(indexing_maps(allow_empty=True, max_constraints=3), st.data())
def test_a_compiled_point_predicate_is_contains_and_evaluate(m, data):
    """`point_predicate` answers what `contains` and `evaluate` answer, on
    every point of a box around the domain (so also outside it)."""
    variables = m.all_variables
    target = tuple(data.draw(st.integers(-3, 3)) for _ in m.results)
    bounds = [(v, m.bounds(v)) for v in variables]
    holds = point_predicate(
        variables, [*bounds, *m.constraints], list(zip(m.results, target, strict=True))
    )
    assert holds is not None
    box = [range(b.lower - 1, b.upper + 2) for _, b in bounds]
    for point in itertools.islice(itertools.product(*box), 300):
        values = dict(zip(variables, point, strict=True))
        expected = m.contains(values) and m.evaluate(values) == target
        assert holds(*point) is expected


def test_a_predicate_too_deep_for_python_is_none():
    deep: Expr = dim(0)
    for _ in range(100):  # the parser's MAX_NESTING
        deep = (deep + 1) // 2
    assert point_predicate([dim(0)], [(deep, Interval(0, 1))]) is None


def test_the_variables_of_a_deep_expression_are_found_without_recursion():
    # A chain of reshapes nests divisions thousands deep; the walk is a loop.
    expr = dim(0) + dim(1) * 0
    for k in range(3000):
        expr = (expr + k) % 1000003 if k % 2 else (expr * 3) // 2
    assert variables_of(expr) == {dim(0)}


@st.composite
def _symbol_constraints(draw: st.DrawFn) -> str:
    """A map ``(d0)[s…] -> (d0)`` whose symbols occur only in constraints
    among themselves: sums of two scaled symbols, some under a mod or a
    floordiv, in drawn intervals (often unsatisfiable together)."""
    count = draw(st.integers(1, 4))
    symbols = [f"s{k}" for k in range(count)]
    bounds = [draw(st.tuples(st.integers(-3, 2), st.integers(0, 4))) for _ in symbols]
    constraints = []
    for _ in range(draw(st.integers(1, 4))):
        a, b = draw(st.sampled_from(symbols)), draw(st.sampled_from(symbols))
        term = f"{draw(st.integers(-3, 3))} * {a} + {draw(st.integers(-3, 3))} * {b}"
        term = draw(st.sampled_from([term, f"({term}) mod 3", f"({term}) floordiv 2"]))
        low = draw(st.integers(-6, 6))
        constraints.append(f"{term} in [{low}, {low + draw(st.integers(0, 3))}]")
    ranges = [
        f"{s} in [{lo}, {lo + width}]" for s, (lo, width) in zip(symbols, bounds, strict=True)
    ]
    return f"(d0)[{', '.join(symbols)}] -> (d0), domain: d0 in [0, 1], " + ", ".join(
        ranges + constraints
    )


@given(_symbol_constraints())
def test_symbols_only_in_their_own_constraints_are_removable_when_these_hold_somewhere(text):
    """Removing such symbols keeps the relation only when some point of their
    box meets their constraints: brute force over the box judges the search."""
    m = parse_map(text)
    assume(all(variables_of(e) for e, _ in m.constraints))  # not ``0 * s0 in [1, 1]``
    box = [range(m.bounds(s).lower, m.bounds(s).upper + 1) for s in m.symbols]
    holds = any(
        all(
            evaluate(e, dict(zip(m.symbols, point, strict=True))) in allowed
            for e, allowed in m.constraints
        )
        for point in itertools.product(*box)
    )
    assert m.removable_symbols() == (frozenset(m.symbols) if holds else frozenset())
