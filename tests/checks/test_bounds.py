"""in-bounds: the dot errata refuted, and every answer held to brute force
on generated maps (a point escapes the box exactly when isl says so)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import indexing_maps
from verifier.checks.bounds import check_in_bounds
from verifier.checks.cache import MemoryCache
from verifier.checks.verdict import Outcome
from verifier.expr.indexing_map import IndexingMap, Undefined
from verifier.expr.parser import parse_map

DOT_RHS_ERRATUM = (
    "(d0, d1, d2)[s0] -> (d0, s0, d1), domain: d0 in [0, 3], d1 in [0, 255], "
    "d2 in [0, 63], s0 in [0, 127]"
)
DOT_RHS_RIGHT = (
    "(d0, d1, d2)[s0] -> (d0, s0, d2), domain: d0 in [0, 3], d1 in [0, 255], "
    "d2 in [0, 63], s0 in [0, 127]"
)


def test_the_seeds_dot_rhs_to_output_map_is_refuted_with_an_escaping_point() -> None:
    result = check_in_bounds((parse_map(DOT_RHS_ERRATUM),), (4, 128, 64), MemoryCache())
    assert result.outcome is Outcome.REFUTED
    witness = dict(result.witness)
    assert witness["r2"] == witness["d1"] >= 64


def test_the_right_dot_rhs_to_output_map_is_proved() -> None:
    result = check_in_bounds((parse_map(DOT_RHS_RIGHT),), (4, 128, 64), MemoryCache())
    assert result.outcome is Outcome.PROVED


def test_undefined_is_unsupported_and_no_map_is_vacuous() -> None:
    assert check_in_bounds(Undefined("opaque"), (4,), MemoryCache()).outcome is Outcome.UNSUPPORTED
    assert check_in_bounds((), (4,), MemoryCache()).outcome is Outcome.VACUOUS


def test_a_warm_cache_answers_the_same_without_asking_again() -> None:
    cache = MemoryCache()
    first = check_in_bounds((parse_map(DOT_RHS_ERRATUM),), (4, 128, 64), cache)
    stored = dict(cache._answers)
    assert len(stored) == 1
    assert check_in_bounds((parse_map(DOT_RHS_ERRATUM),), (4, 128, 64), cache) == first
    assert cache._answers == stored


def _escapes(indexing_map: IndexingMap, box: tuple[int, ...]) -> bool:
    return any(
        not all(
            0 <= value < size for value, size in zip(indexing_map.evaluate(p), box, strict=True)
        )
        for p in indexing_map.domain_points()
    )


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(indexing_maps(), st.integers(1, 6))
def test_in_bounds_agrees_with_brute_force(indexing_map: IndexingMap, size: int) -> None:
    box = (size,) * indexing_map.num_results
    result = check_in_bounds((indexing_map,), box, MemoryCache())
    escapes = _escapes(indexing_map, box)
    if escapes:
        assert result.outcome is Outcome.REFUTED
        witness = dict(result.witness)
        point = {v: witness[v.name] for v in indexing_map.all_variables}
        assert indexing_map.contains(point)
        assert not all(0 <= x < n for x, n in zip(indexing_map.evaluate(point), box, strict=True))
    else:
        # Every point inside is "proved" only when there is a point.
        has_points = any(True for _ in indexing_map.domain_points())
        assert result.outcome is (Outcome.PROVED if has_points else Outcome.VACUOUS)
