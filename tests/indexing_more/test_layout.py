"""`physical_offset` and `logical_index` against a buffer walk: every logical
element lands on the offset that holds it, offsets are inside the padded
buffer, every non-padding offset maps back to its element, and the two maps
are inverse (brute force and isl), for random layouts, tiles and folds."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from oracle_more.layout import element_at_offsets

from verifier.bridges.isl import relations_equal
from verifier.expr.indexing_map import IndexingMap, compose
from verifier.expr.interval import Interval
from verifier.expr.nodes import dim
from verifier.hlo.shape import Shape, parse_shape
from verifier.indexing.layout import logical_index, physical_offset, physical_size

from .strategies import tiled_shape


def offsets_by_index(shape: Shape) -> dict[tuple[int, ...], int]:
    offsets = physical_offset(shape)
    return {
        tuple(point[dim(k)] for k in range(shape.rank)): offsets.evaluate(point)[0]
        for point in offsets.domain_points()
    }


def indices_by_offset(shape: Shape) -> dict[int, tuple[int, ...]]:
    inverse = logical_index(shape)
    assert inverse.bounds(dim(0)) == Interval(0, physical_size(shape) - 1)
    return {point[dim(0)]: inverse.evaluate(point) for point in inverse.domain_points()}


def test_spec_example_offset_17() -> None:
    offsets = physical_offset(parse_shape("f32[3,5]{1,0:T(2,2)}"))
    assert offsets.evaluate({dim(0): 2, dim(1): 3}) == (17,)


def test_seed_fold_is_the_tiling_of_the_folded_shape() -> None:
    """Tiled-layout document: ``F32[2,7,8,11,10]{4,3,2,1,0}`` with tile
    ``(*,*,2,*,3)`` is ``F32[112,110]{1,0}`` tiled by ``(2,3)``."""
    folded = physical_offset(parse_shape("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}"))
    flat = physical_offset(parse_shape("f32[112,110]{1,0:T(2,3)}"))
    points = itertools.product(range(2), range(7), (0, 5, 7), range(11), (0, 4, 9))
    for a, b, c, d, e in points:
        values = dict(zip(map(dim, range(5)), (a, b, c, d, e), strict=True))
        row, column = (a * 7 + b) * 8 + c, d * 10 + e
        assert folded.evaluate(values) == flat.evaluate({dim(0): row, dim(1): column})
    assert physical_size(parse_shape("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}")) == 112 * 111


def test_minus_one_is_the_documents_spelling_of_star() -> None:
    star = parse_shape("f32[3,4,5]{2,1,0:T(*,2)(2,*,3)}")
    minus_one = parse_shape("f32[3,4,5]{2,1,0:T(-1,2)(2,-1,3)}")
    assert offsets_by_index(star) == offsets_by_index(minus_one)
    assert indices_by_offset(star) == indices_by_offset(minus_one)


@pytest.mark.parametrize("text", ["f32[3,5]{1,0:T(2,*)}", "f32[3,5]{1,0:T(*,-1)}"])
def test_folding_the_most_minor_dim_is_invalid(text: str) -> None:
    with pytest.raises(ValueError, match="most minor dim"):
        physical_offset(parse_shape(text))
    with pytest.raises(ValueError, match="most minor dim"):
        logical_index(parse_shape(text))


def test_padding_offsets_are_outside_the_inverse() -> None:
    inverse = logical_index(parse_shape("f32[3,5]{1,0:T(2,2)}"))
    assert inverse.evaluate({dim(0): 17}) == (2, 3)
    assert not inverse.contains({dim(0): 14})


@settings(max_examples=150, deadline=None)
@given(text=tiled_shape())
def test_offsets_match_buffer_walk(text: str) -> None:
    shape = parse_shape(text)
    want = {index: offset for offset, index in element_at_offsets(shape).items()}
    got = offsets_by_index(shape)
    assert got == want, text
    assert all(0 <= offset < physical_size(shape) for offset in got.values())


@settings(max_examples=150, deadline=None)
@given(text=tiled_shape())
def test_inverse_matches_buffer_walk(text: str) -> None:
    shape = parse_shape(text)
    assert indices_by_offset(shape) == element_at_offsets(shape), text


@settings(max_examples=40, deadline=None)
@given(text=tiled_shape())
def test_inverse_composed_with_offset_is_the_identity(text: str) -> None:
    shape = parse_shape(text)
    there_and_back = compose(physical_offset(shape), logical_index(shape))
    identity = IndexingMap.identity(shape.dimensions)
    assert there_and_back.relation() == identity.relation(), text
    assert relations_equal(there_and_back, identity) is True, text
    back_and_there = compose(logical_index(shape), physical_offset(shape))
    stored = sorted(element_at_offsets(shape))
    assert back_and_there.relation() == {((o,), (o,)) for o in stored}, text
