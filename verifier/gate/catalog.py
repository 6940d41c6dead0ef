"""The checks of the gate by name: what each one says, in the order the gate
runs them, and which are *informational* — a refutation informs and never
fails the gate (a fusion whose indices do not fit int32 is correct, XLA then
uses int64; it is only slower on GPUs).  The finding's outcome stays the
truth either way; the gate decides the severity.

A table of plain values, so that what only names the checks (``--checks``,
``--help``, the SARIF rules, a run answered from the findings cache) never
imports the analysis or a solver; `verifier.gate.suite` registers what runs
each one.

>>> CHECKS[0], describe("in-bounds")
('in-bounds', 'the image of every indexing map lies inside the shape it indexes')
>>> sorted(INFORMATIONAL_CHECKS)
['overflow-int32']
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from verifier.errors import UsageError


@dataclass(frozen=True)
class CheckInfo:
    """A check's name, a one-line description for report readers (SARIF rule
    descriptions, ``--checks`` help), and whether it is informational."""

    name: str
    description: str
    informational: bool = False


CATALOG: tuple[CheckInfo, ...] = (
    CheckInfo("in-bounds", "the image of every indexing map lies inside the shape it indexes"),
    CheckInfo(
        "partition",
        "the operands of a concatenate, pad or dynamic-update-slice cover the output exactly once",
    ),
    CheckInfo("inverse", "the input→output relation is the inverse of the output→input relation"),
    CheckInfo("bitcast", "a bitcast keeps the buffer's bytes and the bits of every element"),
    CheckInfo("overflow", "every sub-term of every index expression fits int64"),
    CheckInfo(
        "overflow-int32",
        "every sub-term of a fusion's index expressions fits int32 "
        "(informational: int64 indexing is correct, only slower)",
        informational=True,
    ),
    CheckInfo("simplification", "every simplified map equals the composition it simplifies"),
    CheckInfo(
        "tiling",
        "the tile sizes XLA chose for a block-level fusion satisfy its constraints "
        "and each operand's tile holds what a tile reads",
    ),
)

CHECKS: tuple[str, ...] = tuple(info.name for info in CATALOG)
INFORMATIONAL_CHECKS: frozenset[str] = frozenset(
    info.name for info in CATALOG if info.informational
)
_DESCRIPTIONS = {info.name: info.description for info in CATALOG}


def describe(check: str) -> str:
    """A one-line description of `check` (its name when it has none)."""
    return _DESCRIPTIONS.get(check, check)


def select_checks(names: Collection[str] | None) -> tuple[str, ...]:
    """The checks `names` selects, in the catalog's order (every check for
    None): the one place a selection is validated (``--checks``, the API's
    ``checks(only=...)``, `verifier.gate.suite.run_checks`).  A name that
    is not a check, or a selection of none, is a `UsageError` that lists
    the checks.

    >>> select_checks(["inverse", "in-bounds"])
    ('in-bounds', 'inverse')
    >>> select_checks(["in-bound"])
    Traceback (most recent call last):
    ...
    verifier.errors.UsageError: unknown check(s) in-bound; the checks are in-bounds, partition, \
inverse, bitcast, overflow, overflow-int32, simplification, tiling
    """
    if names is None:
        return CHECKS
    unknown = sorted(set(names) - set(CHECKS))
    if unknown or not names:
        raise UsageError(
            f"unknown check(s) {', '.join(unknown) or '(none given)'}; "
            f"the checks are {', '.join(CHECKS)}"
        )
    return tuple(check for check in CHECKS if check in names)
