"""Each registered rule fires on its own example, with the expected text."""

from __future__ import annotations

import pytest

from verifier.expr.nodes import ceildiv, dim, floordiv, max_, min_, mod
from verifier.expr.parser import parse_map
from verifier.simplify import simplify
from verifier.simplify.rules import CONSTRAINT_RULES, EXPR_RULES, MAP_RULES

D = "domain:"
# rule name -> (input map, simplified map); whitespace is insignificant.
EXAMPLES: dict[str, tuple[str, str]] = {
    "const_from_range": (
        f"(d0, d1) -> (d0 + d1 floordiv 16), {D} d0 in [0, 6], d1 in [0, 14]",
        f"(d0, d1) -> (d0), {D} d0 in [0, 6], d1 in [0, 14]",
    ),
    "min_by_range": (f"(d0) -> (min(d0, 10)), {D} d0 in [0, 9]", f"(d0) -> (d0), {D} d0 in [0, 9]"),
    "max_by_range": (f"(d0) -> (max(d0, 0)), {D} d0 in [0, 9]", f"(d0) -> (d0), {D} d0 in [0, 9]"),
    "min_by_difference": (
        f"(d0, d1) -> (min(d0, d0 + 1), min(d0 + d1, d1 + 3)), {D} d0 in [0, 3], d1 in [0, 9]",
        f"(d0, d1) -> (d0, d0 + d1), {D} d0 in [0, 3], d1 in [0, 9]",
    ),
    "max_by_difference": (
        f"(d0) -> (max(d0, d0 - 1)), {D} d0 in [0, 9]",
        f"(d0) -> (d0), {D} d0 in [0, 9]",
    ),
    "mod_reduce_coefficients": (
        f"(d0) -> ((d0 * 6) mod 4), {D} d0 in [0, 99]",
        f"(d0) -> ((d0 mod 2) * 2), {D} d0 in [0, 99]",
    ),
    "sum_floordiv_to_mod_with_rest": (
        f"(d0)[s0] -> ((s0 floordiv 5) * -10 + s0 * 3 + d0), {D} d0 in [0, 9], s0 in [0, 99]",
        f"(d0)[s0] -> ((s0 mod 5) * 2 + d0 + s0), {D} d0 in [0, 9], s0 in [0, 99]",
    ),
    "mod_drop_when_no_wrap": (
        f"(d0) -> (d0 mod 16), {D} d0 in [0, 14]",
        f"(d0) -> (d0), {D} d0 in [0, 14]",
    ),
    "mod_shift_when_no_wrap": (
        f"(d0) -> ((d0 + 20) mod 16), {D} d0 in [0, 9]",
        f"(d0) -> (d0 + 4), {D} d0 in [0, 9]",
    ),
    "mod_drop_multiples": (
        f"(d0, d1) -> ((d0 * 16 + d1 + 17) mod 8), {D} d0 in [0, 9], d1 in [0, 20]",
        f"(d0, d1) -> ((d1 + 1) mod 8), {D} d0 in [0, 9], d1 in [0, 20]",
    ),
    "mod_of_inner_mod": (
        f"(d0) -> ((d0 mod 8) mod 4), {D} d0 in [0, 99]",
        f"(d0) -> (d0 mod 4), {D} d0 in [0, 99]",
    ),
    "mod_gcd_factor": (
        f"(d0, d1) -> ((d0 * 4 + d1) mod 8), {D} d0 in [0, 9], d1 in [0, 3]",
        f"(d0, d1) -> ((d0 mod 2) * 4 + d1), {D} d0 in [0, 9], d1 in [0, 3]",
    ),
    "floordiv_pull_multiples": (
        f"(d0, d1) -> ((d0 * 16 + d1) floordiv 8), {D} d0 in [0, 9], d1 in [0, 9]",
        f"(d0, d1) -> (d0 * 2 + d1 floordiv 8), {D} d0 in [0, 9], d1 in [0, 9]",
    ),
    "ceildiv_pull_multiples": (
        f"(d0, d1) -> ((d0 * 8 + d1) ceildiv 4), {D} d0 in [0, 9], d1 in [0, 9]",
        f"(d0, d1) -> (d0 * 2 + d1 ceildiv 4), {D} d0 in [0, 9], d1 in [0, 9]",
    ),
    "floordiv_drop_small_remainder": (
        f"(d0, d1) -> ((d0 * 4 + d1) floordiv 8), {D} d0 in [0, 9], d1 in [0, 3]",
        f"(d0, d1) -> (d0 floordiv 2), {D} d0 in [0, 9], d1 in [0, 3]",
    ),
    "floordiv_of_mod": (
        f"(d0) -> ((d0 mod 100) floordiv 10), {D} d0 in [0, 999]",
        f"(d0) -> ((d0 floordiv 10) mod 10), {D} d0 in [0, 999]",
    ),
    "floordiv_nested": (
        f"(d0) -> ((d0 floordiv 4) floordiv 8), {D} d0 in [0, 999]",
        f"(d0) -> (d0 floordiv 32), {D} d0 in [0, 999]",
    ),
    "floordiv_absorb_inner_division": (
        f"(d0)[s0, s1] -> ((s0 * 2 + s1 floordiv 64) floordiv 3),"
        f" {D} d0 in [0, 3], s0 in [0, 10], s1 in [0, 1000]",
        f"(d0)[s0, s1] -> ((s0 * 128 + s1) floordiv 192),"
        f" {D} d0 in [0, 3], s0 in [0, 10], s1 in [0, 1000]",
    ),
    "sum_recombine_div_mod": (
        f"(d0) -> ((d0 floordiv 8) * 8 + d0 mod 8), {D} d0 in [0, 99]",
        f"(d0) -> (d0), {D} d0 in [0, 99]",
    ),
    "sum_floordiv_to_mod": (
        f"(d0, d1) -> (d0 + d1 * 3 - ((d0 + d1 * 3) floordiv 4) * 4),"
        f" {D} d0 in [0, 99], d1 in [0, 9]",
        f"(d0, d1) -> ((d0 - d1) mod 4), {D} d0 in [0, 99], d1 in [0, 9]",
    ),
    "constraint_infeasible": (
        f"(d0, d1) -> (d0), {D} d0 in [0, 9], d1 in [0, 9], d0 + d1 in [0, 3],"
        " d0 + d1 + 1 in [10, 12]",
        "KNOWN EMPTY",
    ),
    "constraint_implied": (
        f"(d0)[s0] -> (d0 + s0), {D} d0 in [0, 5], s0 in [1, 3], d0 + s0 in [0, 20]",
        f"(d0)[s0] -> (d0 + s0), {D} d0 in [0, 5], s0 in [1, 3]",
    ),
    "constraint_tighten_to_range": (
        f"(d0, d1) -> (d0), {D} d0 in [0, 9], d1 in [0, 9], d0 mod 4 + d1 in [-5, 4]",
        f"(d0, d1) -> (d0), {D} d0 in [0, 9], d1 in [0, 9], d0 mod 4 + d1 in [0, 4]",
    ),
    "constraint_shift_constant": (
        f"(d0, d1) -> (d0), {D} d0 in [0, 9], d1 in [0, 9], d0 + d1 + 3 in [3, 10]",
        f"(d0, d1) -> (d0), {D} d0 in [0, 9], d1 in [0, 9], d0 + d1 in [0, 7]",
    ),
    "constraint_negate": (
        f"(d0, d1) -> (d0), {D} d0 in [0, 9], d1 in [0, 9], -d0 - d1 in [-5, 0]",
        f"(d0, d1) -> (d0), {D} d0 in [0, 9], d1 in [0, 9], d0 + d1 in [0, 5]",
    ),
    "constraint_divide_by_multiplier": (
        f"(d0, d1) -> (d0), {D} d0 in [0, 9], d1 in [0, 9], d0 * 4 + d1 * 2 in [1, 9]",
        f"(d0, d1) -> (d0), {D} d0 in [0, 9], d1 in [0, 9], d0 * 2 + d1 in [1, 4]",
    ),
    "constraint_floordiv_bounds": (
        f"(d0, d1) -> (d0), {D} d0 in [0, 99], d1 in [0, 9], (d0 + d1) floordiv 4 in [1, 2]",
        f"(d0, d1) -> (d0), {D} d0 in [0, 99], d1 in [0, 9], d0 + d1 in [4, 11]",
    ),
    "constraint_ceildiv_bounds": (
        f"(d0, d1) -> (d0), {D} d0 in [0, 99], d1 in [0, 9], (d0 + d1) ceildiv 4 in [1, 2]",
        f"(d0, d1) -> (d0), {D} d0 in [0, 99], d1 in [0, 9], d0 + d1 in [1, 8]",
    ),
    "constraint_mod_shift_constant": (
        f"(d0) -> (d0), {D} d0 in [0, 9], (d0 - 1) mod 2 in [0, 0]",
        f"(d0) -> (d0), {D} d0 in [1, 9], d0 mod 2 in [1, 1]",
    ),
    "constraint_drop_small_summand": (
        f"(d0, d1) -> (d0, d1), {D} d0 in [0, 9], d1 in [0, 3], d0 * 4 + d1 in [0, 11]",
        f"(d0, d1) -> (d0, d1), {D} d0 in [0, 2], d1 in [0, 3]",
    ),
    "domain_empty_bounds": (
        f"(d0)[s0] -> (d0 + s0), {D} d0 in [0, 9], s0 in [3, 1]",
        "KNOWN EMPTY",
    ),
    "constraint_mod_merge_lcm": (
        f"(d0) -> (d0), {D} d0 in [0, 50], d0 mod 4 in [1, 1], d0 mod 6 in [3, 3]",
        f"(d0) -> (d0), {D} d0 in [9, 45], d0 mod 12 in [9, 9]",
    ),
    "constraint_mod_tighten_bounds": (
        f"(d0) -> (d0), {D} d0 in [0, 10], d0 mod 4 in [1, 1]",
        f"(d0) -> (d0), {D} d0 in [1, 9], d0 mod 4 in [1, 1]",
    ),
    "rescale_symbol": (
        f"(d0)[s0] -> (d0 + s0), {D} d0 in [0, 5], s0 in [1, 9], s0 mod 4 in [1, 1]",
        f"(d0)[s0] -> (s0 * 4 + d0 + 1), {D} d0 in [0, 5], s0 in [0, 2]",
    ),
    "constraint_enumerate_bounds": (
        f"(d0, d1) -> (d0, 0), {D} d0 in [0, 7], d1 in [29, 31],"
        " (-((d1 - 1) floordiv 2)) mod 2 in [1, 1], d1 mod 2 in [1, 1]",
        f"(d0, d1) -> (d0, 0), {D} d0 in [0, 7], d1 in [31, 31]",
    ),
    "project_lone_symbol": (
        f"(d0){{rt0}} -> (d0), {D} d0 in [0, 49], rt0 in [0, 49], d0 - rt0 in [-49, -1]",
        f"(d0) -> (d0), {D} d0 in [0, 48]",
    ),
    "remove_unused_symbols": (
        f"(d0)[s0, s1] -> (d0 + s1), {D} d0 in [0, 3], s0 in [0, 3], s1 in [0, 3]",
        f"(d0)[s0] -> (d0 + s0), {D} d0 in [0, 3], s0 in [0, 3]",
    ),
}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_rule_fires_on_its_example(name: str) -> None:
    text, expected = EXAMPLES[name]
    original = parse_map(text)
    result = simplify(original, rescale_symbols=True, remove_unused_symbols=True)
    assert name in result.rules_applied
    assert " ".join(str(result.map).split()) == " ".join(expected.split())
    # The example is small: check it point by point too.
    assert result.map.relation() == original.relation()


@pytest.mark.parametrize("name", ["rescale_symbol", "project_lone_symbol", "remove_unused_symbols"])
def test_symbol_changing_rules_only_run_when_asked(name: str) -> None:
    original = parse_map(EXAMPLES[name][0])
    assert name not in simplify(original).rules_applied
    assert simplify(original).map.symbols == original.symbols


def test_symbol_changes_say_what_each_input_symbol_became() -> None:
    original = parse_map(
        f"(d0)[s0, s1, s2] -> (d0 + s0 + s2), {D} d0 in [0, 3], s0 in [0, 40], s1 in [0, 3],"
        " s2 in [0, 3], s0 mod 4 in [2, 2]"
    )
    result = simplify(original, rescale_symbols=True, remove_unused_symbols=True)
    assert [str(change) for change in result.symbol_changes] == [
        "s0 is now s0 * 4 + 2",
        "s1 removed",
        "s2 is now s1",
    ]
    assert result.map.relation() == original.relation()


def test_every_driver_rule_has_an_example() -> None:
    registered = {r.name for r in EXPR_RULES + CONSTRAINT_RULES + MAP_RULES}
    assert registered == set(EXAMPLES)


def test_construction_rules_are_applied_by_the_constructors() -> None:
    d0, d1 = dim(0), dim(1)
    assert str((d1 + 2) + d0) == "d0 + d1 + 2"
    assert str(d0 + d0 * 2 - d0 * 3) == "0"
    assert str((d0 * 2) * 3) == "d0 * 6"
    assert str((d0 + d1) * 3) == "d0 * 3 + d1 * 3"
    assert str(floordiv(d0, -2)) == "(-d0) floordiv 2"
    assert str(ceildiv(d0, -2)) == "(-d0) ceildiv 2"
    assert str(mod(d0, -2)) == "-((-d0) mod 2)"
    assert (floordiv(d0, 1), ceildiv(d0, 1), str(mod(d0, 1))) == (d0, d0, "0")
    assert str(floordiv(d0 * 8, 4)) == "d0 * 2"
    assert str(ceildiv(d0 * 8, 4)) == "d0 * 2"
    assert str(mod(d0 * 8, 4)) == "0"
    assert min_(d1, d0) is min_(d0, d1) and max_(d0, d0) is d0
    assert str(floordiv(-7, 2)) == "-4"
    m = parse_map(f"(d0) -> (d0), {D} d0 in [0, 9], d0 in [2, 20], 3 in [0, 5]")
    assert " ".join(str(m).split()) == f"(d0) -> (d0), {D} d0 in [2, 9]"


def test_nested_remainders_recombine_into_the_dividend() -> None:
    # Delinearising 0..999 as (2, 5, 5, 10) and linearising again.
    m = parse_map(
        "(d0) -> (((d0 floordiv 10) mod 5) * 10 + ((d0 floordiv 50) mod 5) * 50"
        f" + (d0 floordiv 250) * 250 + d0 mod 10), {D} d0 in [0, 999]"
    )
    result = simplify(m)
    assert result.rule_counts == (("sum_recombine_div_mod", 3),)
    assert str(result.map).splitlines()[0] == "(d0) -> (d0),"
