"""`verifier xla-tests` as text, SARIF 2.1.0 and JUnit XML (JSON is the
run's own `to_json`).

Each expectation is a place in a C++ test file: a SARIF result at its line
(``error`` for different, ``note`` for not-comparable; equal ones are not
results) and a JUnit testcase (different → failure with the witness,
not-comparable → skipped with the reason).

>>> from verifier.xla_tests.result import Agreement, Expectation, XlaTestsRun
>>> run = XlaTestsRun(1, (Expectation("t.cc", 9, "Mod", "simplify", Agreement.DIFFERENT,
...                                   witness="d0 = 0: verifier computes (0), XLA expects (1)"),))
>>> print(render_text(run))
t.cc:9: Mod (simplify): different: d0 = 0: verifier computes (0), XLA expects (1)
1 file: 0 equal, 1 different, 0 not-comparable
"""

from __future__ import annotations

import io
from collections import Counter
from typing import Any

from junitparser import Failure as JUnitFailure
from junitparser import JUnitXml, Skipped, TestSuite

from verifier.errors import SourceSpan
from verifier.report.junit import placed_testcase
from verifier.report.printable import printable
from verifier.report.sarif import SCHEMA_URI, physical_location
from verifier.xla_tests.history import History
from verifier.xla_tests.result import Agreement, Expectation, XlaTestsRun


def render_text(run: XlaTestsRun) -> str:
    """The different and not-comparable expectations, one a line, and the counts."""
    lines = []
    for e in run.expectations:
        if e.verdict is Agreement.EQUAL:
            continue
        detail = e.witness if e.verdict is Agreement.DIFFERENT else e.reason
        first = (detail or "").splitlines()[0] if detail else ""
        lines.append(
            printable(f"{e.file}:{e.line}: {e.test} ({e.kind}): {e.verdict.value}: {first}")
        )
    counts = run.summary
    files = f"{run.files} file" + ("" if run.files == 1 else "s")
    lines.append(
        f"{files}: {counts['equal']} equal, {counts['different']} different, "
        f"{counts['not-comparable']} not-comparable"
    )
    return "\n".join(lines)


def render_history_text(found: History) -> str:
    """Each expectation ever different, with the commits where it appeared and disappeared."""
    lines = []
    for wrong in found.wrong:
        e = wrong.expectation
        gone = (
            "still there"
            if wrong.disappeared is None
            else (f"disappeared {wrong.disappeared.sha[:10]} ({wrong.disappeared.date[:10]})")
        )
        lines.append(
            printable(
                f"{wrong.appeared.path}:{e.line}: {e.test} ({e.kind}): appeared "
                f"{wrong.appeared.sha[:10]} ({wrong.appeared.date[:10]}), {gone}: {e.witness}"
            )
        )
    summary = found.to_json()["summary"]
    assert isinstance(summary, dict)
    versions = ", ".join(f"{name}: {n} versions" for name, n in found.versions.items())
    lines.append(
        f"{versions}; {summary['ever_different']} expectations ever different, "
        f"{summary['still_different']} still"
    )
    return "\n".join(lines)


_LEVELS = {Agreement.DIFFERENT: "error", Agreement.NOT_COMPARABLE: "note"}


def sarif_log(run: XlaTestsRun) -> dict[str, Any]:
    """SARIF 2.1.0: one rule per verdict that is reported, a result per such expectation."""
    rules = [
        {"id": "xla-test-different", "shortDescription": {"text": "XLA's expected map differs"}},
        {"id": "xla-test-not-comparable", "shortDescription": {"text": "expectation not checked"}},
    ]
    results = []
    for e in run.expectations:
        if e.verdict is Agreement.EQUAL:
            continue
        index = 0 if e.verdict is Agreement.DIFFERENT else 1
        detail = e.witness if e.verdict is Agreement.DIFFERENT else e.reason
        results.append(
            {
                "ruleId": rules[index]["id"],
                "ruleIndex": index,
                "level": _LEVELS[e.verdict],
                "message": {"text": printable(f"{e.test} ({e.kind}): {detail}")},
                "locations": [
                    {"physicalLocation": physical_location(SourceSpan(e.file, e.line, 0))}
                ],
                "partialFingerprints": {"xlaTestExpectation/v1": f"{e.file}/{e.test}/{e.line}"},
            }
        )
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {"tool": {"driver": {"name": "verifier xla-tests", "rules": rules}}, "results": results}
        ],
    }


def junit_xml(run: XlaTestsRun) -> bytes:
    """One testsuite per file, one testcase per expectation."""
    suites: dict[str, TestSuite] = {}
    numbers: Counter[tuple[str, str]] = Counter()
    for e in run.expectations:
        suite = suites.setdefault(e.file, TestSuite(printable(e.file)))
        numbers[e.file, e.test] += 1
        case = _testcase(e, numbers[e.file, e.test])
        suite.add_testcase(case)
    xml = JUnitXml("verifier xla-tests")
    for suite in suites.values():
        suite.update_statistics()  # type: ignore[no-untyped-call]
        xml.add_testsuite(suite)
    xml.update_statistics()  # type: ignore[no-untyped-call]
    buffer = io.BytesIO()
    xml.write(buffer, pretty=False)
    return buffer.getvalue()


def _testcase(e: Expectation, number: int) -> Any:
    case = placed_testcase(
        printable(f"{e.test} #{number} ({e.kind})"), printable(f"{e.file}:{e.test}"), e.file, e.line
    )
    case.time = 0
    match e.verdict:
        case Agreement.DIFFERENT:
            case.result = [JUnitFailure(printable(e.witness or ""), "different")]
        case Agreement.NOT_COMPARABLE:
            case.result = [Skipped(printable(e.reason or ""), "not-comparable")]
        case Agreement.EQUAL:
            pass
    return case
