"""Opcodes XLA printed before 2019 are read as the op they are today
(examples/syntax/32_legacy_opcodes.hlo, issue #31)."""

from __future__ import annotations

import operator
from itertools import product
from pathlib import Path

import pytest

from verifier.errors import ParseError
from verifier.hlo import parse_module, parse_module_file

SYNTAX = Path(__file__).parents[2] / "examples" / "syntax"

# What each word means, and what each of today's directions means.
_BY_WORDS = {
    "equal-to": operator.eq,
    "not-equal-to": operator.ne,
    "greater-than": operator.gt,
    "greater-than-or-equal-to": operator.ge,
    "less-than": operator.lt,
    "less-than-or-equal-to": operator.le,
}
_BY_DIRECTION = {
    "EQ": operator.eq,
    "NE": operator.ne,
    "GT": operator.gt,
    "GE": operator.ge,
    "LT": operator.lt,
    "LE": operator.le,
}


@pytest.mark.parametrize("word", sorted(_BY_WORDS))
def test_a_comparison_named_after_its_direction_is_that_compare(word: str) -> None:
    module = parse_module(
        f"HloModule m\nENTRY e {{\n  a = s32[3] parameter(0)\n  b = s32[3] parameter(1)\n"
        f"  ROOT c = pred[3] {word}(a, b)\n}}"
    )
    root = module.entry.root
    assert root.opcode == "compare"
    direction = root.attributes["direction"]
    assert isinstance(direction, str)
    for x, y in product(range(-2, 3), repeat=2):
        assert _BY_DIRECTION[direction](x, y) == _BY_WORDS[word](x, y), (word, x, y)


def test_the_2018_module_is_the_module_written_today() -> None:
    old = parse_module_file(SYNTAX / "32_legacy_opcodes.hlo").entry
    compare = old.instruction("less-than-or-equal-to.7")
    crs = old.instruction("cross-replica-sum.8")
    assert (compare.opcode, compare.attributes["direction"]) == ("compare", "LE")
    assert compare.operands == ("arg0.5", "arg1.6")
    assert crs.opcode == "all-reduce"
    assert crs.attributes["to_apply"] == "sum.1"
    assert str(crs.shape) == "f32[2,6]{1,0}"


def test_a_name_xla_never_printed_is_still_unknown() -> None:
    with pytest.raises(ParseError, match="unknown opcode 'greater-then'"):
        parse_module(
            "HloModule m\nENTRY e {\n  a = s32[3] parameter(0)\n  ROOT c = pred[3] greater-then(a, a)\n}"
        )


def test_a_gather_of_2018_is_the_gather_written_with_todays_names() -> None:
    old = parse_module_file(SYNTAX / "32_legacy_opcodes.hlo").entry.instruction("gather.11")
    today = parse_module(
        "HloModule m\nENTRY e {\n  a = f32[2,6] parameter(0)\n  i = s32[3] parameter(1)\n"
        "  ROOT g = f32[3,6] gather(a, i), offset_dims={1}, collapsed_slice_dims={0},"
        " start_index_map={0}, index_vector_dim=1, slice_sizes={1,6}\n}"
    ).entry.root
    assert dict(old.attributes) == dict(today.attributes)


@pytest.mark.parametrize(
    ("attributes", "message"),
    [
        ("slice_sizes={1,3}, window_bounds={1,3}", "'window_bounds' is given twice"),
        ("window_bounds={1,3}, slice_sizes={1,3}", "'slice_sizes' is given twice"),
    ],
)
def test_an_old_and_a_new_name_of_one_attribute_are_one_attribute_given_twice(
    attributes: str, message: str
) -> None:
    with pytest.raises(ParseError, match=message):
        parse_module(
            "HloModule m\nENTRY e {\n  a = s32[3,3] parameter(0)\n  i = s32[2] parameter(1)\n"
            "  ROOT g = s32[2,3] gather(a, i), offset_dims={1}, collapsed_slice_dims={0},"
            f" start_index_map={{0}}, index_vector_dim=1, {attributes}\n}}"
        )


def test_a_comparison_named_after_its_direction_takes_no_direction() -> None:
    with pytest.raises(ParseError, match="'greater-than' names its direction") as error:
        parse_module(
            "HloModule m\nENTRY e {\n  a = s32[3] parameter(0)\n"
            "  ROOT c = pred[3] greater-than(a, a), direction=LT\n}"
        )
    assert ":4:" in str(error.value)
