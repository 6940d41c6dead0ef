"""`physical_offset` against a buffer walk: every logical element lands on
the offset that holds it, offsets are inside the padded buffer."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle_more.layout import element_at_offsets

from verifier.expr.nodes import dim
from verifier.hlo.shape import parse_shape
from verifier.indexing.layout import physical_offset, physical_size


def test_spec_example_offset_17() -> None:
    offsets = physical_offset(parse_shape("f32[3,5]{1,0:T(2,2)}"))
    assert offsets.evaluate({dim(0): 2, dim(1): 3}) == (17,)


def test_combined_dimension_is_rejected() -> None:
    with pytest.raises(ValueError, match="not modelled"):
        physical_offset(parse_shape("f32[3,5]{1,0:T(2,*)}"))


@st.composite
def tiled_shapes(draw: st.DrawFn) -> str:
    dims = draw(st.lists(st.integers(1, 5), min_size=1, max_size=3))
    order = draw(st.permutations(range(len(dims))))
    tiles = ""
    rank = len(dims)
    for _ in range(draw(st.integers(0, 2))):
        tile_rank = draw(st.integers(1, rank))
        tiles += "(" + ",".join(str(draw(st.integers(1, 3))) for _ in range(tile_rank)) + ")"
        rank += tile_rank
    layout = ",".join(map(str, order)) + (f":T{tiles}" if tiles else "")
    return f"f32[{','.join(map(str, dims))}]{{{layout}}}"


@settings(max_examples=150, deadline=None)
@given(text=tiled_shapes())
def test_offsets_match_buffer_walk(text: str) -> None:
    shape = parse_shape(text)
    offsets = physical_offset(shape)
    want = {index: offset for offset, index in element_at_offsets(shape).items()}
    got = {
        tuple(point[dim(k)] for k in range(shape.rank)): offsets.evaluate(point)[0]
        for point in offsets.domain_points()
    }
    assert got == want, text
    assert all(0 <= offset < physical_size(shape) for offset in got.values())
