"""Whoever can write the proof cache but does not hold its key cannot decide
a verdict: forged rows (their checksum recomputed, or tagged under a
guessed key), malformed rows, a file of another user or writable by others,
a key file others may read — each is a warning, and the gate's findings and
exit code are those of a run without a cache.  A row tagged under the real
key does decide (the forgeries below are potent: only the key stops them).
"""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import os
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from verifier.cli import EXIT_OK, EXIT_REFUTED, main
from verifier.gate.cache_key import KEY_VARIABLE, default_key_file
from verifier.gate.sqlite_cache import FILE_NAME

ROOT = Path(__file__).parents[2]
# A module with a refuted bitcast: the forger wants it to pass.
REFUTED = ROOT / "examples" / "checks" / "bitcast_tiled.hlo"

Gate = tuple[int, dict[str, Any]]
Tagger = Callable[[bytes, str], bytes]


@pytest.fixture(autouse=True)
def private_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv(KEY_VARIABLE, raising=False)


def gate(cache: Path, capsys: pytest.CaptureFixture[str], *options: str) -> tuple[Gate, list[str]]:
    """The JSON report and exit code of `check` on the refuted module, and
    the warnings it printed."""
    capsys.readouterr()
    out = io.StringIO()
    argv = ["check", "--format", "json", "--jobs", "1", "--cache-dir", str(cache), *options]
    code = main([*argv, str(REFUTED)], out)
    err = capsys.readouterr().err
    warnings = [line for line in err.splitlines() if line.startswith("verifier: warning:")]
    return (code, json.loads(out.getvalue())), warnings


@pytest.fixture(scope="module")
def without_cache() -> Gate:
    out = io.StringIO()
    code = main(["check", "--format", "json", "--jobs", "1", "--no-cache", str(REFUTED)], out)
    assert code == EXIT_REFUTED
    return code, json.loads(out.getvalue())


def forged(answer: str) -> str:
    """A stored answer with every "refuted" turned into "proved" — and a
    remembered run's exit code 1 into 0, its report's status into "ok"."""
    if '"exit_code": 1' in answer:  # a run (`verifier.gate.replay`): its report is escaped
        return answer.replace('"exit_code": 1', '"exit_code": 0').replace(
            '\\"refuted\\"', '\\"ok\\"'
        )
    return answer.replace('"refuted"', '"proved"')


def forge(path: Path, tag: Tagger) -> int:
    """Forge every stored answer with a refutation in it (`forged`), each
    row's tag recomputed by `tag`; the number of rows forged."""
    with sqlite3.connect(path) as raw:
        rows = raw.execute("SELECT question, answer FROM answers").fetchall()
        forged_rows = [
            (forged(answer), question) for question, answer in rows if forged(answer) != answer
        ]
        raw.executemany(
            "UPDATE answers SET answer = ?, tag = ? WHERE question = ?",
            [(answer, tag(question, answer), question) for answer, question in forged_rows],
        )
    raw.close()
    return len(forged_rows)


def checksum(question: bytes, answer: str) -> bytes:
    """The unkeyed checksum schema 2 trusted: anyone can recompute it."""
    return hashlib.sha256(question + b"\0" + answer.encode()).digest()


def keyed(key: bytes) -> Tagger:
    return lambda question, answer: hmac.digest(key, question + b"\0" + answer.encode(), "sha256")


FORGERS = {
    "checksum": checksum,
    "empty key": keyed(b""),
    "guessed key": keyed(b"0" * 64),
}


@pytest.mark.parametrize("forger", FORGERS)
@pytest.mark.parametrize("mode", ["write", "read"])
def test_forged_rows_do_not_turn_a_refuted_module_to_pass(
    forger: str,
    mode: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    without_cache: Gate,
) -> None:
    cache = tmp_path / "cache"
    assert gate(cache, capsys) == (without_cache, [])
    assert forge(cache / FILE_NAME, FORGERS[forger]) >= 2
    result, warnings = gate(cache, capsys, "--cache-mode", mode)
    assert result == without_cache
    assert len(warnings) == 1 and "do not authenticate" in warnings[0]


def test_rows_tagged_under_the_key_do_decide(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], without_cache: Gate
) -> None:
    # The control: the same forgery with the key passes the gate, so the
    # tests above fail if the tag stops being checked.
    cache = tmp_path / "cache"
    gate(cache, capsys)
    forge(cache / FILE_NAME, keyed(default_key_file().read_bytes().strip()))
    (code, report), warnings = gate(cache, capsys, "--cache-mode", "read")
    assert code == EXIT_OK and warnings == [] and report != without_cache[1]


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE answers SET answer = 'not json'",
        "UPDATE answers SET answer = CAST(answer AS BLOB)",
        "UPDATE answers SET tag = zeroblob(3)",
        "UPDATE answers SET tag = 'text'",
    ],
)
def test_malformed_rows_are_answered_again(
    damage: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], without_cache: Gate
) -> None:
    cache = tmp_path / "cache"
    gate(cache, capsys)
    with sqlite3.connect(cache / FILE_NAME) as raw:
        raw.execute(damage)
    raw.close()
    for mode in ("read", "write"):
        result, warnings = gate(cache, capsys, "--cache-mode", mode)
        assert result == without_cache
        assert len(warnings) == 1


@pytest.mark.parametrize("answer", ["not json", "[1, 2]", "{}", '{"outcome": 7, "findings": 7}'])
def test_malformed_answers_even_under_the_key_are_answered_again(
    answer: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], without_cache: Gate
) -> None:
    # What only a holder of the key could write (a bug of a verifier of the
    # same version): still never a verdict, never a crash.
    cache = tmp_path / "cache"
    gate(cache, capsys)
    key = keyed(default_key_file().read_bytes().strip())
    with sqlite3.connect(cache / FILE_NAME) as raw:
        questions = [q for (q,) in raw.execute("SELECT question FROM answers")]
        raw.executemany(
            "UPDATE answers SET answer = ?, tag = ? WHERE question = ?",
            [(answer, key(q, answer), q) for q in questions],
        )
    raw.close()
    result, warnings = gate(cache, capsys, "--cache-mode", "read")
    assert result == without_cache
    assert len(warnings) <= 1


def test_a_cache_file_others_may_write_is_not_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], without_cache: Gate
) -> None:
    cache = tmp_path / "cache"
    gate(cache, capsys)
    path = cache / FILE_NAME
    forge(path, checksum)
    path.chmod(0o666)
    before = path.read_bytes()
    for mode in ("read", "write"):
        result, warnings = gate(cache, capsys, "--cache-mode", mode)
        assert result == without_cache
        assert len(warnings) == 1 and "written by group or others (mode 0o666)" in warnings[0]
    assert path.read_bytes() == before


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_cache_file_of_another_user_is_not_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], without_cache: Gate
) -> None:
    cache = tmp_path / "cache"
    gate(cache, capsys)
    path = cache / FILE_NAME
    os.chown(path, 65534, 65534)
    before = path.read_bytes()
    for mode in ("read", "write"):
        result, warnings = gate(cache, capsys, "--cache-mode", mode)
        assert result == without_cache
        assert len(warnings) == 1 and "belongs to another user (uid 65534)" in warnings[0]
    assert path.read_bytes() == before


def test_the_key_file_is_created_private_on_first_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key_file = default_key_file()
    assert key_file == tmp_path / "config" / "verifier" / "cache-key"
    assert not key_file.exists()
    gate(tmp_path / "cache", capsys)
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert len(key_file.read_bytes().strip()) == 64
    # The cache file does not hold the key.
    assert key_file.read_bytes().strip() not in (tmp_path / "cache" / FILE_NAME).read_bytes()


def test_a_key_file_others_may_read_stops_the_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], without_cache: Gate
) -> None:
    cache = tmp_path / "cache"
    gate(cache, capsys)
    default_key_file().chmod(0o640)
    result, warnings = gate(cache, capsys)
    assert result == without_cache
    assert len(warnings) == 1 and "may be read or written by others" in warnings[0]


def test_a_run_under_another_key_answers_again(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    without_cache: Gate,
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv(KEY_VARIABLE, "the secret of CI")
    gate(cache, capsys)
    forge(cache / FILE_NAME, keyed(b"a key of a pull request"))
    result, warnings = gate(cache, capsys, "--cache-mode", "read")
    assert result == without_cache and len(warnings) == 1
    monkeypatch.setenv(KEY_VARIABLE, "")
    result, warnings = gate(cache, capsys)
    assert result == without_cache
    assert len(warnings) == 1 and "VERIFIER_CACHE_KEY is set but empty" in warnings[0]


def test_no_place_for_the_key_file_is_no_cache(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    without_cache: Gate,
) -> None:
    (tmp_path / "a file").write_text("")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "a file" / "config"))
    result, warnings = gate(tmp_path / "cache", capsys)
    assert result == without_cache
    assert len(warnings) == 1 and "the key file" in warnings[0] and "not using it" in warnings[0]
    assert not (tmp_path / "cache").exists()
