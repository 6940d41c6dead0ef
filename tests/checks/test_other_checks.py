"""bitcast, overflow, inverse and simplification: hand-made refutations with
witnesses re-checked in Python, and answers held to brute force."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import indexing_maps
from verifier.checks.bitcast import check_bitcast
from verifier.checks.bounds import check_in_bounds
from verifier.checks.cache import MemoryCache
from verifier.checks.inverse import check_inverse
from verifier.checks.overflow import check_overflow, index_type
from verifier.checks.simplification import check_simplification
from verifier.checks.verdict import Outcome
from verifier.expr.evaluate import evaluate, subterms
from verifier.expr.indexing_map import IndexingMap, Undefined
from verifier.expr.nodes import VarKind, var
from verifier.expr.parser import parse_map
from verifier.hlo.shape import parse_shape
from verifier.indexing.layout import physical_offset

# ----------------------------------------------------------------- bitcast


def test_the_tiled_bitcast_of_the_issue_is_refuted_by_its_buffer_sizes() -> None:
    operand, output = parse_shape("f32[3,5]{1,0:T(2,2)}"), parse_shape("f32[15]{0}")
    result = check_bitcast(operand, output, Undefined("tiled"), MemoryCache())
    assert result.outcome is Outcome.REFUTED
    assert dict(result.witness) == {"operand_bytes": 24 * 4, "output_bytes": 15 * 4}


def test_an_element_on_the_other_sides_padding_is_the_witness() -> None:
    operand, output = parse_shape("f32[3,5]{1,0:T(2,2)}"), parse_shape("f32[24]{0}")
    result = check_bitcast(operand, output, Undefined("tiled"), MemoryCache())
    assert result.outcome is Outcome.REFUTED
    witness = dict(result.witness)
    (offset,) = physical_offset(output).evaluate({var(VarKind.DIM, 0): witness["output_d0"]})
    assert offset == witness["offset"]
    held = {
        physical_offset(operand).evaluate(p)[0] for p in physical_offset(operand).domain_points()
    }
    assert offset not in held  # a padding slot of the operand


def test_a_bitcast_of_no_elements_is_vacuous_not_proved() -> None:
    result = check_bitcast(
        parse_shape("f32[0,5]{1,0}"), parse_shape("f32[0]{0}"), Undefined("x"), MemoryCache()
    )
    assert result.outcome is Outcome.VACUOUS


def test_an_interval_proof_on_an_empty_domain_is_vacuous() -> None:
    # 2 * d0 = 1 has no integer solution; intervals alone cannot see it.
    empty = parse_map("(d0) -> (d0), domain: d0 in [0, 1], d0 * 2 in [1, 1]")
    assert not empty.is_known_empty
    assert check_overflow((empty,), 64, MemoryCache()).outcome is Outcome.VACUOUS
    assert check_in_bounds((empty,), (2,), MemoryCache()).outcome is Outcome.VACUOUS


def test_a_bitcast_map_that_moves_an_element_is_refuted() -> None:
    operand, output = parse_shape("f32[4,6]{0,1}"), parse_shape("f32[24]{0}")
    right = parse_map("(d0) -> (d0 mod 4, d0 floordiv 4), domain: d0 in [0, 23]")
    wrong = parse_map("(d0) -> (d0 floordiv 6, d0 mod 6), domain: d0 in [0, 23]")
    assert check_bitcast(operand, output, (right,), MemoryCache()).outcome is Outcome.PROVED
    result = check_bitcast(operand, output, (wrong,), MemoryCache())
    assert result.outcome is Outcome.REFUTED
    witness = dict(result.witness)
    source = {var(VarKind.DIM, i): witness[f"operand_d{i}"] for i in range(2)}
    assert physical_offset(operand).evaluate(source) != (witness["d0"],)


def test_equal_sizes_with_padding_in_different_places_are_refuted() -> None:
    operand, output = parse_shape("f32[3,2]{1,0:T(2,2)}"), parse_shape("f32[2,4]{1,0}")
    result = check_bitcast(operand, output, Undefined("tiled"), MemoryCache())
    assert result.outcome is Outcome.REFUTED  # 8 slots each, but 6 vs 8 elements


# ---------------------------------------------------------------- overflow


def _fits_by_brute_force(indexing_map: IndexingMap, bits: int) -> bool:
    limits = index_type(bits)
    expressions = list(indexing_map.results) + [e for e, _ in indexing_map.constraints]
    return all(
        evaluate(term, point) in limits
        for point in indexing_map.domain_points()
        for expr in expressions
        for term in subterms(expr)
    )


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(indexing_maps(), st.integers(3, 6))
def test_overflow_agrees_with_brute_force_on_small_index_types(
    indexing_map: IndexingMap, bits: int
) -> None:
    result = check_overflow((indexing_map,), bits, MemoryCache())
    fits = _fits_by_brute_force(indexing_map, bits)
    if fits:
        has_points = any(True for _ in indexing_map.domain_points())
        assert result.outcome is (Outcome.PROVED if has_points else Outcome.VACUOUS)
    else:
        assert result.outcome is Outcome.REFUTED
        witness = dict(result.witness)
        point = {v: witness[v.name] for v in indexing_map.all_variables}
        assert indexing_map.contains(point)
        assert witness["value"] not in index_type(bits)


def test_int64_overflow_is_refuted_only_after_the_exact_maximum() -> None:
    # Each product fits int64 (< 2^63), the interval of their sum does not,
    # but the constraint keeps the sum small: isl's exact maximum proves it.
    safe = parse_map(
        "(d0, d1) -> (d0 * 1099511627776 + d1 * 1099511627776), "
        "domain: d0 in [0, 8388607], d1 in [0, 8388607], d0 + d1 in [0, 8]"
    )
    cache = MemoryCache()
    assert check_overflow((safe,), 64, cache).outcome is Outcome.PROVED
    assert len(cache._answers) == 1  # isl was asked (the interval alone did not prove it)
    product = parse_map("(d0) -> (d0 * 1099511627776), domain: d0 in [0, 8388608]")
    result = check_overflow((product,), 64, MemoryCache())
    assert result.outcome is Outcome.REFUTED and dict(result.witness)["d0"] == 8388608
    small = parse_map("(d0) -> (d0 * 1099511627776), domain: d0 in [0, 8388607]")
    assert check_overflow((small,), 64, MemoryCache()).outcome is Outcome.PROVED


# ------------------------------------------------------ inverse, simplification


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(indexing_maps(num_dims=1, num_results=1), indexing_maps(num_dims=1, num_results=1))
def test_inverse_agrees_with_brute_force(forward: IndexingMap, backward: IndexingMap) -> None:
    result = check_inverse((forward,), (backward,), 1, 1, MemoryCache())
    expected = forward.relation() == frozenset((b, a) for a, b in backward.relation())
    assert (result.outcome in (Outcome.PROVED, Outcome.VACUOUS)) == expected
    if not expected:
        witness = dict(result.witness)
        pair = ((witness["o0"],), (witness["i0"],))
        inverted = frozenset((b, a) for a, b in backward.relation())
        assert (pair in forward.relation()) != (pair in inverted)


def test_simplification_of_unions_is_compared_as_unions() -> None:
    raw = (
        parse_map("(d0) -> (d0), domain: d0 in [0, 4]"),
        parse_map("(d0) -> (d0 + 5 - 5), domain: d0 in [5, 9]"),
    )
    merged = (parse_map("(d0) -> (d0), domain: d0 in [0, 9]"),)
    assert check_simplification(raw, merged, 1, 1, MemoryCache()).outcome is Outcome.PROVED
    lost = (parse_map("(d0) -> (d0), domain: d0 in [0, 8]"),)
    result = check_simplification(raw, lost, 1, 1, MemoryCache())
    assert result.outcome is Outcome.REFUTED
    assert result.message == "d0 = 9 -> (9) only by the unsimplified maps"
