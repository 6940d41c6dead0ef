"""A `verifier check` run as SARIF 2.1.0, the format code-scanning services
read (GitHub, GitLab, VS Code's SARIF viewer).

One run; the tool's rules are the checks.  Every finding that is not
``proved`` is a result, with a level that says how it bears on the gate:
``refuted`` is an ``error``, ``unknown`` a ``warning`` (undecided, not a
defect, yet failing), ``unsupported`` a ``note`` (a ``warning`` under
``--strict``), ``vacuous`` a ``note``; every finding of an informational
check (it never fails the gate) is a ``note``.  Proved findings are not results —
code-scanning services list every result as an alert — but their counts
are in the run's ``properties.summary``.  A result points at the ``.hlo``
file, line and column of its instruction, names the instruction as a
logical location (``module/computation/instruction``), carries the witness
in its message and in ``properties.witness``, and is fingerprinted by its
file and `Finding.key` (stable across runs while the file, the place and the
check are the same; ``foo.hlo`` and ``foo.opt.hlo``, which JAX dumps with
the same module name, do not collide).

Every file that could not be read and every instruction that could not be
checked (invalid HLO: a slice bound, a concatenate's shapes, a bitcast's
size) is an ``error`` result at its file, line and column — rule
``invalid-input``, or ``internal-error`` when a bug in verifier escaped
there — so code scanning shows an alert at the broken line; each is also an
``error`` notification of the invocation, which is then not successful.

SARIF is read by people in a viewer: its messages and names are
`printable` (control characters and the bytes of a file name that are not
UTF-8 as backslash escapes), and a file's exact bytes are in its URI.

The document is plain JSON built here and validated against the official
SARIF 2.1.0 schema in the tests (sarif-om, the object model, is a 2019
release that needs its own serializer; a JSON document needs none).

>>> from verifier.checks.verdict import Outcome
>>> from verifier.errors import SourceSpan
>>> refuted = Finding("in-bounds", Outcome.REFUTED, "m", "main", "dot", "operand 1 (p1)",
...                   "result 1 reaches 255", witness=(("d1", 255),),
...                   span=SourceSpan("m.hlo", 7, 3))
>>> result = sarif_log(GateRun(("m.hlo",), (refuted,)))["runs"][0]["results"][0]
>>> result["level"], result["message"]["text"]
('error', 'operand 1 (p1): result 1 reaches 255 (witness: d1 = 255)')
>>> result["locations"][0]["physicalLocation"]
{'artifactLocation': {'uri': 'm.hlo'}, 'region': {'startLine': 7, 'startColumn': 3}}
>>> broken = InputError(SourceSpan("m.hlo", 4, 9), "slice bound 12 exceeds dimension 10")
>>> error = sarif_log(GateRun(("m.hlo",), (refuted,), (broken,)))["runs"][0]["results"][1]
>>> error["ruleId"], error["level"], error["locations"][0]["physicalLocation"]["region"]
('invalid-input', 'error', {'startLine': 4, 'startColumn': 9})
"""

from __future__ import annotations

from collections.abc import Iterator
from json.encoder import encode_basestring_ascii
from pathlib import PurePath
from typing import Any, cast
from urllib.parse import quote

from verifier.checks.verdict import Outcome
from verifier.errors import SourceSpan
from verifier.gate.catalog import describe
from verifier.gate.finding import NO_SOURCE, Finding
from verifier.gate.run import GateRun, InputError, tool_version
from verifier.report.gate_json import summary_json
from verifier.report.json_text import indented, report_json
from verifier.report.printable import printable, printable_json

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
FINGERPRINT = "verifierFindingKey/v2"
INPUT_RULES = {
    False: ("invalid-input", "the file or instruction could not be read as valid HLO"),
    True: ("internal-error", "a bug in verifier escaped while checking here (please report it)"),
}


def _level(finding: Finding, run: GateRun) -> str:
    if run.is_informational(finding):
        return "note"
    match finding.outcome:
        case Outcome.REFUTED:
            return "error"
        case Outcome.UNKNOWN:
            return "warning"
        case Outcome.UNSUPPORTED:
            return "warning" if run.strict else "note"
        case _:
            return "note"


def _uri(filename: str) -> str:
    """The URI of `filename`, percent-encoding its bytes — the ones that are
    not UTF-8 included (``m\\udcff.hlo``, as os.fsdecode gives them, is
    ``m%FF.hlo``)."""
    path = PurePath(filename)
    posix = path.as_posix()
    try:
        raw = posix.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate no file system gave
        raw = printable(posix).encode()
    return ("file://" if path.is_absolute() else "") + quote(raw)


def _physical_location(span: SourceSpan) -> dict[str, Any]:
    location: dict[str, Any] = {"artifactLocation": {"uri": _uri(span.filename)}}
    if span.line > 0:
        region = {"startLine": span.line}
        if span.column > 0:
            region["startColumn"] = span.column
        location["region"] = region
    return location


def fingerprint(finding: Finding) -> str:
    """``FILE/module/computation/instruction/subject/check`` (no line: an
    edit above the instruction keeps its alerts)."""
    file = "" if finding.span is NO_SOURCE else PurePath(finding.span.filename).as_posix()
    return f"{file}/{finding.key}"


def _message(finding: Finding) -> str:
    text = f"{finding.subject}: {finding.message}"
    if finding.witness:
        text += " (witness: " + ", ".join(f"{k} = {v}" for k, v in finding.witness) + ")"
    return text


def _result(finding: Finding, rule_index: int, run: GateRun) -> dict[str, Any]:
    location: dict[str, Any] = {
        "logicalLocations": [
            {
                "fullyQualifiedName": (
                    f"{finding.module}/{finding.computation}/{finding.instruction}"
                ),
                "name": finding.instruction,
                "kind": "function",
            }
        ]
    }
    if finding.span is not NO_SOURCE:
        location["physicalLocation"] = _physical_location(finding.span)
    properties: dict[str, Any] = {"outcome": finding.outcome.value, "subject": finding.subject}
    if run.is_informational(finding):
        properties["informational"] = True
    if finding.witness:
        properties["witness"] = finding.witness_dict
    return {
        "ruleId": finding.check,
        "ruleIndex": rule_index,
        "level": _level(finding, run),
        "message": {"text": _message(finding)},
        "locations": [location],
        "partialFingerprints": {FINGERPRINT: fingerprint(finding)},
        "properties": properties,
    }


def _error_result(error: InputError, rule_index: int) -> dict[str, Any]:
    """A file or instruction that could not be checked, at its place."""
    rule, _ = INPUT_RULES[error.internal]
    file = PurePath(error.span.filename).as_posix()
    return {
        "ruleId": rule,
        "ruleIndex": rule_index,
        "level": "error",
        "message": {"text": error.message},
        "locations": [{"physicalLocation": _physical_location(error.span)}],
        "partialFingerprints": {FINGERPRINT: f"{file}/{rule}/{error.message}"},
    }


def _notification(error: InputError) -> dict[str, Any]:
    return {
        "level": "error",
        "message": {"text": error.message},
        "locations": [{"physicalLocation": _physical_location(error.span)}],
    }


def sarif_log(run: GateRun) -> dict[str, Any]:
    """The SARIF 2.1.0 log of `run`, as JSON-able data: URIs percent-encode
    a file name's bytes, every other string is `printable`."""
    return cast(dict[str, Any], printable_json(_log(run, list(_results(run)))))


# Where `sarif_chunks` writes the results, in the log written without them.
_RESULTS_HERE = "the results are written here"


def sarif_chunks(run: GateRun) -> Iterator[str]:
    """`report_json(sarif_log(run))` with each result written as it is read
    (a module's unproved findings are never all in memory): the log is
    written with a placeholder for its results, which go in its place."""
    skeleton = report_json(printable_json(_log(run, _RESULTS_HERE)))
    key = f'"results": {encode_basestring_ascii(_RESULTS_HERE)}'
    head, tail = skeleton.split(key, 1)
    margin = head[head.rindex("\n") + 1 :]  # the indentation of the results' key
    inner = margin + "  "
    yield head + '"results": '
    opening = "[\n"
    for result in _results(run):
        yield opening + inner + indented(printable_json(result), inner)
        opening = ",\n"
    yield ("[]" if opening == "[\n" else "\n" + margin + "]") + tail


def _rule_index(run: GateRun) -> dict[str, int]:
    """The position of each rule of the log (the checks', then the input
    rules of the errors)."""
    rules = [*run.checks, *(INPUT_RULES[i][0] for i in sorted({e.internal for e in run.errors}))]
    return {rule: position for position, rule in enumerate(rules)}


def _results(run: GateRun) -> Iterator[dict[str, Any]]:
    """Every unproved finding's result, then every error's, in order."""
    index = _rule_index(run)
    for finding in run.findings_where(lambda check, outcome: outcome is not Outcome.PROVED):
        yield _result(finding, index[finding.check], run)
    for e in run.errors:
        yield _error_result(e, index[INPUT_RULES[e.internal][0]])


def _log(run: GateRun, results: list[dict[str, Any]] | str) -> dict[str, Any]:
    """The log of `run` with `results` (or a placeholder of them)."""
    described = {check: describe(check) for check in run.checks}
    described |= dict(
        INPUT_RULES[internal] for internal in sorted({e.internal for e in run.errors})
    )
    rules = [
        {
            "id": rule,
            "shortDescription": {"text": text},
            "defaultConfiguration": {"level": "error"},
        }
        for rule, text in described.items()
    ]
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "verifier", "version": tool_version(), "rules": rules}},
                "invocations": [
                    {
                        "executionSuccessful": not run.errors,
                        "toolExecutionNotifications": [_notification(e) for e in run.errors],
                    }
                ],
                "results": results,
                "properties": {
                    "status": run.status,
                    "strict": run.strict,
                    "summary": summary_json(run),
                },
            }
        ],
    }


def physical_location(span: SourceSpan) -> dict[str, Any]:
    """The SARIF ``physicalLocation`` of `span` (URI, line, column), for other reports."""
    return _physical_location(span)
