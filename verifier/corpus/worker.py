"""The analysis process of a corpus run: reads one request per line on its
standard input, ``{"file": NAME, "text": HLO, "coalescing": DEVICE or null}``, analyses the module
(`rows.analyse_text`) and writes one answer per line — after a first line,
``ready``, once its imports are done — on the descriptor that was its
standard output — ``{"module": {...}, "operands": [...]}``, or
``{"error": MESSAGE}`` for a module that is not valid HLO, each with the
``cpu_seconds`` the analysis took in this process — until its input
closes.  Anything the analysis itself prints goes to standard error, so it
cannot corrupt the answers.

It runs as ``python -m verifier.corpus.worker``, started by
`supervisor.IsolatedAnalyser`, which kills it when a module takes longer than
its timeout and starts another: a module that hangs or crashes the
interpreter costs one process, never the run.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import IO, Any

from verifier.corpus.rows import analyse_text
from verifier.errors import VerifierError


def answer(request: dict[str, Any]) -> dict[str, Any]:
    """The answer to one request."""
    try:
        result = analyse_text(request["text"], request["file"], request.get("coalescing"))
    except VerifierError as error:
        return {"error": str(error)}
    except RecursionError:
        return {"error": "the module nests too deeply to analyse (recursion limit)"}
    return {"module": result.module, "operands": list(result.operands)}


READY = b"ready\n"


def serve(requests: IO[bytes], answers: IO[bytes]) -> None:
    """Say `READY` (the imports are done), then answer every request line of
    `requests` on `answers`, in order."""
    answers.write(READY)
    answers.flush()
    for line in requests:
        if line.strip():
            start = time.process_time()
            reply = answer(json.loads(line))
            reply["cpu_seconds"] = time.process_time() - start  # this process's, the module's
            answers.write(json.dumps(reply).encode() + b"\n")
            answers.flush()


if __name__ == "__main__":
    # The answers get a private copy of stdout; stdout itself becomes stderr.
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    serve(sys.stdin.buffer, answers)
