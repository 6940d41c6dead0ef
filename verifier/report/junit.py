"""A `verifier check` run as JUnit XML (built with junitparser), for CI
systems that show test results.

One ``<testsuite>`` per module (named after the module) and one ``<testcase>`` per finding — the finest unit a check
answers, so the testcase is the same place as a SARIF result and its
``classname.name`` is `Finding.key`'s place and check:

* ``proved`` passes;
* ``refuted`` is a ``<failure type="refuted">`` whose text is the witness;
* ``unknown`` is an ``<error type="unknown">``: the check could not be
  decided, which is not a failed assertion but fails the gate all the same;
* ``unsupported`` is ``<skipped type="unsupported">`` — a ``<failure>``
  under ``--strict``, where it fails the gate;
* ``vacuous`` is ``<skipped type="vacuous">``: nothing was checked;
* a refuted or unknown finding of an informational check (it never fails
  the gate) passes, with its answer and witness in ``<system-out>``.

Each testcase carries ``file`` and ``line`` attributes (read by GitLab and
others).  A file that could not be read is a suite named after the file with
one ``parse`` testcase in ``<error type="bad-input">``.  Every time is
written as 0, so two runs over the same files give the same XML.

>>> from verifier.checks.verdict import Outcome
>>> refuted = Finding("in-bounds", Outcome.REFUTED, "m", "main", "dot", "operand 1 (p1)",
...                   "result 1 reaches 255", witness=(("d0", 0), ("d1", 255)))
>>> xml = junit_xml(GateRun(("m.hlo",), (refuted,))).decode()
>>> print(xml[xml.index("<testcase"):xml.index("</testcase>")])
<testcase name="in-bounds: operand 1 (p1)" classname="m.main.dot"><failure message="result 1 reaches 255" type="refuted">witness: d0 = 0, d1 = 255</failure>
"""

from __future__ import annotations

import io

from junitparser import (
    Attr,
    Error,
    Failure,
    IntAttr,
    JUnitXml,
    Skipped,
    TestCase,
    TestSuite,
)

from verifier.checks.verdict import Outcome
from verifier.gate.finding import NO_SOURCE, Finding
from verifier.gate.run import GateRun, InputError


class _PlacedTestCase(TestCase):
    """A testcase with the source file and line it is about."""

    file = Attr()
    line = IntAttr()


def _witness_text(finding: Finding) -> str:
    return "witness: " + ", ".join(f"{k} = {v}" for k, v in finding.witness)


def _testcase(finding: Finding, strict: bool, informational: bool) -> _PlacedTestCase:
    case = _PlacedTestCase(
        f"{finding.check}: {finding.subject}",
        f"{finding.module}.{finding.computation}.{finding.instruction}",
    )
    if finding.span is not NO_SOURCE:
        case.file = finding.span.filename
        case.line = finding.span.line
    result: Failure | Error | Skipped | None
    if informational and finding.outcome in (Outcome.REFUTED, Outcome.UNKNOWN):
        # Passes: the check informs and never fails the gate; the fact is kept.
        text = f"{finding.outcome.value} (informational): {finding.message}"
        case.system_out = text + (f"\n{_witness_text(finding)}" if finding.witness else "")
        return case
    match finding.outcome:
        case Outcome.PROVED:
            result = None
        case Outcome.REFUTED:
            result = Failure(finding.message, "refuted")
            if finding.witness:
                result.text = _witness_text(finding)
        case Outcome.UNKNOWN:
            result = Error(finding.message, "unknown")
        case Outcome.UNSUPPORTED:
            kind = Failure if strict else Skipped
            result = kind(finding.message, "unsupported")
        case Outcome.VACUOUS:
            result = Skipped(finding.message, "vacuous")
    if result is not None:
        case.result = [result]
    return case


def _module_suite(run: GateRun, name: str, findings: list[Finding]) -> TestSuite:
    suite = TestSuite(name)
    for finding in findings:
        case = _testcase(finding, run.strict, run.is_informational(finding))
        # add_testcase recounts the suite at every case: quadratic on big modules.
        suite.append(case)  # type: ignore[no-untyped-call]
    suite.update_statistics()  # type: ignore[no-untyped-call]
    return suite


def _error_suite(error: InputError) -> TestSuite:
    suite = TestSuite(error.span.filename)
    case = _PlacedTestCase("parse", error.span.filename)
    case.file = error.span.filename
    if error.span.line:
        case.line = error.span.line
    case.result = [Error(str(error), "bad-input")]
    suite.add_testcase(case)
    return suite


def junit_xml(run: GateRun) -> bytes:
    """The JUnit XML document of `run` (UTF-8)."""
    by_module: dict[str, list[Finding]] = {}
    for finding in run.findings:
        by_module.setdefault(finding.module, []).append(finding)
    document = JUnitXml()
    for module, findings in by_module.items():
        document.add_testsuite(_module_suite(run, module, findings))
    for error in run.errors:
        document.add_testsuite(_error_suite(error))
    document.update_statistics()  # type: ignore[no-untyped-call]
    out = io.BytesIO()
    document.write(out)
    return out.getvalue()
