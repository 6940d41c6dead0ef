"""The XLA-corpus benchmark never turns a failure into a refutation: a child
killed (CPU or memory limit) is a timeout, a child whose check raises is an
exit 70; and every child runs the code of the run's start, never modules
read from disk after the checkout changed."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmarks import xla_corpus

EXAMPLE = Path(__file__).parents[2] / "examples" / "syntax" / "26_array_all_gather_start.hlo"


@pytest.mark.slow  # imports every module of the tool: over a CPU-second
def test_after_preload_a_check_imports_no_module_of_the_tool() -> None:
    xla_corpus.preload()
    before = {name for name in sys.modules if name.startswith("verifier")}
    record = xla_corpus.check_one(EXAMPLE)
    assert record["exit"] == 0
    assert {name for name in sys.modules if name.startswith("verifier")} == before


def _killed(path: Path) -> dict[str, Any]:
    os.kill(os.getpid(), signal.SIGKILL)
    raise AssertionError("not reached")


def _out_of_memory(path: Path) -> dict[str, Any]:
    raise MemoryError


@pytest.mark.parametrize(("failure", "exit"), [(_killed, "timeout"), (_out_of_memory, 70)])
def test_a_failing_child_is_never_a_refutation(
    failure: Any, exit: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(xla_corpus, "check_one", failure)  # the forked child inherits it
    ((path, record),) = list(xla_corpus.run_all([EXAMPLE], 1, 60.0))
    assert path == str(EXAMPLE)
    assert record["exit"] == exit
