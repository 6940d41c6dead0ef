"""`one_relation`, `relation_form`: maps with equal forms relate the same
pairs (judged by enumerating both relations), and a map with a range
symbol reversed has its form."""

from __future__ import annotations

import random

import pytest

from verifier.checks.equivalence import check_equivalence
from verifier.checks.reflected_symbols import one_relation, relation_form
from verifier.checks.verdict import Verdict
from verifier.expr import parse_map


def _map(rng: random.Random, reverse: set[int], *, off: int = 0) -> str:
    """A map over ``d0, d1`` and symbols ``s0, s1``: results affine in the
    symbols (the symbols in `reverse` run backwards), sometimes a symbol
    under a ``floordiv`` and a constraint; `off` shifts a reversed symbol."""
    spans = (rng.randint(0, 3), rng.randint(0, 3))
    coefficients = [rng.randint(-3, 3) for _ in range(4)]

    def symbol(i: int) -> str:
        return f"({spans[i] + off} - s{i})" if i in reverse else f"s{i}"

    first = f"d0 * {coefficients[0]} + {symbol(0)} * {coefficients[1]} + d1"
    second = f"d1 + {symbol(1)} * {coefficients[2]}"
    if coefficients[3] > 1:
        second = f"({second}) floordiv {coefficients[3]}"
    domain = f"d0 in [0, 2], d1 in [0, 3], s0 in [0, {spans[0]}], s1 in [0, {spans[1]}]"
    if rng.random() < 0.5:
        domain += f", d0 + {symbol(0)} in [1, 4]"
    return f"(d0, d1)[s0, s1] -> ({first}, {second}), domain: {domain}"


def test_equal_forms_relate_the_same_pairs() -> None:
    fired = 0
    for seed in range(300):
        rng = random.Random(seed)
        reverse = {i for i in range(2) if rng.random() < 0.6}
        off = 1 if rng.random() < 0.3 else 0
        state = rng.getstate()
        a = parse_map(_map(rng, set()))
        rng.setstate(state)
        b = parse_map(_map(rng, reverse, off=off))
        if one_relation(a, b):
            fired += 1
            assert a.relation() == b.relation(), (str(a), str(b))
            verdict = check_equivalence(a, b).verdict
            assert verdict is (Verdict.VACUOUS if not a.relation() else Verdict.EQUAL)
    assert fired > 100  # the reversed symbols are recognised, not left to isl


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        # a window's symbol reversed: one relation
        ("(d0)[s0] -> (d0 * 4 + s0), domain: d0 in [0, 3], s0 in [0, 3]",
         "(d0)[s0] -> (d0 * 4 + 3 - s0), domain: d0 in [0, 3], s0 in [0, 3]", True),
        # reversed by one too many: another relation, and another form
        ("(d0)[s0] -> (d0 * 4 + s0), domain: d0 in [0, 3], s0 in [0, 3]",
         "(d0)[s0] -> (d0 * 4 + 4 - s0), domain: d0 in [0, 3], s0 in [0, 3]", False),
        # a symbol under a floordiv is not reflected
        ("(d0)[s0] -> ((d0 + s0) floordiv 2), domain: d0 in [0, 3], s0 in [0, 1]",
         "(d0)[s0] -> ((d0 + 1 - s0) floordiv 2), domain: d0 in [0, 3], s0 in [0, 1]", False),
    ],
)  # fmt: skip
def test_forms(a: str, b: str, same: bool) -> None:
    map_a, map_b = parse_map(a), parse_map(b)
    assert (relation_form(map_a) == relation_form(map_b)) is same
    assert one_relation(map_a, map_b) is same
    if same:
        assert map_a.relation() == map_b.relation()
