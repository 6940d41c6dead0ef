"""Offsets, inverse and buffer sizes of `verifier.indexing.layout` against the
brute force written from the tiled-layout document (`oracle_layout`): the
documents' examples as golden cases, then generated layouts (nested and
combined tiles, tiles with more dims than the shape, scalars, ``L(n)``,
``E(n)``, sub-byte types)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from tests.layout_strategies import layout_shape
from tests.oracle_layout import (
    array_size_as_xla_writes_it,
    buffer_bytes,
    buffer_elements,
    buffer_order,
    offsets,
)
from verifier.bridges.isl_questions import relations_equal
from verifier.errors import UnsupportedError
from verifier.expr.indexing_map import IndexingMap, compose
from verifier.expr.nodes import dim
from verifier.hlo.shape import COMBINE_DIMENSION, Shape, parse_shape
from verifier.indexing import layout


def offsets_of(shape: Shape) -> dict[tuple[int, ...], int]:
    offset = layout.physical_offset(shape)
    return {
        tuple(point[dim(k)] for k in range(shape.rank)): offset.evaluate(point)[0]
        for point in offset.domain_points()
    }


def elements_at(shape: Shape) -> dict[int, tuple[int, ...]]:
    inverse = layout.logical_index(shape)
    return {point[dim(0)]: inverse.evaluate(point) for point in inverse.domain_points()}


def test_element_2_3_of_the_documents_figure_is_at_17() -> None:
    shape = parse_shape("f32[3,5]{1,0:T(2,2)}")
    assert offsets_of(shape)[(2, 3)] == 17 == offsets(shape)[(2, 3)]
    assert elements_at(shape)[17] == (2, 3)
    assert layout.buffer_elements(shape) == 24


def test_the_documents_4x8_figure_tiled_by_2x4_then_2x1() -> None:
    """Each 2x4 tile holds its columns as 2x1 pairs: rows 0 and 1 interleave."""
    shape = parse_shape("f32[4,8]{1,0:T(2,4)(2,1)}")
    figure = [
        [0, 2, 4, 6, 8, 10, 12, 14],
        [1, 3, 5, 7, 9, 11, 13, 15],
        [16, 18, 20, 22, 24, 26, 28, 30],
        [17, 19, 21, 23, 25, 27, 29, 31],
    ]
    want = {(r, c): figure[r][c] for r in range(4) for c in range(8)}
    assert offsets_of(shape) == want == offsets(shape)


def test_combined_dims_are_the_documents_112_by_110_tiled_by_2_3() -> None:
    combined = parse_shape("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}")
    flat = layout.physical_offset(parse_shape("f32[112,110]{1,0:T(2,3)}"))
    offset = layout.physical_offset(combined)
    for a, b, c, d, e in [(0, 0, 0, 0, 0), (1, 6, 7, 10, 9), (1, 2, 5, 3, 4), (0, 6, 1, 9, 2)]:
        values = dict(zip(map(dim, range(5)), (a, b, c, d, e), strict=True))
        row, column = (a * 7 + b) * 8 + c, d * 10 + e
        assert offset.evaluate(values) == flat.evaluate({dim(0): row, dim(1): column})
    assert layout.buffer_elements(combined) == 112 * 111
    assert parse_shape("f32[2,7]{1,0:T(*,3)}").layout.tiles[0].dimensions[0] == COMBINE_DIMENSION  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "elements", "size_bytes"),
    [
        ("s32[]{:T(128)}", 128, 512),  # a scalar tile: leading 1-dim
        ("f32[7]{0:T(1,8)}", 8, 32),  # a 2-d tile on a 1-d shape
        ("f32[9,128]{1,0:T(8,128)}", 2048, 8192),
        ("f32[9,128]{1,0:T(8)L(1024)}", 2048, 8192),  # tail padding
        ("s4[16]{0:E(4)}", 16, 8),  # packed
        ("s4[16]{0}", 16, 16),  # unpacked: a byte each, as XLA's ByteWidth
        ("s4[3]{0:E(4)}", 3, 2),  # bytes rounded up
        ("pred[5]{0:L(4)}", 8, 8),
        ("f32[3]{0:T(2)(4)}", 4, 16),  # the second tiling's padding is not counted
    ],
)
def test_buffer_sizes_are_xlas_array_size(text: str, elements: int, size_bytes: int) -> None:
    shape = parse_shape(text)
    assert layout.buffer_elements(shape) == elements == buffer_elements(shape)
    assert layout.buffer_bytes(shape) == size_bytes == buffer_bytes(shape)
    assert array_size_as_xla_writes_it(shape) == size_bytes


def test_a_scalar_tile_holds_the_scalar_at_offset_0() -> None:
    shape = parse_shape("s32[]{:T(128)}")
    assert offsets_of(shape) == {(): 0}
    assert elements_at(shape) == {0: ()}


@pytest.mark.parametrize(
    ("text", "reason"), [("f32[8]{0:SC(0:4)}", "split configs"), ("f32[8]{0:D(C)}", "sparse")]
)
def test_split_and_sparse_layouts_are_explicitly_unsupported(text: str, reason: str) -> None:
    with pytest.raises(UnsupportedError, match=reason):
        layout.physical_offset(parse_shape(text))
    assert parse_shape("f32[8]{0:D(D)T(4)}").layout.is_dense  # type: ignore[union-attr]


def test_an_element_size_narrower_than_the_type_is_invalid() -> None:
    with pytest.raises(ValueError, match="narrower"):
        layout.buffer_bytes(parse_shape("f32[8]{0:E(4)}"))


@settings(max_examples=120, deadline=None)
@given(text=layout_shape())
def test_offsets_and_sizes_match_the_brute_force(text: str) -> None:
    shape = parse_shape(text)
    assert offsets_of(shape) == offsets(shape), text
    assert layout.offset_extent(shape) == len(buffer_order(shape)), text
    assert layout.buffer_elements(shape) == buffer_elements(shape), text
    assert layout.buffer_bytes(shape) == buffer_bytes(shape), text
    if not any(t < 0 for tile in shape.layout_or_default.tiles[:1] for t in tile.dimensions):
        assert layout.buffer_bytes(shape) == array_size_as_xla_writes_it(shape), text


@settings(max_examples=80, deadline=None)
@given(text=layout_shape())
def test_the_inverse_matches_the_brute_force(text: str) -> None:
    shape = parse_shape(text)
    want = {offset: index for index, offset in offsets(shape).items()}
    assert elements_at(shape) == want, text


def test_minus_one_is_the_documents_spelling_of_star() -> None:
    star = parse_shape("f32[3,4,5]{2,1,0:T(*,2)(2,*,3)}")
    minus_one = parse_shape("f32[3,4,5]{2,1,0:T(-1,2)(2,-1,3)}")
    assert offsets_of(star) == offsets_of(minus_one) == offsets(star)
    assert elements_at(star) == elements_at(minus_one)


@pytest.mark.parametrize("text", ["f32[3,5]{1,0:T(2,*)}", "f32[3,5]{1,0:T(*,-1)}"])
def test_combining_the_most_minor_dim_is_invalid(text: str) -> None:
    with pytest.raises(ValueError, match="most minor dim"):
        layout.physical_offset(parse_shape(text))
    with pytest.raises(ValueError, match="most minor dim"):
        layout.logical_index(parse_shape(text))


@settings(max_examples=30, deadline=None)
@given(text=layout_shape())
def test_the_inverse_after_the_offset_is_the_identity_for_isl(text: str) -> None:
    shape = parse_shape(text)
    there_and_back = compose(layout.physical_offset(shape), layout.logical_index(shape))
    assert relations_equal(there_and_back, IndexingMap.identity(shape.dimensions)) is True, text
