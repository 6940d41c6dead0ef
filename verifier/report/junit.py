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

from collections.abc import Collection, Iterator
from xml.etree import ElementTree

from junitparser import (
    Attr,
    Element,
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
    kind = _result_kind(finding, strict, informational)
    if informational and finding.outcome in (Outcome.REFUTED, Outcome.UNKNOWN):
        # Passes: the check informs and never fails the gate; the fact is kept.
        text = f"{finding.outcome.value} (informational): {message}"
        case.system_out = text + (f"\n{_witness_text(finding)}" if finding.witness else "")
        return case
    if kind is not None:
        result = kind(message, finding.outcome.value)
        if finding.outcome is Outcome.REFUTED and finding.witness:
            result.text = _witness_text(finding)
        case.result = [result]
    return case


def _result_kind(
    finding: Finding, strict: bool, informational: bool
) -> type[Failure | Error | Skipped] | None:
    """The result element of `finding`'s testcase (None: it passes)."""
    if informational and finding.outcome in (Outcome.REFUTED, Outcome.UNKNOWN):
        return None
    match finding.outcome:
        case Outcome.PROVED:
            return None
        case Outcome.REFUTED:
            return Failure
        case Outcome.UNKNOWN:
            return Error
        case Outcome.UNSUPPORTED:
            return Failure if strict else Skipped
        case Outcome.VACUOUS:
            return Skipped


def _error_case(error: InputError) -> _PlacedTestCase:
    """The ``parse`` testcase of a file that could not be read."""
    filename = printable(error.span.filename)
    case = _PlacedTestCase("parse", filename)
    case.file = filename
    if error.span.line:
        case.line = error.span.line
    kind = "internal-error" if error.internal else "bad-input"
    case.result = [Error(printable(str(error)), kind)]
    return case


def _text(element: Element) -> str:
    """The XML of `element`, as junitparser writes it in a document."""
    return ElementTree.tostring(element._elem, encoding="unicode")


def _opening(element: Element) -> str:
    """The start tag of `element` (written with no child)."""
    empty = _text(element)
    assert empty.endswith(" />")
    return empty[: -len(" />")] + ">"


def junit_chunks(run: GateRun) -> Iterator[str]:
    """The JUnit XML document of `run`, a testcase at a time: the findings
    are read twice (each file's counts, then its testcases), never all
    held; the text is the one junitparser writes for the whole document —
    suites of one name merged into the first, as it merges them."""
    # Each file's counts (tests, errors, failures, skipped) in the order
    # the findings first show it, and the parts of the run that hold it.
    counted: dict[str, list[int]] = {}
    parts: dict[str, list[Collection[Finding]]] = {}
    for part in run.parts:
        for finding in part:
            file = _file(finding)
            counts = counted.get(file)
            if counts is None:
                counts = counted[file] = [0, 0, 0, 0]
                parts[file] = []
            if not parts[file] or parts[file][-1] is not part:
                parts[file].append(part)
            counts[0] += 1
            kind = _result_kind(finding, run.strict, run.is_informational(finding))
            if kind is not None:
                counts[_COLUMNS[kind]] += 1
    # The suites by name, each with its counts and what it holds: the
    # files' findings, then the files that could not be read, in order.
    suites: dict[str, tuple[list[int], list[str | InputError]]] = {}
    for file, counts in counted.items():
        entry = suites.setdefault(printable(file), ([0, 0, 0, 0], []))
        entry[0][:] = [a + b for a, b in zip(entry[0], counts, strict=True)]
        entry[1].append(file)
    for error in run.errors:
        entry = suites.setdefault(printable(error.span.filename), ([0, 0, 0, 0], []))
        entry[0][0] += 1
        entry[0][1] += 1
        entry[1].append(error)
    totals = [sum(column) for column in zip(*(c for c, _ in suites.values()), strict=True)]
    tests, errors, failures, skipped = totals or [0, 0, 0, 0]
    document = JUnitXml()
    document.tests, document.failures, document.errors, document.skipped = (
        tests,
        failures,
        errors,
        skipped,
    )
    document.time = 0.0 if suites else 0
    yield "<?xml version='1.0' encoding='utf-8'?>\n"
    if not suites:
        yield _text(document)
        return
    yield _opening(document)
    for name, (numbers, sources) in suites.items():
        suite = TestSuite(name)
        suite.tests, suite.errors, suite.failures, suite.skipped = numbers
        suite.time = 0
        yield _opening(suite)
        for source in sources:
            if isinstance(source, InputError):
                yield _text(_error_case(source))
                continue
            for holder in parts[source]:
                for finding in holder:
                    if _file(finding) == source:
                        yield _text(_testcase(finding, run.strict, run.is_informational(finding)))
        yield "</testsuite>"
    yield "</testsuites>"


_COLUMNS = {Error: 1, Failure: 2, Skipped: 3}


def junit_xml(run: GateRun) -> bytes:
    """The JUnit XML document of `run` (UTF-8)."""
    return "".join(junit_chunks(run)).encode("utf-8")


def placed_testcase(name: str, classname: str, file: str, line: int) -> TestCase:
    """A testcase with ``file`` and ``line`` attributes, for other reports (``xla-tests``)."""
    case = _PlacedTestCase(name, classname)
    case.file = file
    case.line = line
    return case
