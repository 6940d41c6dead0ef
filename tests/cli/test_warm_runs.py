"""A warm `verifier check` — unchanged modules, the same options — prints and
writes what the cold run did, byte for byte, without parsing a module or
starting a worker; a stored run or module's findings that someone edited,
forged or damaged is a warning and a run computed afresh, never a verdict
(#34)."""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import sqlite3
from pathlib import Path

import pytest

from verifier.cli import EXIT_REFUTED, main
from verifier.gate.cache_key import KEY_VARIABLE, default_key_file
from verifier.gate.sqlite_cache import FILE_NAME

EXAMPLES = Path(__file__).parents[2] / "examples"
# One refuted module, one proved: the verdict a forger would want changed.
MODULES = (EXAMPLES / "checks" / "bitcast_tiled.hlo", EXAMPLES / "spec" / "dot.hlo")


@pytest.fixture(autouse=True)
def private_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv(KEY_VARIABLE, raising=False)


def check(
    cache: Path,
    capsys: pytest.CaptureFixture[str],
    *options: str,
    paths: tuple[Path, ...] = MODULES,
) -> tuple[int, str, list[str]]:
    """The exit code and standard output of `check`, and its warnings."""
    capsys.readouterr()
    out = io.StringIO()
    code = main(["check", "--cache-dir", str(cache), *options, *map(str, paths)], out)
    err = capsys.readouterr().err
    return code, out.getvalue(), [x for x in err.splitlines() if x.startswith("verifier: warning:")]


def nothing_checked(monkeypatch: pytest.MonkeyPatch, *, findings_read: bool = True) -> None:
    """From here on, parsing a module or starting a worker fails the test —
    and so does reading a module's remembered findings, unless `findings_read`."""

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("a warm run parses no module and starts no worker")

    monkeypatch.setattr("verifier.hlo.parse_module", refused)
    monkeypatch.setattr("concurrent.futures.ProcessPoolExecutor", refused)
    if not findings_read:
        monkeypatch.setattr("verifier.gate.findings_cache.recall", refused)


@pytest.mark.parametrize("fmt", ["text", "json", "junit", "sarif"])
def test_a_warm_run_prints_and_writes_the_cold_runs_reports(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    cold = check(cache, capsys, "--format", fmt)
    report = tmp_path / f"report.{fmt}"
    written = check(cache, capsys, "--format", fmt, "--output", str(report))
    cold_file = report.read_bytes()
    report.unlink()
    nothing_checked(monkeypatch, findings_read=False)  # the run is remembered whole
    assert check(cache, capsys, "--format", fmt) == cold
    assert check(cache, capsys, "--format", fmt, "--output", str(report)) == written
    assert report.read_bytes() == cold_file
    assert cold[0] == EXIT_REFUTED and cold[2] == []


def test_findings_remembered_by_another_run_start_no_worker(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The JSON run is not remembered, each module's findings are: the
    # parent recalls them all, so the two jobs need no worker.
    cache = tmp_path / "cache"
    cold = check(cache, capsys, "--jobs", "1", "--format", "json")
    expected = check(cache, capsys, "--jobs", "1", "--no-cache", "--format", "sarif")
    nothing_checked(monkeypatch)
    assert check(cache, capsys, "--jobs", "2", "--format", "sarif") == expected
    assert check(cache, capsys, "--jobs", "2", "--format", "json") == cold


def test_an_edited_module_or_other_options_are_checked_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "cache"
    module = tmp_path / "m.hlo"
    module.write_text(MODULES[0].read_text())
    code, cold, _ = check(cache, capsys, "--format", "json", paths=(module,))
    assert code == EXIT_REFUTED
    # One byte more: the same findings (the cache answers the questions),
    # but a module that now fails to parse is not answered from the cache.
    module.write_text(MODULES[0].read_text() + "\n")
    assert check(cache, capsys, "--format", "json", paths=(module,))[:2] == (code, cold)
    module.write_text(MODULES[0].read_text() + "}\n")
    assert check(cache, capsys, "--format", "json", paths=(module,))[0] == 2
    module.write_text(MODULES[0].read_text())
    # Another check set, then --strict: other findings, another exit code.
    fewer = check(cache, capsys, "--format", "json", "--checks", "in-bounds", paths=(module,))
    assert json.loads(fewer[1])["findings"] != json.loads(cold)["findings"]
    assert fewer == check(
        cache, capsys, "--format", "json", "--checks", "in-bounds", "--no-cache", paths=(module,)
    )


def _rows(cache: Path) -> list[tuple[bytes, str]]:
    with sqlite3.connect(cache / FILE_NAME) as raw:
        rows = raw.execute("SELECT question, answer FROM answers").fetchall()
    raw.close()
    return rows


def _rewrite(cache: Path, rows: list[tuple[bytes, str, bytes]]) -> None:
    with sqlite3.connect(cache / FILE_NAME) as raw:
        raw.executemany(
            "UPDATE answers SET answer = ?, tag = ? WHERE question = ?",
            [(a, t, q) for q, a, t in rows],
        )
    raw.close()


def _passing(answer: str) -> str:
    """A stored run or module's findings made to pass the gate."""
    stored = json.loads(answer)
    if "exit_code" in stored:  # a run: exit 0, and its report says so
        stored["exit_code"] = 0
        stored["stdout"] = stored["stdout"].replace('"refuted"', '"ok"')
    else:  # a module's answers: every result proved
        for result in stored.get("results", []):
            result[0] = "proved"
    return json.dumps(stored, sort_keys=True)


def _checksum(question: bytes, answer: str) -> bytes:
    """A tag anyone can compute: no key."""
    return hashlib.sha256(question + b"\0" + answer.encode()).digest()


def _key_tag(question: bytes, answer: str) -> bytes:
    key = default_key_file().read_bytes().strip()
    return hmac.digest(key, question + b"\0" + answer.encode(), "sha256")


@pytest.mark.parametrize("forger", ["keyless", "key holder"])
def test_an_edited_run_or_findings_row_decides_only_under_the_key(
    forger: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "cache"
    cold = check(cache, capsys, "--format", "json")
    remembered = [
        (question, _passing(answer))
        for question, answer in _rows(cache)
        if '"exit_code"' in answer or '"answers"' in answer
    ]
    assert len(remembered) == 3  # the run, and each module's answers
    tag = _key_tag if forger == "key holder" else _checksum
    _rewrite(cache, [(question, answer, tag(question, answer)) for question, answer in remembered])
    code, report, warnings = check(cache, capsys, "--format", "json")
    if forger == "keyless":
        assert (code, report) == cold[:2]
        assert len(warnings) == 1 and "do not authenticate" in warnings[0]
    else:  # the control: the forgery is potent, only the key stops it
        assert code == 0 and warnings == []


@pytest.mark.parametrize(
    "damage",
    [
        lambda stored: {**stored, "exit_code": "0"},
        lambda stored: {**stored, "findings": "all"},
        lambda stored: {key: value for key, value in stored.items() if key != "stdout"},
        # A module's answers malformed, and the run, so that they are read.
        lambda stored: {**stored, "answers": "all", "exit_code": "0"},
        lambda stored: {**stored, "rows": stored.get("rows", 0) + 1, "exit_code": "0"},
    ],
    ids=["exit code", "findings", "missing", "answers", "a row more"],
)
def test_a_malformed_row_under_the_key_is_answered_again_with_a_warning(
    damage: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Only a holder of the key (a bug of the same verifier) writes these:
    # still never a verdict, never a crash.
    cache = tmp_path / "cache"
    cold = check(cache, capsys, "--format", "json")
    damaged = []
    for question, answer in _rows(cache):
        stored = json.loads(answer)
        if "exit_code" in stored or "answers" in stored:
            text = json.dumps(damage(stored), sort_keys=True)  # type: ignore[operator]
            damaged.append((question, text, _key_tag(question, text)))
    _rewrite(cache, damaged)
    code, report, warnings = check(cache, capsys, "--format", "json")
    assert (code, report) == cold[:2]
    assert len(warnings) == 1 and "not what the check reading them writes" in warnings[0]
