"""The bitcast rule by bits against the brute force (`oracle_layout`): an
element relates to every element of the other side whose bits overlap its
bits, in both directions, before and after simplification."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from tests.layout_strategies import bitcast_pair
from tests.oracle_layout import bitcast_reads
from verifier.expr.indexing_map import IndexingMap, Undefined
from verifier.expr.parser import parse_map
from verifier.hlo.shape import Shape, parse_shape
from verifier.indexing.bitcast import bitcast_map
from verifier.simplify import simplify

from .compound_checks import check


def pairs(source: Shape, target: Shape, *, simplified: bool) -> set[tuple[object, object]]:
    indexing = bitcast_map(source, target)
    assert not isinstance(indexing, Undefined)
    found: set[tuple[object, object]] = set()
    for indexing_map in indexing:
        shown = simplify(indexing_map).map if simplified else indexing_map
        found |= shown.relation()
    return found


@pytest.mark.parametrize(
    ("source", "target", "expected"),
    [
        (
            "s8[8]{0}",
            "s4[16]{0:E(4)}",
            "(d0)[s0] -> (d0 * 2 + s0), domain: d0 in [0, 7], s0 in [0, 1]",
        ),
        ("s4[16]{0:E(4)}", "s8[8]{0}", "(d0) -> (d0 floordiv 2), domain: d0 in [0, 15]"),
        (
            "f32[9,128]{1,0:T(8)L(1024)}",
            "f32[9,128]{1,0:T(8,128)}",
            "(d0, d1) -> (d0, d1), domain: d0 in [0, 8], d1 in [0, 127]",
        ),
        (
            "f32[1,8192,8192]{2,1,0:T(8,128)}",
            "f32[8192,8192]{1,0:T(8,128)}",
            "(d0, d1, d2) -> (d1, d2), domain: d0 in [0, 0], d1 in [0, 8191], d2 in [0, 8191]",
        ),
        ("f32[24]{0}", "f32[4,6]{0,1}", "(d0) -> (d0 mod 4, d0 floordiv 4), domain: d0 in [0, 23]"),
    ],
)
def test_the_issues_bitcasts_simplify_to_their_plain_maps(
    source: str, target: str, expected: str
) -> None:
    (indexing_map,) = bitcast_map(parse_shape(source), parse_shape(target))  # type: ignore[misc]
    assert isinstance(indexing_map, IndexingMap)
    assert simplify(indexing_map).map == parse_map(expected)


@settings(max_examples=100, deadline=None)
@given(pair=bitcast_pair())
def test_both_directions_relate_exactly_the_overlapping_bits(pair: tuple[str, str]) -> None:
    operand, output = (parse_shape(text) for text in pair)
    assert pairs(output, operand, simplified=False) == bitcast_reads(output, operand), pair
    assert pairs(operand, output, simplified=False) == bitcast_reads(operand, output), pair


@pytest.mark.parametrize(
    "pair",
    [
        ("c64[8,12]{1,0}", "c64[12,8]{0,1}"),  # what XLA writes for an FFT's transpose
        ("c128[3,4]{1,0}", "c128[12]{0}"),
        ("u16[2,6]{1,0}", "u16[12]{0}"),
        ("u64[5]{0}", "u64[5,1]{0,1}"),
        ("f8e4m3fn[4,4]{0,1}", "f8e4m3fn[4,4]{1,0}"),
    ],
)
def test_element_types_of_real_dumps(pair: tuple[str, str]) -> None:
    operand, output = (parse_shape(text) for text in pair)
    assert pairs(output, operand, simplified=True) == bitcast_reads(output, operand), pair
    assert pairs(operand, output, simplified=True) == bitcast_reads(operand, output), pair


@settings(max_examples=40, deadline=None)
@given(pair=bitcast_pair())
def test_simplified_maps_relate_the_same_pairs(pair: tuple[str, str]) -> None:
    operand, output = (parse_shape(text) for text in pair)
    assert pairs(output, operand, simplified=True) == bitcast_reads(output, operand), pair


@pytest.mark.parametrize(
    ("operand", "output"),
    [
        ("f64[]", "pred[8]"),
        ("s8[1,4,3]{1,2,0:T(4)}", "pred[2,1,2,3,1]{1,4,0,2,3:T(1,1)}"),
        ("s4[16]{0:E(4)}", "s8[8]{0}"),
        ("f32[2,3]{0,1}", "bf16[12]"),
    ],
)
def test_a_bitcast_that_changes_the_element_type_has_maps(operand: str, output: str) -> None:
    # The rule's maps were behind a guard that left every bitcast between
    # element widths UNDEFINED (tests/fuzz/semantic.py: variants 26, 404).
    check(
        f"HloModule m\nENTRY e {{\n  p0 = {operand} parameter(0)\n"
        f"  ROOT r = {output} bitcast(p0)\n}}\n"
    )
