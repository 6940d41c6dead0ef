"""`check --output FILE` writes the report whole or not at all: through a
temporary file beside FILE renamed over it, so that a full disk or a
failing writer leaves the previous report as it was (and no temporary file
behind); a symbolic link planted at FILE is refused, its target untouched."""

from __future__ import annotations

import io
import json
import os
import resource
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from verifier.cli import EXIT_BAD_INPUT, EXIT_INTERNAL_ERROR, EXIT_OK, main
from verifier.report import gate_formats

ROOT = Path(__file__).parents[2]
SOFTMAX = ROOT / "examples" / "real" / "softmax.hlo"
OLD_REPORT = '{"status": "ok", "an earlier run": true}\n'


def check(output: Path, *extra: str) -> tuple[int, str]:
    out = io.StringIO()
    argv = ["check", "--no-cache", "--jobs", "1", "--format", "json", "--output", str(output)]
    return main([*argv, *extra, str(SOFTMAX)], out), out.getvalue()


def test_the_report_replaces_the_earlier_one(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    report.write_text(OLD_REPORT)
    os.chmod(report, 0o640)
    code, _ = check(report)
    assert code == EXIT_OK
    assert json.loads(report.read_text())["files"] == [str(SOFTMAX)]
    assert os.stat(report).st_mode & 0o777 == 0o640  # its permissions are kept
    assert os.listdir(tmp_path) == ["report.json"]


def test_a_symlink_at_the_report_path_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    precious = tmp_path / "precious"
    precious.write_text("not a report\n")
    link = tmp_path / "report.json"
    link.symlink_to(precious)
    code, out = check(link)
    assert code == EXIT_BAD_INPUT
    assert "symbolic link" in capsys.readouterr().err
    assert out == ""  # refused before any work
    assert precious.read_text() == "not a report\n" and link.is_symlink()


@pytest.mark.parametrize("target", [os.devnull, "{tmp}"])
def test_a_target_that_is_not_a_regular_file_is_refused(
    target: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = check(Path(target.format(tmp=tmp_path)))
    assert code == EXIT_BAD_INPUT
    assert "not a file to write" in capsys.readouterr().err
    assert os.path.exists(os.devnull) and not Path(os.devnull).is_file()


def test_a_writer_failing_half_way_leaves_the_earlier_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing(run: object, report_format: str) -> Iterator[str]:
        yield '{"status": '
        raise RuntimeError("the renderer broke")

    report = tmp_path / "report.json"
    report.write_text(OLD_REPORT)
    monkeypatch.setattr(gate_formats, "report_chunks", failing)
    code, _ = check(report)
    assert code == EXIT_INTERNAL_ERROR
    assert report.read_text() == OLD_REPORT
    assert os.listdir(tmp_path) == ["report.json"]


def _limit_file_size() -> None:
    # Writes past 2 KB fail with EFBIG (Python ignores SIGXFSZ): a disk that fills up.
    resource.setrlimit(resource.RLIMIT_FSIZE, (2048, resource.RLIM_INFINITY))


def test_a_write_past_the_file_size_limit_leaves_the_earlier_report(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    report.write_text(OLD_REPORT)
    argv = ["check", "--no-cache", "--jobs", "1", "--format", "json", "--output", str(report)]
    finished = subprocess.run(
        [sys.executable, "-m", "verifier", *argv, str(SOFTMAX)],
        capture_output=True,
        text=True,
        preexec_fn=_limit_file_size,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"},
        timeout=120,
    )
    assert finished.returncode == EXIT_BAD_INPUT, finished.stderr
    assert f"{report}: not written (File too large)" in finished.stderr
    assert report.read_text() == OLD_REPORT
    assert os.listdir(tmp_path) == ["report.json"]


@pytest.fixture
def small_tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A 64 KB tmpfs (root only, where mounting is allowed; else skipped)."""
    mount = tmp_path / f"tmpfs-{uuid.uuid4().hex[:8]}"
    mount.mkdir()
    if shutil.which("mount") is None or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {mounted.stderr.decode(errors='replace')}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


def test_a_full_disk_leaves_the_earlier_report(
    small_tmpfs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = small_tmpfs / "report.json"
    report.write_text(OLD_REPORT)
    # Filled to the last block.
    with open(small_tmpfs / "filler", "wb", buffering=0) as filler, pytest.raises(OSError):
        while True:
            filler.write(b"\0" * 4096)
    code, _ = check(report)
    assert code == EXIT_BAD_INPUT
    assert "not written (No space left on device)" in capsys.readouterr().err
    assert report.read_text() == OLD_REPORT
    assert sorted(os.listdir(small_tmpfs)) == ["filler", "report.json"]
