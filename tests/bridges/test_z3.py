"""The z3 translation agrees with the Python evaluator at every point."""

import itertools

import pytest
import z3
from hypothesis import given

from tests.strategies import indexing_maps
from verifier.bridges import z3 as z3_bridge
from verifier.expr.parser import parse_map

maps = indexing_maps(max_dims=2, max_results=2, allow_empty=True)


def _at(term, translation, point):
    pairs = [(translation.variables[v], z3.IntVal(x)) for v, x in point.items()]
    return z3.simplify(z3.substitute(term, *pairs))


@pytest.mark.slow
@given(maps)
def test_terms_and_domain_agree_with_evaluate_on_the_whole_box(m):
    translation = z3_bridge.to_z3(m)
    variables = m.all_variables
    ranges = [range(m.bounds(v).lower, m.bounds(v).upper + 1) for v in variables]
    for values in itertools.product(*ranges):
        point = dict(zip(variables, values, strict=True))
        inside = m.contains(point)
        assert z3.is_true(_at(translation.domain, translation, point)) == inside
        if inside:
            got = tuple(_at(r, translation, point).as_long() for r in translation.results)
            assert got == m.evaluate(point)


def test_floor_semantics_on_negative_values():
    m = parse_map(
        "(d0) -> ((d0 - 7) floordiv 2, (d0 - 7) mod 2, (d0 - 7) ceildiv 2, d0 floordiv -2)"
        ", domain: d0 in [0, 0]"
    )
    translation = z3_bridge.to_z3(m)
    got = [_at(r, translation, {m.all_variables[0]: 0}).as_long() for r in translation.results]
    assert got == [-4, 1, -3, 0]


def test_relates_checks_one_pair_with_existential_symbols():
    m = parse_map("(d0)[s0] -> (d0 + s0 * 2), domain: d0 in [0, 3], s0 in [0, 1]")
    assert z3_bridge.relates(m, [1], [3]) is True
    assert z3_bridge.relates(m, [1], [2]) is False
    assert z3_bridge.relates(m, [1, 2], [3]) is False


@pytest.mark.parametrize(
    "text",
    [
        "(d0)[s0] -> (min(d0 - 3, s0 * 2), (d0 - 7) ceildiv 2), "
        "domain: d0 in [-2, 3], s0 in [-1, 2], max(d0, s0) mod 3 in [0, 1]",
        "(d0, d1)[s0] -> (max(min(d0, s0), min(d1, -s0)) floordiv 2), "
        "domain: d0 in [0, 2], d1 in [-2, 1], s0 in [-2, 2]",
    ],
)
def test_relates_agrees_with_enumeration(text):
    m = parse_map(text)
    related = m.relation()
    dims = [range(m.bounds(v).lower, m.bounds(v).upper + 1) for v in m.all_variables[: m.num_dims]]
    results = {r for _, r in related} | {(7,) * m.num_results}
    for point in itertools.product(*dims):
        for result in results:
            assert z3_bridge.relates(m, point, result) is ((point, result) in related)


def test_an_exhausted_rlimit_is_unknown():
    a = parse_map("(d0, d1) -> ((d0 * 7 + d1) mod 13), domain: d0 in [0, 99], d1 in [0, 99]")
    b = parse_map("(d0, d1) -> ((d0 * 7 + d1 + 13) mod 13), domain: d0 in [0, 99], d1 in [0, 99]")
    answer = z3_bridge.compare_pointwise(a, b, rlimit=1)
    assert answer.differs is None
    assert "resource" in answer.reason or "canceled" in answer.reason
    assert z3_bridge.compare_pointwise(a, b).differs is False
