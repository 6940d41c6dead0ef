"""One module per analysis process, with a deadline: a hang is a
``timeout``, a crash an ``error``, bad HLO an ``error`` with its place —
and the next module is analysed all the same."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from verifier.corpus.supervisor import IsolatedAnalyser

EXAMPLES = Path(__file__).parents[2] / "examples"
SLICE = (EXAMPLES / "spec" / "slice.hlo").read_text()


@pytest.mark.slow  # starts the analysis process twice
def test_a_module_past_its_deadline_is_a_timeout_and_the_next_one_is_analysed() -> None:
    with IsolatedAnalyser(timeout=0.001) as analyser:
        late = analyser.analyse("slice.hlo", SLICE)
        assert (late.status, late.answer) == ("timeout", None)
        assert late.error == "no answer within 0.001 s"
        analyser.timeout = 120
        again = analyser.analyse("slice.hlo", SLICE)
    assert again.status == "ok" and again.answer is not None
    assert again.answer.module["module"] == "slice"
    assert [row["instruction"] for row in again.answer.operands] == ["slice"]


def test_a_crashed_analysis_process_is_an_error_row() -> None:
    # A process that dies of a signal at its first request, as a native crash would.
    crash = [
        sys.executable,
        "-c",
        "import os, signal, sys; print('ready', flush=True); sys.stdin.readline();"
        " os.kill(os.getpid(), signal.SIGSEGV)",
    ]
    with IsolatedAnalyser(timeout=60, command=crash) as analyser:
        died = analyser.analyse("slice.hlo", SLICE)
        assert (died.status, died.error) == ("error", "the analysis process died (signal 11)")
        exited = IsolatedAnalyser(timeout=60, command=[sys.executable, "-c", "raise SystemExit(3)"])
        assert (
            exited.analyse("slice.hlo", SLICE).error == "the analysis process died (exit status 3)"
        )


@pytest.mark.slow  # starts the analysis process
def test_bad_hlo_is_an_error_with_its_place() -> None:
    with IsolatedAnalyser(timeout=120) as analyser:
        bad = analyser.analyse("bad.hlo", "HloModule m\nENTRY e {\n  ROOT p = f32[2] nope(\n}\n")
    assert bad.status == "error" and bad.error is not None
    assert bad.error.startswith("bad.hlo:3:19: unknown opcode 'nope'")


@pytest.mark.slow  # waits 5 s for the process to end by itself
def test_a_process_that_does_not_say_ready_is_an_error_before_any_module() -> None:
    chatty = [sys.executable, "-c", "import time; print('hello', flush=True); time.sleep(60)"]
    with IsolatedAnalyser(timeout=60, command=chatty) as analyser:
        attempt = analyser.analyse("slice.hlo", SLICE)
    assert (attempt.status, attempt.seconds) == ("error", 0.0)
    assert attempt.error == "the analysis process died (signal 9)"
