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

from dataclasses import dataclass


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
