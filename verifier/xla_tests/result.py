"""What checking one expectation of an XLA test gives, and the JSON of a run.

An expectation is ``equal`` (XLA's expected map means what `verifier`
computes for the test's input), ``different`` (with a witness: a point where
they disagree, re-evaluated in Python) or ``not-comparable`` (with the
reason: a construct this reader does not follow, a test that builds its maps
in C++, a solver budget).

>>> e = Expectation("a_test.cc", 12, "Simplify", "simplify", Agreement.EQUAL)
>>> run = XlaTestsRun(1, (e,))
>>> run.summary, run.to_json()["expectations"][0]["verdict"]
({'equal': 1, 'different': 0, 'not-comparable': 0}, 'equal')
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

Kind: TypeAlias = Literal["simplify", "constraint", "hlo-maps", "tile", "other"]


class Agreement(enum.Enum):
    """How XLA's expected map compares with what `verifier` computes."""

    EQUAL = "equal"
    DIFFERENT = "different"
    NOT_COMPARABLE = "not-comparable"


@dataclass(frozen=True)
class Expectation:
    """One expectation at `file`:`line` of the test `test`; `witness` says
    where the maps differ, `witness_point` is the same as data (the maps'
    texts and the point, for re-evaluation), `reason` why it is not
    comparable, `note` what an equal verdict rests on where it is more
    than equality."""

    file: str
    line: int
    test: str
    kind: Kind
    verdict: Agreement
    witness: str | None = None
    reason: str | None = None
    witness_point: dict[str, object] | None = field(default=None, compare=False)
    expected: str | None = None
    computed: str | None = None
    note: str | None = None

    def to_json(self) -> dict[str, object]:
        shape: dict[str, object] = {
            "file": self.file,
            "line": self.line,
            "test": self.test,
            "kind": self.kind,
            "verdict": self.verdict.value,
            "witness": self.witness,
            "reason": self.reason,
        }
        if self.witness_point is not None:
            shape["witness_point"] = self.witness_point
        if self.expected is not None:
            shape["expected"] = self.expected
        if self.computed is not None:
            shape["computed"] = self.computed
        if self.note is not None:
            shape["note"] = self.note
        return shape


@dataclass(frozen=True)
class XlaTestsRun:
    """The expectations of `files` test files, in file and line order."""

    files: int
    expectations: tuple[Expectation, ...]

    @property
    def summary(self) -> dict[str, int]:
        counts = {agreement.value: 0 for agreement in Agreement}
        for expectation in self.expectations:
            counts[expectation.verdict.value] += 1
        return counts

    @property
    def any_different(self) -> bool:
        return any(e.verdict is Agreement.DIFFERENT for e in self.expectations)

    def to_json(self) -> dict[str, object]:
        return {
            "files": self.files,
            "expectations": [e.to_json() for e in self.expectations],
            "summary": self.summary,
        }
