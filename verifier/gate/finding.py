"""One answered check about one place of a module: the unit every check
produces and every report (text, JSON, JUnit, SARIF) renders.

A `Finding` names the check (``in-bounds``, ``partition``, ``inverse``,
``bitcast``, ``overflow``, ``simplification``), where it applies (module,
computation, instruction, the source span of the instruction, and a short
`subject` such as ``operand 1 (p1)``), the `Outcome`, a one-line message,
and — for ``refuted`` — a witness: named integers that a reader can plug in
to see the failure (``{"d0": 2, "d1": 3, "offset": 17}``).

>>> f = Finding("in-bounds", Outcome.REFUTED, "m", "main", "dot", "operand 1 (p1)",
...             "result 1 reaches 255, outside [0, 63]", witness=(("d0", 0), ("d1", 255)))
>>> f.witness_dict
{'d0': 0, 'd1': 255}
>>> f.key
'm/main/dot/operand 1 (p1)/in-bounds'
"""

from __future__ import annotations

from json.encoder import encode_basestring_ascii as _quoted
from typing import Any, NamedTuple

from verifier.checks.verdict import Outcome
from verifier.errors import SourceSpan

NO_SOURCE = SourceSpan("<unknown>", 0, 0)


class Finding(NamedTuple):
    """The answer of one check at one place.

    An immutable record like the frozen dataclasses elsewhere, made a named
    tuple because a run makes one per check and place — 20,000 for a
    3,800-instruction training step, half a million for a 75,000-instruction
    one — and a tuple is made in a quarter of a frozen dataclass's time.
    Two findings are equal when everything but their `span` is (a module
    that moved keeps its findings); a finding equals no plain tuple."""

    check: str
    outcome: Outcome
    module: str
    computation: str
    instruction: str
    subject: str
    message: str
    witness: tuple[tuple[str, int], ...] = ()
    span: SourceSpan = NO_SOURCE

    def __eq__(self, other: object) -> bool:
        return type(other) is Finding and self[:-1] == other[:-1]

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self[:-1])

    @property
    def witness_dict(self) -> dict[str, int]:
        """The witness as a name → value dictionary, in its order."""
        return dict(self.witness)

    @property
    def key(self) -> str:
        """A stable identifier of the place and the check (test-case name,
        SARIF fingerprint)."""
        return f"{self.module}/{self.computation}/{self.instruction}/{self.subject}/{self.check}"

    def to_json(self) -> dict[str, Any]:
        """The canonical JSON object of this finding."""
        answer: dict[str, Any] = {
            "check": self.check,
            "outcome": self.outcome.value,
            "module": self.module,
            "computation": self.computation,
            "instruction": self.instruction,
            "subject": self.subject,
            "message": self.message,
        }
        if self.witness:
            answer["witness"] = self.witness_dict
        if self.span is not NO_SOURCE:
            answer["location"] = {
                "file": self.span.filename,
                "line": self.span.line,
                "column": self.span.column,
            }
        return answer

    def json_line(self) -> str:
        """``json.dumps(self.to_json())`` (ASCII, ``", "`` and ``": "``),
        written field by field: a third of the cost, for the 20,000
        findings of a large module's report.

        >>> print(Finding("bitcast", Outcome.PROVED, "m", "main", "b", "output 0", "kept",
        ...               span=SourceSpan("m.hlo", 3, 5)).json_line())
        ... # doctest: +NORMALIZE_WHITESPACE
        {"check": "bitcast", "outcome": "proved", "module": "m", "computation": "main",
         "instruction": "b", "subject": "output 0", "message": "kept",
         "location": {"file": "m.hlo", "line": 3, "column": 5}}
        """
        text = (
            f'{{"check": {_quoted(self.check)}, "outcome": {_quoted(self.outcome.value)}, '
            f'"module": {_quoted(self.module)}, "computation": {_quoted(self.computation)}, '
            f'"instruction": {_quoted(self.instruction)}, "subject": {_quoted(self.subject)}, '
            f'"message": {_quoted(self.message)}'
        )
        if self.witness:
            pairs = ", ".join(f"{_quoted(name)}: {value}" for name, value in self.witness)
            text += f', "witness": {{{pairs}}}'
        if self.span is not NO_SOURCE:
            span = self.span
            text += (
                f', "location": {{"file": {_quoted(span.filename)}, '
                f'"line": {span.line}, "column": {span.column}}}'
            )
        return text + "}"
