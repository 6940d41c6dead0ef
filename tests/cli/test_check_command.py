"""`verifier check`: files found under PATH, bad files reported and counted,
exit codes by outcome, report formats, progress, and the persistent proof
cache answering a second run."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from junitparser import JUnitXml

from verifier.checks.result import CheckResult
from verifier.checks.verdict import Outcome
from verifier.cli import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    EXIT_REFUTED,
    EXIT_UNKNOWN,
    EXIT_VACUOUS,
    main,
)
from verifier.gate import suite
from verifier.gate.answers import ModuleAnswers, Places
from verifier.gate.finding import Finding
from verifier.hlo.module import Module

SCHEMA = json.loads((Path(__file__).parents[1] / "report" / "sarif-schema-2.1.0.json").read_text())

TRANSPOSE = """HloModule transpose
ENTRY main {
  p0 = f32[4,8] parameter(0)
  ROOT t = f32[8,4] transpose(p0), dimensions={1,0}
}
"""
# The update's map needs its window constraints (d0 - rt0 in [0, 4]) to stay
# in bounds: interval arithmetic cannot prove it, so it is a solver question.
DUS = """HloModule dus
ENTRY main {
  src = s32[20,30] parameter(0)
  upd = s32[5,10] parameter(1)
  of1 = s32[] parameter(2)
  of2 = s32[] parameter(3)
  ROOT dus = s32[20,30] dynamic-update-slice(src, upd, of1, of2)
}
"""
BROKEN = """HloModule broken
ENTRY main {
  p0 = f32[4,8] parameter(0)
  ROOT t = f32[8,4] transpose(p0 dimensions={1,0}
}
"""


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out), out.getvalue()


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def json_report(*argv: str) -> tuple[int, dict[str, Any]]:
    code, text = run("check", "--no-cache", "--format", "json", *argv)
    report: dict[str, Any] = json.loads(text)
    return code, report


# ---------------------------------------------------------------- real modules


def test_a_clean_module_passes_with_every_finding_proved(tmp_path: Path) -> None:
    path = write(tmp_path, "t.hlo", TRANSPOSE)
    code, text = run("check", "--no-cache", str(path))
    assert code == EXIT_OK
    assert text.rstrip().endswith("gate: PASS")
    code, report = json_report(str(path))
    assert report["status"] == "ok"
    assert text.splitlines()[0] == f"verifier check: 1 file, {len(report['findings'])} findings"
    assert {f["outcome"] for f in report["findings"]} == {"proved"}
    assert report["findings"][0]["location"] == {"file": str(path), "line": 4, "column": 8}


def test_a_directory_is_searched_recursively_in_sorted_order(tmp_path: Path) -> None:
    write(tmp_path, "b.hlo", TRANSPOSE.replace("HloModule transpose", "HloModule b"))
    write(tmp_path, "a/z.hlo", TRANSPOSE.replace("HloModule transpose", "HloModule az"))
    write(tmp_path, "a/notes.txt", "not a module")
    code, report = json_report(str(tmp_path))
    assert code == EXIT_OK
    assert report["files"] == [str(tmp_path / "a" / "z.hlo"), str(tmp_path / "b.hlo")]
    assert list(dict.fromkeys(f["module"] for f in report["findings"])) == ["az", "b"]


def test_a_bad_file_is_reported_with_its_place_and_the_others_are_checked(
    tmp_path: Path,
) -> None:
    bad = write(tmp_path, "a_broken.hlo", BROKEN)
    good = write(tmp_path, "b_good.hlo", TRANSPOSE)
    code, report = json_report(str(tmp_path))
    assert code == EXIT_BAD_INPUT
    assert report["status"] == "bad-input"
    (error,) = report["errors"]
    assert (error["file"], error["line"]) == (str(bad), 4)
    assert error["column"] > 1
    assert {f["location"]["file"] for f in report["findings"]} == {str(good)}
    code, text = run("check", "--no-cache", str(tmp_path))
    assert code == EXIT_BAD_INPUT
    assert f"{bad}:4:{error['column']}: " in text
    assert "(1 could not be read)" in text.splitlines()[0]


@pytest.mark.parametrize("argv", [["missing.hlo"], ["--checks", "no-such-check", "x.hlo"]])
def test_a_missing_path_or_an_unknown_check_is_bad_input(
    tmp_path: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = run(
        "check", "--no-cache", *[str(tmp_path / a) if a.endswith(".hlo") else a for a in argv]
    )
    assert code == EXIT_BAD_INPUT


def test_an_empty_directory_is_bad_input_not_a_silent_pass(tmp_path: Path) -> None:
    code, report = json_report(str(tmp_path))
    assert code == EXIT_BAD_INPUT
    assert report["errors"][0]["message"] == "no HLO module (.hlo, or .txt) under this directory"


def test_checks_selects_by_name(tmp_path: Path) -> None:
    path = write(tmp_path, "t.hlo", TRANSPOSE)
    code, report = json_report("--checks", "in-bounds", str(path))
    assert code == EXIT_OK
    assert {f["check"] for f in report["findings"]} == {"in-bounds"}


# ---------------------------------------------------------------- exit codes and formats
# The checks' answers are given here, so that the gate's handling of each
# outcome is tested whatever the checks find on real modules.


def finding(outcome: Outcome, instruction: str, message: str = "...", **extra: Any) -> Finding:
    return Finding(
        "in-bounds", outcome, "m", "main", instruction, "operand 0 (p0)", message, **extra
    )


REFUTED = finding(Outcome.REFUTED, "dot", "result 1 reaches 255", witness=(("d1", 255),))
UNKNOWN = finding(Outcome.UNKNOWN, "gather", "isl budget exhausted")
UNSUPPORTED = finding(Outcome.UNSUPPORTED, "cc", "custom-call has no indexing rule")
VACUOUS = finding(Outcome.VACUOUS, "slice", "empty domain")
PROVED = finding(Outcome.PROVED, "add", "inside")
INT32 = Finding("overflow-int32", Outcome.REFUTED, "m", "main", "f", "indices", "needs int64")


@pytest.fixture
def answers(monkeypatch: pytest.MonkeyPatch) -> Callable[..., Path]:
    """Make check_module answer with the given findings, at the module's root."""

    def given(*findings: Finding, directory: Path) -> Path:
        def check_module(module: Module, cache: object, **_: object) -> ModuleAnswers:
            places = Places()
            for f in findings:
                answer = (f.check, (f.subject,), CheckResult(f.outcome, f.message, f.witness))
                places.add((answer,), f.computation, f.instruction, (), module.entry.root.span)
            return places.answers(module.name)

        monkeypatch.setattr(suite, "check_module", check_module)
        return write(directory, "m.hlo", TRANSPOSE)

    return given


@pytest.mark.parametrize(
    ("findings", "strict", "code"),
    [
        ((PROVED, REFUTED, UNKNOWN, UNSUPPORTED), False, EXIT_REFUTED),
        ((PROVED, UNKNOWN, UNSUPPORTED), False, EXIT_UNKNOWN),
        ((PROVED, UNSUPPORTED, VACUOUS), False, EXIT_OK),
        ((PROVED, UNSUPPORTED), True, EXIT_REFUTED),
        ((VACUOUS, VACUOUS), False, EXIT_VACUOUS),
        ((VACUOUS, UNSUPPORTED), False, EXIT_VACUOUS),
        ((PROVED,), True, EXIT_OK),
        ((PROVED, INT32), True, EXIT_OK),  # informational: reported, never failing
        ((INT32, REFUTED), False, EXIT_REFUTED),
    ],
)
def test_exit_codes(
    answers: Callable[..., Path],
    tmp_path: Path,
    findings: tuple[Finding, ...],
    strict: bool,
    code: int,
) -> None:
    path = answers(*findings, directory=tmp_path)
    argv = ["check", "--no-cache", str(path)] + (["--strict"] if strict else [])
    assert run(*argv)[0] == code


def test_text_summary_shows_the_refuted_with_witness_and_place(
    answers: Callable[..., Path], tmp_path: Path
) -> None:
    path = answers(PROVED, REFUTED, UNSUPPORTED, directory=tmp_path)
    code, text = run("check", "--no-cache", str(path))
    assert code == EXIT_REFUTED
    assert f"{path}:4:8: in-bounds: main/dot operand 0 (p0): result 1 reaches 255" in text
    assert "witness: d1 = 255" in text
    assert "1× custom-call has no indexing rule" in text


@pytest.mark.parametrize("fmt", ["json", "junit", "sarif"])
def test_output_file_gets_the_report_and_stdout_the_summary(
    answers: Callable[..., Path], tmp_path: Path, fmt: str
) -> None:
    path = answers(PROVED, REFUTED, UNKNOWN, UNSUPPORTED, VACUOUS, directory=tmp_path)
    output = tmp_path / f"report.{fmt}"
    code, text = run("check", "--no-cache", "--format", fmt, "--output", str(output), str(path))
    assert code == EXIT_REFUTED
    assert text.rstrip().endswith("gate: FAIL (refuted)")
    written = output.read_text()
    if fmt == "json":
        assert [f["outcome"] for f in json.loads(written)["findings"]] == [
            "proved",
            "refuted",
            "unknown",
            "unsupported",
            "vacuous",
        ]
    elif fmt == "junit":
        (module_suite,) = JUnitXml.fromstring(written.encode())
        assert (module_suite.tests, module_suite.failures, module_suite.errors) == (5, 1, 1)
        assert module_suite.skipped == 2
    else:
        log = json.loads(written)
        jsonschema.validators.validator_for(SCHEMA)(SCHEMA).validate(log)
        assert [r["level"] for r in log["runs"][0]["results"]] == [
            "error",
            "warning",
            "note",
            "note",
        ]


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_summary_prints_the_counts_and_the_gate_and_the_report_still_goes_to_output(
    answers: Callable[..., Path], tmp_path: Path, fmt: str
) -> None:
    path = answers(PROVED, REFUTED, UNSUPPORTED, directory=tmp_path)
    output = tmp_path / f"report.{fmt}"
    argv = ["check", "--no-cache", "--summary", "--format", fmt, "--output", str(output)]
    code, text = run(*argv, str(path))
    assert code == EXIT_REFUTED
    assert text.splitlines()[0] == "verifier check: 1 file, 3 findings"
    assert text.rstrip().endswith("gate: FAIL (refuted)")
    assert "reaches 255" not in text and "custom-call" not in text
    written = output.read_text()
    full = run("check", "--no-cache", "--format", fmt, str(path))[1]
    assert written == full and "reaches 255" in written


def test_summary_without_output_is_the_text_summary_only(
    answers: Callable[..., Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = answers(PROVED, REFUTED, directory=tmp_path)
    code, text = run("check", "--no-cache", "--summary", str(path))
    assert code == EXIT_REFUTED and "reaches 255" not in text
    assert "in-bounds" in text and text.rstrip().endswith("gate: FAIL (refuted)")
    code, text = run("check", "--no-cache", "--summary", "--format", "sarif", str(path))
    assert (code, text) == (EXIT_BAD_INPUT, "")
    assert "write the --format sarif report with --output FILE" in capsys.readouterr().err


# ---------------------------------------------------------------- progress and cache


def cache_line(stderr: str) -> tuple[int, int]:
    line = next(x for x in stderr.splitlines() if x.startswith("proof cache:"))
    hits, misses = (int(word) for word in line.split() if word.isdigit())
    return hits, misses


def test_a_second_run_answers_from_the_persistent_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "dus.hlo", DUS)
    argv = ["check", "--progress", "--cache-dir", str(tmp_path / "cache"), "--format", "json"]
    code, cold = run(*argv, str(path))
    cold_hits, cold_misses = cache_line(capsys.readouterr().err)
    assert code == EXIT_OK
    assert cold_misses > 2  # the run, the module, and at least one solver question
    # Unchanged: the run's report comes back whole, nothing is recomputed.
    code, warm = run(*argv, str(path))
    err = capsys.readouterr().err
    assert code == EXIT_OK
    assert cache_line(err) == (1, 0)
    assert f"[1/1] {path}: " in err and "from the cache (unchanged)" in err
    assert warm == cold  # the report does not depend on the cache
    # Edited (renamed): the run and the module miss, every solver question hits.
    path.write_text(DUS.replace("HloModule dus", "HloModule dus_renamed"))
    code, edited = run(*argv, str(path))
    assert code == EXIT_OK
    assert cache_line(capsys.readouterr().err) == (cold_hits + cold_misses - 2, 2)
    assert edited == cold.replace('"module": "dus"', '"module": "dus_renamed"')


# Runs `verifier check` in a fresh interpreter, then names the solver
# packages that run loaded.
_SOLVERS_LOADED = """
import sys
from verifier.cli import main
code = main(sys.argv[1:])
print(code, *sorted(name for name in ("islpy", "z3") if name in sys.modules))
"""


def test_a_warm_run_answered_from_the_findings_cache_imports_no_solver(tmp_path: Path) -> None:
    # The solvers take most of the start-up of a warm run; a module the
    # findings cache answers needs neither (nor the analysis that asks them).
    path = write(tmp_path, "dus.hlo", DUS)
    argv = ["check", "--cache-dir", str(tmp_path / "cache"), str(path)]
    assert run(*argv)[0] == EXIT_OK
    warm = subprocess.run(
        [sys.executable, "-c", _SOLVERS_LOADED, *argv],
        capture_output=True,
        text=True,
        check=True,
    )
    assert warm.stdout.splitlines()[-1] == str(EXIT_OK)


def test_a_cold_run_without_refutations_imports_no_z3(tmp_path: Path) -> None:
    # isl decides; z3 confirms refutations (the default policy) and is
    # imported only when one needs it: a fifth of a small check's start-up.
    path = write(tmp_path, "dus.hlo", DUS)
    cold = subprocess.run(
        [sys.executable, "-c", _SOLVERS_LOADED, "check", "--no-cache", str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert cold.stdout.splitlines()[-1] == f"{EXIT_OK} islpy"


def test_no_cache_writes_no_cache_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    path = write(tmp_path, "dus.hlo", DUS)
    assert run("check", "--no-cache", str(path))[0] == EXIT_OK
    assert not (tmp_path / "xdg").exists()
    assert run("check", str(path))[0] == EXIT_OK
    assert (tmp_path / "xdg" / "verifier" / "proofs.sqlite3").is_file()


def test_no_progress_by_default_when_stderr_is_not_a_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "t.hlo", TRANSPOSE)
    run("check", "--no-cache", str(path))
    assert capsys.readouterr().err == ""
