"""Golden cases of the simplifier, text in, text out (the indexing document's fusions and the four golden cases)."""

from __future__ import annotations

import numpy
import pytest

from verifier.expr.indexing_map import compose
from verifier.expr.parser import parse_map
from verifier.simplify import simplify


def _text(text: str) -> str:
    return " ".join(str(simplify(parse_map(text)).map).split())


def _same(actual: str, expected: str) -> bool:
    return " ".join(actual.split()) == " ".join(expected.split())


SPEC_4 = [
    (
        "(d0, d1) -> (d0 + d1 floordiv 16, d1 mod 16), domain: d0 in [0, 6], d1 in [0, 14]",
        "(d0, d1) -> (d0, d1)",
    ),
    (
        "(d0, d1, d2) -> ((d0 * 100 + d1 * 10 + d2) floordiv 100,"
        " ((d0 * 100 + d1 * 10 + d2) mod 100) floordiv 10, d2 mod 10),"
        " domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]",
        "(d0, d1, d2) -> (d0, d1, d2)",
    ),
    (
        "(d0, d1, d2) -> ((d0 * 16 + d1 * 4 + d2) floordiv 8, (d0 * 16 + d1 * 4 + d2) mod 8),"
        " domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]",
        "(d0, d1, d2) -> (d0 * 2 + (d1 * 4 + d2) floordiv 8, (d1 * 4 + d2) mod 8)",
    ),
    (
        "(d0, d1) -> (-((d0 * -11 - d1 + 109) floordiv 11) + 9),"
        " domain: d0 in [0, 9], d1 in [0, 10]",
        "(d0, d1) -> (d0)",
    ),
]


@pytest.mark.parametrize(("text", "expected_results"), SPEC_4)
def test_spec_section_4_prints_exactly(text: str, expected_results: str) -> None:
    simplified = str(simplify(parse_map(text)).map)
    assert simplified.splitlines()[0] == expected_results + ","


def test_spec_section_4_keeps_the_domain() -> None:
    text, _ = SPEC_4[0]
    assert _same(_text(text), "(d0, d1) -> (d0, d1), domain: d0 in [0, 6], d1 in [0, 14]")


def test_reshape_chain_composes_to_identity() -> None:
    # [10,10,10] -> [50,20] -> [10,10,10]: consumer is the second reshape's
    # output->input map (expand of a linear index), producer the first's.
    second = parse_map(
        "(d0, d1, d2) -> ((d0 * 100 + d1 * 10 + d2) floordiv 20,"
        " (d0 * 100 + d1 * 10 + d2) mod 20),"
        " domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]"
    )
    first = parse_map(
        "(d0, d1) -> ((d0 * 20 + d1) floordiv 100, ((d0 * 20 + d1) mod 100) floordiv 10,"
        " (d0 * 20 + d1) mod 10), domain: d0 in [0, 49], d1 in [0, 19]"
    )
    simplified = simplify(compose(second, first)).map
    assert _same(
        str(simplified),
        "(d0, d1, d2) -> (d0, d1, d2), domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]",
    )


def test_constraint_implied_by_bounds_is_dropped() -> None:
    assert _same(
        _text("(d0)[s0] -> (d0 + s0), domain: d0 in [0, 5], s0 in [1, 3], d0 + s0 in [0, 20]"),
        "(d0)[s0] -> (d0 + s0), domain: d0 in [0, 5], s0 in [1, 3]",
    )


def test_absorbing_a_single_inner_division() -> None:
    assert _text(
        "(d0)[s0, s1] -> ((s0 * 2 + s1 floordiv 64) floordiv 3),"
        " domain: d0 in [0, 3], s0 in [0, 10], s1 in [0, 1000]"
    ).startswith("(d0)[s0, s1] -> ((s0 * 128 + s1) floordiv 192),")


def test_infeasible_constraint_makes_the_map_known_empty() -> None:
    assert _text("(d0) -> (d0), domain: d0 in [0, 9], d0 mod 4 in [5, 7]") == "KNOWN EMPTY"


def test_incompatible_residues_make_the_map_known_empty() -> None:
    text = "(d0) -> (d0), domain: d0 in [0, 99], d0 mod 4 in [0, 0], d0 mod 6 in [1, 1]"
    assert _text(text) == "KNOWN EMPTY"


def test_strided_pad_input_keeps_its_lattice() -> None:
    # The indexing document's pad: (d0 - 1) mod 2 in [0, 0] pins d0 to odd values.
    result = simplify(
        parse_map(
            "(d0, d1) -> ((d0 - 1) floordiv 2, d1 - 4),"
            " domain: d0 in [0, 8], d1 in [4, 7], (d0 - 1) mod 2 in [0, 0]"
        )
    ).map
    assert _same(
        str(result),
        "(d0, d1) -> ((d0 - 1) floordiv 2, d1 - 4),"
        " domain: d0 in [1, 7], d1 in [4, 7], d0 mod 2 in [1, 1]",
    )


# ---------------------------------------------------------------- issue #15's forms

_L = "(d0 * 3072 + d1)"
RESHAPE_128x3072_256x3x512_BACK = (
    f"(d0, d1) -> (((({_L} floordiv 512) mod 3) * 512 + ({_L} floordiv 1536) * 1536"
    f" + {_L} mod 512) floordiv 3072, ((({_L} floordiv 512) mod 3) * 512"
    f" + ({_L} floordiv 1536) * 1536 + {_L} mod 512) mod 3072),"
    " domain: d0 in [0, 127], d1 in [0, 3071]"
)
_X = "(d0 * 100 + d1 * 5 + d2)"
_DIGITS = (
    f"((({_X} floordiv 2) mod 5) * 2 + (({_X} floordiv 10) mod 25) * 10"
    f" + (({_X} floordiv 250) mod 2) * 250 + ({_X} floordiv 500) * 500 + {_X} mod 2)"
)
# [10, 20, 5] -> [2, 5, 25, 2, 2] -> [10, 20, 5], composed unsimplified (the
# raw form fusion composition produces before any simplification).
RESHAPE_ODD_FACTORS_ROUND_TRIP = (
    f"(d0, d1, d2) -> ({_DIGITS} floordiv 100, ({_DIGITS} floordiv 5) mod 20, {_DIGITS} mod 5),"
    " domain: d0 in [0, 9], d1 in [0, 19], d2 in [0, 4]"
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (RESHAPE_128x3072_256x3x512_BACK, "(d0, d1) -> (d0, d1)"),
        (RESHAPE_ODD_FACTORS_ROUND_TRIP, "(d0, d1, d2) -> (d0, d1, d2)"),
        (
            "(d0) -> (min(d0, d0 + 1), max(d0, d0 - 1)), domain: d0 in [0, 9]",
            "(d0) -> (d0, d0)",
        ),
        (
            "(d0, d1) -> (min(d0 * 2 + d1, d1 + 20), max(d1 - d0, d1 + 1)),"
            " domain: d0 in [0, 9], d1 in [-50, 50]",
            "(d0, d1) -> (d0 * 2 + d1, d1 + 1)",
        ),
        (
            "(d0)[s0] -> ((s0 floordiv 5) * -10 + s0 * 3 + d0), domain: d0 in [0, 9], s0 in [0, 99]",
            "(d0)[s0] -> ((s0 mod 5) * 2 + d0 + s0)",
        ),
        ("(d0) -> ((d0 * 6) mod 4), domain: d0 in [0, 99]", "(d0) -> ((d0 mod 2) * 2)"),
        (
            "(d0)[s0, s1] -> (s0 + s1 * 32 - (s0 floordiv 32) * 32),"
            " domain: d0 in [0, 3], s0 in [0, 1023], s1 in [0, 255]",
            "(d0)[s0, s1] -> (s1 * 32 + s0 mod 32)",
        ),
    ],
)
def test_issue_15_forms_print_exactly(text: str, expected: str) -> None:
    original = parse_map(text)
    result = simplify(original)
    assert str(result.map).splitlines()[0] == expected + ","
    assert result.map.all_variables == original.all_variables


def test_range_of_a_sum_keeps_the_correlation_of_x_and_x_floordiv_c() -> None:
    from verifier.simplify import Ranges

    m = parse_map(
        "(d0)[s0, s1] -> (s0 + s1 * 32 - (s0 floordiv 32) * 32),"
        " domain: d0 in [0, 3], s0 in [0, 1023], s1 in [0, 255]"
    )
    interval = Ranges.of_map(m).interval(m.results[0])
    assert (interval.lower, interval.upper) == (0, 8191)
    # Brute force over the whole domain (d0 is unused), vectorised: numpy's
    # // is floor division, as the map's floordiv.
    s0 = numpy.arange(1024)[:, None]
    s1 = numpy.arange(256)[None, :]
    values = s0 + s1 * 32 - (s0 // 32) * 32
    assert (int(values.min()), int(values.max())) == (0, 8191)


def test_a_rescalable_symbol_keeps_its_meaning_by_default() -> None:
    text = "(d0)[s0] -> (d0, s0), domain: d0 in [0, 3], s0 in [0, 40], s0 mod 4 in [2, 2]"
    assert _same(
        _text(text),
        "(d0)[s0] -> (d0, s0), domain: d0 in [0, 3], s0 in [2, 38], s0 mod 4 in [2, 2]",
    )
    rescaled = simplify(parse_map(text), rescale_symbols=True)
    assert _same(
        str(rescaled.map), "(d0)[s0] -> (d0, s0 * 4 + 2), domain: d0 in [0, 3], s0 in [0, 9]"
    )
    assert [str(change) for change in rescaled.symbol_changes] == ["s0 is now s0 * 4 + 2"]


def test_range_of_x_minus_its_remainder_is_a_multiple_of_the_modulus() -> None:
    from verifier.simplify import Ranges

    m = parse_map("(d0) -> (d0 * 3 - (d0 mod 4) * 3), domain: d0 in [0, 9]")
    interval = Ranges.of_map(m).interval(m.results[0])
    assert (interval.lower, interval.upper) == (0, 24)
    assert {m.evaluate(p)[0] for p in m.domain_points()} == {0, 12, 24}
