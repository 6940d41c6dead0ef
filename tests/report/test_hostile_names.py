"""Every report is valid for any name: control characters and ANSI escapes
in file, directory, module and instruction names and messages, and file
names that are not UTF-8 (surrogate escapes, as os.fsdecode gives them).
JUnit is read back by an XML parser, SARIF validated against the schema,
text encoded as strict UTF-8 with those characters escaped; JSON holds
every name exactly (ASCII text, JSON's escapes, a byte that is not UTF-8 as
its surrogate escape), so a file name read back from it is on the disk."""

from __future__ import annotations

import io
import json
import os
import shutil
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import jsonschema
import pytest

from verifier.checks.verdict import Outcome
from verifier.cli import EXIT_BAD_INPUT, main
from verifier.errors import SourceSpan
from verifier.gate.finding import Finding
from verifier.gate.run import GateRun, InputError
from verifier.report.gate_json import gate_json, gate_report
from verifier.report.gate_text import gate_text
from verifier.report.json_text import report_json
from verifier.report.junit import junit_xml
from verifier.report.sarif import sarif_log

SCHEMA = json.loads((Path(__file__).parent / "sarif-schema-2.1.0.json").read_text())
ROOT = Path(__file__).parents[2]

HOSTILE = [
    "dir\x1b[31m/red\x1b[0m.hlo",  # ANSI escapes
    "nul\x00and\x07bell\x0b\x0c\r.hlo",  # every C0 control XML 1.0 forbids
    os.fsdecode(b"latin1-\xe9\xff.hlo"),  # not UTF-8: lone surrogates
    "c1\x85\x9b.hlo\ufffe\uffff",  # C1 controls and non-characters
    "\ud800lone-high.hlo",  # a surrogate no file system gives
]


def hostile_run(name: str) -> GateRun:
    refuted = Finding(
        "in-bounds",
        Outcome.REFUTED,
        f"module{name}",
        f"main{name}",
        f"dot{name}",
        f"operand 1 ({name})",
        f"reaches 255 in {name}",
        witness=(("d0", 255),),
        span=SourceSpan(name, 3, 4),
    )
    unknown = Finding(
        "partition",
        Outcome.UNKNOWN,
        name,
        "main",
        name,
        "output",
        name,
        span=SourceSpan(name, 1, 1),
    )
    error = InputError(SourceSpan(name, 2, 5), f"expected ')' after {name}")
    return GateRun((name,), (refuted, unknown), (error,))


def strict_utf8(text: str) -> str:
    text.encode("utf-8")  # raises on a lone surrogate
    assert "\x1b" not in text and "\x00" not in text
    return text


@pytest.mark.parametrize("name", HOSTILE)
def test_junit_is_well_formed_xml(name: str) -> None:
    root = ElementTree.fromstring(junit_xml(hostile_run(name)))
    cases = root.findall(".//testcase")
    assert len(cases) == 3
    assert all(strict_utf8(case.get("file", "")) for case in cases)


@pytest.mark.parametrize("name", HOSTILE)
def test_sarif_is_valid_utf8_json_against_the_schema(name: str) -> None:
    log = json.loads(report_json(sarif_log(hostile_run(name))))
    strict_utf8(json.dumps(log, ensure_ascii=False))  # the strings, as a reader decodes them
    jsonschema.validators.validator_for(SCHEMA)(SCHEMA).validate(log)
    uri = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert uri["artifactLocation"]["uri"].isascii()


def test_sarif_uri_percent_encodes_the_bytes_of_the_file_name() -> None:
    log = sarif_log(hostile_run(os.fsdecode(b"dir/m\xff\xe9.hlo")))
    location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "dir/m%FF%E9.hlo"


@pytest.mark.parametrize("name", HOSTILE)
def test_json_holds_names_exactly_and_text_is_strict_utf8(name: str) -> None:
    written = report_json(gate_json(hostile_run(name)))
    assert written.isascii()
    report = json.loads(written)
    assert report["files"] == [name]
    assert report["findings"][0]["location"] == {"file": name, "line": 3, "column": 4}
    assert report["findings"][0]["instruction"] == f"dot{name}"
    assert report["errors"][0]["file"] == name
    strict_utf8(gate_text(hostile_run(name)))


@pytest.mark.parametrize("name", HOSTILE)
def test_the_report_written_from_finding_lines_is_the_canonical_json(name: str) -> None:
    # The CLI writes each finding's json_line; escaped, it must be the text
    # the canonical object gives.
    run = hostile_run(name)
    assert "".join(gate_report(run)) == report_json(gate_json(run))
    for finding in run.findings:
        assert finding.json_line() == json.dumps(finding.to_json())


def test_undecodable_bytes_are_surrogate_escapes_in_json_and_escaped_in_text() -> None:
    name = os.fsdecode(b"m\xff\r.hlo")
    written = report_json(gate_json(hostile_run(name)))
    assert '"m\\udcff\\r.hlo"' in written
    assert os.fsencode(json.loads(written)["files"][0]) == b"m\xff\r.hlo"
    assert gate_text(hostile_run(name)).count("m\\xff\\x0d.hlo") >= 2
    assert gate_text(hostile_run("a\x1b[31mb")).count("a\\x1b[31mb") >= 2


@pytest.mark.parametrize("report_format", ["text", "json", "junit", "sarif"])
def test_check_on_hostile_file_names_end_to_end(
    tmp_path: Path, report_format: str, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = Path(os.fsdecode(bytes(tmp_path) + b"/dir\x1b[31m\xff"))
    directory.mkdir()
    shutil.copy(ROOT / "examples" / "real" / "softmax.hlo", directory / "soft\x07max\r.hlo")
    (directory / os.fsdecode(b"broken\xfe.hlo")).write_bytes(b"HloModule broken\n\x00\xff")
    output = tmp_path / "report"
    out = io.StringIO()
    cache = str(directory / "cache\x1b")
    argv = ["check", str(directory), "--format", report_format, "--output", str(output)]
    code = main([*argv, "--cache-dir", cache, "--progress"], out)
    strict_utf8(capsys.readouterr().err)  # progress lines name the files
    assert code == EXIT_BAD_INPUT  # the broken file, reported; the other one checked
    strict_utf8(out.getvalue())
    written = strict_utf8(output.read_bytes().decode("utf-8"))
    match report_format:
        case "junit":
            assert ElementTree.fromstring(written.encode()).findall(".//testcase")
        case "sarif":
            jsonschema.validators.validator_for(SCHEMA)(SCHEMA).validate(json.loads(written))
        case "json":
            files = json.loads(written)["files"]
            assert len(files) == 2 and all(os.path.isfile(file) for file in files)
        case _:
            assert "could not be read (1)" in written
