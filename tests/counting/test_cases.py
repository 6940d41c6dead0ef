"""Counts of coupled domains by cases (`verifier.counting.cases`) against
enumeration of the domain's points (plain loops; numpy for the large
convolution chain), and the limit past which isl counts instead."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.counting.test_counting import enumerated_domain
from verifier.counting.cases import count_by_cases, split_domain
from verifier.counting.exact import Count, count_domain
from verifier.expr.indexing_map import IndexingMap
from verifier.expr.interval import Interval
from verifier.expr.nodes import Expr, dim, range_var, rt_var
from verifier.expr.parser import parse_map

# The reads of two convolutions and two 2x2 pools: the
# window symbols s0…s7 of both spatial dimensions, coupled through the
# floordivs and mods of the flattened position s8 (the chain of
# examples/benchmarks/ has 13 symbols and a position of 512 values).
_CHAIN = (
    "()[s0, s1, s2, s3, s4, s5, s6, s7, s8] -> (), domain: "
    "s0 in [0, 2], s1 in [0, 2], s2 in [0, 1], s3 in [0, 1], "
    "s4 in [0, 2], s5 in [0, 2], s6 in [0, 1], s7 in [0, 1], s8 in [0, 31], "
    "((s8 floordiv 4) mod 4) * 2 + s5 + s7 in [1, 8], "
    "((s8 floordiv 4) mod 4) * 4 + s5 * 2 + s7 * 2 + s1 + s3 in [3, 18], "
    "(s8 floordiv 16) * 2 + s4 + s6 in [1, 8], "
    "(s8 floordiv 16) * 4 + s4 * 2 + s6 * 2 + s0 + s2 in [3, 18]"
)


@st.composite
def coupled_domains(draw: st.DrawFn) -> IndexingMap:
    """Small domains whose constraints couple window variables through the
    floordivs and mods of a hub, as a convolution chain's reads do, with
    runtime variables (existential) among them."""
    hub = range_var(0)
    others: list[Expr] = [dim(0), range_var(1), range_var(2), rt_var(0)]
    constraints = []
    for _ in range(draw(st.integers(1, 3))):
        divisor = draw(st.sampled_from([1, 2, 3, 4, 6, 8]))
        part: Expr = hub // divisor if divisor > 1 else hub
        if draw(st.booleans()):
            part = part % draw(st.integers(2, 4))
        expr = part * draw(st.integers(-2, 3))
        for other in draw(st.lists(st.sampled_from(others), min_size=1, max_size=3, unique=True)):
            expr = expr + other * draw(st.sampled_from([-2, -1, 1, 2]))
        if draw(st.booleans()):
            expr = expr + (others[draw(st.integers(0, 3))] + hub) % draw(st.integers(2, 5))
        lower = draw(st.integers(-4, 6))
        constraints.append((expr, Interval(lower, lower + draw(st.integers(0, 8)))))

    def interval(most: int) -> Interval:
        lower = draw(st.integers(-2, 2))
        return Interval(lower, lower + draw(st.integers(0, most)))

    return IndexingMap.create(
        [interval(4)],
        [],
        range_vars=[Interval(0, draw(st.integers(0, 40))), interval(3), interval(2)],
        rt_vars=[interval(3)],
        constraints=constraints,
    )


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(coupled_domains())
def test_coupled_domains_count_as_enumerated(m: IndexingMap) -> None:
    assert count_domain(m).value == enumerated_domain(m)


def test_a_convolution_chain_counts_by_cases_in_few_cases() -> None:
    chain = parse_map(_CHAIN)
    points = enumerated_domain(chain)
    assert count_domain(chain) == Count(points, "cases")
    # 8 blocks of 4 positions, each splitting into two pieces of which 4
    # and 2 are distinct: under 200 cases for the 41,472 points of the box.
    (piece,) = split_domain(chain).pieces
    assert count_by_cases(piece, limit=200) == points
    assert count_by_cases(piece, limit=7) is None  # fewer than the blocks


def test_past_its_limit_the_count_is_isls() -> None:
    huge = parse_map(
        "()[s0, s1] -> (), domain: s0 in [0, 1], s1 in [0, 99999], s1 mod 7 + s0 in [1, 6]"
    )
    counted = count_domain(huge)
    assert counted.method == "isl"
    assert counted.value == sum(
        1 for s1, s0 in itertools.product(range(100000), range(2)) if 1 <= s1 % 7 + s0 <= 6
    )


def test_runtime_variables_alone_count_once_when_feasible() -> None:
    feasible = parse_map(
        "(d0){rt0, rt1} -> (), domain: d0 in [0, 3], rt0 in [0, 5], "
        "rt1 in [0, 5], rt0 + rt1 * 2 in [7, 7], rt0 mod 2 in [1, 1]"
    )
    assert count_domain(feasible) == Count(4, "cases")
    infeasible = parse_map(
        "(d0){rt0, rt1} -> (), domain: d0 in [0, 3], rt0 in [0, 5], "
        "rt1 in [0, 5], rt0 + rt1 * 2 in [7, 7], rt0 mod 2 in [0, 0]"
    )
    assert count_domain(infeasible).value == 0


def test_the_convolution_chain_of_the_benchmarks_counts_as_numpy_enumerates() -> None:
    numpy = pytest.importorskip("numpy")
    chain = parse_map(
        "()[s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12] -> (), domain: "
        "s0 in [0, 2], s1 in [0, 2], s2 in [0, 1], s3 in [0, 1], s4 in [0, 2], s5 in [0, 2], "
        "s6 in [0, 1], s7 in [0, 1], s8 in [0, 2], s9 in [0, 2], s10 in [0, 1], "
        "s11 in [0, 1], s12 in [0, 511], "
        "((s12 floordiv 32) mod 4) * 2 + s9 + s11 in [1, 8], "
        "((s12 floordiv 32) mod 4) * 4 + s9 * 2 + s11 * 2 + s5 + s7 in [3, 18], "
        "((s12 floordiv 32) mod 4) * 8 + s5 * 2 + s7 * 2 + s9 * 4 + s11 * 4 + s1 + s3 in [7, 38], "
        "(s12 floordiv 128) * 2 + s8 + s10 in [1, 8], "
        "(s12 floordiv 128) * 4 + s8 * 2 + s10 * 2 + s4 + s6 in [3, 18], "
        "(s12 floordiv 128) * 8 + s4 * 2 + s6 * 2 + s8 * 4 + s10 * 4 + s0 + s2 in [7, 38]"
    )
    s = list(numpy.indices([3, 3, 2, 2, 3, 3, 2, 2, 3, 3, 2, 2]).reshape(12, -1))
    points = 0
    for s12 in range(512):
        a, b = (s12 // 32) % 4, s12 // 128
        sums = [
            (2 * a + s[9] + s[11], 1, 8),
            (4 * a + 2 * s[9] + 2 * s[11] + s[5] + s[7], 3, 18),
            (8 * a + 2 * s[5] + 2 * s[7] + 4 * s[9] + 4 * s[11] + s[1] + s[3], 7, 38),
            (2 * b + s[8] + s[10], 1, 8),
            (4 * b + 2 * s[8] + 2 * s[10] + s[4] + s[6], 3, 18),
            (8 * b + 2 * s[4] + 2 * s[6] + 4 * s[8] + 4 * s[10] + s[0] + s[2], 7, 38),
        ]
        inside = numpy.ones_like(s[0], dtype=bool)
        for values, lower, upper in sums:
            inside &= (values >= lower) & (values <= upper)
        points += int(inside.sum())
    assert count_domain(chain) == Count(points, "cases")
