"""A `verifier check` run as JUnit XML (built with junitparser), for CI
systems that show test results.

One ``<testsuite>`` per module file (named after the file: ``foo.hlo`` and
``foo.opt.hlo``, which JAX dumps with the same module name, stay apart) and
one ``<testcase>`` per finding — the finest unit a check answers, so the
testcase is the same place as a SARIF result: its ``classname`` is
``FILE:module.computation.instruction`` and its name the check and subject:

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
others).  Every name and message is `printable`, so the document is XML
1.0 whatever a file, directory or instruction is called (control
characters and ANSI escapes are shown as ``\\x1b``, not written raw).  A file that could not be read is a suite named after the file with
one ``parse`` testcase in ``<error type="bad-input">``.  Every time is
written as 0, so two runs over the same files give the same XML.

>>> from verifier.checks.verdict import Outcome
>>> from verifier.errors import SourceSpan
>>> refuted = Finding("in-bounds", Outcome.REFUTED, "m", "main", "dot", "operand 1 (p1)",
...                   "result 1 reaches 255", witness=(("d0", 0), ("d1", 255)),
...                   span=SourceSpan("m.hlo", 7, 3))
>>> xml = junit_xml(GateRun(("m.hlo",), (refuted,))).decode()
>>> print(xml[xml.index("<testcase"):xml.index("</testcase>")])
<testcase name="in-bounds: operand 1 (p1)" classname="m.hlo:m.main.dot" file="m.hlo" line="7"><failure message="result 1 reaches 255" type="refuted">witness: d0 = 0, d1 = 255</failure>
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
from verifier.report.printable import printable


class _PlacedTestCase(TestCase):
    """A testcase with the source file and line it is about."""

    file = Attr()
    line = IntAttr()


def _witness_text(finding: Finding) -> str:
    return printable("witness: " + ", ".join(f"{k} = {v}" for k, v in finding.witness))


def _file(finding: Finding) -> str:
    """The file of `finding` (its module's name when it has no source)."""
    return finding.module if finding.span is NO_SOURCE else finding.span.filename


def _testcase(finding: Finding, strict: bool, informational: bool) -> _PlacedTestCase:
    case = _PlacedTestCase(
        printable(f"{finding.check}: {finding.subject}"),
        printable(f"{_file(finding)}:{finding.module}.{finding.computation}.{finding.instruction}"),
    )
    message = printable(finding.message)
    if finding.span is not NO_SOURCE:
        case.file = printable(finding.span.filename)
        case.line = finding.span.line
    result: Failure | Error | Skipped | None
    if informational and finding.outcome in (Outcome.REFUTED, Outcome.UNKNOWN):
        # Passes: the check informs and never fails the gate; the fact is kept.
        text = f"{finding.outcome.value} (informational): {message}"
        case.system_out = text + (f"\n{_witness_text(finding)}" if finding.witness else "")
        return case
    match finding.outcome:
        case Outcome.PROVED:
            result = None
        case Outcome.REFUTED:
            result = Failure(message, "refuted")
            if finding.witness:
                result.text = _witness_text(finding)
        case Outcome.UNKNOWN:
            result = Error(message, "unknown")
        case Outcome.UNSUPPORTED:
            kind = Failure if strict else Skipped
            result = kind(message, "unsupported")
        case Outcome.VACUOUS:
            result = Skipped(message, "vacuous")
    if result is not None:
        case.result = [result]
    return case


def _module_suite(run: GateRun, name: str, findings: list[Finding]) -> TestSuite:
    suite = TestSuite(printable(name))
    for finding in findings:
        case = _testcase(finding, run.strict, run.is_informational(finding))
        # add_testcase recounts the suite at every case: quadratic on big modules.
        suite.append(case)  # type: ignore[no-untyped-call]
    suite.update_statistics()  # type: ignore[no-untyped-call]
    return suite


def _error_suite(error: InputError) -> TestSuite:
    filename = printable(error.span.filename)
    suite = TestSuite(filename)
    case = _PlacedTestCase("parse", filename)
    case.file = filename
    if error.span.line:
        case.line = error.span.line
    kind = "internal-error" if error.internal else "bad-input"
    case.result = [Error(printable(str(error)), kind)]
    suite.add_testcase(case)
    return suite


def junit_xml(run: GateRun) -> bytes:
    """The JUnit XML document of `run` (UTF-8)."""
    by_file: dict[str, list[Finding]] = {}
    for finding in run.findings:
        by_file.setdefault(_file(finding), []).append(finding)
    document = JUnitXml()
    for file, findings in by_file.items():
        document.add_testsuite(_module_suite(run, file, findings))
    for error in run.errors:
        document.add_testsuite(_error_suite(error))
    document.update_statistics()  # type: ignore[no-untyped-call]
    out = io.BytesIO()
    document.write(out)
    return out.getvalue()


def placed_testcase(name: str, classname: str, file: str, line: int) -> TestCase:
    """A testcase with ``file`` and ``line`` attributes, for other reports (``xla-tests``)."""
    case = _PlacedTestCase(name, classname)
    case.file = file
    case.line = line
    return case
