"""A FIFO, a device or a socket named on the command line is refused with
its name (exit 2) — never read (a FIFO with no writer blocks forever),
never skipped into "0 files, gate: PASS".  Every run is under a time guard:
a blocked read fails the test instead of hanging it."""

from __future__ import annotations

import io
import os
import shutil
import signal
import socket
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest

from verifier.cli import EXIT_BAD_INPUT, EXIT_OK, main

SOFTMAX = Path(__file__).parents[2] / "examples" / "real" / "softmax.hlo"


class Blocked(BaseException):
    """Raised by the time guard; a BaseException, so that no handler of the
    command line turns it into an exit code."""


@pytest.fixture(autouse=True)
def time_guard() -> Iterator[None]:
    def expire(signum: int, frame: FrameType | None) -> None:
        raise Blocked("the command blocked")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(10)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def fifo(tmp_path: Path) -> str:
    path = tmp_path / "module.hlo"
    os.mkfifo(path)  # no writer: opened for reading the usual way, it blocks
    return str(path)


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    out = io.StringIO()
    code = main(argv, out)
    return code, out.getvalue(), capsys.readouterr().err


MAP = "(d0) -> (d0), domain: d0 in [0, 3]"


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "--no-cache", "{}"],
        ["check", "--no-cache", "--jobs", "2", "{}"],
        ["maps", "{}"],
        ["maps", "--to-parameters", "{}"],
        ["utilization", "{}"],
        ["simplify", "@{}"],
        ["simplify", "--batch", "{}"],
        ["equiv", "@{}", MAP],
        ["equiv", "--batch", "{}"],
        ["tile", "{}"],
        ["coalescing", "{}"],
        ["xla-tests", "{}"],
    ],
)
def test_a_fifo_is_refused_with_its_name(
    argv: list[str], fifo: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run([a.format(fifo) for a in argv], capsys)
    assert code == EXIT_BAD_INPUT
    assert "PASS" not in out
    assert fifo in out + err and "FIFO" in out + err


@pytest.mark.parametrize(
    "command",
    [
        ["check", "--no-cache"],
        ["maps"],
        ["simplify", "--batch"],
        ["tile"],
        ["coalescing"],
        ["xla-tests"],
    ],
)
def test_a_device_is_refused_with_its_name(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run([*command, os.devnull], capsys)
    assert code == EXIT_BAD_INPUT
    assert "PASS" not in out
    assert f"{os.devnull}: not a" in out + err and "character device" in out + err


def test_a_socket_is_refused_by_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.hlo"
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(str(path))
        code, out, _ = run(["check", "--no-cache", str(path)], capsys)
    assert code == EXIT_BAD_INPUT
    assert "socket" in out and "PASS" not in out


def test_fifos_inside_a_directory_are_not_modules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found by the directory walk (not named), a FIFO is not a module file;
    # one named like a dump's .txt module is never opened to sniff it.
    shutil.copy(SOFTMAX, tmp_path / "softmax.hlo")
    os.mkfifo(tmp_path / "pipe.hlo")
    os.mkfifo(tmp_path / "module_0001.after_optimizations.txt")
    code, out, _ = run(["check", "--no-cache", "--format", "json", str(tmp_path)], capsys)
    assert code == EXIT_OK
    assert '"files": [\n    "' + str(tmp_path / "softmax.hlo") + '"\n  ]' in out


def test_stdin_is_still_read_by_a_batch(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(f"{MAP}\t{MAP}\n".encode()))
    monkeypatch.setattr("sys.stdin", stdin)
    code, out, _ = run(["equiv", "--batch", "-"], capsys)
    assert code == EXIT_OK and '"equal"' in out
