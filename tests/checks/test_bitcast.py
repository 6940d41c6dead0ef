"""The bitcast check against the brute force (`oracle_layout`): verdicts on
generated bitcasts, witnesses re-checked, the issue's false refutations
proved, and a size that no walk over elements could afford."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from tests.layout_strategies import bitcast_pair
from tests.oracle_layout import bitcast_verdict, buffer_bytes, buffer_elements, offsets, slot_bits
from verifier.checks.bitcast import check_bitcast
from verifier.checks.budget import Budget
from verifier.checks.cache import MemoryCache
from verifier.checks.verdict import Outcome
from verifier.expr.indexing_map import Undefined
from verifier.expr.parser import parse_map
from verifier.hlo.shape import Shape, parse_shape
from verifier.indexing.bitcast import bitcast_map


def check(operand: Shape, output: Shape) -> Outcome:
    return check_bitcast(operand, output, bitcast_map(output, operand), MemoryCache()).outcome


@pytest.mark.parametrize(
    ("operand", "output"),
    [
        ("f32[9,128]{1,0:T(8,128)}", "f32[9,128]{1,0:T(8)L(1024)}"),
        ("s4[16]{0:E(4)}", "s8[8]{0}"),
        ("s8[8]{0}", "s4[16]{0:E(4)}"),
        ("f32[8192,8192]{1,0:T(8,128)}", "f32[1,8192,8192]{2,1,0:T(8,128)}"),
        (
            "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)S(1)}",
            "bf16[1,8,1280,16384]{3,2,1,0:T(8,128)(2,1)S(1)}",
        ),
        ("s32[]{:T(128)}", "s32[1]{0:T(128)}"),
    ],
)
def test_bitcasts_that_keep_every_bit_are_proved(operand: str, output: str) -> None:
    assert check(parse_shape(operand), parse_shape(output)) is Outcome.PROVED


@pytest.mark.parametrize(
    ("operand", "output"), [("f32[0]{0}", "f32[1,0]"), ("f32[2,0]{0,1}", "f32[0,5,1]{1,2,0}")]
)
def test_a_bitcast_of_empty_arrays_is_vacuous(operand: str, output: str) -> None:
    # Splitting an offset by the row-major strides of an empty buffer divided
    # by zero (tests/fuzz/semantic.py, variant 585).
    assert check(parse_shape(operand), parse_shape(output)) is Outcome.VACUOUS


def test_an_element_past_a_nested_tilings_buffer_is_the_witness() -> None:
    operand, output = parse_shape("f32[3]{0:T(2)(4)}"), parse_shape("f32[4]{0}")
    result = check_bitcast(operand, output, Undefined("x"), MemoryCache())
    assert result.outcome is Outcome.REFUTED
    witness = dict(result.witness)
    assert offsets(operand)[(witness["operand_d0"],)] == witness["offset"] >= 4


def test_an_exhausted_budget_is_unknown() -> None:
    operand, output = parse_shape("f32[16,256]{1,0:T(8,128)}"), parse_shape("f32[4096]{0}")
    result = check_bitcast(operand, output, Undefined("x"), MemoryCache(), budget=Budget(1))
    assert result.outcome is Outcome.UNKNOWN


def test_a_map_that_misses_an_overlapping_element_is_refuted() -> None:
    operand, output = parse_shape("s4[16]{0:E(4)}"), parse_shape("s8[8]{0}")
    half = parse_map("(d0) -> (d0 * 2), domain: d0 in [0, 7]")
    result = check_bitcast(operand, output, (half,), MemoryCache())
    assert result.outcome is Outcome.REFUTED
    witness = dict(result.witness)
    assert witness["operand_d0"] == witness["d0"] * 2 + 1  # the other half of the byte


@settings(max_examples=60, deadline=None)
@given(pair=bitcast_pair())
def test_verdicts_match_the_brute_force(pair: tuple[str, str]) -> None:
    operand, output = (parse_shape(text) for text in pair)
    want = bitcast_verdict(operand, output)
    result = check_bitcast(operand, output, bitcast_map(output, operand), MemoryCache())
    assert result.outcome.value == want.outcome, (pair, result, want)
    if result.outcome is not Outcome.REFUTED:
        return
    witness = dict(result.witness)
    if "operand_bytes" in witness:
        assert (witness["operand_bytes"], witness["output_bytes"]) == (
            buffer_bytes(operand),
            buffer_bytes(output),
        )
        return
    on_output = result.message.startswith("output")
    side = "output" if on_output else "operand"
    shape, other_shape = (output, operand) if on_output else (operand, output)
    element = tuple(witness[f"{side}_d{i}"] for i in range(shape.rank))
    assert offsets(shape)[element] == witness["offset"], (pair, result)
    if "bit" not in witness:  # past its own buffer
        assert witness["offset"] >= buffer_elements(shape), (pair, result)
        return
    width, other_width = slot_bits(shape), slot_bits(other_shape)
    bit = witness["bit"]
    assert witness["offset"] * width <= bit < (witness["offset"] + 1) * width
    held = {o * other_width + b for o in offsets(other_shape).values() for b in range(other_width)}
    assert bit not in held, (pair, result)


def test_a_size_change_with_no_layout_written_is_unsupported_not_refuted() -> None:
    # Before layout assignment XLA's verifier lets a bitcast change its size
    # (examples/syntax/27_unlaid_bitcast.hlo); once both sides are laid
    # out, the same bitcast is refuted by its byte counts.
    unlaid = check_bitcast(
        parse_shape("s32[]"), parse_shape("s32[8]"), Undefined("x"), MemoryCache()
    )
    assert unlaid.outcome is Outcome.UNSUPPORTED and "no layout" in unlaid.message
    laid = check_bitcast(
        parse_shape("s32[]{}"), parse_shape("s32[8]{0}"), Undefined("x"), MemoryCache()
    )
    assert laid.outcome is Outcome.REFUTED
    assert dict(laid.witness) == {"operand_bytes": 4, "output_bytes": 32}


def test_a_bitcast_to_fewer_elements_over_the_same_bytes_drops_the_rest() -> None:
    # XLA's verifier compares a bitcast's buffer sizes, tile padding
    # included: s32[6] and s32[1] both fill one 128-slot tile.  The output's
    # one element is the operand's first; the other five are dropped, which
    # the brute force accepts; the reverse reads five slots of padding.
    fewer, more = parse_shape("s32[1]{0:T(128)}"), parse_shape("s32[6]{0:T(128)}")
    assert bitcast_verdict(more, fewer).outcome == "proved"
    assert check(more, fewer) is Outcome.PROVED
    assert bitcast_verdict(fewer, more).outcome == "refuted"
    result = check_bitcast(fewer, more, Undefined("x"), MemoryCache())
    assert result.outcome is Outcome.REFUTED
    witness = dict(result.witness)
    assert offsets(more)[(witness["output_d0"],)] == witness["offset"]
    assert witness["offset"] not in offsets(fewer).values()  # padding of the operand
