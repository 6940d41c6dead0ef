"""The reports written a finding at a time are, byte for byte, the
documents written whole: JUnit as junitparser writes it holding every
testcase at once, SARIF as the log's JSON (#34)."""

from __future__ import annotations

import io

import pytest
from junitparser import JUnitXml, TestSuite

from tests.report.test_gate_reports import BAD, INT32, MIXED, RUN, finding
from tests.report.test_hostile_names import HOSTILE, hostile_run
from verifier.checks.verdict import Outcome
from verifier.gate.finding import Finding
from verifier.gate.run import GateRun
from verifier.report.json_text import report_json
from verifier.report.junit import _error_case, _file, _testcase, junit_xml
from verifier.report.printable import printable
from verifier.report.sarif import sarif_chunks, sarif_log


def whole_document(run: GateRun) -> bytes:
    """The report as junitparser builds it: every suite and testcase in
    memory, the statistics counted by junitparser, the document written."""
    by_file: dict[str, list[Finding]] = {}
    for f in run.findings:
        by_file.setdefault(_file(f), []).append(f)
    document = JUnitXml()
    for file, findings in by_file.items():
        suite = TestSuite(printable(file))
        for f in findings:
            suite.append(_testcase(f, run.strict, run.is_informational(f)))
        suite.update_statistics()
        document.add_testsuite(suite)
    for error in run.errors:
        suite = TestSuite(printable(error.span.filename))
        suite.add_testcase(_error_case(error))
        document.add_testsuite(suite)
    document.update_statistics()
    out = io.BytesIO()
    document.write(out)
    return out.getvalue()


# Files interleaved: a file's testcases gather in its suite, in order.
_INTERLEAVED = (MIXED[0], MIXED[5], MIXED[1], finding(Outcome.VACUOUS, "s2", module="other"))

RUNS = [
    RUN,
    GateRun(RUN.files, RUN.findings, RUN.errors, strict=True),
    GateRun(("m.hlo",), (finding(Outcome.PROVED), INT32), informational=frozenset({INT32.check})),
    GateRun(("m.hlo", "other.hlo"), _INTERLEAVED),
    GateRun((), ()),
    GateRun(("bad.hlo",), (), (BAD,)),
    *(hostile_run(name) for name in HOSTILE),
]


@pytest.mark.parametrize("run", RUNS, ids=[str(n) for n in range(len(RUNS))])
def test_the_streamed_report_is_the_whole_documents(run: GateRun) -> None:
    assert junit_xml(run) == whole_document(run)


@pytest.mark.parametrize("run", RUNS, ids=[str(n) for n in range(len(RUNS))])
def test_the_streamed_sarif_is_the_whole_logs(run: GateRun) -> None:
    assert "".join(sarif_chunks(run)) == report_json(sarif_log(run))
