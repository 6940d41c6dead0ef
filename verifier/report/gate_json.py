"""The canonical JSON of a `verifier check` run: the status, the counts, the
files that could not be read, and every finding (proved ones included).

The shape (README, "JSON shapes")::

    {"tool": "verifier", "version": "0.1.0", "status": "refuted", "strict": false,
     "informational_checks": ["overflow-int32"],   # reported, never failing
     "files": ["a.hlo", "b.hlo"],
     "summary": {"total": {"proved": 5, "refuted": 1, "unknown": 0,
                           "unsupported": 2, "vacuous": 0},
                 "by_check": {"in-bounds": {"proved": 5, "refuted": 1, ...}}},
     "errors": [{"file": "b.hlo", "line": 3, "column": 7, "message": "..."}],
     "findings": [{"check": "in-bounds", "outcome": "refuted", "module": "m",
                   "computation": "main", "instruction": "dot",
                   "subject": "operand 1 (p1)", "message": "...",
                   "witness": {"d0": 0, "d1": 255},
                   "location": {"file": "a.hlo", "line": 12, "column": 3}}]}

Written by `gate_report` (`verifier.report.json_text`'s layout), names and
messages are exact (JSON's escapes; a byte of a file name that is not UTF-8
as its surrogate escape, ``\\udcff``), so a file named in the report is
the file on the disk.  It holds
nothing that changes between two runs over the same files (no
times, no cache statistics), so reports can be compared with ``diff``.

>>> from verifier.gate.finding import Finding
>>> from verifier.checks.verdict import Outcome
>>> run = GateRun(("m.hlo",), (Finding("in-bounds", Outcome.PROVED, "m", "main", "add",
...                                     "operand 0 (p0)", "inside [0, 9]"),))
>>> report = gate_json(run)
>>> report["status"], report["summary"]["total"]["proved"]
('ok', 1)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from verifier.checks.verdict import Outcome
from verifier.gate.run import OUTCOMES, GateRun, tool_version
from verifier.report.json_text import JsonLines, report_chunks


def _counts_json(counts: Counter[Outcome]) -> dict[str, int]:
    return {outcome.value: counts[outcome] for outcome in OUTCOMES}


def gate_json(run: GateRun) -> dict[str, Any]:
    """The canonical JSON object of `run`, names and messages as they are."""
    return _document(run, [finding.to_json() for finding in run.findings])


def gate_report(run: GateRun) -> Iterator[str]:
    """The text of `gate_json(run)` as a report file holds it
    (`report_chunks`), each finding written by its `json_line` as the
    report is written (never all of them in memory)."""
    return report_chunks(_document(run, JsonLines(f.json_line() for f in run.findings)))


def summary_json(run: GateRun) -> dict[str, Any]:
    """The report's ``summary``: outcome counts in total and per check."""
    return {
        "total": _counts_json(run.totals()),
        "by_check": {check: _counts_json(c) for check, c in run.counts().items()},
    }


def _document(run: GateRun, findings: list[Any] | JsonLines) -> dict[str, Any]:
    return {
        "tool": "verifier",
        "version": tool_version(),
        "status": run.status,
        "strict": run.strict,
        "informational_checks": sorted(run.informational),
        "files": list(run.files),
        "summary": summary_json(run),
        "errors": [error.to_json() for error in run.errors],
        "findings": findings,
    }
