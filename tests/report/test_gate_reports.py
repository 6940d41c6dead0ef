"""The gate's reports (text, JSON, JUnit, SARIF) on findings of every outcome:
SARIF validated against the official 2.1.0 schema, JUnit read back with
junitparser, every report saying the same thing as the findings."""

from __future__ import annotations

import io
import json
from pathlib import Path

import jsonschema
import pytest
from junitparser import Error, Failure, JUnitXml, Skipped

from verifier.checks.cache import MemoryCache
from verifier.checks.verdict import Outcome
from verifier.errors import SourceSpan
from verifier.gate.finding import Finding
from verifier.gate.run import GateRun, InputError
from verifier.gate.suite import run_checks
from verifier.hlo import parse_module_file
from verifier.report.gate_json import gate_json, gate_report
from verifier.report.gate_text import PLACES_PER_REASON, gate_text
from verifier.report.json_text import report_json
from verifier.report.junit import junit_xml
from verifier.report.sarif import FINGERPRINT, fingerprint, sarif_log

SCHEMA = json.loads((Path(__file__).parent / "sarif-schema-2.1.0.json").read_text())


def finding(
    outcome: Outcome,
    instruction: str = "add.1",
    check: str = "in-bounds",
    module: str = "m",
    message: str = "inside the shape",
    witness: tuple[tuple[str, int], ...] = (),
    line: int = 5,
) -> Finding:
    return Finding(
        check,
        outcome,
        module,
        "main",
        instruction,
        "operand 0 (p0)",
        message,
        witness=witness,
        span=SourceSpan(f"dir with space/{module}.hlo", line, 3),
    )


REFUTED = finding(
    Outcome.REFUTED, "dot", message="result 1 reaches 255", witness=(("d0", 0), ("d1", 255))
)
MIXED = (
    finding(Outcome.PROVED),
    REFUTED,
    finding(Outcome.UNKNOWN, "gather", check="partition", message="budget exhausted"),
    finding(Outcome.UNSUPPORTED, "cc.1", message="custom-call has no indexing rule"),
    finding(Outcome.UNSUPPORTED, "cc.2", message="custom-call has no indexing rule"),
    finding(Outcome.VACUOUS, "slice", module="other", message="empty domain"),
)
BAD = InputError(SourceSpan("bad.hlo", 3, 7), "expected ')'")
RUN = GateRun(("dir with space/m.hlo", "dir with space/other.hlo", "bad.hlo"), MIXED, (BAD,))


def validate_sarif(log: dict[str, object]) -> None:
    jsonschema.validators.validator_for(SCHEMA)(SCHEMA).validate(log)


@pytest.mark.parametrize("strict", [False, True])
def test_sarif_is_valid_and_has_one_result_per_unproved_finding(strict: bool) -> None:
    run = GateRun(RUN.files, RUN.findings, RUN.errors, strict=strict)
    log = sarif_log(run)
    validate_sarif(json.loads(json.dumps(log)))
    (sarif_run,) = log["runs"]
    unproved = [f for f in MIXED if f.outcome is not Outcome.PROVED]
    results = sarif_run["results"][: len(unproved)]
    # The file that could not be read is a result too, an error at its place.
    (broken,) = sarif_run["results"][len(unproved) :]
    assert (broken["ruleId"], broken["level"]) == ("invalid-input", "error")
    assert broken["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 3,
        "startColumn": 7,
    }
    assert [r["partialFingerprints"][FINGERPRINT] for r in results] == [
        f"dir with space/{f.module}.hlo/{f.key}" for f in unproved
    ]
    levels = {r["properties"]["outcome"]: r["level"] for r in results}
    assert levels == {
        "refuted": "error",
        "unknown": "warning",
        "unsupported": "warning" if strict else "note",
        "vacuous": "note",
    }
    rules = [rule["id"] for rule in sarif_run["tool"]["driver"]["rules"]]
    assert all(rules[r["ruleIndex"]] == r["ruleId"] for r in sarif_run["results"])
    refuted = results[0]
    assert refuted["properties"]["witness"] == {"d0": 0, "d1": 255}
    assert "d1 = 255" in refuted["message"]["text"]
    physical = refuted["locations"][0]["physicalLocation"]
    assert physical == {
        "artifactLocation": {"uri": "dir%20with%20space/m.hlo"},
        "region": {"startLine": 5, "startColumn": 3},
    }
    (invocation,) = sarif_run["invocations"]
    assert invocation["executionSuccessful"] is False
    (note,) = invocation["toolExecutionNotifications"]
    assert note["locations"][0]["physicalLocation"]["region"] == {"startLine": 3, "startColumn": 7}
    assert sarif_run["properties"]["summary"]["total"]["proved"] == 1


def test_sarif_schema_rejects_a_broken_log() -> None:
    # The validation above can fail: a result without a message is not SARIF.
    log = sarif_log(GateRun(("m.hlo",), (REFUTED,)))
    del log["runs"][0]["results"][0]["message"]
    with pytest.raises(jsonschema.ValidationError):
        validate_sarif(log)


def test_sarif_of_a_clean_run_is_valid_with_no_results() -> None:
    log = sarif_log(GateRun(("m.hlo",), (finding(Outcome.PROVED),)))
    validate_sarif(log)
    assert log["runs"][0]["results"] == []
    assert log["runs"][0]["invocations"][0]["executionSuccessful"] is True


@pytest.mark.parametrize("strict", [False, True])
def test_junit_reads_back_with_one_testcase_per_finding(strict: bool) -> None:
    run = GateRun(RUN.files, RUN.findings, RUN.errors, strict=strict)
    document = JUnitXml.fromfile(io.BytesIO(junit_xml(run)))
    suites = list(document)
    assert [s.name for s in suites] == [
        "dir with space/m.hlo",
        "dir with space/other.hlo",
        "bad.hlo",
    ]
    cases = [case for suite in suites for case in suite]
    assert len(cases) == len(MIXED) + 1
    by_name = {(c.classname, c.name): c for c in cases}
    dot = by_name[("dir with space/m.hlo:m.main.dot", "in-bounds: operand 0 (p0)")]
    (failure,) = dot.result
    assert isinstance(failure, Failure)
    assert failure.message == "result 1 reaches 255"
    assert failure.text == "witness: d0 = 0, d1 = 255"
    assert dot._elem.get("file") == "dir with space/m.hlo"
    assert dot._elem.get("line") == "5"
    (unknown,) = by_name[("dir with space/m.hlo:m.main.gather", "partition: operand 0 (p0)")].result
    assert isinstance(unknown, Error)
    (unsupported,) = by_name[
        ("dir with space/m.hlo:m.main.cc.1", "in-bounds: operand 0 (p0)")
    ].result
    assert isinstance(unsupported, Failure if strict else Skipped)
    (bad,) = by_name[("bad.hlo", "parse")].result
    assert isinstance(bad, Error) and "bad.hlo:3:7" in bad.message
    assert suites[0].failures == (3 if strict else 1)
    assert suites[0].errors == 1
    assert suites[0].skipped == (0 if strict else 2)


def test_junit_is_the_same_for_the_same_run() -> None:
    assert junit_xml(RUN) == junit_xml(GateRun(RUN.files, RUN.findings, RUN.errors))


def test_json_counts_and_findings() -> None:
    report = json.loads(json.dumps(gate_json(RUN)))
    assert report["status"] == "bad-input"
    assert report["summary"]["total"] == {
        "proved": 1,
        "refuted": 1,
        "unknown": 1,
        "unsupported": 2,
        "vacuous": 1,
    }
    assert report["summary"]["by_check"]["partition"]["unknown"] == 1
    assert report["errors"] == [
        {"file": "bad.hlo", "line": 3, "column": 7, "message": "expected ')'"}
    ]
    assert report["findings"] == [f.to_json() for f in MIXED]


@pytest.mark.parametrize(
    ("findings", "errors", "strict", "status"),
    [
        (MIXED, (BAD,), False, "bad-input"),
        (MIXED, (), False, "refuted"),
        (MIXED[2:], (), False, "unknown"),
        (MIXED[3:], (), False, "vacuous"),
        (MIXED[3:5], (), False, "ok"),
        (MIXED[3:5], (), True, "refuted"),
        ((MIXED[0], MIXED[5]), (), False, "ok"),
        ((), (), False, "ok"),
    ],
)
def test_status_precedence(
    findings: tuple[Finding, ...], errors: tuple[InputError, ...], strict: bool, status: str
) -> None:
    assert GateRun(("m.hlo",), findings, errors, strict).status == status


def test_text_lists_refuted_with_witness_and_groups_unsupported() -> None:
    text = gate_text(RUN)
    assert (
        "dir with space/m.hlo:5:3: in-bounds: main/dot operand 0 (p0): result 1 reaches 255" in text
    )
    assert "witness: d0 = 0, d1 = 255" in text
    assert "unsupported (2 warnings), by reason:" in text
    assert "  2× custom-call has no indexing rule" in text
    assert "bad.hlo:3:7: expected ')'" in text
    assert text.endswith("gate: FAIL (some files could not be read)")
    table = text.split("\n\n")[1].splitlines()
    assert table[0].split() == ["check", "proved", "refuted", "unknown", "unsupported", "vacuous"]
    assert table[-1].split() == ["total", "1", "1", "1", "2", "1"]


def test_text_caps_the_places_listed_per_reason() -> None:
    many = tuple(
        finding(Outcome.UNSUPPORTED, f"cc.{i}", message="custom-call has no indexing rule")
        for i in range(PLACES_PER_REASON + 3)
    )
    text = gate_text(GateRun(("m.hlo",), many))
    assert f"  {PLACES_PER_REASON + 3}× custom-call has no indexing rule" in text
    assert "and 3 more places" in text
    assert text.endswith("gate: PASS")


INT32 = Finding(
    "overflow-int32",
    Outcome.REFUTED,
    "m",
    "main",
    "fusion",
    "index expressions",
    "d0 * 4096 + d1 reaches 2^31",
    witness=(("d0", 524288),),
    span=SourceSpan("m.hlo", 9, 3),
)
INFORMATIONAL = frozenset({"overflow-int32"})


def test_informational_refutations_are_reported_and_never_fail() -> None:
    run = GateRun(("m.hlo",), (finding(Outcome.PROVED), INT32), informational=INFORMATIONAL)
    assert run.status == "ok"
    assert GateRun(("m.hlo",), (INT32,)).status == "refuted"  # not informational: fails
    text = gate_text(run)
    assert "informational (1; they do not fail the gate):" in text
    assert "m.hlo:9:3: overflow-int32: main/fusion index expressions" in text
    assert "witness: d0 = 524288" in text
    assert "\nrefuted (" not in text
    assert "overflow-int32 (informational)" in text
    assert text.endswith("gate: PASS")
    (result,) = sarif_log(run)["runs"][0]["results"]
    assert (result["level"], result["properties"]["informational"]) == ("note", True)
    validate_sarif(sarif_log(run))
    # One suite per file: the proved finding is in another file of the module.
    suites = {s.name: s for s in JUnitXml.fromfile(io.BytesIO(junit_xml(run)))}
    suite = suites["m.hlo"]
    assert (suite.tests, suite.failures, suite.errors, suite.skipped) == (1, 0, 0, 0)
    cases = {case.name: case for case in suite}
    assert "witness: d0 = 524288" in cases["overflow-int32: index expressions"].system_out
    assert gate_json(run)["informational_checks"] == ["overflow-int32"]


def test_two_files_of_one_module_name_do_not_collide() -> None:
    # JAX dumps foo.hlo and foo.opt.hlo with the same module name.
    pair = tuple(
        Finding(
            "in-bounds",
            Outcome.REFUTED,
            "jit_f",
            "main",
            "dot",
            "operand 0 (p0)",
            "out",
            span=SourceSpan(name, 5, 3),
        )
        for name in ("dumps/foo.hlo", "dumps/foo.opt.hlo")
    )
    run = GateRun(("dumps/foo.hlo", "dumps/foo.opt.hlo"), pair)
    keys = [r["partialFingerprints"][FINGERPRINT] for r in sarif_log(run)["runs"][0]["results"]]
    assert keys == [fingerprint(f) for f in pair] and len(set(keys)) == 2
    suites = list(JUnitXml.fromfile(io.BytesIO(junit_xml(run))))
    assert [s.name for s in suites] == ["dumps/foo.hlo", "dumps/foo.opt.hlo"]
    classnames = [case.classname for suite in suites for case in suite]
    assert classnames == ["dumps/foo.hlo:jit_f.main.dot", "dumps/foo.opt.hlo:jit_f.main.dot"]


def test_the_report_of_real_findings_is_their_canonical_json() -> None:
    # Every finding of a real dump (witnesses, locations, every check):
    # each finding's line is json.dumps of its object, and the report
    # written from the lines is the one the objects give.
    module = parse_module_file(Path(__file__).parents[2] / "examples/real/cnn_step.hlo")
    run = GateRun(("cnn_step.hlo",), tuple(run_checks(module, MemoryCache())))
    for finding in run.findings:
        assert finding.json_line() == json.dumps(finding.to_json())
    assert "".join(gate_report(run)) == report_json(gate_json(run))


def test_two_findings_are_equal_when_all_but_their_spans_are() -> None:
    """Equality and hashing leave the span out (a moved module keeps its
    findings), and a finding equals no plain tuple of the same fields."""
    here, moved = finding(Outcome.REFUTED, line=5), finding(Outcome.REFUTED, line=9)
    assert here.span != moved.span
    assert here == moved and (here != moved) is False and hash(here) == hash(moved)
    assert len({here, moved}) == 1
    assert here != finding(Outcome.PROVED) and here != finding(Outcome.REFUTED, message="other")
    assert here != tuple(here) and tuple(here) != here
