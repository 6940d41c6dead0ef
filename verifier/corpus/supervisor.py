"""One module at a time in a process of its own, with a deadline.

`IsolatedAnalyser` keeps one analysis process (`verifier.corpus.worker`)
alive between modules — the interpreter and its imports are paid once —
and gives each module `timeout` seconds of wall time.  A module that does
not answer in time gets its process killed (the next module starts a new
one) and is a ``timeout``; a process that dies (a crash in a native
library, the memory killer) is an ``error`` naming its exit status; a
module that is not valid HLO is an ``error`` with the parser's message.
Nothing a module does stops the run.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from verifier.corpus.rows import ModuleAnswer, Status
from verifier.corpus.worker import READY


@dataclass(frozen=True)
class Attempt:
    """How the analysis of one module ended."""

    status: Status
    answer: ModuleAnswer | None
    error: str | None
    seconds: float
    cpu_seconds: float | None = None  # the analysis process's; None when it never answered


# The analysis process: `verifier.corpus.worker` in this interpreter.
WORKER_COMMAND = (sys.executable, "-m", "verifier.corpus.worker")

# How long a new analysis process may take to import verifier (not counted
# in any module's time or timeout).
START_SECONDS = 120.0


class _Died(Exception):
    """The analysis process ended before it answered."""


class IsolatedAnalyser:
    """Analyses modules one by one in a child process (not thread-safe: one
    per thread)."""

    def __init__(self, timeout: float, command: Sequence[str] = WORKER_COMMAND) -> None:
        self.timeout = timeout
        self.command = tuple(command)
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> IsolatedAnalyser:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Stop the analysis process, if one runs."""
        process, self._process = self._process, None
        if process is not None:
            assert process.stdin is not None and process.stdout is not None
            process.stdin.close()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            process.stdout.close()

    def analyse(self, file: str, text: str, coalescing: str | None = None) -> Attempt:
        """Analyse the module `text` (named `file`; with the coalescing
        columns on device `coalescing`) within the timeout (which does not
        count the start of a new analysis process)."""
        try:
            process = self._started()
        except _Died as died:
            return Attempt("error", None, str(died), 0.0)
        start = time.monotonic()
        try:
            request = {"file": file, "text": text, "coalescing": coalescing}
            reply = self._ask(process, request, start + self.timeout)
        except TimeoutError:
            self._kill()
            return Attempt("timeout", None, f"no answer within {self.timeout:g} s", _since(start))
        except _Died as died:
            return Attempt("error", None, str(died), _since(start))
        cpu = reply.get("cpu_seconds")
        if "error" in reply:
            return Attempt("error", None, str(reply["error"]), _since(start), cpu)
        answer = ModuleAnswer(reply["module"], tuple(reply["operands"]))
        return Attempt("ok", answer, None, _since(start), cpu)

    def _started(self) -> subprocess.Popen[bytes]:
        """The analysis process, started (and its imports done) if need be."""
        if self._process is None:
            self._process = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
            )
            assert self._process.stdout is not None
            try:
                ready = _read_line(self._process.stdout.fileno(), time.monotonic() + START_SECONDS)
            except TimeoutError:
                self._kill()
                raise _Died(
                    f"the analysis process did not start within {START_SECONDS:g} s"
                ) from None
            if ready != READY:
                raise self._died()
        return self._process

    def _ask(
        self, process: subprocess.Popen[bytes], request: dict[str, Any], deadline: float
    ) -> dict[str, Any]:
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(json.dumps(request).encode() + b"\n")
            process.stdin.flush()
        except BrokenPipeError:
            raise self._died() from None
        line = _read_line(process.stdout.fileno(), deadline)
        if not line:
            raise self._died()
        reply: dict[str, Any] = json.loads(line)
        return reply

    def _died(self) -> _Died:
        process, self._process = self._process, None
        assert process is not None
        try:
            code = process.wait(timeout=5)
        except subprocess.TimeoutExpired:  # it said something else than READY
            process.kill()
            code = process.wait()
        how = f"signal {-code}" if code < 0 else f"exit status {code}"
        return _Died(f"the analysis process died ({how})")

    def _kill(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            process.kill()
            process.wait()


def _since(start: float) -> float:
    return time.monotonic() - start


def _read_line(descriptor: int, deadline: float) -> bytes:
    """Bytes up to and including the next newline of `descriptor` (fewer at
    its end); `TimeoutError` when the deadline passes first."""
    chunks: list[bytes] = []
    with selectors.DefaultSelector() as selector:
        selector.register(descriptor, selectors.EVENT_READ)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not selector.select(remaining):
                raise TimeoutError
            chunk = os.read(descriptor, 1 << 20)
            chunks.append(chunk)
            if not chunk or chunk.endswith(b"\n"):
                return b"".join(chunks)
