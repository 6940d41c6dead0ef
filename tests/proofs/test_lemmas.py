"""Every registered rule has a proved lemma; the known-wrong rules are refuted
with counterexamples that plain Python arithmetic confirms."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from proofs import FAMILIES, KNOWN_WRONG, LEMMAS, lemma_named, prove, refute_known_wrong
from proofs.lemma import Encoding, Goal, Lemma
from proofs.runner import RuleProof, prove_all_rules
from verifier.simplify.rules import ALL_RULES


@pytest.fixture(scope="module")
def rule_proofs() -> list[RuleProof]:
    return prove_all_rules()


@pytest.mark.slow
def test_every_registered_rule_has_a_proved_lemma(rule_proofs: list[RuleProof]) -> None:
    failures = [(p.rule, p.verdict) for p in rule_proofs if p.verdict != "proved"]
    assert failures == []
    assert [p.rule for p in rule_proofs] == [r.name for r in ALL_RULES]


def test_every_lemma_belongs_to_a_rule_of_its_family() -> None:
    families = {rule.name: rule.family for rule in ALL_RULES}
    for family, lemmas in FAMILIES.items():
        for lemma in lemmas:
            assert families.get(lemma.name) == family, lemma.name
    assert len({lemma.name for lemma in LEMMAS}) == len(LEMMAS) == len(ALL_RULES)


@pytest.mark.slow
def test_rule_proofs_have_the_cli_json_shape(rule_proofs: list[RuleProof]) -> None:
    shape = rule_proofs[0].to_json()
    assert set(shape) == {"rule", "verdict", "seconds"}
    assert shape["verdict"] == "proved" and isinstance(shape["seconds"], float)


def test_a_rule_without_a_lemma_is_reported_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    from proofs import runner

    def nothing(name: str) -> Lemma:
        raise KeyError(name)

    monkeypatch.setattr(runner, "lemma_named", nothing)
    assert {p.verdict for p in prove_all_rules(names=["const_from_range"])} == {"missing"}


def test_a_lemma_missing_its_side_condition_is_refuted() -> None:
    # mod_drop_when_no_wrap without "x < c": the machinery must find x >= c.
    def build(enc: Encoding) -> Goal:
        x, c = enc.ints("x c")
        return Goal.of([c > 0, x >= 0], enc.mod(x, c) == x, [x, c])

    result = prove(Lemma("mod_drop_without_upper_bound", "c > 0 ∧ 0 <= x", build))
    assert result.verdict == "refuted"
    values = dict(result.counterexample)
    assert values["x"] % values["c"] != values["x"]


def _trunc(n: int, c: int) -> int:
    return n // c if n >= 0 else -((-n) // c)


def _partner_exists(s0: int, lo1: int, hi1: int, clo: int, chi: int) -> bool:
    return max(lo1, clo - s0) <= min(hi1, chi - s0)


# Each known-wrong rule's two sides, evaluated with Python's floor semantics.
CHECKS: dict[str, Callable[[dict[str, int]], bool]] = {
    "wrong_floordiv_negative_divisor_bounds": lambda v: (
        v["k"] < 0
        and (v["lo"] <= v["e"] // v["k"] <= v["hi"]) != (v["lo"] <= -(v["e"] // -v["k"]) <= v["hi"])
    ),
    "wrong_drop_summand_not_from_zero": lambda v: (
        v["g"] > 0
        and 1 <= v["b"] <= v["g"]
        and (0 <= v["a"] * v["g"] + v["b"] <= v["u"]) != (0 <= v["a"] <= v["u"] // v["g"])
    ),
    "wrong_mod_bounds_truncating_division": lambda v: (
        v["c"] > 0
        and 0 <= v["r"] < v["c"]
        and v["x"] % v["c"] == v["r"]
        and (v["lo"] <= v["x"] <= v["hi"])
        != (v["c"] * _trunc(v["lo"] - v["r"] + v["c"] - 1, v["c"]) + v["r"] <= v["x"] <= v["hi"])
    ),
    "wrong_remove_symbol_sharing_constraint": lambda v: (
        v["lo0"] <= v["s0"] <= v["hi0"]
        and not _partner_exists(v["s0"], v["lo1"], v["hi1"], v["clo"], v["chi"])
        and any(
            _partner_exists(t, v["lo1"], v["hi1"], v["clo"], v["chi"])
            for t in range(v["lo0"], min(v["hi0"], v["lo0"] + 1000) + 1)
        )
    ),
}


@pytest.mark.parametrize("result", refute_known_wrong(), ids=lambda r: r.lemma)
def test_known_wrong_rules_are_refuted_with_a_real_counterexample(result: object) -> None:
    from proofs.lemma import LemmaResult

    assert isinstance(result, LemmaResult)
    assert result.verdict == "refuted"
    assert CHECKS[result.lemma](dict(result.counterexample)), result.counterexample


def test_known_wrong_rules_are_not_registered() -> None:
    registered = {rule.name for rule in ALL_RULES}
    assert not registered & {lemma.name for lemma in KNOWN_WRONG}
    assert set(CHECKS) == {lemma.name for lemma in KNOWN_WRONG}
    assert all(lemma_named(lemma.name).expected == "refuted" for lemma in KNOWN_WRONG)
