"""The `prove-rules` table: one line per simplifier rule with its lemma's
verdict and the seconds the proof took, then how many were proved.

>>> from typing import NamedTuple
>>> class Proof(NamedTuple):
...     rule: str
...     verdict: str
...     seconds: float
>>> print(prove_rules_text([Proof("mod_drop", "proved", 0.0412), Proof("floordiv", "refuted", 1.5)]))
mod_drop  proved    0.041s
floordiv  refuted   1.500s
1/2 rules proved
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class RuleVerdict(Protocol):
    """What the table shows of one rule's proof (`proofs.runner.RuleProof`)."""

    @property
    def rule(self) -> str: ...
    @property
    def verdict(self) -> str: ...
    @property
    def seconds(self) -> float: ...


def prove_rules_text(proofs: Sequence[RuleVerdict]) -> str:
    """The table, rules padded to the longest name."""
    width = max((len(proof.rule) for proof in proofs), default=4)
    lines = [f"{proof.rule:<{width}}  {proof.verdict:<8}  {proof.seconds:.3f}s" for proof in proofs]
    proved = sum(1 for proof in proofs if proof.verdict == "proved")
    lines.append(f"{proved}/{len(proofs)} rules proved")
    return "\n".join(lines)
