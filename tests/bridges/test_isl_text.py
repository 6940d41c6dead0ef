"""The second witness of relation questions (isl reading both maps as
text) against brute force, and against the verdict's own encoding when
that encoding is broken on purpose."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from tests.strategies import indexing_maps
from verifier.bridges import isl, isl_text
from verifier.checks.budget import Budget, CrossCheck
from verifier.checks.equivalence import check_equivalence
from verifier.errors import SolverError
from verifier.expr import IndexingMap, parse_map


@pytest.mark.slow
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(indexing_maps(num_dims=1, num_results=1), indexing_maps(num_dims=1, num_results=1))
def test_relations_compare_as_enumerated(a: IndexingMap, b: IndexingMap) -> None:
    assert isl_text.relations_equal(a, a) is True
    assert isl_text.relations_equal(a, b) is (a.relation() == b.relation())


def test_large_symbol_boxes_decide() -> None:
    a = parse_map("(d0)[s0] -> (d0 + s0), domain: d0 in [0, 3], s0 in [0, 1000]")
    b = parse_map("(d0)[s0] -> (d0 + 1000 - s0), domain: d0 in [0, 3], s0 in [0, 1000]")
    c = parse_map("(d0)[s0] -> (d0 + 1001 - s0), domain: d0 in [0, 3], s0 in [0, 1000]")
    assert isl_text.relations_equal(a, b) is True
    assert isl_text.relations_equal(a, c) is False
    assert isl_text.relations_equal(a, c, max_operations=1) is None


def test_a_broken_encoding_of_the_verdict_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # mod read as floordiv by the verdict's encoding: isl then calls two
    # different maps equal, and the text encoding says they are not.
    a = parse_map("(d0)[s0] -> (d0 mod 7 + s0), domain: d0 in [0, 99], s0 in [0, 99]")
    b = parse_map("(d0)[s0] -> (d0 floordiv 7 + s0), domain: d0 in [0, 99], s0 in [0, 99]")
    monkeypatch.setattr(isl.IslExprConverter, "map_mod", isl.IslExprConverter.map_floordiv)
    with pytest.raises(SolverError, match="isl reading the maps as text"):
        check_equivalence(a, b, budget=Budget(cross_check=CrossCheck.ALL))
