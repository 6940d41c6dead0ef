"""Each attribute parser: typed values, defaults, raw fallback, errors with positions."""

from __future__ import annotations

import re

import pytest

from verifier.errors import ParseError
from verifier.hlo.attributes import (
    Attributes,
    BackendConfig,
    ConvolutionDimensionNumbers,
    FrontendAttributes,
    Metadata,
    PaddingDim,
    RawAttribute,
    ReplicaGroups,
    Sharding,
    SliceDim,
    WindowDim,
    is_known_attribute,
    parse_attribute,
)


@pytest.mark.parametrize(
    "name",
    [
        "dimensions",
        "dynamic_slice_sizes",
        "slice_sizes",
        "offset_dims",
        "collapsed_slice_dims",
        "start_index_map",
        "operand_batching_dims",
        "start_indices_batching_dims",
        "update_window_dims",
        "inserted_window_dims",
        "scatter_dims_to_operand_dims",
        "input_batching_dims",
        "scatter_indices_batching_dims",
        "lhs_batch_dims",
        "rhs_batch_dims",
        "lhs_contracting_dims",
        "rhs_contracting_dims",
        "fft_length",
    ],
)
def test_integer_lists(name: str) -> None:
    assert parse_attribute(name, "{1,0}") == (1, 0)
    assert parse_attribute(name, "{ 2, /*x*/ 3 }") == (2, 3)
    assert parse_attribute(name, "{}") == ()


def test_integer_list_rejects_negative_and_garbage() -> None:
    with pytest.raises(ParseError, match="non-negative"):
        parse_attribute("dimensions", "{1,-1}")
    with pytest.raises(ParseError, match="expected ',' or '}'"):
        parse_attribute("dimensions", "{1 0}")


def test_slice_with_and_without_stride() -> None:
    assert parse_attribute("slice", "{[5:10:1], [3:20:7], [0:50]}") == (
        SliceDim(5, 10, 1),
        SliceDim(3, 20, 7),
        SliceDim(0, 50, 1),
    )
    assert [d.size for d in parse_attribute("slice", "{[5:10:1], [3:20:7], [0:50:2]}")] == [  # type: ignore[union-attr]
        5,
        3,
        25,
    ]
    with pytest.raises(ParseError, match="stride must be positive"):
        parse_attribute("slice", "{[0:4:0]}")


def test_padding_low_high_interior() -> None:
    assert parse_attribute("padding", "1_4_1x4_8_0") == (PaddingDim(1, 4, 1), PaddingDim(4, 8, 0))
    assert parse_attribute("padding", "-1_-2") == (PaddingDim(-1, -2, 0),)
    assert parse_attribute("padding", "") == ()
    with pytest.raises(ParseError, match="interior"):
        parse_attribute("padding", "0_0_-1")
    with pytest.raises(ParseError, match="expected '_'"):
        parse_attribute("padding", "0x1")


def test_window_with_every_field() -> None:
    value = parse_attribute(
        "window",
        "{size=3x3 stride=2x1 pad=0_1x-1_1 lhs_dilate=1x2 rhs_dilate=3x1 rhs_reversal=0x1}",
    )
    assert value == (
        WindowDim(3, 2, 0, 1, 3, 1, False),
        WindowDim(3, 1, -1, 1, 1, 2, True),
    )


def test_window_defaults_and_empty() -> None:
    assert parse_attribute("window", "{size=1x512 pad=0_0x0_0}") == (
        WindowDim(1),
        WindowDim(512),
    )
    assert parse_attribute("window", "{}") == ()


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("{size=3x3 stride=2}", "'stride' has 1 dimensions but 'size' has 2"),
        ("{stride=2}", "no 'size'"),
        ("{size=3 color=2}", "unknown window field 'color'"),
        ("{size=0}", "invalid window size"),
        ("{size=2 rhs_reversal=2}", "invalid window rhs_reversal"),
        ("{size=2 size=2}", "given twice"),
    ],
)
def test_window_errors(text: str, fragment: str) -> None:
    with pytest.raises(ParseError, match=fragment):
        parse_attribute("window", text)


def test_dim_labels_standard_and_permuted() -> None:
    standard = parse_attribute("dim_labels", "b01f_01io->b01f")
    assert standard == ConvolutionDimensionNumbers(0, 3, (1, 2), 2, 3, (0, 1), 0, 3, (1, 2))
    assert str(standard) == "b01f_01io->b01f"
    three_d = parse_attribute("dim_labels", "fb210_o012i->2b10f")
    assert isinstance(three_d, ConvolutionDimensionNumbers)
    assert (three_d.input_batch, three_d.input_feature) == (1, 0)
    assert three_d.input_spatial == (4, 3, 2)
    assert (three_d.kernel_output_feature, three_d.kernel_input_feature) == (0, 4)
    assert three_d.kernel_spatial == (1, 2, 3)
    assert three_d.output_spatial == (3, 2, 0)
    assert str(three_d) == "fb210_o012i->2b10f"


@pytest.mark.parametrize(
    ("text", "column", "fragment"),
    [
        ("b01f_01io", 1, "expected dimension labels"),
        ("b01x_01io->b01f", 4, "unexpected 'x'"),
        ("b02f_01io->b01f", 1, "without gaps"),
        ("b0f_01io->b01f", 1, "different numbers of spatial"),
        ("b01f_01oo->b01f", 9, "unexpected 'o'"),
    ],
)
def test_dim_labels_errors(text: str, column: int, fragment: str) -> None:
    with pytest.raises(ParseError, match=fragment) as info:
        parse_attribute("dim_labels", text)
    assert info.value.span.column == column


def test_scalars_words_and_names() -> None:
    assert parse_attribute("index", "1") == 1
    assert parse_attribute("feature_group_count", "2") == 2
    assert parse_attribute("channel_id", "7") == 7
    assert parse_attribute("is_stable", "true") is True
    assert parse_attribute("indices_are_sorted", "false") is False
    assert parse_attribute("kind", "kLoop") == "kLoop"
    assert parse_attribute("to_apply", "%add.1") == "add.1"
    assert parse_attribute("calls", "fused_computation") == "fused_computation"
    assert parse_attribute("branch_computations", "{%a, b}") == ("a", "b")
    assert parse_attribute("control-predecessors", "{%a, %b}") == ("a", "b")
    assert parse_attribute("custom_call_target", '"Top\\"K"') == 'Top"K'
    assert parse_attribute("comparison_direction", "LT") == "LT"
    assert parse_attribute("direction", "GE") == "GE"
    with pytest.raises(ParseError, match="comparison direction"):
        parse_attribute("direction", "LESS")
    with pytest.raises(ParseError, match="'true' or 'false'"):
        parse_attribute("largest", "yes")


def test_metadata() -> None:
    value = parse_attribute(
        "metadata",
        '{op_type="add" op_name="jit(f)/add{x}" source_file="/a b.py" source_line=12 '
        "stack_frame_id=3 preserve_layout=true}",
    )
    assert value == Metadata(
        "add",
        "jit(f)/add{x}",
        "/a b.py",
        12,
        (
            ("stack_frame_id", "3"),
            ("preserve_layout", "true"),
        ),
    )


def test_backend_config_json_or_string() -> None:
    json = '{"a":{"b":[1,2]},"s":"}{"}'
    assert parse_attribute("backend_config", json) == BackendConfig(json)
    assert parse_attribute("backend_config", '"{\\"x\\":1}"') == BackendConfig('{"x":1}')


def test_frontend_attributes_unescape() -> None:
    value = parse_attribute("frontend_attributes", '{key="v\\"x", _xla_n="1", k2=word}')
    assert value == FrontendAttributes((("key", 'v"x'), ("_xla_n", "1"), ("k2", "word")))


def test_sharding_forms() -> None:
    assert parse_attribute("sharding", "{replicated}") == Sharding("replicated", "replicated")
    tiled = parse_attribute("sharding", "{devices=[2,1]0,1}")
    assert tiled == Sharding("tiled", "devices=[2,1]0,1")
    nested = parse_attribute("sharding", "{{replicated}, {maximal device=0}}")
    assert isinstance(nested, Sharding)
    assert nested.kind == "tuple"
    assert [e.kind for e in nested.elements] == ["replicated", "maximal"]


def test_replica_groups_explicit_and_iota() -> None:
    assert parse_attribute("replica_groups", "{{0,1},{2,3}}") == ReplicaGroups(((0, 1), (2, 3)))
    assert parse_attribute("replica_groups", "{}") == ReplicaGroups(())
    assert parse_attribute("replica_groups", "[2,2]<=[4]") == ReplicaGroups(((0, 1), (2, 3)))
    assert parse_attribute("replica_groups", "[2,3]<=[3,2]T(1,0)") == ReplicaGroups(
        ((0, 2, 4), (1, 3, 5))
    )
    with pytest.raises(ParseError, match="sizes do not match"):
        parse_attribute("replica_groups", "[2,2]<=[5]")


def test_source_target_pairs() -> None:
    assert parse_attribute("source_target_pairs", "{{0,1},{1,0}}") == ((0, 1), (1, 0))
    with pytest.raises(ParseError, match="pair"):
        parse_attribute("source_target_pairs", "{{0,1,2}}")


@pytest.mark.parametrize(
    "text",
    [
        "API_VERSION_STATUS_RETURNING",
        "{{}: (0, {})}",
        '{kind="sharding", entry={maximal device=0}, exit={replicated}}',
        "[2,2]<=[4]",
        '"a, b"',
        "{default,default}",
    ],
)
def test_unknown_attributes_are_kept_raw(text: str) -> None:
    assert not is_known_attribute("some_future_attribute")
    assert parse_attribute("some_future_attribute", text) == RawAttribute(text)


@pytest.mark.parametrize(
    ("text", "column", "fragment"),
    [
        ("{a=(1,2}", 8, "expected ')' to close '('"),
        ("{a=1", 1, "unclosed '{'"),
        ('"abc', 1, "unterminated string"),
    ],
)
def test_unbalanced_raw_values_are_errors(text: str, column: int, fragment: str) -> None:
    with pytest.raises(ParseError, match=re.escape(fragment)) as info:
        parse_attribute("anything", text)
    assert info.value.span.column == column


def test_trailing_text_in_a_known_value_is_an_error() -> None:
    with pytest.raises(ParseError, match="unexpected") as info:
        parse_attribute("padding", "0_1_0y")
    assert info.value.span.column == 6


def test_attributes_mapping_is_ordered_and_typed() -> None:
    attrs = Attributes(
        (("dimensions", (1, 0)), ("index", 3), ("largest", True), ("x", RawAttribute("y")))
    )
    assert list(attrs) == ["dimensions", "index", "largest", "x"]
    assert len(attrs) == 4 and attrs["index"] == 3
    assert attrs.ints("dimensions") == (1, 0)
    assert attrs.integer("index") == 3
    assert attrs.integer("largest") is None  # a bool is not an integer here
    assert attrs.boolean("largest") is True
    assert attrs.raw("x") == "y"
    assert attrs.word("missing") is None
    assert hash(attrs) == hash(Attributes(attrs.entries))


def test_comments_inside_balanced_values_are_skipped() -> None:
    assert parse_attribute("x", "{a /* } */ b}") == RawAttribute("{a /* } */ b}")
    assert parse_attribute("dimensions", "{1, /*index=1*/ 0}") == (1, 0)


@pytest.mark.parametrize(
    ("name", "plain", "spaced"),
    [
        ("dimensions", "{1,0,2}", "{ 1, 0 ,2 }"),
        ("dimensions", "{}", "{ }"),
        (
            "metadata",
            '{op_name="jit(f)/add" source_file="f.py" source_line=3}',
            '{op_name="jit(f)/add",  source_file="f.py" , source_line=3 }',
        ),
    ],
)
def test_plain_values_read_in_one_pass_equal_the_general_reading(
    name: str, plain: str, spaced: str
) -> None:
    # The plain text takes the one-match path, the spaced one the general path.
    assert parse_attribute(name, plain) == parse_attribute(name, spaced)


@pytest.mark.parametrize(
    "text", ['{op_name="a"} junk', "{1,0} 2", '{op_name="a" source_line=99999999999999999999}']
)
def test_a_plain_prefix_does_not_hide_what_follows(text: str) -> None:
    name = "dimensions" if text.startswith("{1") else "metadata"
    with pytest.raises(ParseError):
        parse_attribute(name, text)


def test_a_bare_metadata_value_runs_to_a_separator() -> None:
    # `xb="q"` is one bare value, as the general reading has it: the one-match
    # reading must not split it into `k=x` and a field `b="q"`.
    expected = Metadata(None, None, None, None, (("k", 'xb="q"'),))
    assert parse_attribute("metadata", '{k=xb="q"}') == expected
    assert parse_attribute("metadata", '{ k=xb="q" }') == expected
