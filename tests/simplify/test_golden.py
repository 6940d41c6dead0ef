"""Golden cases of the simplifier, text in, text out (SPEC §3, §4)."""

from __future__ import annotations

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
    # SPEC §2's pad: (d0 - 1) mod 2 in [0, 0] pins d0 to odd values.
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
