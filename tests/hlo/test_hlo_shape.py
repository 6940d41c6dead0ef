"""Shapes and layouts: parsing, printing back as XLA does, helpers, errors."""

from __future__ import annotations

import pytest

from verifier.errors import ParseError
from verifier.hlo.shape import (
    COMBINE_DIMENSION,
    Layout,
    Shape,
    SplitConfig,
    Tile,
    default_layout,
    element_bit_width,
    parse_shape,
)


@pytest.mark.parametrize(
    "text",
    [
        "f32[2,3]{1,0}",
        "f32[2,3]",
        "f32[]",
        "pred[7]{0}",
        "(f32[2], s32[])",
        "()",
        "((f32[2]{0}, u8[]), token[])",
        "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)S(1)}",
        "bf16[32,32,4096]{2,1,0:T(8,128)(2,1)S(1)}",
        "f32[3,5]{1,0:T(2,2)}",
        "s4[128]{0:T(1024)E(4)}",
        "f32[16,16]{1,0:T(8,*)(-1,2)}",
        "f32[4,8]{0,1:D(D,C)T(2,2)E(32)S(2)SC(0:1)M(8)}",
        "s32[<=5,3]{1,0}",
        "f8e4m3fn[10]{0}",
        "f4e2m1fn[2]",
        "c128[3]{0}",
        "opaque[]",
        "f32[1,2]{0,1:S(1)}",
    ],
)
def test_shape_round_trips_through_str(text: str) -> None:
    shape = parse_shape(text)
    assert str(shape) == text
    assert parse_shape(str(shape)) == shape


def test_tiled_layout_fields() -> None:
    shape = parse_shape("bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)S(1)}")
    assert shape.element_type == "bf16"
    assert shape.dimensions == (8, 1, 1280, 16384)
    assert shape.layout == Layout((3, 2, 0, 1), (Tile((8, 128)), Tile((2, 1))), 1, "")
    assert shape.num_elements == 8 * 1280 * 16384
    assert shape.rank == 4


def test_combine_marker_and_minus_one_are_kept() -> None:
    layout = parse_shape("f32[16,16]{1,0:T(8,*)(-1,2)}").layout
    assert layout is not None
    assert layout.tiles == (Tile((8, COMBINE_DIMENSION)), Tile((-1, 2)))
    assert COMBINE_DIMENSION == -(2**63)


def test_layout_fields_in_xla_order() -> None:
    layout = parse_shape("s4[128]{0:T(1024)L(2)E(4)S(3)SC(0:32,64)(0:)}").layout
    assert layout is not None
    assert (layout.tail_padding_alignment, layout.element_size_in_bits, layout.memory_space) == (
        2,
        4,
        3,
    )
    assert layout.split_configs == (SplitConfig(0, (32, 64)), SplitConfig(0, ()))
    assert layout.extra == ""
    shuffled = parse_shape("s4[128]{0:SC(0:32,64)(0:)S(3)E(4)L(2)T(1024)}")
    assert str(shuffled) == "s4[128]{0:T(1024)L(2)E(4)S(3)SC(0:32,64)(0:)}"


def test_other_layout_fields_are_kept_as_text() -> None:
    text = "f32[4]{0:D(D)T(2)#(s32)*(s64)E(32)S(1)P(f32[4]{0})M(8)}"
    layout = parse_shape(text).layout
    assert layout is not None
    assert layout.extra == "D(D)#(s32)*(s64)P(f32[4]{0})M(8)"
    assert str(parse_shape(text)) == text


def test_tuple_shape() -> None:
    shape = parse_shape("(f32[2]{0}, /*index=1*/s32[])")
    assert shape.is_tuple and shape.rank == 0
    assert shape.tuple_shapes == (parse_shape("f32[2]{0}"), Shape("s32"))
    assert shape == Shape.tuple_of(parse_shape("f32[2]{0}"), Shape("s32"))


def test_dynamic_dimension_keeps_its_bound() -> None:
    shape = parse_shape("s32[<=5,3]")
    assert shape.dimensions == (5, 3)
    assert shape.dynamic == (True, False)
    assert shape.is_dynamic


def test_default_layout_is_major_to_minor() -> None:
    assert default_layout(3).minor_to_major == (2, 1, 0)
    assert parse_shape("f32[4,5]").layout is None
    assert str(parse_shape("f32[4,5]").layout_or_default) == "{1,0}"
    assert parse_shape("f32[4,5]{0,1}").layout_or_default.minor_to_major == (0, 1)
    assert Shape("f32").num_elements == 1


def test_scalar_prints_without_empty_layout() -> None:
    assert str(parse_shape("f32[]{}")) == "f32[]"


def test_same_as_ignores_a_missing_layout_only() -> None:
    assert parse_shape("f32[2,3]").same_as(parse_shape("f32[2,3]{1,0}"))
    assert not parse_shape("f32[2,3]{0,1}").same_as(parse_shape("f32[2,3]{1,0}"))
    assert not parse_shape("f32[2,3]").same_as(parse_shape("f32[3,2]"))
    assert not parse_shape("f32[2]").same_as(parse_shape("(f32[2])"))


@pytest.mark.parametrize(
    ("element_type", "bits"),
    [
        ("pred", 1),
        ("s2", 2),
        ("u4", 4),
        ("s64", 64),
        ("f16", 16),
        ("bf16", 16),
        ("f8e4m3fn", 8),
        ("f8e5m2", 8),
        ("f4e2m1fn", 4),
        ("c64", 64),
        ("c128", 128),
        ("token", None),
        ("opaque", None),
        ("newtype7", None),
    ],
)
def test_element_bit_width(element_type: str, bits: int | None) -> None:
    assert element_bit_width(element_type) == bits


def test_unknown_element_type_name_is_accepted() -> None:
    assert parse_shape("newtype7[3]").element_type == "newtype7"


@pytest.mark.parametrize(
    ("text", "column", "fragment"),
    [
        ("f32[2,3]{1,1}", 9, "not a permutation"),
        ("f32[2,3]{1}", 9, "not a permutation"),
        ("f32[2,3", 8, "expected ',' or ']'"),
        ("F32[2]", 1, "expected a shape"),
        ("f32[-2]", 5, "dimension size"),
        ("f32[2]{0:T(0)}", 12, "tile dimension 0"),
        ("f32[2]{0:Q}", 11, "expected '(' after layout field 'Q'"),
        ("f32[2]{0:L(0)}", 12, "tail padding alignment 0 is not positive"),
        ("f32[2]{0:E(x)}", 12, "element size in bits"),
        ("f32[2]{0:SC(0;1)}", 14, "after the split dimension"),
        ("f32[?]", 5, "unbounded"),
        ("(f32[2] s32[])", 9, "expected ','"),
        ("tuple[]", 1, "not an element type"),
        ("f32[2] x", 8, "end of shape"),
    ],
)
def test_shape_errors_say_where_and_what(text: str, column: int, fragment: str) -> None:
    with pytest.raises(ParseError) as info:
        parse_shape(text, "s.hlo")
    assert info.value.span.line == 1
    assert info.value.span.column == column
    assert info.value.span.filename == "s.hlo"
    assert fragment in info.value.message


def test_dynamic_flags_must_match_the_dimensions() -> None:
    with pytest.raises(ValueError, match="2 dimensions but 1 dynamic flags"):
        Shape("f32", (2, 3), dynamic=(True,))
