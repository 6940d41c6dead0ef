"""Verdicts of checks: what a question's answer can be.

`Outcome` is the vocabulary every check shares (docs/ARCHITECTURE.md, "Exact or
explicit"): a claim is ``proved`` or ``refuted`` (with a witness), or the
answer says why it is neither — ``unknown`` (a solver budget ran out),
``unsupported`` (outside the fragment the tool handles exactly), ``vacuous``
(the question is about an empty domain, where every claim holds trivially).
A check with its own words maps them onto it: `Verdict` is equivalence's.

>>> Verdict.EQUAL.outcome
<Outcome.PROVED: 'proved'>

Both are string enums: a member equals its word, so that research code can
write ``finding.outcome == "proved"`` (and ``str()`` or a JSON encoder gives
the word):

>>> Outcome.PROVED == "proved", f"{Verdict.DIFFERENT}", Outcome("refuted") is Outcome.REFUTED
(True, 'different', True)
"""

from __future__ import annotations

import enum


class Outcome(enum.StrEnum):
    """The answer of any check."""

    PROVED = "proved"
    REFUTED = "refuted"
    UNKNOWN = "unknown"
    UNSUPPORTED = "unsupported"
    VACUOUS = "vacuous"


class Verdict(enum.StrEnum):
    """The answer to "are these two maps equal?"."""

    EQUAL = "equal"
    DIFFERENT = "different"
    UNKNOWN = "unknown"
    VACUOUS = "vacuous"

    @property
    def outcome(self) -> Outcome:
        """The shared `Outcome` this verdict is an instance of."""
        return _OUTCOMES[self]


_OUTCOMES = {
    Verdict.EQUAL: Outcome.PROVED,
    Verdict.DIFFERENT: Outcome.REFUTED,
    Verdict.UNKNOWN: Outcome.UNKNOWN,
    Verdict.VACUOUS: Outcome.VACUOUS,
}
