"""Run one hostile input through a parser or the CLI, under a time guard, and
say how it ended: an answer, a `VerifierError` (the CLI: an exit code), a
traceback (any other exception: a bug), or a hang (the guard fired).

The guard is a real-time interval timer whose handler raises `Hang`, a
`BaseException` so that no ``except Exception`` in the code under test
swallows it; it fires between Python bytecodes, so a solver stuck inside
one C call is caught when the call returns (the budgets of #13 bound those).

    python -m tests.fuzz.campaign --help     # the ≥ 100,000-input campaign
"""

from __future__ import annotations

import contextlib
import enum
import io
import signal
import tempfile
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from verifier.cli import main
from verifier.errors import ParseError, VerifierError
from verifier.expr.parser import parse_map_or_undefined
from verifier.hlo.parser import parse_module_file

PARSER_SECONDS = 5.0
CLI_SECONDS = 60.0


class Hang(BaseException):
    """The time guard fired."""


class Ending(enum.Enum):
    ANSWER = "answer"
    ERROR = "verifier error"  # a VerifierError, or the CLI's exit code 2
    TRACEBACK = "traceback"
    HANG = "hang"
    WRONG_EXIT = "wrong exit code"  # e.g. exit 1 ("refuted") from a command that refutes nothing


@dataclass(frozen=True)
class Result:
    ending: Ending
    kind: str = ""  # what failed and where, e.g. "RecursionError at nodes.py:431"
    detail: str = ""  # the message of the first such failure


@contextlib.contextmanager
def time_guard(seconds: float) -> Iterator[None]:
    def fire(signum: int, frame: FrameType | None) -> None:
        raise Hang(f"no answer in {seconds} s")

    previous = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _failure(error: BaseException) -> Result:
    """A traceback: the exception, the innermost frame of the tool that
    raised it, and its message."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if "/verifier/" in f.filename]
    place = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    return Result(Ending.TRACEBACK, f"{type(error).__name__}{place}", str(error)[:200])


def guarded(call: Callable[[], object], seconds: float) -> Result:
    """How `call` ends under a time guard of `seconds`."""
    try:
        with time_guard(seconds):
            call()
    except Hang as hang:
        return Result(Ending.HANG, "time guard", str(hang))
    except ParseError as error:
        if error.span.line < 1 or error.span.column < 1:
            return Result(Ending.TRACEBACK, "ParseError without a place", str(error)[:200])
        return Result(Ending.ERROR)
    except VerifierError:
        return Result(Ending.ERROR)
    except Exception as error:  # any other exception (RecursionError too) is the finding
        return _failure(error)
    return Result(Ending.ANSWER)


# ---------------------------------------------------------------- targets


def parse_map_text(data: bytes) -> Result:
    """The map parser on `data` decoded as the CLI decodes an argument."""
    text = data.decode("utf-8", "surrogateescape")
    return guarded(lambda: parse_map_or_undefined(text, "fuzz"), PARSER_SECONDS)


def parse_hlo_file(data: bytes, directory: Path) -> Result:
    """The HLO parser on a file holding `data` (bytes: not UTF-8 included)."""
    path = directory / "fuzz.hlo"
    path.write_bytes(data)
    return guarded(lambda: parse_module_file(path), PARSER_SECONDS)


# The exit code of an internal error (a traceback caught by the CLI).
EXIT_INTERNAL = 70
# Commands that never refute: their exit code is never 1.
_NEVER_REFUTE = {"maps", "utilization", "simplify"}


def cli(argv: list[str]) -> Result:
    """`verifier ARGV` in process; its output discarded."""
    codes: list[int] = []
    with contextlib.redirect_stderr(io.StringIO()):
        result = guarded(lambda: codes.append(main(argv, io.StringIO())), CLI_SECONDS)
    if result.ending is not Ending.ANSWER:
        return result
    (code,) = codes
    if code == EXIT_INTERNAL:
        return Result(Ending.TRACEBACK, f"internal error (exit {code}) from {argv[0]}")
    if code == 1 and argv[0] in _NEVER_REFUTE:
        return Result(Ending.WRONG_EXIT, f"exit 1 from {argv[0]}")
    if code not in (0, 1, 2, 3, 4):
        return Result(Ending.WRONG_EXIT, f"exit {code} from {argv[0]}")
    return Result(Ending.ERROR if code == 2 else Ending.ANSWER)


def cli_on_module(command: str, data: bytes, directory: Path) -> Result:
    """`verifier COMMAND` on a module file holding `data`."""
    path = directory / "fuzz.hlo"
    path.write_bytes(data)
    argv = {
        "maps": ["maps", "--all", str(path)],
        "check": ["check", "--cache-mode", "off", "--format", "sarif", str(path)],
        "utilization": ["utilization", str(path)],
    }[command]
    return cli(argv)


def cli_on_map(command: str, data: bytes) -> Result:
    """`verifier simplify MAP` or `verifier equiv MAP MAP` on a map text."""
    text = data.decode("utf-8", "surrogateescape")
    return cli(["simplify", text] if command == "simplify" else ["equiv", text, text])


@contextlib.contextmanager
def scratch() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="verifier-fuzz-") as directory:
        yield Path(directory)
