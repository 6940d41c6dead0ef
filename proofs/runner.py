"""`verifier prove-rules`: every registered rule's lemma, proved by z3.

A rule whose lemma is missing from `proofs/` gets the verdict ``missing``;
``unknown`` (budget exhausted) and ``refuted`` are failures as well.

(`proofs/` is the one place allowed to use z3 for lemmas; this module is the
checks' door to it.)

>>> results = prove_all_rules(names=["const_from_range"])
>>> [(r.rule, r.verdict) for r in results]
[('const_from_range', 'proved')]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from proofs import lemma_named, prove
from verifier.simplify.rules import ALL_RULES

RuleVerdict = Literal["proved", "refuted", "unknown", "missing"]


@dataclass(frozen=True)
class RuleProof:
    """One rule's lemma verdict: time taken, and a counterexample when refuted."""

    rule: str
    verdict: RuleVerdict
    seconds: float
    counterexample: tuple[tuple[str, int], ...] = ()
    strategy: str | None = None

    def to_json(self) -> dict[str, object]:
        """``{"rule": "mod_drop_when_no_wrap", "verdict": "proved", "seconds": 0.041}``."""
        shape: dict[str, object] = {
            "rule": self.rule,
            "verdict": self.verdict,
            "seconds": round(self.seconds, 3),
        }
        if self.counterexample:
            shape["counterexample"] = dict(self.counterexample)
        return shape


def prove_all_rules(*, names: Iterable[str] | None = None) -> list[RuleProof]:
    """The verdict on every registered rule's lemma (or only the `names`)."""
    wanted = None if names is None else set(names)
    results: list[RuleProof] = []
    for rule in ALL_RULES:
        if wanted is not None and rule.name not in wanted:
            continue
        try:
            lemma = lemma_named(rule.name)
        except KeyError:
            results.append(RuleProof(rule.name, "missing", 0.0))
            continue
        outcome = prove(lemma)
        results.append(
            RuleProof(
                rule.name,
                outcome.verdict,
                outcome.seconds,
                outcome.counterexample,
                outcome.strategy,
            )
        )
    return results
