"""The result of one `verifier check` run — every finding of every module and
every file that could not be read — and the gate's status, which every
report (text, JSON, JUnit, SARIF) renders and the command line turns into
its exit code.

The status, in order of precedence:

* ``internal-error``: a bug in verifier escaped at some instruction (the
  other instructions, and the other modules, were still checked);
* ``bad-input``: some file, or some instruction, could not be read (the
  others were checked);
* ``refuted``: some check was refuted — or, under ``strict``, unsupported;
* ``unknown``: some solver budget ran out, nothing refuted;
* ``vacuous``: nothing was proved and something was vacuous (every question
  was about an empty domain);
* ``ok``: everything else — ``unsupported`` findings are warnings then.

Findings of an *informational* check (e.g. ``overflow-int32``: a fusion whose
indices need int64 is correct, only slower) are reported but never move the
status.

>>> from verifier.checks.verdict import Outcome
>>> def finding(outcome):
...     return Finding("in-bounds", outcome, "m", "main", "add", "operand 0 (p0)", "...")
>>> GateRun(("m.hlo",), (finding(Outcome.PROVED), finding(Outcome.UNSUPPORTED))).status
'ok'
>>> GateRun(("m.hlo",), (finding(Outcome.PROVED), finding(Outcome.UNSUPPORTED)), strict=True).status
'refuted'
>>> GateRun(("m.hlo",), (finding(Outcome.VACUOUS),)).status
'vacuous'
>>> GateRun(("m.hlo",), (finding(Outcome.REFUTED),), informational=frozenset({"in-bounds"})).status
'ok'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from verifier.analysis import InstructionError
from verifier.checks.verdict import Outcome
from verifier.errors import InternalError, SourceSpan
from verifier.gate.answers import Findings, FindingsPart, Keep
from verifier.gate.finding import Finding

Status = Literal["internal-error", "bad-input", "refuted", "unknown", "vacuous", "ok"]

OUTCOMES = tuple(Outcome)


# The name on the package index: ``verifier`` there is an unrelated project.
# The import name and the command stay ``verifier``.
DISTRIBUTION = "hlo-verifier"


def tool_version() -> str:
    """The installed version of this tool (``verifier --version``)."""
    import importlib.metadata  # a fifth of a check's start-up: only when asked

    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True)
class InputError:
    """A file or instruction that could not be checked, and where it went
    wrong; `internal` when the cause is a bug in verifier, not the input."""

    span: SourceSpan
    message: str
    internal: bool = False

    @staticmethod
    def of_instruction(error: InstructionError) -> InputError:
        """The entry of one instruction that could not be analysed."""
        if isinstance(error, InternalError):
            message = f"at instruction '{error.instruction}': {error.message}"
            return InputError(error.span, message, internal=True)
        return InputError(error.span, error.message)

    def to_json(self) -> dict[str, object]:
        answer: dict[str, object] = {
            "file": self.span.filename,
            "line": self.span.line,
            "column": self.span.column,
            "message": self.message,
        }
        if self.internal:
            answer["internal"] = True
        return answer

    def __str__(self) -> str:
        prefix = "internal error: " if self.internal else ""
        if self.span.line:
            return f"{self.span}: {prefix}{self.message}"
        return f"{self.span.filename}: {prefix}{self.message}"


@dataclass(frozen=True)
class GateRun:
    """Every finding of one run, in the order the checks produced them (files
    sorted), and the files that could not be read.  The findings are any
    collection: a module's answers (`Findings`, `ModuleAnswers`) are read
    only as far as a report lists them."""

    files: tuple[str, ...]
    findings: Collection[Finding]
    errors: tuple[InputError, ...] = ()
    strict: bool = False
    informational: frozenset[str] = frozenset()

    @cached_property
    def _findings(self) -> Findings:
        return Findings.of(self.findings)

    @cached_property
    def _tally(self) -> Counter[tuple[str, Outcome]]:
        """How many findings of each check have each outcome, checks in
        first-seen order: every count below, from each distinct answer and
        its multiplicity (`Findings.tally`)."""
        return Counter(self._findings.tally())

    @property
    def parts(self) -> tuple[FindingsPart, ...]:
        """The findings of each file (as `Findings.parts`), in order."""
        return self._findings.parts

    @cached_property
    def finding_count(self) -> int:
        """How many findings the run has."""
        return sum(self._tally.values())

    def findings_where(self, keep: Keep) -> Iterator[Finding]:
        """The findings whose check and outcome `keep` holds, in order,
        each read only when it is kept."""
        return self._findings.where(keep)

    @property
    def checks(self) -> tuple[str, ...]:
        """The checks that produced findings, in first-seen order."""
        return tuple(dict.fromkeys(check for check, _ in self._tally))

    def counts(self) -> dict[str, Counter[Outcome]]:
        """Outcome counts per check."""
        table: dict[str, Counter[Outcome]] = {check: Counter() for check in self.checks}
        for (check, outcome), count in self._tally.items():
            table[check][outcome] = count
        return table

    def totals(self) -> Counter[Outcome]:
        """Outcome counts over every check."""
        return self._totals(lambda check: True)

    def _totals(self, counted: Callable[[str], bool]) -> Counter[Outcome]:
        totals: Counter[Outcome] = Counter()
        for (check, outcome), count in self._tally.items():
            if counted(check):
                totals[outcome] += count
        return totals

    def is_informational(self, finding: Finding) -> bool:
        """Whether `finding` belongs to a check that informs and never fails the gate."""
        return finding.check in self.informational

    @property
    def status(self) -> Status:
        """The gate's answer (see the module docstring for the precedence)."""
        totals = self._totals(lambda check: check not in self.informational)
        if any(error.internal for error in self.errors):
            return "internal-error"
        if self.errors:
            return "bad-input"
        if totals[Outcome.REFUTED] or (self.strict and totals[Outcome.UNSUPPORTED]):
            return "refuted"
        if totals[Outcome.UNKNOWN]:
            return "unknown"
        if totals[Outcome.VACUOUS] and not totals[Outcome.PROVED]:
            return "vacuous"
        return "ok"
