"""The `check` report in the format asked for: text, json, junit or sarif,
as pieces to write one after the other (a JSON report of many findings is
never whole in memory).

>>> from verifier.gate.run import GateRun
>>> run = GateRun((), (), (), False, ())
>>> "".join(report_chunks(run, "junit")).startswith("<?xml")
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from verifier.gate.run import GateRun


def report_chunks(run: GateRun, report_format: str) -> Iterable[str]:
    """The report of `run` in `report_format` (text, json, junit, sarif)."""
    from verifier.report.gate_text import gate_text
    from verifier.report.json_text import in_blocks

    if report_format == "text":
        return (gate_text(run),)
    if report_format == "json":
        from verifier.report.gate_json import gate_report

        return gate_report(run)
    if report_format == "junit":
        from verifier.report.junit import junit_chunks

        return in_blocks(junit_chunks(run))
    from verifier.report.sarif import sarif_chunks

    return in_blocks(sarif_chunks(run))
